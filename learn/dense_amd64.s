//go:build !purego

#include "textflag.h"

// func denseRowsAVX(h, biased, col *float64, bo, co *int, rs *float64, rows, hp int, w2p, b2p *float64, m int, out *float64, mp, ostride int)
//
// denseNet.forwardRows for a group of m ≤ 8 outputs (w2p, b2p and out at
// the group's first; mp the outputs of a block of w2p, ostride those of a
// row of out), row by row, four hidden units a block: h = max(fma(r, col, biased), +0) (VFMADD231PD, then VMAXPD with
// +0 as the second operand, which it returns for NaN and ±0), then one
// VFMADD231PD per output into that output's four lane sums (Y8–Y15), the
// outputs two at a time (BX the block's bytes of w2p, 64 a pair); at the
// row's end each pair is reduced as ((p0 + p1) + (p2 + p3)) (VHADDPD, the
// high half added to the low), B2 added, and stored (the last output
// alone when m is odd). CX the row, R8 bo, R9 co, R10 rs, SI biased, DX
// col, DI the row of h, R15 the row of out, AX and BX the row's biased
// and col, R11 the block's offset, R12 the block of w2p, R13 the bytes of
// the group's pairs in a block (64 a pair), R14 the bytes of w2p a block;
// hp is turned into bytes in its argument slot.
TEXT ·denseRowsAVX(SB), NOSPLIT, $0-112
	MOVQ   h+0(FP), DI
	MOVQ   biased+8(FP), SI
	MOVQ   col+16(FP), DX
	MOVQ   bo+24(FP), R8
	MOVQ   co+32(FP), R9
	MOVQ   rs+40(FP), R10
	MOVQ   hp+56(FP), R13
	SHLQ   $3, R13
	MOVQ   R13, hp+56(FP)
	MOVQ   m+80(FP), R13
	INCQ   R13
	SHRQ   $1, R13
	SHLQ   $6, R13
	MOVQ   mp+96(FP), R14
	SHLQ   $5, R14
	MOVQ   out+88(FP), R15
	VXORPD Y1, Y1, Y1
	XORQ   CX, CX

rows_loop:
	CMPQ         CX, rows+48(FP)
	JGE          rows_done
	MOVQ         (R8)(CX*8), AX
	LEAQ         (SI)(AX*8), AX
	MOVQ         (R9)(CX*8), BX
	LEAQ         (DX)(BX*8), BX
	VBROADCASTSD (R10)(CX*8), Y0
	MOVQ         w2p+64(FP), R12
	VXORPD       Y8, Y8, Y8
	VXORPD       Y9, Y9, Y9
	VXORPD       Y10, Y10, Y10
	VXORPD       Y11, Y11, Y11
	VXORPD       Y12, Y12, Y12
	VXORPD       Y13, Y13, Y13
	VXORPD       Y14, Y14, Y14
	VXORPD       Y15, Y15, Y15
	XORQ         R11, R11

rows_block:
	CMPQ        R11, hp+56(FP)
	JGE         rows_reduce
	VMOVUPD     (AX)(R11*1), Y4
	VFMADD231PD (BX)(R11*1), Y0, Y4
	VMAXPD      Y1, Y4, Y4
	VMOVUPD     Y4, (DI)(R11*1)
	VFMADD231PD (R12), Y4, Y8
	VFMADD231PD 32(R12), Y4, Y9
	CMPQ        R13, $128
	JLT         rows_next
	VFMADD231PD 64(R12), Y4, Y10
	VFMADD231PD 96(R12), Y4, Y11
	CMPQ        R13, $192
	JLT         rows_next
	VFMADD231PD 128(R12), Y4, Y12
	VFMADD231PD 160(R12), Y4, Y13
	CMPQ        R13, $256
	JLT         rows_next
	VFMADD231PD 192(R12), Y4, Y14
	VFMADD231PD 224(R12), Y4, Y15

rows_next:
	ADDQ R14, R12
	ADDQ $32, R11
	JMP  rows_block

