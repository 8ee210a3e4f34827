//go:build !purego

#include "textflag.h"

// The optimizer's element-wise updates, four elements per step, each
// operation rounded as in Step (optim.go).

// func momentsAVX(m, v, grad *float64, n int, c1, b2, c2 float64)
//
// m = m + (c1·(g − m)); v = (b2·v) + ((c2·g)·g).
TEXT ·momentsAVX(SB), NOSPLIT, $0-56
	MOVQ m+0(FP), DI
	MOVQ v+8(FP), SI
	MOVQ grad+16(FP), DX
	MOVQ n+24(FP), CX
	SHLQ $3, CX
	VBROADCASTSD c1+32(FP), Y8
	VBROADCASTSD b2+40(FP), Y9
	VBROADCASTSD c2+48(FP), Y10
	XORQ BX, BX

mom_loop:
	CMPQ BX, CX
	JGE  mom_done
	VMOVUPD (DX)(BX*1), Y0 // g
	VMOVUPD (DI)(BX*1), Y1 // m
	VSUBPD Y1, Y0, Y2      // g − m
	VMULPD Y8, Y2, Y2      // c1·(g − m)
	VADDPD Y2, Y1, Y1      // m + …
	VMOVUPD Y1, (DI)(BX*1)
	VMOVUPD (SI)(BX*1), Y3 // v
	VMULPD Y9, Y3, Y3      // b2·v
	VMULPD Y10, Y0, Y4     // c2·g
	VMULPD Y0, Y4, Y4      // (c2·g)·g
	VADDPD Y4, Y3, Y3
	VMOVUPD Y3, (SI)(BX*1)
	ADDQ $32, BX
	JMP  mom_loop

mom_done:
	VZEROUPPER
	RET

// func adamAVX(p, m, v *float64, n int, step, sbc2, eps float64)
//
// p = p − ((step·m) / ((√v / sbc2) + eps)).
TEXT ·adamAVX(SB), NOSPLIT, $0-56
	MOVQ p+0(FP), DI
	MOVQ m+8(FP), SI
	MOVQ v+16(FP), DX
	MOVQ n+24(FP), CX
	SHLQ $3, CX
	VBROADCASTSD step+32(FP), Y8
	VBROADCASTSD sbc2+40(FP), Y9
	VBROADCASTSD eps+48(FP), Y10
	XORQ BX, BX

adam_loop:
	CMPQ BX, CX
	JGE  adam_done
	VSQRTPD (DX)(BX*1), Y0
	VDIVPD Y9, Y0, Y0       // √v / sbc2
	VADDPD Y10, Y0, Y0      // + eps
	VMULPD (SI)(BX*1), Y8, Y1 // step·m
	VDIVPD Y0, Y1, Y1
	VMOVUPD (DI)(BX*1), Y2
	VSUBPD Y1, Y2, Y2
	VMOVUPD Y2, (DI)(BX*1)
	ADDQ $32, BX
	JMP  adam_loop

adam_done:
	VZEROUPPER
	RET

// func radamAVX(p, m, v *float64, n int, bc1, lr, sbc2, eps, rect float64)
//
// p = p − ((((m / bc1)·lr)·(sbc2 / (√v + eps)))·rect).
TEXT ·radamAVX(SB), NOSPLIT, $0-72
	MOVQ p+0(FP), DI
	MOVQ m+8(FP), SI
	MOVQ v+16(FP), DX
	MOVQ n+24(FP), CX
	SHLQ $3, CX
	VBROADCASTSD bc1+32(FP), Y8
	VBROADCASTSD lr+40(FP), Y9
	VBROADCASTSD sbc2+48(FP), Y10
	VBROADCASTSD eps+56(FP), Y11
	VBROADCASTSD rect+64(FP), Y12
	XORQ BX, BX

radam_loop:
	CMPQ BX, CX
	JGE  radam_done
	VSQRTPD (DX)(BX*1), Y0
	VADDPD Y11, Y0, Y0      // √v + eps
	VDIVPD Y0, Y10, Y0      // sbc2 / (…)
	VMOVUPD (SI)(BX*1), Y1
	VDIVPD Y8, Y1, Y1       // m / bc1
	VMULPD Y9, Y1, Y1       // ·lr
	VMULPD Y0, Y1, Y1       // ·(sbc2 / …)
	VMULPD Y12, Y1, Y1      // ·rect
	VMOVUPD (DI)(BX*1), Y2
	VSUBPD Y1, Y2, Y2
	VMOVUPD Y2, (DI)(BX*1)
	ADDQ $32, BX
	JMP  radam_loop

radam_done:
	VZEROUPPER
	RET
