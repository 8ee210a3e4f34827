//go:build !purego

#include "textflag.h"

// func secondAVX(acc, w *float64, stride int, h *float64, act *int, nact int)
//
// For the eight outputs l < 8 of one block of the output layer,
// acc[l] += w[j*stride+l]·h[j] for j = act[0], act[1], …, act[nact−1] in
// that order: one VMULPD, then one VADDPD per unit and lane group (never
// fused), so each output's sum rounds as denseNet.secondActive's scalar
// chain. DI acc, SI w, R8 stride in bytes, DX h, BX &act[k], CX units left.
TEXT ·secondAVX(SB), NOSPLIT, $0-48
	MOVQ    acc+0(FP), DI
	MOVQ    w+8(FP), SI
	MOVQ    stride+16(FP), R8
	SHLQ    $3, R8
	MOVQ    h+24(FP), DX
	MOVQ    act+32(FP), BX
	MOVQ    nact+40(FP), CX
	VMOVUPD (DI), Y0
	VMOVUPD 32(DI), Y1
	TESTQ   CX, CX
	JEQ     second_done

second_unit:
	MOVQ         (BX), AX
	VBROADCASTSD (DX)(AX*8), Y2
	IMULQ        R8, AX
	VMULPD       (SI)(AX*1), Y2, Y3
	VADDPD       Y3, Y0, Y0
	VMULPD       32(SI)(AX*1), Y2, Y4
	VADDPD       Y4, Y1, Y1
	ADDQ         $8, BX
	DECQ         CX
	JNE          second_unit

second_done:
	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VZEROUPPER
	RET

// func hiddenAVX(h, biased, col *float64, r float64, n int, act *int) int
//
// The first layer's units j < n (a multiple of 4) of forwardSparse:
// h[j] = 0.5·(v + |v|), v = biased[j] + r·col[j] (relu, each operation
// rounded as the scalar expression), and the active units (h[j] not +0,
// skipRelu) appended to act in order, four at a time without a branch: the
// lanes' mask picks a row of activeLanes, the unit indices added to it are
// stored whole, and the count advances by the mask's population. Returns
// the count. DI h, SI biased, DX col, AX j, BX act, R9 count.
TEXT ·hiddenAVX(SB), NOSPLIT, $0-56
	MOVQ         h+0(FP), DI
	MOVQ         biased+8(FP), SI
	MOVQ         col+16(FP), DX
	VBROADCASTSD r+24(FP), Y0
	MOVQ         n+32(FP), CX
	MOVQ         act+40(FP), BX
	VBROADCASTSD half<>(SB), Y1
	VBROADCASTSD absMask<>(SB), Y2
	VPXOR        Y3, Y3, Y3
	LEAQ         activeLanes<>(SB), R10
	XORQ         AX, AX
	XORQ         R9, R9

hidden_loop:
	CMPQ         AX, CX
	JGE          hidden_done
	VMULPD       (DX)(AX*8), Y0, Y4
	VADDPD       (SI)(AX*8), Y4, Y4
	VANDPD       Y2, Y4, Y5
	VADDPD       Y5, Y4, Y4
	VMULPD       Y1, Y4, Y4
	VMOVUPD      Y4, (DI)(AX*8)
	VPCMPEQQ     Y3, Y4, Y5
	VMOVMSKPD    Y5, R11
	XORQ         $15, R11
	MOVQ         R11, R12
	SHLQ         $5, R12
	MOVQ         AX, X6
	VPBROADCASTQ X6, Y6
	VPADDQ       (R10)(R12*1), Y6, Y6
	VMOVDQU      Y6, (BX)(R9*8)
	POPCNTQ      R11, R11
	ADDQ         R11, R9
	ADDQ         $4, AX
	JMP          hidden_loop

hidden_done:
	VZEROUPPER
	MOVQ R9, ret+48(FP)
	RET

DATA half<>+0(SB)/8, $0x3fe0000000000000
GLOBL half<>(SB), RODATA|NOPTR, $8

DATA absMask<>+0(SB)/8, $0x7fffffffffffffff
GLOBL absMask<>(SB), RODATA|NOPTR, $8

