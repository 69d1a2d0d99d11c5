#include "textflag.h"

// axpy2 and axpy1: the accumulator in an XMM register, one row of b a step
// (its index scaled by ldb), one broadcast of alpha·vals[p] and one fused
// multiply-add. The kernels on 4·m columns are generated (axpy_amd64.s).

// func axpy2(acc, vals *float64, idx *int, n int, b *float64, ldb int, alpha float64)
TEXT ·axpy2(SB), NOSPLIT, $0-56
	MOVQ acc+0(FP), DI
	MOVQ vals+8(FP), SI
	MOVQ idx+16(FP), DX
	MOVQ n+24(FP), CX
	MOVQ b+32(FP), BX
	MOVQ ldb+40(FP), R8
	VMOVDDUP alpha+48(FP), X15
	SHLQ $3, R8
	VMOVUPD (DI), X0
axpy2_loop:
	MOVQ (DX), AX
	IMULQ R8, AX
	ADDQ BX, AX
	VMOVDDUP (SI), X14
	VMULPD X15, X14, X14
	VFMADD231PD (AX), X14, X0
	ADDQ $8, SI
	ADDQ $8, DX
	DECQ CX
	JNZ axpy2_loop
	VMOVUPD X0, (DI)
	RET

// func axpy1(acc, vals *float64, idx *int, n int, b *float64, ldb int, alpha float64)
TEXT ·axpy1(SB), NOSPLIT, $0-56
	MOVQ acc+0(FP), DI
	MOVQ vals+8(FP), SI
	MOVQ idx+16(FP), DX
	MOVQ n+24(FP), CX
	MOVQ b+32(FP), BX
	MOVQ ldb+40(FP), R8
	VMOVSD alpha+48(FP), X15
	SHLQ $3, R8
	VMOVSD (DI), X0
axpy1_loop:
	MOVQ (DX), AX
	IMULQ R8, AX
	ADDQ BX, AX
	VMOVSD (SI), X14
	VMULSD X15, X14, X14
	VFMADD231SD (AX), X14, X0
	ADDQ $8, SI
	ADDQ $8, DX
	DECQ CX
	JNZ axpy1_loop
	VMOVSD X0, (DI)
	RET

// func addScaled(dst, x *float64, n int, alpha float64)
// dst[i] = fma(alpha, x[i], dst[i]) for i < n: 16 a step in four YMM
// registers, then 4, then one at a time.
TEXT ·addScaled(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSD alpha+24(FP), Y15
addScaled_16:
	CMPQ CX, $16
	JL addScaled_4
	VMOVUPD 0(DI), Y0
	VMOVUPD 32(DI), Y1
	VMOVUPD 64(DI), Y2
	VMOVUPD 96(DI), Y3
	VFMADD231PD 0(SI), Y15, Y0
	VFMADD231PD 32(SI), Y15, Y1
	VFMADD231PD 64(SI), Y15, Y2
	VFMADD231PD 96(SI), Y15, Y3
	VMOVUPD Y0, 0(DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	ADDQ $128, DI
	ADDQ $128, SI
	SUBQ $16, CX
	JMP addScaled_16
addScaled_4:
	CMPQ CX, $4
	JL addScaled_1
	VMOVUPD 0(DI), Y0
	VFMADD231PD 0(SI), Y15, Y0
	VMOVUPD Y0, 0(DI)
	ADDQ $32, DI
	ADDQ $32, SI
	SUBQ $4, CX
	JMP addScaled_4
addScaled_1:
	TESTQ CX, CX
	JE addScaled_done
	VMOVSD (DI), X0
	VFMADD231SD (SI), X15, X0
	VMOVSD X0, (DI)
	ADDQ $8, DI
	ADDQ $8, SI
	DECQ CX
	JMP addScaled_1
addScaled_done:
	VZEROUPPER
	RET