rows_reduce:
	MOVQ         b2p+72(FP), AX
	MOVQ         m+80(FP), BX
	VHADDPD      Y9, Y8, Y8
	VEXTRACTF128 $1, Y8, X2
	VADDPD       X2, X8, X8
	VADDPD       (AX), X8, X8
	CMPQ         BX, $1
	JEQ          rows_last
	VMOVUPD      X8, (R15)
	CMPQ         BX, $2
	JEQ          rows_end
	VHADDPD      Y11, Y10, Y10
	VEXTRACTF128 $1, Y10, X2
	VADDPD       X2, X10, X8
	VADDPD       16(AX), X8, X8
	CMPQ         BX, $3
	JEQ          rows_last2
	VMOVUPD      X8, 16(R15)
	CMPQ         BX, $4
	JEQ          rows_end
	VHADDPD      Y13, Y12, Y12
	VEXTRACTF128 $1, Y12, X2
	VADDPD       X2, X12, X8
	VADDPD       32(AX), X8, X8
	CMPQ         BX, $5
	JEQ          rows_last3
	VMOVUPD      X8, 32(R15)
	CMPQ         BX, $6
	JEQ          rows_end
	VHADDPD      Y15, Y14, Y14
	VEXTRACTF128 $1, Y14, X2
	VADDPD       X2, X14, X8
	VADDPD       48(AX), X8, X8
	CMPQ         BX, $7
	JEQ          rows_last4
	VMOVUPD      X8, 48(R15)
	JMP          rows_end

rows_last:
	VMOVSD X8, (R15)
	JMP    rows_end

rows_last2:
	VMOVSD X8, 16(R15)
	JMP    rows_end

rows_last3:
	VMOVSD X8, 32(R15)
	JMP    rows_end

rows_last4:
	VMOVSD X8, 48(R15)

rows_end:
	MOVQ ostride+104(FP), BX
	LEAQ (R15)(BX*8), R15
	ADDQ hp+56(FP), DI
	INCQ CX
	JMP  rows_loop

rows_done:
	VZEROUPPER
	RET

// func outGradRowsAVX(gw2s, h, dz *float64, rows, hp, m, dzs int)
//
// denseNet.backwardRows's W2 gradient for a group of m ≤ 8 outputs (gw2s
// and dz at the group's first; dzs the outputs of a row of dz):
// gw2s[o*hp+j] = fma(dz[r*dzs+o], h[r*hp+j], ·) over the rows r in order
// from +0, four units a block with the block's m sums in Y8–Y15 across
// the rows. DI gw2s, SI h, DX dz, R8 hp in bytes, R9 m, AX dzs in bytes,
// R10 the block's offset, R11 the block in the row's h, R12 the row's
// dz, R13 rows left, R14 the output's row of gw2s.
TEXT ·outGradRowsAVX(SB), NOSPLIT, $0-56
	MOVQ gw2s+0(FP), DI
	MOVQ h+8(FP), SI
	MOVQ dz+16(FP), DX
	MOVQ hp+32(FP), R8
	SHLQ $3, R8
	MOVQ m+40(FP), R9
	MOVQ dzs+48(FP), AX
	SHLQ $3, AX
	XORQ R10, R10

og_block:
	CMPQ   R10, R8
	JGE    og_done
	VXORPD Y8, Y8, Y8
	VXORPD Y9, Y9, Y9
	VXORPD Y10, Y10, Y10
	VXORPD Y11, Y11, Y11
	VXORPD Y12, Y12, Y12
	VXORPD Y13, Y13, Y13
	VXORPD Y14, Y14, Y14
	VXORPD Y15, Y15, Y15
	LEAQ   (SI)(R10*1), R11
	MOVQ   DX, R12
	MOVQ   rows+24(FP), R13
	TESTQ  R13, R13
	JEQ    og_store

og_row:
	VMOVUPD      (R11), Y0
	VBROADCASTSD (R12), Y1
	VFMADD231PD  Y1, Y0, Y8
	CMPQ         R9, $1
	JLE          og_next
	VBROADCASTSD 8(R12), Y2
	VFMADD231PD  Y2, Y0, Y9
	CMPQ         R9, $2
	JLE          og_next
	VBROADCASTSD 16(R12), Y1
	VFMADD231PD  Y1, Y0, Y10
	CMPQ         R9, $3
	JLE          og_next
	VBROADCASTSD 24(R12), Y2
	VFMADD231PD  Y2, Y0, Y11
	CMPQ         R9, $4
	JLE          og_next
	VBROADCASTSD 32(R12), Y1
	VFMADD231PD  Y1, Y0, Y12
	CMPQ         R9, $5
	JLE          og_next
	VBROADCASTSD 40(R12), Y2
	VFMADD231PD  Y2, Y0, Y13
	CMPQ         R9, $6
	JLE          og_next
	VBROADCASTSD 48(R12), Y1
	VFMADD231PD  Y1, Y0, Y14
	CMPQ         R9, $7
	JLE          og_next
	VBROADCASTSD 56(R12), Y2
	VFMADD231PD  Y2, Y0, Y15

og_next:
	ADDQ R8, R11
	ADDQ AX, R12
	DECQ R13
	JNE  og_row

