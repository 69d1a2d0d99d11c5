package tensor

import (
	"fmt"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// Gemm sets c = alpha·op(a)·op(b) + beta·c, where op(m) is mᵀ when the
// corresponding trans flag is set: a thin wrapper over blas64.Gemm. c must not
// alias a or b. It panics if the shapes do not agree. An inner dimension of
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
	ta, tb := blas.NoTrans, blas.NoTrans
	if transA {
		ta = blas.Trans
	}
	if transB {
		tb = blas.Trans
	}
	blas64.Gemm(ta, tb, alpha, a.RawMatrix(), b.RawMatrix(), beta, c.RawMatrix())
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
