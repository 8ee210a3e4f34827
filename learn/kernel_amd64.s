//go:build !purego

#include "textflag.h"

// AVX2 + FMA kernels for kernel_amd64.go: eight rows (two 4-lane vectors)
// per block, in the canonical order of kernel.go. Every kernel ends with
// VZEROUPPER, so the SSE-encoded scalar Go code that follows pays no
// AVX-to-SSE transition penalty.
//
// Parameters p are laid out as MLP.Params: W1[i*H+j], B1 at I*H, W2 at
// I*H+H, B2 at I*H+2H. Batches are feature-major with row stride n.

// func forwardAVX(p *float64, I, H int, in *float64, n, n8 int, h, out *float64)
//
// For rows r < n8 (a multiple of 8): pre = b1_j, then pre = fma(x_i, W1_ij,
// pre) for i in order; h_jr = max(pre, +0); acc = fma(h_jr, w2_j, acc) for j
// in order; out[r] = acc (b2 is added by the caller).
//
// SI p, DI in, R8 h, R9 out, R10 n*8, R11 H*8, R12 I*H*8 (offset of B1),
// BX row offset, CX j*8, DX p+j*8, R13 i*H*8, R14 &x_i[r], R15 &h[j][r].
TEXT ·forwardAVX(SB), NOSPLIT, $8-64
	MOVQ p+0(FP), SI
	MOVQ I+8(FP), R12
	MOVQ H+16(FP), R11
	IMULQ R11, R12
	SHLQ $3, R12
	SHLQ $3, R11
	MOVQ in+24(FP), DI
	MOVQ n+32(FP), R10
	SHLQ $3, R10
	MOVQ n8+40(FP), AX
	SHLQ $3, AX
	MOVQ AX, rows-8(SP)
	MOVQ h+48(FP), R8
	MOVQ out+56(FP), R9
	VXORPD Y15, Y15, Y15
	XORQ BX, BX

fwd_rows:
	CMPQ BX, rows-8(SP)
	JGE  fwd_done
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	XORQ CX, CX
	LEAQ (R8)(BX*1), R15

fwd_units:
	CMPQ CX, R11
	JGE  fwd_units_done
	LEAQ (SI)(CX*1), DX
	VBROADCASTSD (DX)(R12*1), Y2
	VMOVAPD Y2, Y3
	LEAQ (DI)(BX*1), R14
	XORQ R13, R13

fwd_inputs:
	CMPQ R13, R12
	JGE  fwd_inputs_done
	VBROADCASTSD (DX)(R13*1), Y4
	VFMADD231PD (R14), Y4, Y2
	VFMADD231PD 32(R14), Y4, Y3
	ADDQ R11, R13
	ADDQ R10, R14
	JMP  fwd_inputs

fwd_inputs_done:
	// max(v, +0): the second operand (+0) for v ≤ 0 and for NaN.
	VMAXPD Y15, Y2, Y2
	VMAXPD Y15, Y3, Y3
	VMOVUPD Y2, (R15)
	VMOVUPD Y3, 32(R15)
	LEAQ (R12)(R11*1), AX
	VBROADCASTSD (DX)(AX*1), Y5
	VFMADD231PD Y5, Y2, Y0
	VFMADD231PD Y5, Y3, Y1
	ADDQ R10, R15
	ADDQ $8, CX
	JMP  fwd_units

fwd_units_done:
	VMOVUPD Y0, (R9)(BX*1)
	VMOVUPD Y1, 32(R9)(BX*1)
	ADDQ $64, BX
	JMP  fwd_rows

fwd_done:
	VZEROUPPER
	RET

// func inputGradAVX(sig bool, v *float64, H int, h, out, dOut *float64, n, n8 int, d *float64)
//
// For rows r < n8: s = Σ_j [h_jr > 0] v_j in j order, d[r] = dz_r · s with
// dz_r = dOut_r, or (dOut_r·y_r)·(1 − y_r) with y = out when sig.
//
// SI v, R8 h, R9 out, DI dOut, R10 n*8, R11 H*8, R12 d, BX row offset,
// CX j*8, R15 &h[j][r]. Y14 = 1, Y15 = 0.
TEXT ·inputGradAVX(SB), NOSPLIT, $8-72
	MOVBQZX sig+0(FP), AX
	MOVQ AX, sg-8(SP)
	MOVQ v+8(FP), SI
	MOVQ H+16(FP), R11
	SHLQ $3, R11
	MOVQ h+24(FP), R8
	MOVQ out+32(FP), R9
	MOVQ dOut+40(FP), DI
	MOVQ n+48(FP), R10
	SHLQ $3, R10
	MOVQ n8+56(FP), AX
	SHLQ $3, AX
	MOVQ d+64(FP), R12
	VXORPD Y15, Y15, Y15
	MOVQ $0x3ff0000000000000, DX
	MOVQ DX, X14
	VBROADCASTSD X14, Y14
	XORQ BX, BX

