package ssnmf

import (
	"github.com/neuralnmf/neuralnmf/tensor"
)

// linop is the data X (N×M) of HALS and NNDSVD, dense or sparse, seen only
// through the two products they need.
type linop interface {
	dims() (n, m int)
	// tMul sets dst (k×M) to AᵀX for A of shape N×k.
	tMul(a, dst *tensor.Dense)
	// mulT sets dst (N×k) to X·Uᵀ for U of shape k×M.
	mulT(u, dst *tensor.Dense)
	sqNorm() float64
}

type denseOp struct{ x *tensor.Dense }

func (d denseOp) dims() (int, int)          { return d.x.Rows, d.x.Cols }
func (d denseOp) tMul(a, dst *tensor.Dense) { tensor.Gemm(true, false, 1, a, d.x, 0, dst) }
func (d denseOp) mulT(u, dst *tensor.Dense) { tensor.Gemm(false, true, 1, d.x, u, 0, dst) }
func (d denseOp) sqNorm() float64           { return tensor.SqNorm(d.x) }

// sparseOp is a sparse X holding its transpose (tensor.Sparse.WithRows):
// AᵀX runs over X's columns and X·Uᵀ over X's rows, so neither product
// searches a column for a block of rows, and both share out among
// goroutines without changing a single sum.
type sparseOp struct {
	x     *tensor.Sparse
	norm2 float64
	ut    *tensor.Dense // mulT's Uᵀ, kept for the next product of its shape (so one goroutine at a time)
}

func newSparseOp(x *tensor.Sparse) *sparseOp {
	return &sparseOp{x: x.WithRows(), norm2: x.SqNorm()}
}

func (s *sparseOp) dims() (int, int)          { return s.x.Rows, s.x.Cols }
func (s *sparseOp) tMul(a, dst *tensor.Dense) { s.x.MulTAParallel(a, dst) }

// mulT is s.x.MulDenseTParallel(1, u, 0, dst), bit for bit, with Uᵀ in
// memory kept from the last product of its shape: HALS forms one an
// update.
func (s *sparseOp) mulT(u, dst *tensor.Dense) {
	if s.ut == nil || s.ut.Rows != u.Cols || s.ut.Cols != u.Rows {
		s.ut = tensor.New(u.Cols, u.Rows)
	}
	tensor.TransposeInto(s.ut, u)
	s.x.MulParallel(1, s.ut, 0, dst)
}

func (s *sparseOp) sqNorm() float64 { return s.norm2 }
