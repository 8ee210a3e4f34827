//go:build amd64 && !purego

#include "textflag.h"

// func faceTerms4(a, b, c, base, p1, p2, m1, m2, e1, e2, z1, z2, d *float64, n int, pref, sd float64)
//
// Per node, unfused, in faceTerms's order:
//
//	t0 = (base + p1·m1) + p2·m2, 0 where negative
//	t1 = e1 − e2
//	t2 = (t0 + z1·e1) − z2·e2, 0 where negative
//	a += pref·t0
//	b += pref·(d·t0 + sd·t1)
//	c += pref·((d·d·t0 + (2d)·sd·t1) + (sd·sd)·t2)
//
// AX..R13 and R15 the slices, R14 the offset, n's slot n·8; Y13 pref,
// Y14 sd, Y15 sd·sd, Y12 zero.
TEXT ·faceTerms4(SB), NOSPLIT, $0-128
	MOVQ a+0(FP), AX
	MOVQ b+8(FP), BX
	MOVQ c+16(FP), CX
	MOVQ base+24(FP), DX
	MOVQ p1+32(FP), SI
	MOVQ p2+40(FP), DI
	MOVQ m1+48(FP), R8
	MOVQ m2+56(FP), R9
	MOVQ e1+64(FP), R10
	MOVQ e2+72(FP), R11
	MOVQ z1+80(FP), R12
	MOVQ z2+88(FP), R13
	MOVQ d+96(FP), R15
	MOVQ n+104(FP), R14
	SHLQ $3, R14
	MOVQ R14, n+104(FP) // n·8
	VBROADCASTSD pref+112(FP), Y13
	VBROADCASTSD sd+120(FP), Y14
	VMULPD Y14, Y14, Y15
	VXORPD Y12, Y12, Y12
	XORQ R14, R14

loop:
	CMPQ R14, n+104(FP)
	JGE  done
	// t0
	VMOVUPD (SI)(R14*1), Y0
	VMULPD (R8)(R14*1), Y0, Y0
	VADDPD (DX)(R14*1), Y0, Y0
	VMOVUPD (DI)(R14*1), Y1
	VMULPD (R9)(R14*1), Y1, Y1
	VADDPD Y1, Y0, Y0
	VCMPPD $0x11, Y12, Y0, Y1 // t0 < 0
	VANDNPD Y0, Y1, Y0
	// t1
	VMOVUPD (R10)(R14*1), Y2 // e1
	VMOVUPD (R11)(R14*1), Y3 // e2
	VSUBPD Y3, Y2, Y1
	// t2
	VMULPD (R12)(R14*1), Y2, Y2
	VADDPD Y2, Y0, Y2
	VMULPD (R13)(R14*1), Y3, Y3
	VSUBPD Y3, Y2, Y2
	VCMPPD $0x11, Y12, Y2, Y3 // t2 < 0
	VANDNPD Y2, Y3, Y2
	// a
	VMULPD Y13, Y0, Y3
	VADDPD (AX)(R14*1), Y3, Y3
	VMOVUPD Y3, (AX)(R14*1)
	// b
	VMOVUPD (R15)(R14*1), Y4 // d
	VMULPD Y0, Y4, Y5       // d·t0
	VMULPD Y1, Y14, Y6      // sd·t1
	VADDPD Y6, Y5, Y5
	VMULPD Y13, Y5, Y5
	VADDPD (BX)(R14*1), Y5, Y5
	VMOVUPD Y5, (BX)(R14*1)
	// c
	VMULPD Y4, Y4, Y5  // d·d
	VMULPD Y0, Y5, Y5  // ·t0
	VADDPD Y4, Y4, Y6  // 2d
	VMULPD Y14, Y6, Y6 // ·sd
	VMULPD Y1, Y6, Y6  // ·t1
	VADDPD Y6, Y5, Y5
	VMULPD Y2, Y15, Y6 // sd·sd·t2
	VADDPD Y6, Y5, Y5
	VMULPD Y13, Y5, Y5
	VADDPD (CX)(R14*1), Y5, Y5
	VMOVUPD Y5, (CX)(R14*1)
	ADDQ $32, R14
	JMP  loop

done:
	VZEROUPPER
	RET
