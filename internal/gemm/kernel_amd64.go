package gemm

import "golang.org/x/sys/cpu"

// kernel6x8 is the AVX2 + FMA micro-kernel (kernel_amd64.s): mr = 6,
// nr = 8, C's block in 12 YMM registers.
//
//go:noescape
func kernel6x8(k int, a, b, c *float64, ldc, ldb int, alpha float64, overwrite bool)

// kernel8x24 is the AVX-512 micro-kernel (kernel_avx512_amd64.s): mr = 8,
// nr = 24, C's block in 24 ZMM registers.
//
//go:noescape
func kernel8x24(k int, a, b, c *float64, ldc, ldb int, alpha float64, overwrite bool)

var (
	avx2Kernel = microKernel{name: "avx2", mr: 6, nr: 8, run: func(k int, a, b []float64, ldb int, c []float64, ldc int, alpha float64, overwrite bool) {
		_ = a[k*6-1]
		_ = b[(k-1)*ldb+7]
		_ = c[5*ldc+7]
		kernel6x8(k, &a[0], &b[0], &c[0], ldc, ldb, alpha, overwrite)
	}}
	avx512Kernel = microKernel{name: "avx512", mr: 8, nr: 24, run: func(k int, a, b []float64, ldb int, c []float64, ldc int, alpha float64, overwrite bool) {
		_ = a[k*8-1]
		_ = b[(k-1)*ldb+23]
		_ = c[7*ldc+23]
		kernel8x24(k, &a[0], &b[0], &c[0], ldc, ldb, alpha, overwrite)
	}}
)

// kernels lists the micro-kernels this CPU runs, best first.
func kernels() []microKernel {
	var ks []microKernel
	if cpu.X86.HasAVX512F {
		ks = append(ks, avx512Kernel)
	}
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		ks = append(ks, avx2Kernel)
	}
	return append(ks, goKernel)
}

// kernel is the micro-kernel Dgemm uses: the first of kernels(), fixed at
// start-up.
var kernel = kernels()[0]
