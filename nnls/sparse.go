package nnls

import (
	"fmt"
	"math"

	"github.com/neuralnmf/neuralnmf/tensor"
)

// SolveSparse is Solve for a sparse X (N×M in CSC form): the same exact
// solution, computed without forming any dense N×M matrix; AᵀX costs k·nnz.
// Errors are those of Solve.
func SolveSparse(a *tensor.Dense, x *tensor.Sparse, opt *Options) (*Result, error) {
	if err := tensor.CheckSparseData("X", x); err != nil {
		return nil, fmt.Errorf("nnls: %w", err)
	}
	return solveData(a, sparseData{x}, opt)
}

// BackwardSparse is Backward for a solution of SolveSparse. X is data here, so
// only ∂L/∂A (N×k) is computed, into ga; X·Uᵀ is accumulated column by column
// (k·nnz) and no N×M matrix is formed.
func (r *Result) BackwardSparse(a *tensor.Dense, x *tensor.Sparse, gs, ga *tensor.Dense, workers int) error {
	if ga == nil {
		return nil
	}
	return r.backward(a, sparseData{x}, nil, gs, ga, nil, workers)
}

type sparseData struct{ x *tensor.Sparse }

func (d sparseData) dims() (int, int) { return d.x.Rows, d.x.Cols }

func (d sparseData) atA(a *tensor.Dense, j0, j1 int, dst []float64, stride int, norms []float64) {
	d.x.MulTA(a, j0, j1, dst, stride)
	for j := j0; j < j1; j++ {
		_, vals := d.x.Column(j)
		var q, mx float64
		for _, v := range vals {
			q += v * v
			mx = math.Max(mx, v)
		}
		if q > 1e300 || (q < 1e-290 && mx > 0) { // rescale on over/underflow
			q = 0
			for _, v := range vals {
				q += (v / mx) * (v / mx)
			}
			norms[j-j0] = mx * math.Sqrt(q)
			continue
		}
		norms[j-j0] = math.Sqrt(q)
	}
}

func (d sparseData) column(j int, dst []float64) {
	clear(dst)
	rows, vals := d.x.Column(j)
	for p, i := range rows {
		dst[i] = vals[p]
	}
}