ig_rows:
	CMPQ BX, AX
	JGE  ig_done
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	XORQ CX, CX
	LEAQ (R8)(BX*1), R15

ig_units:
	CMPQ CX, R11
	JGE  ig_units_done
	VBROADCASTSD (SI)(CX*1), Y2
	VMOVUPD (R15), Y3
	VMOVUPD 32(R15), Y4
	VCMPPD $0x1e, Y15, Y3, Y3
	VCMPPD $0x1e, Y15, Y4, Y4
	VANDPD Y2, Y3, Y3
	VANDPD Y2, Y4, Y4
	VADDPD Y3, Y0, Y0
	VADDPD Y4, Y1, Y1
	ADDQ R10, R15
	ADDQ $8, CX
	JMP  ig_units

ig_units_done:
	VMOVUPD (DI)(BX*1), Y2
	VMOVUPD 32(DI)(BX*1), Y3
	CMPQ sg-8(SP), $0
	JEQ  ig_store
	VMOVUPD (R9)(BX*1), Y4
	VMOVUPD 32(R9)(BX*1), Y5
	VMULPD Y4, Y2, Y2
	VMULPD Y5, Y3, Y3
	VSUBPD Y4, Y14, Y4
	VSUBPD Y5, Y14, Y5
	VMULPD Y4, Y2, Y2
	VMULPD Y5, Y3, Y3

ig_store:
	VMULPD Y0, Y2, Y2
	VMULPD Y1, Y3, Y3
	VMOVUPD Y2, (R12)(BX*1)
	VMOVUPD Y3, 32(R12)(BX*1)
	ADDQ $64, BX
	JMP  ig_rows

ig_done:
	VZEROUPPER
	RET

// func paramGradAVX(sig bool, w2 *float64, H int, x0, x1, h, out, dOut *float64, n, n8 int, part *float64)
//
// For every hidden unit j and rows r < n8, with dz as in inputGradAVX and
// g = [h_jr > 0]·(dz_r·w2_j), accumulates lane partials (rows ≡ 0…3 and
// 4…7 mod 8 separately) of Σ fma(dz, h_jr, ·), Σ g, Σ fma(x0_r, g, ·),
// Σ fma(x1_r, g, ·), and stores each pair's sum (4 lanes) at
// part[16j : 16j+16] in that order.
//
// SI w2, R8 h (unit j), R9 out, DI dOut, R10 n*8, R11 H*8, R12 x0, R13 x1,
// R14 part, BX row offset, CX j*8, AX n8*8.
// Y0–Y7 accumulators, Y8 w2_j, Y9–Y12 scratch, Y14 = 1, Y15 = 0.
TEXT ·paramGradAVX(SB), NOSPLIT, $8-88
	MOVBQZX sig+0(FP), AX
	MOVQ AX, sg-8(SP)
	MOVQ w2+8(FP), SI
	MOVQ H+16(FP), R11
	SHLQ $3, R11
	MOVQ x0+24(FP), R12
	MOVQ x1+32(FP), R13
	MOVQ h+40(FP), R8
	MOVQ out+48(FP), R9
	MOVQ dOut+56(FP), DI
	MOVQ n+64(FP), R10
	SHLQ $3, R10
	MOVQ n8+72(FP), AX
	SHLQ $3, AX
	MOVQ part+80(FP), R14
	VXORPD Y15, Y15, Y15
	MOVQ $0x3ff0000000000000, DX
	MOVQ DX, X14
	VBROADCASTSD X14, Y14
	XORQ CX, CX

pg_units:
	CMPQ CX, R11
	JGE  pg_done
	VBROADCASTSD (SI)(CX*1), Y8
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	XORQ BX, BX

pg_rows:
	CMPQ BX, AX
	JGE  pg_rows_done
	// rows ≡ 0…3: accumulators Y0 (w2), Y2 (b1), Y4 (x0), Y6 (x1)
	VMOVUPD (DI)(BX*1), Y9
	CMPQ sg-8(SP), $0
	JEQ  pg_lo
	VMOVUPD (R9)(BX*1), Y10
	VMULPD Y10, Y9, Y9
	VSUBPD Y10, Y14, Y10
	VMULPD Y10, Y9, Y9

