package nnls

import (
	"fmt"
	"math"

	"github.com/neuralnmf/neuralnmf/tensor"
)

// SolveSparse is Solve for a sparse X (N×M in CSC form): the same solution,
// computed without forming any dense N×M matrix; QᵀX costs min(N, k)·nnz.
// Errors are those of Solve.
func SolveSparse(a *tensor.Dense, x *tensor.Sparse, opt *Options) (*Result, error) {
	return solveData(a, sparseData{x}, opt)
}

// BackwardSparse is Backward for a solution of SolveSparse. X is data here, so
// only ∂L/∂A (N×k) is computed, into ga; X·Uᵀ is formed by blocks of rows
// on all cores (k·nnz) and no N×M matrix is formed.
func (r *Result) BackwardSparse(a *tensor.Dense, x *tensor.Sparse, gs, ga *tensor.Dense, workers int) error {
	if ga == nil {
		return nil
	}
	return r.backward(a, sparseData{x}, nil, gs, ga, nil, Term{}, workers)
}

// BackwardSparseTerm is BackwardSparse with the Term t added to ∂L/∂A, its
// X·Hᵀ formed in the same pass over X's nonzeros, as BackwardTerm is for
// Backward.
func (r *Result) BackwardSparseTerm(a *tensor.Dense, x *tensor.Sparse, gs, ga *tensor.Dense, t Term, workers int) error {
	if ga == nil {
		return nil
	}
	if err := termShape(t, r.S); err != nil {
		return err
	}
	return r.backward(a, sparseData{x}, nil, gs, ga, nil, t, workers)
}

type sparseData struct{ x *tensor.Sparse }

// scan reads the nonzeros once (one goroutine: there are few of them).
func (d sparseData) scan(int) (bool, error) {
	extreme, finite := classify(magnitudes(d.x.Val))
	if !finite {
		return false, fmt.Errorf("nnls: %w", tensor.CheckSparseFinite("X", d.x))
	}
	return extreme, nil
}

func (d sparseData) dims() (int, int) { return d.x.Rows, d.x.Cols }

func (d sparseData) qtx(q *tensor.Dense, j0, j1 int, dst []float64, stride int) {
	d.x.MulTA(q, j0, j1, dst, stride)
}

func (d sparseData) colMax(j0, j1 int, dst []float64) {
	for j := j0; j < j1; j++ {
		_, vals := d.x.Column(j)
		var mx float64
		for _, v := range vals {
			mx = math.Max(mx, math.Abs(v))
		}
		dst[j-j0] = mx
	}
}

func (d sparseData) qtxScaled(q *tensor.Dense, j0, j1 int, f []float64, dst []float64, stride int, buf []float64) []float64 {
	lo, hi := d.x.ColPtr[j0], d.x.ColPtr[j1]
	if cap(buf) < hi-lo {
		buf = make([]float64, hi-lo)
	}
	buf = buf[:hi-lo]
	ptr := make([]int, j1-j0+1)
	for j := j0; j < j1; j++ {
		ptr[j-j0+1] = d.x.ColPtr[j+1] - lo
		for p := d.x.ColPtr[j]; p < d.x.ColPtr[j+1]; p++ {
			buf[p-lo] = d.x.Val[p] * f[j-j0]
		}
	}
	c := &tensor.Sparse{Rows: d.x.Rows, Cols: j1 - j0, ColPtr: ptr, RowIdx: d.x.RowIdx[lo:hi], Val: buf}
	c.MulTA(q, 0, j1-j0, dst, stride)
	return buf
}