og_store:
	LEAQ    (DI)(R10*1), R14
	VMOVUPD Y8, (R14)
	CMPQ    R9, $1
	JLE     og_stored
	ADDQ    R8, R14
	VMOVUPD Y9, (R14)
	CMPQ    R9, $2
	JLE     og_stored
	ADDQ    R8, R14
	VMOVUPD Y10, (R14)
	CMPQ    R9, $3
	JLE     og_stored
	ADDQ    R8, R14
	VMOVUPD Y11, (R14)
	CMPQ    R9, $4
	JLE     og_stored
	ADDQ    R8, R14
	VMOVUPD Y12, (R14)
	CMPQ    R9, $5
	JLE     og_stored
	ADDQ    R8, R14
	VMOVUPD Y13, (R14)
	CMPQ    R9, $6
	JLE     og_stored
	ADDQ    R8, R14
	VMOVUPD Y14, (R14)
	CMPQ    R9, $7
	JLE     og_stored
	ADDQ    R8, R14
	VMOVUPD Y15, (R14)

og_stored:
	ADDQ $32, R10
	JMP  og_block

og_done:
	VZEROUPPER
	RET

// func firstRowsAVX(gw1t, w2p, h, dz *float64, bo, co *int, rs *float64, rows, hp, m, bcol int)
//
// denseNet.backwardRows's first layer for m ≤ 8 outputs, row by row, four
// units a block: gh = fma(W2[o][j], dz_o, ·) from +0 for o in order (w2p's
// block, the row's dz broadcast in Y8–Y15), g = gh where h > 0 and +0
// elsewhere (VCMPPD greater-than, ordered: +0 for NaN), then gw1t's B1
// column (bcol) and x's (bo) += g and c's (co) = fma(g, r, ·), in that
// order. DI gw1t, SI w2p, DX the row's h, R8 the row's dz, R9 bo, R10
// co, R13 rs, CX the row, AX x's column, BX c's column, R15 B1's column,
// R11 the block's offset, R12 the block of w2p, R14 the bytes of w2p a
// block; Y7 r, Y6 +0.
TEXT ·firstRowsAVX(SB), NOSPLIT, $0-88
	MOVQ   gw1t+0(FP), DI
	MOVQ   w2p+8(FP), SI
	MOVQ   h+16(FP), DX
	MOVQ   dz+24(FP), R8
	MOVQ   bo+32(FP), R9
	MOVQ   co+40(FP), R10
	MOVQ   rs+48(FP), R13
	MOVQ   bcol+80(FP), R15
	LEAQ   (DI)(R15*8), R15
	MOVQ   m+72(FP), R14
	INCQ   R14
	SHRQ   $1, R14
	SHLQ   $6, R14
	VXORPD Y6, Y6, Y6
	XORQ   CX, CX

fr_row:
	CMPQ         CX, rows+56(FP)
	JGE          fr_done
	MOVQ         (R9)(CX*8), AX
	LEAQ         (DI)(AX*8), AX
	MOVQ         (R10)(CX*8), BX
	LEAQ         (DI)(BX*8), BX
	VBROADCASTSD (R13)(CX*8), Y7
	MOVQ         m+72(FP), R11
	VBROADCASTSD (R8), Y8
	CMPQ         R11, $1
	JLE          fr_loaded
	VBROADCASTSD 8(R8), Y9
	CMPQ         R11, $2
	JLE          fr_loaded
	VBROADCASTSD 16(R8), Y10
	CMPQ         R11, $3
	JLE          fr_loaded
	VBROADCASTSD 24(R8), Y11
	CMPQ         R11, $4
	JLE          fr_loaded
	VBROADCASTSD 32(R8), Y12
	CMPQ         R11, $5
	JLE          fr_loaded
	VBROADCASTSD 40(R8), Y13
	CMPQ         R11, $6
	JLE          fr_loaded
	VBROADCASTSD 48(R8), Y14
	CMPQ         R11, $7
	JLE          fr_loaded
	VBROADCASTSD 56(R8), Y15

fr_loaded:
	LEAQ (R8)(R11*8), R8
	MOVQ SI, R12
	XORQ R11, R11

fr_block:
	MOVQ        hp+64(FP), R9
	SHLQ        $3, R9
	CMPQ        R11, R9
	JGE         fr_next
	VXORPD      Y0, Y0, Y0
	VFMADD231PD (R12), Y8, Y0
	CMPQ        m+72(FP), $1
	JLE         fr_gh
	VFMADD231PD 32(R12), Y9, Y0
	CMPQ        m+72(FP), $2
	JLE         fr_gh
	VFMADD231PD 64(R12), Y10, Y0
	CMPQ        m+72(FP), $3
	JLE         fr_gh
	VFMADD231PD 96(R12), Y11, Y0
	CMPQ        m+72(FP), $4
	JLE         fr_gh
	VFMADD231PD 128(R12), Y12, Y0
	CMPQ        m+72(FP), $5
	JLE         fr_gh
	VFMADD231PD 160(R12), Y13, Y0
	CMPQ        m+72(FP), $6
	JLE         fr_gh
	VFMADD231PD 192(R12), Y14, Y0
	CMPQ        m+72(FP), $7
	JLE         fr_gh
	VFMADD231PD 224(R12), Y15, Y0

