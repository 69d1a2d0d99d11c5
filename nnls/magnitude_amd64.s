#include "textflag.h"

// func magnitudesAVX2(x []float64) (mx, mnz uint64)
//
// mx is the largest |x_i| and mnz the smallest nonzero one, both as bits
// (the sign bit cleared, so they order like the values and compare alike as
// signed or unsigned integers); mnz is 0x7fffffffffffffff if every entry is
// zero. len(x) must be a positive multiple of 8. Two sets of four lanes of
// running maxima (Y1, Y7) and minima (Y2, Y8), so that two chains of
// compare-and-blend run side by side, zeros replaced by the marker before
// the minimum; then the sets are merged and the lanes reduced in scalar.
TEXT ·magnitudesAVX2(SB), NOSPLIT, $64-40
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	MOVQ $0x7fffffffffffffff, AX
	MOVQ AX, X0
	VPBROADCASTQ X0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y7, Y7, Y7
	VMOVDQU Y0, Y2
	VMOVDQU Y0, Y8
	VPXOR Y5, Y5, Y5

loop:
	VMOVDQU (SI), Y3
	VMOVDQU 32(SI), Y9
	VPAND Y0, Y3, Y3
	VPAND Y0, Y9, Y9
	VPCMPGTQ Y1, Y3, Y4
	VPCMPGTQ Y7, Y9, Y10
	VPBLENDVB Y4, Y3, Y1, Y1
	VPBLENDVB Y10, Y9, Y7, Y7
	VPCMPEQQ Y5, Y3, Y6
	VPCMPEQQ Y5, Y9, Y11
	VPBLENDVB Y6, Y0, Y3, Y3
	VPBLENDVB Y11, Y0, Y9, Y9
	VPCMPGTQ Y3, Y2, Y4
	VPCMPGTQ Y9, Y8, Y10
	VPBLENDVB Y4, Y3, Y2, Y2
	VPBLENDVB Y10, Y9, Y8, Y8
	ADDQ $64, SI
	SUBQ $8, CX
	JNZ loop

	// Merge the two sets of lanes.
	VPCMPGTQ Y1, Y7, Y4
	VPBLENDVB Y4, Y7, Y1, Y1
	VPCMPGTQ Y8, Y2, Y4
	VPBLENDVB Y4, Y8, Y2, Y2

	VMOVDQU Y1, 0(SP)
	VMOVDQU Y2, 32(SP)
	VZEROUPPER
	MOVQ 0(SP), AX
	MOVQ 8(SP), BX
	CMPQ BX, AX
	CMOVQHI BX, AX
	MOVQ 16(SP), BX
	CMPQ BX, AX
	CMOVQHI BX, AX
	MOVQ 24(SP), BX
	CMPQ BX, AX
	CMOVQHI BX, AX
	MOVQ AX, mx+24(FP)
	MOVQ 32(SP), AX
	MOVQ 40(SP), BX
	CMPQ BX, AX
	CMOVQCS BX, AX
	MOVQ 48(SP), BX
	CMPQ BX, AX
	CMOVQCS BX, AX
	MOVQ 56(SP), BX
	CMPQ BX, AX
	CMOVQCS BX, AX
	MOVQ AX, mnz+32(FP)
	RET
