package gather

import "golang.org/x/sys/cpu"

var haveFMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// axpy16, axpy8 and axpy4 are Axpy on 16, 8 and 4 columns of acc and b
// (gather_amd64.s), the columns' sums in YMM registers.
//
//go:noescape
func axpy16(acc, vals *float64, idx *int, n int, b *float64, ldb int, alpha float64)

//go:noescape
func axpy8(acc, vals *float64, idx *int, n int, b *float64, ldb int, alpha float64)

//go:noescape
func axpy4(acc, vals *float64, idx *int, n int, b *float64, ldb int, alpha float64)

// axpy2 and axpy1 are Axpy on the last 2 and 1 columns (XMM registers).
//
//go:noescape
func axpy2(acc, vals *float64, idx *int, n int, b *float64, ldb int, alpha float64)

//go:noescape
func axpy1(acc, vals *float64, idx *int, n int, b *float64, ldb int, alpha float64)

// addScaled sets dst[i] = fma(alpha, x[i], dst[i]) for i < n.
//
//go:noescape
func addScaled(dst, x *float64, n int, alpha float64)