fr_gh:
	VMOVUPD     (DX)(R11*1), Y1
	VCMPPD      $0x1e, Y6, Y1, Y2
	VANDPD      Y2, Y0, Y0
	VADDPD      (R15)(R11*1), Y0, Y3
	VMOVUPD     Y3, (R15)(R11*1)
	VADDPD      (AX)(R11*1), Y0, Y3
	VMOVUPD     Y3, (AX)(R11*1)
	VMOVUPD     (BX)(R11*1), Y3
	VFMADD231PD Y7, Y0, Y3
	VMOVUPD     Y3, (BX)(R11*1)
	ADDQ        R14, R12
	ADDQ        $32, R11
	JMP         fr_block

fr_next:
	ADDQ R9, DX
	MOVQ bo+32(FP), R9
	INCQ CX
	JMP  fr_row

fr_done:
	VZEROUPPER
	RET

// func firstRowsWideAVX(gw1t, w2p, h, dz *float64, bo, co *int, rs *float64, rows, hp, m, bcol int)
//
// firstRowsAVX for any number of outputs m ≥ 1: each block's sum over the
// outputs broadcasts dz[o] in turn (VBROADCASTSD, then VFMADD231PD) instead
// of holding them in registers; the same operations in the same order. hp
// is turned into bytes in its argument slot. DI gw1t, SI w2p, DX the row's
// h, R8 the row's dz, CX the row, AX x's column, BX c's column, R15 B1's
// column, R11 the block's offset, R12 the block of w2p, R14 the bytes of
// w2p a block; in a block R9 the outputs left, R10 &dz[o], R13 &w2p[o];
// Y7 r, Y6 +0.
TEXT ·firstRowsWideAVX(SB), NOSPLIT, $0-88
	MOVQ   gw1t+0(FP), DI
	MOVQ   w2p+8(FP), SI
	MOVQ   h+16(FP), DX
	MOVQ   dz+24(FP), R8
	MOVQ   bcol+80(FP), R15
	LEAQ   (DI)(R15*8), R15
	MOVQ   hp+64(FP), AX
	SHLQ   $3, AX
	MOVQ   AX, hp+64(FP)
	MOVQ   m+72(FP), R14
	INCQ   R14
	SHRQ   $1, R14
	SHLQ   $6, R14
	VXORPD Y6, Y6, Y6
	XORQ   CX, CX

fw_row:
	CMPQ         CX, rows+56(FP)
	JGE          fw_done
	MOVQ         bo+32(FP), R9
	MOVQ         (R9)(CX*8), AX
	LEAQ         (DI)(AX*8), AX
	MOVQ         co+40(FP), R9
	MOVQ         (R9)(CX*8), BX
	LEAQ         (DI)(BX*8), BX
	MOVQ         rs+48(FP), R9
	VBROADCASTSD (R9)(CX*8), Y7
	MOVQ         SI, R12
	XORQ         R11, R11

fw_block:
	CMPQ   R11, hp+64(FP)
	JGE    fw_next
	VXORPD Y0, Y0, Y0
	MOVQ   m+72(FP), R9
	MOVQ   R8, R10
	MOVQ   R12, R13

fw_out:
	VBROADCASTSD (R10), Y2
	VFMADD231PD  (R13), Y2, Y0
	ADDQ         $8, R10
	ADDQ         $32, R13
	DECQ         R9
	JNE          fw_out
	VMOVUPD      (DX)(R11*1), Y1
	VCMPPD       $0x1e, Y6, Y1, Y2
	VANDPD       Y2, Y0, Y0
	VADDPD       (R15)(R11*1), Y0, Y3
	VMOVUPD      Y3, (R15)(R11*1)
	VADDPD       (AX)(R11*1), Y0, Y3
	VMOVUPD      Y3, (AX)(R11*1)
	VMOVUPD      (BX)(R11*1), Y3
	VFMADD231PD  Y7, Y0, Y3
	VMOVUPD      Y3, (BX)(R11*1)
	ADDQ         R14, R12
	ADDQ         $32, R11
	JMP          fw_block

fw_next:
	ADDQ hp+64(FP), DX
	MOVQ m+72(FP), R9
	LEAQ (R8)(R9*8), R8
	INCQ CX
	JMP  fw_row

fw_done:
	VZEROUPPER
	RET
