//go:build !purego

#include "textflag.h"

// bayesRisk's passes over the labels (bayesrisk_kernels.go), four labels
// a lane group, each operation one IEEE multiply, add, subtract or divide
// of a cell rounded as in the scalar twins: no fused multiply-add.

// func accRowsAVX(out, k, q *float64, rows, terms, width, m, kr, kj int)
//
// out[r*m+l] += k[r*kr+j*kj]·q[j*m+l] for j = 0, 1, …, terms−1, l < width
// (a multiple of 4): 16 labels at a time, then 4.
// DI &out[r][0], SI &k[r*kr], BX label offset, AX &q[j][l], CX &k[r*kr+j*kj],
// R14 terms left.
TEXT ·accRowsAVX(SB), NOSPLIT, $0-72
	MOVQ out+0(FP), DI
	MOVQ k+8(FP), SI
	MOVQ q+16(FP), DX
	MOVQ rows+24(FP), R8
	MOVQ terms+32(FP), R9
	MOVQ width+40(FP), R10
	SHLQ $3, R10
	MOVQ m+48(FP), R11
	SHLQ $3, R11
	MOVQ kr+56(FP), R12
	SHLQ $3, R12
	MOVQ kj+64(FP), R13
	SHLQ $3, R13

acc_row:
	TESTQ R8, R8
	JEQ   acc_done
	XORQ  BX, BX

acc_16:
	LEAQ    128(BX), AX
	CMPQ    AX, R10
	JGT     acc_4
	VMOVUPD (DI)(BX*1), Y0
	VMOVUPD 32(DI)(BX*1), Y1
	VMOVUPD 64(DI)(BX*1), Y2
	VMOVUPD 96(DI)(BX*1), Y3
	MOVQ    SI, CX
	LEAQ    (DX)(BX*1), AX
	MOVQ    R9, R14

acc_16_term:
	TESTQ        R14, R14
	JEQ          acc_16_store
	VBROADCASTSD (CX), Y4
	VMULPD       (AX), Y4, Y5
	VADDPD       Y5, Y0, Y0
	VMULPD       32(AX), Y4, Y6
	VADDPD       Y6, Y1, Y1
	VMULPD       64(AX), Y4, Y7
	VADDPD       Y7, Y2, Y2
	VMULPD       96(AX), Y4, Y8
	VADDPD       Y8, Y3, Y3
	ADDQ         R13, CX
	ADDQ         R11, AX
	DECQ         R14
	JMP          acc_16_term

acc_16_store:
	VMOVUPD Y0, (DI)(BX*1)
	VMOVUPD Y1, 32(DI)(BX*1)
	VMOVUPD Y2, 64(DI)(BX*1)
	VMOVUPD Y3, 96(DI)(BX*1)
	ADDQ    $128, BX
	JMP     acc_16

acc_4:
	CMPQ    BX, R10
	JGE     acc_next
	VMOVUPD (DI)(BX*1), Y0
	MOVQ    SI, CX
	LEAQ    (DX)(BX*1), AX
	MOVQ    R9, R14

acc_4_term:
	TESTQ        R14, R14
	JEQ          acc_4_store
	VBROADCASTSD (CX), Y4
	VMULPD       (AX), Y4, Y5
	VADDPD       Y5, Y0, Y0
	ADDQ         R13, CX
	ADDQ         R11, AX
	DECQ         R14
	JMP          acc_4_term

acc_4_store:
	VMOVUPD Y0, (DI)(BX*1)
	ADDQ    $32, BX
	JMP     acc_4

acc_next:
	ADDQ R11, DI
	ADDQ R12, SI
	DECQ R8
	JMP  acc_row

acc_done:
	VZEROUPPER
	RET

// func softWeightsAVX(w, c, cm, best *float64, na, width, m int, tau float64)
//
// w[a*m+l] = (−((c[a*m+l]/cm[l]) − (best[l]/cm[l]))) / τ where !(cm[l] ≤ 0),
// +0 elsewhere, for l < width (a multiple of 4).
TEXT ·softWeightsAVX(SB), NOSPLIT, $0-64
	MOVQ         w+0(FP), DI
	MOVQ         c+8(FP), SI
	MOVQ         cm+16(FP), DX
	MOVQ         best+24(FP), R8
	MOVQ         na+32(FP), R9
	MOVQ         width+40(FP), R10
	SHLQ         $3, R10
	MOVQ         m+48(FP), R11
	SHLQ         $3, R11
	VBROADCASTSD tau+56(FP), Y8
	VXORPD       Y9, Y9, Y9
	VPCMPEQQ     Y10, Y10, Y10
	VPSLLQ       $63, Y10, Y10 // the sign bit
	XORQ         BX, BX