// activeLanes row b: the lanes set in the 4-bit mask b, lowest first,
// padded with zeros.
DATA activeLanes<>+0(SB)/8, $0
DATA activeLanes<>+8(SB)/8, $0
DATA activeLanes<>+16(SB)/8, $0
DATA activeLanes<>+24(SB)/8, $0
DATA activeLanes<>+32(SB)/8, $0
DATA activeLanes<>+40(SB)/8, $0
DATA activeLanes<>+48(SB)/8, $0
DATA activeLanes<>+56(SB)/8, $0
DATA activeLanes<>+64(SB)/8, $1
DATA activeLanes<>+72(SB)/8, $0
DATA activeLanes<>+80(SB)/8, $0
DATA activeLanes<>+88(SB)/8, $0
DATA activeLanes<>+96(SB)/8, $0
DATA activeLanes<>+104(SB)/8, $1
DATA activeLanes<>+112(SB)/8, $0
DATA activeLanes<>+120(SB)/8, $0
DATA activeLanes<>+128(SB)/8, $2
DATA activeLanes<>+136(SB)/8, $0
DATA activeLanes<>+144(SB)/8, $0
DATA activeLanes<>+152(SB)/8, $0
DATA activeLanes<>+160(SB)/8, $0
DATA activeLanes<>+168(SB)/8, $2
DATA activeLanes<>+176(SB)/8, $0
DATA activeLanes<>+184(SB)/8, $0
DATA activeLanes<>+192(SB)/8, $1
DATA activeLanes<>+200(SB)/8, $2
DATA activeLanes<>+208(SB)/8, $0
DATA activeLanes<>+216(SB)/8, $0
DATA activeLanes<>+224(SB)/8, $0
DATA activeLanes<>+232(SB)/8, $1
DATA activeLanes<>+240(SB)/8, $2
DATA activeLanes<>+248(SB)/8, $0
DATA activeLanes<>+256(SB)/8, $3
DATA activeLanes<>+264(SB)/8, $0
DATA activeLanes<>+272(SB)/8, $0
DATA activeLanes<>+280(SB)/8, $0
DATA activeLanes<>+288(SB)/8, $0
DATA activeLanes<>+296(SB)/8, $3
DATA activeLanes<>+304(SB)/8, $0
DATA activeLanes<>+312(SB)/8, $0
DATA activeLanes<>+320(SB)/8, $1
DATA activeLanes<>+328(SB)/8, $3
DATA activeLanes<>+336(SB)/8, $0
DATA activeLanes<>+344(SB)/8, $0
DATA activeLanes<>+352(SB)/8, $0
DATA activeLanes<>+360(SB)/8, $1
DATA activeLanes<>+368(SB)/8, $3
DATA activeLanes<>+376(SB)/8, $0
DATA activeLanes<>+384(SB)/8, $2
DATA activeLanes<>+392(SB)/8, $3
DATA activeLanes<>+400(SB)/8, $0
DATA activeLanes<>+408(SB)/8, $0
DATA activeLanes<>+416(SB)/8, $0
DATA activeLanes<>+424(SB)/8, $2
DATA activeLanes<>+432(SB)/8, $3
DATA activeLanes<>+440(SB)/8, $0
DATA activeLanes<>+448(SB)/8, $1
DATA activeLanes<>+456(SB)/8, $2
DATA activeLanes<>+464(SB)/8, $3
DATA activeLanes<>+472(SB)/8, $0
DATA activeLanes<>+480(SB)/8, $0
DATA activeLanes<>+488(SB)/8, $1
DATA activeLanes<>+496(SB)/8, $2
DATA activeLanes<>+504(SB)/8, $3
GLOBL activeLanes<>(SB), RODATA|NOPTR, $512

// func backwardAVX(gw2, w2, h, dz, gh *float64, hd, n, m int)
//
// The output layer's backward pass of one row for the hidden units j < n
// (a multiple of 4), four at a time: gh[j] = Σ_o W2[o][j]·dz[o] from +0 in
// the order of the outputs, and gw2[o][j] += dz[o]·h[j] for the outputs
// with dz[o] ≠ 0 (±0 left out, as backwardOut does); each a VMULPD, then
// a VADDPD, as hiddenGrads and backwardOut round. W2 and gw2 are [m][hd].
// DI gw2, SI w2, DX h, R8 dz, R9 gh, R10 hd in bytes, CX n in bytes,
// R11 m, AX the block's offset; per output R12 &dz[o], R13 &W2[o][j],
// R14 &gw2[o][j], BX outputs left.
TEXT ·backwardAVX(SB), NOSPLIT, $0-64
	MOVQ gw2+0(FP), DI
	MOVQ w2+8(FP), SI
	MOVQ h+16(FP), DX
	MOVQ dz+24(FP), R8
	MOVQ gh+32(FP), R9
	MOVQ hd+40(FP), R10
	SHLQ $3, R10
	MOVQ n+48(FP), CX
	SHLQ $3, CX
	MOVQ m+56(FP), R11
	XORQ AX, AX

