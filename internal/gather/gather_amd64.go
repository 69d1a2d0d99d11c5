package gather

import "golang.org/x/sys/cpu"

var haveFMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA

//go:generate go run gen_axpy.go

// kernels[m] is Axpy on 4·m columns of acc and b (axpy_amd64.s, written by
// gen_axpy.go), their sums in m YMM registers, every term of a column added
// in order of p: one pass over the indices for up to 32 columns.
var kernels = [...]kernel{1: axpy4, 2: axpy8, 3: axpy12, 4: axpy16, 5: axpy20, 6: axpy24, 7: axpy28, 8: axpy32}

//go:noescape
func axpy32(acc, vals *float64, idx *int, n int, b *float64, ldb int, alpha float64)

//go:noescape
func axpy28(acc, vals *float64, idx *int, n int, b *float64, ldb int, alpha float64)

//go:noescape
func axpy24(acc, vals *float64, idx *int, n int, b *float64, ldb int, alpha float64)

//go:noescape
func axpy20(acc, vals *float64, idx *int, n int, b *float64, ldb int, alpha float64)

//go:noescape
func axpy16(acc, vals *float64, idx *int, n int, b *float64, ldb int, alpha float64)

//go:noescape
func axpy12(acc, vals *float64, idx *int, n int, b *float64, ldb int, alpha float64)

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
