package ops

import (
	"fmt"

	"github.com/neuralnmf/neuralnmf/autograd"
	"github.com/neuralnmf/neuralnmf/nnls"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// NNLS returns S = q(A, X) = argmin_{S ≥ 0} ‖X − AS‖_F for a of shape N×k and
// x of shape N×M; S is k×M. This is the layer of Neural NMF:
// S⁽ˡ⁾ = q(A⁽ˡ⁾, S⁽ˡ⁻¹⁾). The forward pass is nnls.Solve (a certified
// active-set solution for A and X of any sign, shape and rank; opt as there,
// nil for defaults). Where A has dependent columns the solution's support
// columns are independent, so the theorem below applies on it. The backward pass is the paper's
// theorem in the vectorised form of nnls.Result.Backward: with U_{T,m} =
// (A_TᵀA_T)⁻¹·G_{T,m} on each column's support T,
//
//	∂L/∂X = A·U,   ∂L/∂A = X·Uᵀ − A·(S·Uᵀ + U·Sᵀ).
//
// q is only piecewise smooth (one piece per set of supports); NNLS marks the
// supports it found on the tape (autograd.Tape.MarkPiece), so gradcheck can
// skip steps that change one.
//
// The second result gives the supports (to warm-start the next call with
// Options.Warm) and the solver's statistics; it is nil if the op failed. Bad
// input (an empty matrix, a non-finite entry, mismatched row counts) records
// an error on the tape; so does a support whose A_TᵀA_T is exactly singular
// in the backward pass, where q is not differentiable.
func NNLS(a, x *autograd.Var, opt *nnls.Options) (*autograd.Var, *nnls.Result) {
	const op = "ops.NNLS"
	t := autograd.TapeOf(op, a, x)
	if t.Err() != nil {
		return t.Failed(), nil
	}
	av, xv := a.Value(), x.Value()
	res, err := nnls.Solve(av, xv, opt)
	if err != nil {
		return t.Fail(fmt.Errorf("%s: %w", op, err)), nil
	}
	t.MarkPiece(res.Support.Hash())
	workers := 0
	if opt != nil {
		workers = opt.Workers
	}
	out := t.Record(op, res.S, func(g *tensor.Dense, need []bool) []*tensor.Dense {
		var ga, gx *tensor.Dense
		if need[0] {
			ga = t.Alloc(av.Rows, av.Cols)
		}
		if need[1] {
			gx = t.Alloc(xv.Rows, xv.Cols)
		}
		if err := res.Backward(av, xv, g, ga, gx, workers); err != nil {
			t.Fail(fmt.Errorf("%s: %w", op, err))
			return []*tensor.Dense{nil, nil}
		}
		return []*tensor.Dense{ga, gx}
	}, a, x)
	return out, res
}