back_block:
	CMPQ    AX, CX
	JGE     back_done
	VMOVUPD (DX)(AX*1), Y1
	VXORPD  Y0, Y0, Y0
	MOVQ    R8, R12
	LEAQ    (SI)(AX*1), R13
	LEAQ    (DI)(AX*1), R14
	MOVQ    R11, BX

back_out:
	VBROADCASTSD (R12), Y2
	VMULPD       (R13), Y2, Y3
	VADDPD       Y3, Y0, Y0
	MOVQ         (R12), R15
	SHLQ         $1, R15
	JEQ          back_next
	VMULPD       Y1, Y2, Y4
	VADDPD       (R14), Y4, Y4
	VMOVUPD      Y4, (R14)

back_next:
	ADDQ $8, R12
	ADDQ R10, R13
	ADDQ R10, R14
	DECQ BX
	JNE  back_out
	VMOVUPD Y0, (R9)(AX*1)
	ADDQ    $32, AX
	JMP     back_block

back_done:
	VZEROUPPER
	RET

// func denseForwardAVX(h, biased, col *float64, r float64, hd int, act *int, w2t, b2 *float64, m int, out *float64)
//
// forwardSparse in one pass for m ≤ 8 outputs and W2 finite: the first
// layer as hiddenAVX for the units j < hd&^3, the rest one at a time with
// the same operations on one lane, then the output layer as secondAVX over
// the active units, B2 read and out written through the lane masks of m.
TEXT ·denseForwardAVX(SB), NOSPLIT, $0-80
	MOVQ         h+0(FP), DI
	MOVQ         biased+8(FP), SI
	MOVQ         col+16(FP), DX
	VBROADCASTSD r+24(FP), Y0
	MOVQ         hd+32(FP), CX
	MOVQ         act+40(FP), BX
	VBROADCASTSD half<>(SB), Y1
	VBROADCASTSD absMask<>(SB), Y2
	VPXOR        Y3, Y3, Y3
	LEAQ         activeLanes<>(SB), R10
	XORQ         AX, AX
	XORQ         R9, R9
	MOVQ         CX, R13
	ANDQ         $-4, R13

fwd_hidden4:
	CMPQ         AX, R13
	JGE          fwd_hidden1
	VMULPD       (DX)(AX*8), Y0, Y4
	VADDPD       (SI)(AX*8), Y4, Y4
	VANDPD       Y2, Y4, Y5
	VADDPD       Y5, Y4, Y4
	VMULPD       Y1, Y4, Y4
	VMOVUPD      Y4, (DI)(AX*8)
	VPCMPEQQ     Y3, Y4, Y5
	VMOVMSKPD    Y5, R11
	XORQ         $15, R11
	MOVQ         R11, R12
	SHLQ         $5, R12
	MOVQ         AX, X6
	VPBROADCASTQ X6, Y6
	VPADDQ       (R10)(R12*1), Y6, Y6
	VMOVDQU      Y6, (BX)(R9*8)
	POPCNTQ      R11, R11
	ADDQ         R11, R9
	ADDQ         $4, AX
	JMP          fwd_hidden4

fwd_hidden1:
	CMPQ    AX, CX
	JGE     fwd_second
	VMOVSD  (DX)(AX*8), X4
	VMULSD  X0, X4, X4
	VADDSD  (SI)(AX*8), X4, X4
	VANDPD  X2, X4, X5
	VADDSD  X5, X4, X4
	VMULSD  X1, X4, X4
	VMOVSD  X4, (DI)(AX*8)
	MOVQ    X4, R11
	MOVQ    AX, (BX)(R9*8)
	XORQ    R12, R12
	TESTQ   R11, R11
	SETNE   R12B
	ADDQ    R12, R9
	INCQ    AX
	JMP     fwd_hidden1

