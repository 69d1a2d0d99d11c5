package gemm

import "golang.org/x/sys/cpu"

// hasFMA says whether the AVX2 + FMA kernel runs on this CPU.
var hasFMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// kernel6x8 is the AVX2 + FMA micro-kernel (kernel_amd64.s), with the
// contract of kernelGo.
//
//go:noescape
func kernel6x8(k int, a, b, c *float64, ldc, ldb int, alpha float64)

func kernel(k int, a, b []float64, ldb int, c []float64, ldc int, alpha float64) {
	if !hasFMA || k == 0 {
		kernelGo(k, a, b, ldb, c, ldc, alpha)
		return
	}
	_ = a[k*MR-1]
	_ = b[(k-1)*ldb+NR-1]
	_ = c[(MR-1)*ldc+NR-1]
	kernel6x8(k, &a[0], &b[0], &c[0], ldc, ldb, alpha)
}
