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