fwd_second:
	MOVQ       w2t+48(FP), SI
	MOVQ       b2+56(FP), DX
	MOVQ       m+64(FP), R8
	MOVQ       out+72(FP), R14
	LEAQ       laneMasks<>(SB), R10
	MOVQ       R8, R12
	SHLQ       $6, R12
	VMOVDQU    (R10)(R12*1), Y7
	VMOVDQU    32(R10)(R12*1), Y8
	VMASKMOVPD (DX), Y7, Y0
	VMASKMOVPD 32(DX), Y8, Y1
	SHLQ       $3, R8
	TESTQ      R9, R9
	JEQ        fwd_store

fwd_unit:
	MOVQ         (BX), AX
	VBROADCASTSD (DI)(AX*8), Y2
	IMULQ        R8, AX
	VMULPD       (SI)(AX*1), Y2, Y3
	VADDPD       Y3, Y0, Y0
	VMULPD       32(SI)(AX*1), Y2, Y4
	VADDPD       Y4, Y1, Y1
	ADDQ         $8, BX
	DECQ         R9
	JNE          fwd_unit

fwd_store:
	VMASKMOVPD Y0, Y7, (R14)
	VMASKMOVPD Y1, Y8, 32(R14)
	VZEROUPPER
	RET

// laneMasks row m (64 bytes): all ones in the lanes l < m of eight.
DATA laneMasks<>+0(SB)/8, $0
DATA laneMasks<>+8(SB)/8, $0
DATA laneMasks<>+16(SB)/8, $0
DATA laneMasks<>+24(SB)/8, $0
DATA laneMasks<>+32(SB)/8, $0
DATA laneMasks<>+40(SB)/8, $0
DATA laneMasks<>+48(SB)/8, $0
DATA laneMasks<>+56(SB)/8, $0
DATA laneMasks<>+64(SB)/8, $0xffffffffffffffff
DATA laneMasks<>+72(SB)/8, $0
DATA laneMasks<>+80(SB)/8, $0
DATA laneMasks<>+88(SB)/8, $0
DATA laneMasks<>+96(SB)/8, $0
DATA laneMasks<>+104(SB)/8, $0
DATA laneMasks<>+112(SB)/8, $0
DATA laneMasks<>+120(SB)/8, $0
DATA laneMasks<>+128(SB)/8, $0xffffffffffffffff
DATA laneMasks<>+136(SB)/8, $0xffffffffffffffff
DATA laneMasks<>+144(SB)/8, $0
DATA laneMasks<>+152(SB)/8, $0
DATA laneMasks<>+160(SB)/8, $0
DATA laneMasks<>+168(SB)/8, $0
DATA laneMasks<>+176(SB)/8, $0
DATA laneMasks<>+184(SB)/8, $0
DATA laneMasks<>+192(SB)/8, $0xffffffffffffffff
DATA laneMasks<>+200(SB)/8, $0xffffffffffffffff
DATA laneMasks<>+208(SB)/8, $0xffffffffffffffff
DATA laneMasks<>+216(SB)/8, $0
DATA laneMasks<>+224(SB)/8, $0
DATA laneMasks<>+232(SB)/8, $0
DATA laneMasks<>+240(SB)/8, $0
DATA laneMasks<>+248(SB)/8, $0
DATA laneMasks<>+256(SB)/8, $0xffffffffffffffff
DATA laneMasks<>+264(SB)/8, $0xffffffffffffffff
DATA laneMasks<>+272(SB)/8, $0xffffffffffffffff
DATA laneMasks<>+280(SB)/8, $0xffffffffffffffff
DATA laneMasks<>+288(SB)/8, $0
DATA laneMasks<>+296(SB)/8, $0
DATA laneMasks<>+304(SB)/8, $0
DATA laneMasks<>+312(SB)/8, $0
DATA laneMasks<>+320(SB)/8, $0xffffffffffffffff
DATA laneMasks<>+328(SB)/8, $0xffffffffffffffff
DATA laneMasks<>+336(SB)/8, $0xffffffffffffffff
DATA laneMasks<>+344(SB)/8, $0xffffffffffffffff
DATA laneMasks<>+352(SB)/8, $0xffffffffffffffff
DATA laneMasks<>+360(SB)/8, $0
DATA laneMasks<>+368(SB)/8, $0
DATA laneMasks<>+376(SB)/8, $0
DATA laneMasks<>+384(SB)/8, $0xffffffffffffffff
DATA laneMasks<>+392(SB)/8, $0xffffffffffffffff
DATA laneMasks<>+400(SB)/8, $0xffffffffffffffff
DATA laneMasks<>+408(SB)/8, $0xffffffffffffffff
DATA laneMasks<>+416(SB)/8, $0xffffffffffffffff
DATA laneMasks<>+424(SB)/8, $0xffffffffffffffff
DATA laneMasks<>+432(SB)/8, $0
DATA laneMasks<>+440(SB)/8, $0
DATA laneMasks<>+448(SB)/8, $0xffffffffffffffff
DATA laneMasks<>+456(SB)/8, $0xffffffffffffffff
DATA laneMasks<>+464(SB)/8, $0xffffffffffffffff
DATA laneMasks<>+472(SB)/8, $0xffffffffffffffff
DATA laneMasks<>+480(SB)/8, $0xffffffffffffffff
DATA laneMasks<>+488(SB)/8, $0xffffffffffffffff
DATA laneMasks<>+496(SB)/8, $0xffffffffffffffff
DATA laneMasks<>+504(SB)/8, $0
DATA laneMasks<>+512(SB)/8, $0xffffffffffffffff
DATA laneMasks<>+520(SB)/8, $0xffffffffffffffff
DATA laneMasks<>+528(SB)/8, $0xffffffffffffffff
DATA laneMasks<>+536(SB)/8, $0xffffffffffffffff
DATA laneMasks<>+544(SB)/8, $0xffffffffffffffff
DATA laneMasks<>+552(SB)/8, $0xffffffffffffffff
DATA laneMasks<>+560(SB)/8, $0xffffffffffffffff
DATA laneMasks<>+568(SB)/8, $0xffffffffffffffff
GLOBL laneMasks<>(SB), RODATA|NOPTR, $576

