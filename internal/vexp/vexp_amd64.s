//go:build !purego

#include "textflag.h"

// The constants of math/exp_amd64.s.
DATA vexpc<>+0(SB)/8, $0.5
DATA vexpc<>+8(SB)/8, $1.0
DATA vexpc<>+16(SB)/8, $2.0
DATA vexpc<>+24(SB)/8, $1.6666666666666666667e-1
DATA vexpc<>+32(SB)/8, $4.1666666666666666667e-2
DATA vexpc<>+40(SB)/8, $8.3333333333333333333e-3
DATA vexpc<>+48(SB)/8, $1.3888888888888888889e-3
DATA vexpc<>+56(SB)/8, $1.9841269841269841270e-4
DATA vexpc<>+64(SB)/8, $2.4801587301587301587e-5
DATA vexpc<>+72(SB)/8, $1.4426950408889634073599246810018920    // LOG2E
DATA vexpc<>+80(SB)/8, $0.69314718055966295651160180568695068359375 // LN2U
DATA vexpc<>+88(SB)/8, $0.28235290563031577122588448175013436025525412068e-12 // LN2L
DATA vexpc<>+96(SB)/8, $0.0625
DATA vexpc<>+104(SB)/8, $-708.0
DATA vexpc<>+112(SB)/8, $709.0
DATA vexpc<>+120(SB)/8, $1023
DATA vexpc<>+128(SB)/8, $0x8000000000000000 // the sign bit
GLOBL vexpc<>+0(SB), RODATA, $136

// EXPCONSTS loads Y8 = LOG2E, Y9 = LN2U, Y10 = LN2L, Y11 = 0.0625, Y12 = 2,
// Y13 = −708, Y14 = 709, Y15 = 1023 (integer lanes).
#define EXPCONSTS \
	VBROADCASTSD vexpc<>+72(SB), Y8 \
	VBROADCASTSD vexpc<>+80(SB), Y9 \
	VBROADCASTSD vexpc<>+88(SB), Y10 \
	VBROADCASTSD vexpc<>+96(SB), Y11 \
	VBROADCASTSD vexpc<>+16(SB), Y12 \
	VBROADCASTSD vexpc<>+104(SB), Y13 \
	VBROADCASTSD vexpc<>+112(SB), Y14 \
	VPBROADCASTQ vexpc<>+120(SB), Y15

// EXPCORE sets Y0 = exp(Y0) by math.Exp's FMA path; it uses Y1–Y4 and
// the constants in Y8–Y12 and Y15 (set up by EXPCONSTS).
#define EXPCORE \
	VMULPD Y8, Y0, Y1 \
	VCVTPD2DQY Y1, X2 \
	VCVTDQ2PD X2, Y1 \
	VFNMADD231PD Y9, Y1, Y0 \
	VFNMADD231PD Y10, Y1, Y0 \
	VMULPD Y11, Y0, Y0 \
	VBROADCASTSD vexpc<>+64(SB), Y1 \
	VBROADCASTSD vexpc<>+56(SB), Y3 \
	VFMADD213PD Y3, Y0, Y1 \
	VBROADCASTSD vexpc<>+48(SB), Y3 \
	VFMADD213PD Y3, Y0, Y1 \
	VBROADCASTSD vexpc<>+40(SB), Y3 \
	VFMADD213PD Y3, Y0, Y1 \
	VBROADCASTSD vexpc<>+32(SB), Y3 \
	VFMADD213PD Y3, Y0, Y1 \
	VBROADCASTSD vexpc<>+24(SB), Y3 \
	VFMADD213PD Y3, Y0, Y1 \
	VBROADCASTSD vexpc<>+0(SB), Y3 \
	VFMADD213PD Y3, Y0, Y1 \
	VBROADCASTSD vexpc<>+8(SB), Y3 \
	VFMADD213PD Y3, Y0, Y1 \
	VMULPD Y1, Y0, Y0 \
	VADDPD Y12, Y0, Y1 \
	VMULPD Y1, Y0, Y0 \
	VADDPD Y12, Y0, Y1 \
	VMULPD Y1, Y0, Y0 \
	VADDPD Y12, Y0, Y1 \
	VMULPD Y1, Y0, Y0 \
	VADDPD Y12, Y0, Y1 \
	VFMADD213PD Y3, Y1, Y0 \
	VPMOVSXDQ X2, Y4 \
	VPADDQ Y15, Y4, Y4 \
	VPSLLQ $52, Y4, Y4 \
	VMULPD Y4, Y0, Y0

// func exp4(dst, src *float64, n int) int
//
// Per lane, the operations of math·archExp's avxfma path in its order:
// t = LOG2E·x; k = int32(t) rounded to nearest; r = x − k·LN2U − k·LN2L
// (fused); r = r·0.0625; p = Horner of the Taylor coefficients in r
// (fused); r = r·p; three times r = r·(r + 2); r = r·(r + 2) + 1
// (fused); result r·2^k, 2^k from the bits (k + 1023) << 52.
//
// Stops before a block with a lane outside [−708, 709] (or NaN) and
// returns the number of values set.
//
// DI dst, SI src, CX n*8, BX offset.
TEXT ·exp4(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	SHLQ $3, CX
	XORQ BX, BX
	EXPCONSTS

loop:
	CMPQ BX, CX
	JGE  done
	VMOVUPD (SI)(BX*1), Y0
	// range: −708 ≤ x ≤ 709 (false for NaN)
	VCMPPD $0x1d, Y13, Y0, Y6 // x ≥ −708, ordered
	VCMPPD $0x12, Y14, Y0, Y7 // x ≤ 709, ordered
	VANDPD Y7, Y6, Y6
	VMOVMSKPD Y6, AX
	CMPQ AX, $15
	JNE  done
	EXPCORE
	VMOVUPD Y0, (DI)(BX*1)
	ADDQ $32, BX
	JMP  loop

done:
	VZEROUPPER
	SHRQ $3, BX
	MOVQ BX, ret+24(FP)
	RET

// func sigm4(dst, src *float64, n int) int
//
// dst = 1/(1 + e) where src ≥ 0 and e/(1 + e) elsewhere, e = exp(−|src|)
// by EXPCORE: learn's sigmoid, operation for operation. Stops, as exp4,
// before a block where some −|src| is below −708 (or NaN).
//
// DI dst, SI src, CX n*8, BX offset; Y5 = z, Y6 = mask, Y7 = sign bit.
TEXT ·sigm4(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	SHLQ $3, CX
	XORQ BX, BX
	EXPCONSTS
	VBROADCASTSD vexpc<>+128(SB), Y7

sig_loop:
	CMPQ BX, CX
	JGE  sig_done
	VMOVUPD (SI)(BX*1), Y5
	VORPD Y7, Y5, Y0          // −|z|
	VCMPPD $0x1d, Y13, Y0, Y6 // −|z| ≥ −708, ordered
	VMOVMSKPD Y6, AX
	CMPQ AX, $15
	JNE  sig_done
	EXPCORE
	VBROADCASTSD vexpc<>+8(SB), Y1 // 1
	VADDPD Y1, Y0, Y2              // 1 + e
	VXORPD Y3, Y3, Y3
	VCMPPD $0x1d, Y3, Y5, Y6       // z ≥ 0
	VBLENDVPD Y6, Y1, Y0, Y0       // 1 where z ≥ 0, else e
	VDIVPD Y2, Y0, Y0
	VMOVUPD Y0, (DI)(BX*1)
	ADDQ $32, BX
	JMP  sig_loop

sig_done:
	VZEROUPPER
	SHRQ $3, BX
	MOVQ BX, ret+24(FP)
	RET
