package tensor

import (
	"fmt"

	"github.com/neuralnmf/neuralnmf/internal/gemm"
)

// Gemm sets c = alpha·op(a)·op(b) + beta·c, where op(m) is mᵀ when the
// corresponding trans flag is set, on all cores with the project's packed
// AVX2/FMA kernel (internal/gemm; portable Go where the CPU lacks AVX2 and
// FMA). As in BLAS, beta = 0 ignores c's contents. c must not alias a or b. It panics if the shapes do not agree. An inner dimension of
// zero scales c by beta.
func Gemm(transA, transB bool, alpha float64, a, b *Dense, beta float64, c *Dense) {
	ar, ac := a.Rows, a.Cols
	if transA {
		ar, ac = ac, ar
	}
	br, bc := b.Rows, b.Cols
	if transB {
		br, bc = bc, br
	}
	if ac != br || c.Rows != ar || c.Cols != bc {
		panic(fmt.Sprintf("tensor: Gemm: shapes %d×%d · %d×%d into %d×%d", ar, ac, br, bc, c.Rows, c.Cols))
	}
	if c.Rows == 0 || c.Cols == 0 {
		return
	}
	if ac == 0 {
		if beta != 1 {
			Scale(c, beta, c)
		}
		return
	}
	gemm.Dgemm(transA, transB, c.Rows, c.Cols, ac, alpha, a.Data, a.Stride, b.Data, b.Stride, beta, c.Data, c.Stride, 0)
}

// MatMul returns the new matrix op(a)·op(b).
func MatMul(transA, transB bool, a, b *Dense) *Dense {
	r, c := a.Rows, b.Cols
	if transA {
		r = a.Cols
	}
	if transB {
		c = b.Rows
	}
	out := New(r, c)
	Gemm(transA, transB, 1, a, b, 0, out)
	return out
}