// func firstGradAVX(gb1, gx, gn, gh, h *float64, r float64, n int)
//
// backwardSparse's first-layer gradient for the hidden units j < n (a
// multiple of 4), four at a time: gb1[j] += gh[j], gx[j] += gh[j],
// gn[j] += gh[j]·r where h[j] is not +0, each entry of a unit at +0 kept
// by a blend (the scalar loop skips it). DI gb1, SI gx, DX gn, R8 gh,
// R9 h, CX n in bytes, AX the block's offset.
TEXT ·firstGradAVX(SB), NOSPLIT, $0-56
	MOVQ         gb1+0(FP), DI
	MOVQ         gx+8(FP), SI
	MOVQ         gn+16(FP), DX
	MOVQ         gh+24(FP), R8
	MOVQ         h+32(FP), R9
	VBROADCASTSD r+40(FP), Y6
	MOVQ         n+48(FP), CX
	SHLQ         $3, CX
	VPXOR        Y7, Y7, Y7
	XORQ         AX, AX

first_block:
	CMPQ      AX, CX
	JGE       first_done
	VMOVUPD   (R9)(AX*1), Y1
	VPCMPEQQ  Y7, Y1, Y5
	VMOVUPD   (R8)(AX*1), Y0
	VMOVUPD   (DI)(AX*1), Y2
	VADDPD    Y0, Y2, Y3
	VBLENDVPD Y5, Y2, Y3, Y3
	VMOVUPD   Y3, (DI)(AX*1)
	VMOVUPD   (SI)(AX*1), Y2
	VADDPD    Y0, Y2, Y3
	VBLENDVPD Y5, Y2, Y3, Y3
	VMOVUPD   Y3, (SI)(AX*1)
	VMULPD    Y6, Y0, Y4
	VMOVUPD   (DX)(AX*1), Y2
	VADDPD    Y4, Y2, Y3
	VBLENDVPD Y5, Y2, Y3, Y3
	VMOVUPD   Y3, (DX)(AX*1)
	ADDQ      $32, AX
	JMP       first_block

first_done:
	VZEROUPPER
	RET
