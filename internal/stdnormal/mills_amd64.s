//go:build amd64 && !purego

#include "textflag.h"

DATA millsc<>+0(SB)/8, $0.0
DATA millsc<>+8(SB)/8, $12.0
DATA millsc<>+16(SB)/8, $4.0
DATA millsc<>+24(SB)/8, $0.25
DATA millsc<>+32(SB)/8, $8.0
DATA millsc<>+40(SB)/8, $1.0
DATA millsc<>+48(SB)/4, $10
GLOBL millsc<>(SB), RODATA|NOPTR, $56

// COEF gathers coefficient k of each lane's row (X4: row·10) into reg.
#define COEF(k, reg) \
	VPCMPEQD Y15, Y15, Y15; \
	VGATHERDPD Y15, (k*8)(R8)(X4*8), reg

// func mills4(dst, src *float64, n int) int
//
// Mills on [0, 12) with the operations of millsCoef.eval, unfused:
// i = int(4z), t = (z − 0.25·i)·8 − 1, t2 = t·t, even and odd Horner
// chains in t2, even + t·odd. Stops before a block with a lane outside
// [0, 12) (or NaN) and returns the number of values set.
//
// DI dst, SI src, CX n*8, BX offset, R8 the table.
TEXT ·mills4(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	SHLQ $3, CX
	XORQ BX, BX
	LEAQ ·millsPoly(SB), R8
	VBROADCASTSD millsc<>+0(SB), Y10  // 0
	VBROADCASTSD millsc<>+8(SB), Y11  // 12
	VBROADCASTSD millsc<>+16(SB), Y12 // 4
	VBROADCASTSD millsc<>+24(SB), Y13 // 0.25
	VBROADCASTSD millsc<>+32(SB), Y14 // 8
	VBROADCASTSD millsc<>+40(SB), Y9  // 1
	VPBROADCASTD millsc<>+48(SB), X8  // 10

loop:
	CMPQ BX, CX
	JGE  done
	VMOVUPD (SI)(BX*1), Y0
	// range: 0 ≤ z < 12 (false for NaN)
	VCMPPD $0x1d, Y10, Y0, Y6 // z ≥ 0, ordered
	VCMPPD $0x11, Y11, Y0, Y7 // z < 12, ordered
	VANDPD Y7, Y6, Y6
	VMOVMSKPD Y6, AX
	CMPQ AX, $15
	JNE  done
	VMULPD Y12, Y0, Y1     // 4z (exact)
	VCVTTPD2DQY Y1, X2     // i = int(4z)
	VCVTDQ2PD X2, Y3       // float64(i)
	VPMULLD X8, X2, X4     // row offset in coefficients
	VMULPD Y13, Y3, Y3     // 0.25·i
	VSUBPD Y3, Y0, Y1      // z − 0.25·i
	VMULPD Y14, Y1, Y1     // ·8
	VSUBPD Y9, Y1, Y1      // t
	VMULPD Y1, Y1, Y2      // t2
	// even: (((c8·t2 + c6)·t2 + c4)·t2 + c2)·t2 + c0
	COEF(8, Y5)
	COEF(6, Y6)
	VMULPD Y2, Y5, Y5
	VADDPD Y6, Y5, Y5
	COEF(4, Y6)
	VMULPD Y2, Y5, Y5
	VADDPD Y6, Y5, Y5
	COEF(2, Y6)
	VMULPD Y2, Y5, Y5
	VADDPD Y6, Y5, Y5
	COEF(0, Y6)
	VMULPD Y2, Y5, Y5
	VADDPD Y6, Y5, Y5
	// odd: (((c9·t2 + c7)·t2 + c5)·t2 + c3)·t2 + c1
	COEF(9, Y3)
	COEF(7, Y6)
	VMULPD Y2, Y3, Y3
	VADDPD Y6, Y3, Y3
	COEF(5, Y6)
	VMULPD Y2, Y3, Y3
	VADDPD Y6, Y3, Y3
	COEF(3, Y6)
	VMULPD Y2, Y3, Y3
	VADDPD Y6, Y3, Y3
	COEF(1, Y6)
	VMULPD Y2, Y3, Y3
	VADDPD Y6, Y3, Y3
	// even + t·odd
	VMULPD Y1, Y3, Y3
	VADDPD Y3, Y5, Y5
	VMOVUPD Y5, (DI)(BX*1)
	ADDQ $32, BX
	JMP  loop

done:
	VZEROUPPER
	SHRQ $3, BX
	MOVQ BX, ret+24(FP)
	RET
