package ops

import "github.com/neuralnmf/neuralnmf/tensor"

// gemm sets c = alpha·op(a)·op(b) + beta·c; see tensor.Gemm.
func gemm(transA, transB bool, alpha float64, a, b *tensor.Dense, beta float64, c *tensor.Dense) {
	tensor.Gemm(transA, transB, alpha, a, b, beta, c)
}
