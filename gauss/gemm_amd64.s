//go:build !purego

#include "textflag.h"

// mulInto's vector kernel (gemm.go): each C_ij starts at +0 and takes
// C_ij += A_il·B_lj for l = 0, 1, …, k−1, skipping A_il = ±0, as gonum's
// AxpyUnitary rounds it: VMULPD of the row of B by A_il (B the first
// operand), then VADDPD with the product first; no fused multiply-add.

// func mulIntoAVX(c, a, b *float64, m, k, width, ldc, ai, al, ldb int)
//
// DI &C[i][0], SI &A(i, 0), DX &B[0][0], BX column offset, AX &B[l][j],
// CX &A(i, l), R15 terms left; 32 columns at a time in Y0–Y7, then 4 in Y0.
TEXT ·mulIntoAVX(SB), NOSPLIT, $0-80
	MOVQ c+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ m+24(FP), R8
	MOVQ k+32(FP), R9
	MOVQ width+40(FP), R10
	SHLQ $3, R10
	MOVQ ldc+48(FP), R11
	SHLQ $3, R11
	MOVQ ai+56(FP), R12
	SHLQ $3, R12
	MOVQ al+64(FP), R13
	SHLQ $3, R13
	MOVQ ldb+72(FP), R14
	SHLQ $3, R14
	VXORPD X15, X15, X15

row:
	XORQ BX, BX

c32:
	LEAQ 256(BX), AX
	CMPQ AX, R10
	JGT  c4
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	MOVQ SI, CX
	LEAQ (DX)(BX*1), AX
	MOVQ R9, R15

l32:
	VMOVSD   (CX), X8
	VUCOMISD X15, X8
	JNE      m32
	JPS      m32
	JMP      n32

m32:
	VBROADCASTSD (CX), Y8
	VMOVUPD (AX), Y9
	VMULPD  Y8, Y9, Y9
	VADDPD  Y0, Y9, Y0
	VMOVUPD 32(AX), Y10
	VMULPD  Y8, Y10, Y10
	VADDPD  Y1, Y10, Y1
	VMOVUPD 64(AX), Y11
	VMULPD  Y8, Y11, Y11
	VADDPD  Y2, Y11, Y2
	VMOVUPD 96(AX), Y12
	VMULPD  Y8, Y12, Y12
	VADDPD  Y3, Y12, Y3
	VMOVUPD 128(AX), Y9
	VMULPD  Y8, Y9, Y9
	VADDPD  Y4, Y9, Y4
	VMOVUPD 160(AX), Y10
	VMULPD  Y8, Y10, Y10
	VADDPD  Y5, Y10, Y5
	VMOVUPD 192(AX), Y11
	VMULPD  Y8, Y11, Y11
	VADDPD  Y6, Y11, Y6
	VMOVUPD 224(AX), Y12
	VMULPD  Y8, Y12, Y12
	VADDPD  Y7, Y12, Y7

n32:
	ADDQ R13, CX
	ADDQ R14, AX
	DECQ R15
	JNZ  l32
	VMOVUPD Y0, (DI)(BX*1)
	VMOVUPD Y1, 32(DI)(BX*1)
	VMOVUPD Y2, 64(DI)(BX*1)
	VMOVUPD Y3, 96(DI)(BX*1)
	VMOVUPD Y4, 128(DI)(BX*1)
	VMOVUPD Y5, 160(DI)(BX*1)
	VMOVUPD Y6, 192(DI)(BX*1)
	VMOVUPD Y7, 224(DI)(BX*1)
	ADDQ    $256, BX
	JMP     c32

c4:
	LEAQ   32(BX), AX
	CMPQ   AX, R10
	JGT    next
	VXORPD Y0, Y0, Y0
	MOVQ   SI, CX
	LEAQ   (DX)(BX*1), AX
	MOVQ   R9, R15

l4:
	VMOVSD   (CX), X8
	VUCOMISD X15, X8
	JNE      m4
	JPS      m4
	JMP      n4

m4:
	VBROADCASTSD (CX), Y8
	VMOVUPD      (AX), Y9
	VMULPD       Y8, Y9, Y9
	VADDPD       Y0, Y9, Y0

n4:
	ADDQ    R13, CX
	ADDQ    R14, AX
	DECQ    R15
	JNZ     l4
	VMOVUPD Y0, (DI)(BX*1)
	ADDQ    $32, BX
	JMP     c4

next:
	ADDQ R11, DI
	ADDQ R12, SI
	DECQ R8
	JNZ  row
	VZEROUPPER
	RET
