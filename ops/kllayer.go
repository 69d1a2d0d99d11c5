package ops

import (
	"fmt"

	"github.com/neuralnmf/neuralnmf/autograd"
	"github.com/neuralnmf/neuralnmf/nnkl"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// KLLayer returns the layer whose S minimises the generalised
// Kullback–Leibler divergence instead of the squared error:
//
//	S = argmin_{S ≥ 0} D(X ‖ A·S),  D(X ‖ Y) = Σ x·log(x/y) − x + y,
//
// column by column, for a nonnegative a (N×k) and x (N×M); S is k×M. One
// KLLayer trained on the KL loss is KL-NMF; stacked, a KL Neural NMF.
//
// The forward pass is nnkl.Solve (projected Newton steps, the result
// certified column by column) and the backward pass nnkl's
// implicit-differentiation formula on each column's support: with
// r = 1 − x/y, w = x/y² and U_T = H_TT⁻¹·G_T,
//
//	∂L/∂A = −Σ_m (r_m·u_mᵀ + (w_m ∘ A·u_m)·s_mᵀ),   ∂L/∂X = (A·U) / Y.
//
// Like NNLS the map is piecewise smooth, one piece per set of supports,
// marked on the tape for gradcheck.
//
// Errors recorded on the tape: nnkl.Solve's (negative or non-finite
// entries, mismatched rows, a column of x with a positive entry in a row
// where A is all zero, a column whose solution is not certified).
func KLLayer(a, x *autograd.Var) *autograd.Var { return klLayer("ops.KLLayer", a, x, nil) }

// KLLayerFrom is KLLayer with each column's Newton iteration started from
// start (k×M; see nnkl.Options.Start).
func KLLayerFrom(a, x *autograd.Var, start *tensor.Dense) *autograd.Var {
	return klLayer("ops.KLLayerFrom", a, x, start)
}

func klLayer(op string, a, x *autograd.Var, start *tensor.Dense) *autograd.Var {
	t := autograd.TapeOf(op, a, x)
	if t.Err() != nil {
		return t.Failed()
	}
	av, xv := a.Value(), x.Value()
	res, err := nnkl.Solve(av, xv, &nnkl.Options{Start: start})
	if err != nil {
		return t.Fail(fmt.Errorf("%s: %w", op, err))
	}
	t.MarkPiece(res.Support.Hash())
	return t.Record(op, res.S, func(g *tensor.Dense, need []bool) []*tensor.Dense {
		var ga, gx *tensor.Dense
		if need[0] {
			ga = t.Alloc(av.Rows, av.Cols)
		}
		if need[1] {
			gx = t.Alloc(xv.Rows, xv.Cols)
		}
		if err := res.Backward(av, xv, g, ga, gx); err != nil {
			t.Fail(fmt.Errorf("%s: %w", op, err))
			return []*tensor.Dense{nil, nil}
		}
		return []*tensor.Dense{ga, gx}
	}, a, x)
}

// KLLayerSparse is KLLayer for a sparse, constant X (N×M): the solves and
// the backward pass touch only X's non-zeros, and no N×M matrix is formed.
// X receives no gradient (it is data). Errors are recorded on the tape as
// for KLLayer.
func KLLayerSparse(a *autograd.Var, x *tensor.Sparse) *autograd.Var {
	return klLayerSparse("ops.KLLayerSparse", a, x, nil)
}

// KLLayerSparseFrom is KLLayerSparse started from start, as KLLayerFrom.
func KLLayerSparseFrom(a *autograd.Var, x *tensor.Sparse, start *tensor.Dense) *autograd.Var {
	return klLayerSparse("ops.KLLayerSparseFrom", a, x, start)
}

func klLayerSparse(op string, a *autograd.Var, x *tensor.Sparse, start *tensor.Dense) *autograd.Var {
	t := autograd.TapeOf(op, a)
	if t.Err() != nil {
		return t.Failed()
	}
	av := a.Value()
	res, err := nnkl.SolveSparse(av, x, &nnkl.Options{Start: start})
	if err != nil {
		return t.Fail(fmt.Errorf("%s: %w", op, err))
	}
	t.MarkPiece(res.Support.Hash())
	return t.Record(op, res.S, func(g *tensor.Dense, need []bool) []*tensor.Dense {
		ga := t.Alloc(av.Rows, av.Cols)
		if err := res.BackwardSparse(av, x, g, ga); err != nil {
			t.Fail(fmt.Errorf("%s: %w", op, err))
			return []*tensor.Dense{nil}
		}
		return []*tensor.Dense{ga}
	}, a)
}

// SolveKL is KLLayer's forward pass off the tape.
//
// Deprecated: use nnkl.Solve, the solver this op is a node over.
func SolveKL(a, x *tensor.Dense) (*tensor.Dense, error) {
	res, err := nnkl.Solve(a, x, nil)
	if err != nil {
		return nil, fmt.Errorf("ops.SolveKL: %w", err)
	}
	return res.S, nil
}

// SolveKLSparse is SolveKL for a sparse x.
//
// Deprecated: use nnkl.SolveSparse.
func SolveKLSparse(a *tensor.Dense, x *tensor.Sparse) (*tensor.Dense, error) {
	res, err := nnkl.SolveSparse(a, x, nil)
	if err != nil {
		return nil, fmt.Errorf("ops.SolveKLSparse: %w", err)
	}
	return res.S, nil
}