sw_loop:
	CMPQ    BX, R10
	JGE     sw_done
	VMOVUPD (DX)(BX*1), Y0 // cm
	VMOVUPD (R8)(BX*1), Y1 // best
	VDIVPD  Y0, Y1, Y1     // rmin = best / cm
	VCMPPD  $6, Y9, Y0, Y2 // !(cm <= 0), true on NaN as the scalar test
	LEAQ    (SI)(BX*1), AX
	LEAQ    (DI)(BX*1), CX
	MOVQ    R9, R12

sw_a:
	TESTQ   R12, R12
	JEQ     sw_next
	VMOVUPD (AX), Y3
	VDIVPD  Y0, Y3, Y3  // c / cm
	VSUBPD  Y1, Y3, Y3  // − rmin
	VXORPD  Y10, Y3, Y3 // −(…)
	VDIVPD  Y8, Y3, Y3  // / τ
	VANDPD  Y2, Y3, Y3
	VMOVUPD Y3, (CX)
	ADDQ    R11, AX
	ADDQ    R11, CX
	DECQ    R12
	JMP     sw_a

sw_next:
	ADDQ $32, BX
	JMP  sw_loop

sw_done:
	VZEROUPPER
	RET

// func normalizeAVX(w, c, cm, z, wr *float64, na, width, m int)
//
// w[a*m+l] = w[a*m+l] / z[l]; wr[l] = Σ_a ((w[a*m+l]·c[a*m+l]) / cm[l]) in
// a order from 0, for l < width (a multiple of 4).
TEXT ·normalizeAVX(SB), NOSPLIT, $0-64
	MOVQ w+0(FP), DI
	MOVQ c+8(FP), SI
	MOVQ cm+16(FP), DX
	MOVQ z+24(FP), R8
	MOVQ wr+32(FP), R9
	MOVQ na+40(FP), R10
	MOVQ width+48(FP), R11
	SHLQ $3, R11
	MOVQ m+56(FP), R12
	SHLQ $3, R12
	XORQ BX, BX

nz_loop:
	CMPQ    BX, R11
	JGE     nz_done
	VMOVUPD (R8)(BX*1), Y0 // z
	VMOVUPD (DX)(BX*1), Y1 // cm
	VXORPD  Y2, Y2, Y2
	LEAQ    (SI)(BX*1), AX
	LEAQ    (DI)(BX*1), CX
	MOVQ    R10, R13

nz_a:
	TESTQ   R13, R13
	JEQ     nz_next
	VMOVUPD (CX), Y3
	VDIVPD  Y0, Y3, Y3   // w / z
	VMOVUPD Y3, (CX)
	VMULPD  (AX), Y3, Y4 // w·c
	VDIVPD  Y1, Y4, Y4   // / cm
	VADDPD  Y4, Y2, Y2
	ADDQ    R12, AX
	ADDQ    R12, CX
	DECQ    R13
	JMP     nz_a

nz_next:
	VMOVUPD Y2, (R9)(BX*1)
	ADDQ    $32, BX
	JMP     nz_loop

nz_done:
	VZEROUPPER
	RET

// func minRowsAVX(best *float64, ab *int, c *float64, na, width, m int)
//
// best[l] = the least of c[a*m+l] over a < na (+Inf to begin with, replaced
// only by a strictly smaller value: NaN never), ab[l] its first index, for
// l < width (a multiple of 4).
TEXT ·minRowsAVX(SB), NOSPLIT, $0-48
	MOVQ     best+0(FP), DI
	MOVQ     ab+8(FP), SI
	MOVQ     c+16(FP), DX
	MOVQ     na+24(FP), R8
	MOVQ     width+32(FP), R9
	SHLQ     $3, R9
	MOVQ     m+40(FP), R10
	SHLQ     $3, R10
	VPCMPEQQ Y8, Y8, Y8
	VPSRLQ   $63, Y8, Y9 // int64 1
	VPSRLQ   $53, Y8, Y8
	VPSLLQ   $52, Y8, Y8 // +Inf
	XORQ     BX, BX

mr_loop:
	CMPQ    BX, R9
	JGE     mr_done
	VMOVAPD Y8, Y0     // best
	VPXOR   Y1, Y1, Y1 // ab
	VPXOR   Y2, Y2, Y2 // a
	LEAQ    (DX)(BX*1), AX
	MOVQ    R8, CX

mr_a:
	TESTQ     CX, CX
	JEQ       mr_next
	VMOVUPD   (AX), Y3
	VCMPPD    $0x11, Y0, Y3, Y4 // c < best, ordered
	VBLENDVPD Y4, Y3, Y0, Y0
	VBLENDVPD Y4, Y2, Y1, Y1
	VPADDQ    Y9, Y2, Y2
	ADDQ      R10, AX
	DECQ      CX
	JMP       mr_a

mr_next:
	VMOVUPD Y0, (DI)(BX*1)
	VMOVDQU Y1, (SI)(BX*1)
	ADDQ    $32, BX
	JMP     mr_loop

mr_done:
	VZEROUPPER
	RET