pg_lo:
	VMOVUPD (R8)(BX*1), Y10
	VMULPD Y8, Y9, Y11
	VCMPPD $0x1e, Y15, Y10, Y12
	VANDPD Y12, Y11, Y11
	VFMADD231PD Y10, Y9, Y0
	VADDPD Y11, Y2, Y2
	VFMADD231PD (R12)(BX*1), Y11, Y4
	VFMADD231PD (R13)(BX*1), Y11, Y6
	// rows ≡ 4…7: Y1, Y3, Y5, Y7
	VMOVUPD 32(DI)(BX*1), Y9
	CMPQ sg-8(SP), $0
	JEQ  pg_hi
	VMOVUPD 32(R9)(BX*1), Y10
	VMULPD Y10, Y9, Y9
	VSUBPD Y10, Y14, Y10
	VMULPD Y10, Y9, Y9

pg_hi:
	VMOVUPD 32(R8)(BX*1), Y10
	VMULPD Y8, Y9, Y11
	VCMPPD $0x1e, Y15, Y10, Y12
	VANDPD Y12, Y11, Y11
	VFMADD231PD Y10, Y9, Y1
	VADDPD Y11, Y3, Y3
	VFMADD231PD 32(R12)(BX*1), Y11, Y5
	VFMADD231PD 32(R13)(BX*1), Y11, Y7
	ADDQ $64, BX
	JMP  pg_rows

pg_rows_done:
	VADDPD Y1, Y0, Y0
	VADDPD Y3, Y2, Y2
	VADDPD Y5, Y4, Y4
	VADDPD Y7, Y6, Y6
	VMOVUPD Y0, (R14)
	VMOVUPD Y2, 32(R14)
	VMOVUPD Y4, 64(R14)
	VMOVUPD Y6, 96(R14)
	ADDQ $128, R14
	ADDQ R10, R8
	ADDQ $8, CX
	JMP  pg_units

pg_done:
	VZEROUPPER
	RET

// func forward16AVX(p *float64, I, H int, in *float64, n, n16 int, h, out *float64)
//
// forwardAVX on sixteen rows (four vectors, four independent accumulator
// chains) per block, for rows r < n16 (a multiple of 16). Same registers as
// forwardAVX; Y0–Y3 accumulators, Y4–Y7 pre-activations, Y8 weight.
TEXT ·forward16AVX(SB), NOSPLIT, $8-64
	MOVQ p+0(FP), SI
	MOVQ I+8(FP), R12
	MOVQ H+16(FP), R11
	IMULQ R11, R12
	SHLQ $3, R12
	SHLQ $3, R11
	MOVQ in+24(FP), DI
	MOVQ n+32(FP), R10
	SHLQ $3, R10
	MOVQ n16+40(FP), AX
	SHLQ $3, AX
	MOVQ AX, rows-8(SP)
	MOVQ h+48(FP), R8
	MOVQ out+56(FP), R9
	VXORPD Y15, Y15, Y15
	XORQ BX, BX

f16_rows:
	CMPQ BX, rows-8(SP)
	JGE  f16_done
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	XORQ CX, CX
	LEAQ (R8)(BX*1), R15

f16_units:
	CMPQ CX, R11
	JGE  f16_units_done
	LEAQ (SI)(CX*1), DX
	VBROADCASTSD (DX)(R12*1), Y4
	VMOVAPD Y4, Y5
	VMOVAPD Y4, Y6
	VMOVAPD Y4, Y7
	LEAQ (DI)(BX*1), R14
	XORQ R13, R13

f16_inputs:
	CMPQ R13, R12
	JGE  f16_inputs_done
	VBROADCASTSD (DX)(R13*1), Y8
	VFMADD231PD (R14), Y8, Y4
	VFMADD231PD 32(R14), Y8, Y5
	VFMADD231PD 64(R14), Y8, Y6
	VFMADD231PD 96(R14), Y8, Y7
	ADDQ R11, R13
	ADDQ R10, R14
	JMP  f16_inputs

f16_inputs_done:
	VMAXPD Y15, Y4, Y4
	VMAXPD Y15, Y5, Y5
	VMAXPD Y15, Y6, Y6
	VMAXPD Y15, Y7, Y7
	VMOVUPD Y4, (R15)
	VMOVUPD Y5, 32(R15)
	VMOVUPD Y6, 64(R15)
	VMOVUPD Y7, 96(R15)
	LEAQ (R12)(R11*1), AX
	VBROADCASTSD (DX)(AX*1), Y8
	VFMADD231PD Y8, Y4, Y0
	VFMADD231PD Y8, Y5, Y1
	VFMADD231PD Y8, Y6, Y2
	VFMADD231PD Y8, Y7, Y3
	ADDQ R10, R15
	ADDQ $8, CX
	JMP  f16_units

f16_units_done:
	VMOVUPD Y0, (R9)(BX*1)
	VMOVUPD Y1, 32(R9)(BX*1)
	VMOVUPD Y2, 64(R9)(BX*1)
	VMOVUPD Y3, 96(R9)(BX*1)
	ADDQ $128, BX
	JMP  f16_rows

f16_done:
	VZEROUPPER
	RET
