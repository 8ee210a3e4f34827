//go:build amd64 && !purego

#include "textflag.h"

// Constants, four lanes each.
DATA millsc<>+0(SB)/8, $0.0
DATA millsc<>+8(SB)/8, $0.0
DATA millsc<>+16(SB)/8, $0.0
DATA millsc<>+24(SB)/8, $0.0
DATA millsc<>+32(SB)/8, $12.0
DATA millsc<>+40(SB)/8, $12.0
DATA millsc<>+48(SB)/8, $12.0
DATA millsc<>+56(SB)/8, $12.0
DATA millsc<>+64(SB)/8, $4.0
DATA millsc<>+72(SB)/8, $4.0
DATA millsc<>+80(SB)/8, $4.0
DATA millsc<>+88(SB)/8, $4.0
DATA millsc<>+96(SB)/8, $0.25
DATA millsc<>+104(SB)/8, $0.25
DATA millsc<>+112(SB)/8, $0.25
DATA millsc<>+120(SB)/8, $0.25
DATA millsc<>+128(SB)/8, $8.0
DATA millsc<>+136(SB)/8, $8.0
DATA millsc<>+144(SB)/8, $8.0
DATA millsc<>+152(SB)/8, $8.0
DATA millsc<>+160(SB)/8, $1.0
DATA millsc<>+168(SB)/8, $1.0
DATA millsc<>+176(SB)/8, $1.0
DATA millsc<>+184(SB)/8, $1.0
DATA millsc<>+192(SB)/4, $80
DATA millsc<>+196(SB)/4, $80
DATA millsc<>+200(SB)/4, $80
DATA millsc<>+204(SB)/4, $80
GLOBL millsc<>(SB), RODATA|NOPTR, $208

// COEF4 loads four consecutive coefficients (byte offset off in a row) of
// the lanes' rows R9..R12 off R8 and transposes them: c0 holds the first
// coefficient of lanes 0..3, c1 the second, and so on. Clobbers Y5, Y6,
// Y7, Y8, Y14, Y15.
#define COEF4(off, c0, c1, c2, c3) \
	VMOVUPD off(R8)(R9*1), Y5; \
	VMOVUPD off(R8)(R10*1), Y6; \
	VMOVUPD off(R8)(R11*1), Y7; \
	VMOVUPD off(R8)(R12*1), Y8; \
	VUNPCKLPD Y6, Y5, Y14; \
	VUNPCKHPD Y6, Y5, Y15; \
	VUNPCKLPD Y8, Y7, Y5; \
	VUNPCKHPD Y8, Y7, Y6; \
	VPERM2F128 $0x20, Y5, Y14, c0; \
	VPERM2F128 $0x31, Y5, Y14, c2; \
	VPERM2F128 $0x20, Y6, Y15, c1; \
	VPERM2F128 $0x31, Y6, Y15, c3

// func mills4(dst, src *float64, n int) int
//
// Mills on [0, 12) with the operations of millsCoef.eval, unfused:
// i = int(4z), t = (z − 0.25·i)·8 − 1, t2 = t·t, even and odd Horner
// chains in t2, even + t·odd; each lane's row of ten coefficients loaded
// and transposed (faster than gathers). Stops before a block with a lane
// outside [0, 12) (or NaN) and returns the number of values set.
//
// DI dst, SI src, CX n*8, BX offset, R8 the table, R9..R12 the lanes'
// row offsets; Y0 z, Y1 t, Y2 t2, Y3 even, Y4 odd.
TEXT ·mills4(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	SHLQ $3, CX
	XORQ BX, BX
	LEAQ ·millsPoly(SB), R8

loop:
	CMPQ BX, CX
	JGE  done
	VMOVUPD (SI)(BX*1), Y0
	// range: 0 ≤ z < 12 (false for NaN)
	VCMPPD $0x1d, millsc<>+0(SB), Y0, Y6  // z ≥ 0, ordered
	VCMPPD $0x11, millsc<>+32(SB), Y0, Y7 // z < 12, ordered
	VANDPD Y7, Y6, Y6
	VMOVMSKPD Y6, AX
	CMPQ AX, $15
	JNE  done
	VMULPD millsc<>+64(SB), Y0, Y1 // 4z (exact)
	VCVTTPD2DQY Y1, X2             // i = int(4z)
	VCVTDQ2PD X2, Y3               // float64(i)
	VPMULLD millsc<>+192(SB), X2, X4 // row offsets in bytes
	VMOVD X4, R9
	VPEXTRD $1, X4, R10
	VPEXTRD $2, X4, R11
	VPEXTRD $3, X4, R12
	VMULPD millsc<>+96(SB), Y3, Y3 // 0.25·i
	VSUBPD Y3, Y0, Y1              // z − 0.25·i
	VMULPD millsc<>+128(SB), Y1, Y1 // ·8
	VSUBPD millsc<>+160(SB), Y1, Y1 // t
	VMULPD Y1, Y1, Y2              // t2
	// c8, c9: two per row, rows 0 and 2 in one register, 1 and 3 in another
	VMOVUPD 64(R8)(R9*1), X5
	VINSERTF128 $1, 64(R8)(R11*1), Y5, Y5
	VMOVUPD 64(R8)(R10*1), X6
	VINSERTF128 $1, 64(R8)(R12*1), Y6, Y6
	VUNPCKLPD Y6, Y5, Y3 // c8
	VUNPCKHPD Y6, Y5, Y4 // c9
	COEF4(32, Y10, Y11, Y12, Y13)
	// even = c8·t2 + c6, ·t2 + c4; odd = c9·t2 + c7, ·t2 + c5
	VMULPD Y2, Y3, Y3
	VADDPD Y12, Y3, Y3
	VMULPD Y2, Y3, Y3
	VADDPD Y10, Y3, Y3
	VMULPD Y2, Y4, Y4
	VADDPD Y13, Y4, Y4
	VMULPD Y2, Y4, Y4
	VADDPD Y11, Y4, Y4
	COEF4(0, Y10, Y11, Y12, Y13)
	// even ·t2 + c2, ·t2 + c0; odd ·t2 + c3, ·t2 + c1
	VMULPD Y2, Y3, Y3
	VADDPD Y12, Y3, Y3
	VMULPD Y2, Y3, Y3
	VADDPD Y10, Y3, Y3
	VMULPD Y2, Y4, Y4
	VADDPD Y13, Y4, Y4
	VMULPD Y2, Y4, Y4
	VADDPD Y11, Y4, Y4
	// even + t·odd
	VMULPD Y1, Y4, Y4
	VADDPD Y4, Y3, Y3
	VMOVUPD Y3, (DI)(BX*1)
	ADDQ $32, BX
	JMP  loop

done:
	VZEROUPPER
	SHRQ $3, BX
	MOVQ BX, ret+24(FP)
	RET
