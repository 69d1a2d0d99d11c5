package ssnmf

import (
	"github.com/neuralnmf/neuralnmf/internal/parallel"
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

// sparseOp keeps X and its transpose: AᵀX runs over X's columns and X·Uᵀ
// over Xᵀ's columns (X's rows), so neither product searches a column for a
// block of rows, and both share out among goroutines without changing a
// single sum.
type sparseOp struct {
	x, xt *tensor.Sparse
	ut    *tensor.Dense // M×k scratch: Uᵀ, contiguous rows for MulTRows
	norm2 float64
}

func newSparseOp(x *tensor.Sparse) *sparseOp {
	return &sparseOp{x: x, xt: x.T(), norm2: x.SqNorm()}
}

func (s *sparseOp) dims() (int, int)          { return s.x.Rows, s.x.Cols }
func (s *sparseOp) tMul(a, dst *tensor.Dense) { s.x.MulTAParallel(a, dst) }
func (s *sparseOp) sqNorm() float64           { return s.norm2 }

func (s *sparseOp) mulT(u, dst *tensor.Dense) {
	if s.ut == nil || s.ut.Rows != u.Cols || s.ut.Cols != u.Rows {
		s.ut = tensor.New(u.Cols, u.Rows)
	}
	tensor.TransposeInto(s.ut, u)
	parallel.ForChunks(s.x.Rows, halsChunk, workersFor(u.Rows*s.x.NNZ()), func(_, r0, r1 int) {
		for r := r0; r < r1; r++ {
			clear(dst.Row(r))
		}
		s.xt.MulTRows(1, s.ut, r0, r1, dst)
	})
}
