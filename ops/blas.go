package ops

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/neuralnmf/neuralnmf/tensor"
)

// gemm sets c = alpha·op(a)·op(b) + beta·c, where op transposes when the flag
// is set. Shapes are the caller's responsibility (gonum panics otherwise).
func gemm(transA, transB bool, alpha float64, a, b *tensor.Dense, beta float64, c *tensor.Dense) {
	if c.Rows == 0 || c.Cols == 0 {
		return
	}
	k := a.Cols
	if transA {
		k = a.Rows
	}
	if k == 0 {
		if beta != 1 {
			tensor.Scale(c, beta, c)
		}
		return
	}
	ta, tb := blas.NoTrans, blas.NoTrans
	if transA {
		ta = blas.Trans
	}
	if transB {
		tb = blas.Trans
	}
	blas64.Gemm(ta, tb, alpha, a.RawMatrix(), b.RawMatrix(), beta, c.RawMatrix())
}
