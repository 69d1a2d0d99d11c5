//go:build !amd64

package gather

const haveFMA = false

var kernels [9]kernel // never called: haveFMA is false

func axpy2(acc, vals *float64, idx *int, n int, b *float64, ldb int, alpha float64) {
	panic("unreachable")
}
func axpy1(acc, vals *float64, idx *int, n int, b *float64, ldb int, alpha float64) {
	panic("unreachable")
}
func addScaled(dst, x *float64, n int, alpha float64) { panic("unreachable") }
