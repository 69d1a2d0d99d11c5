package ops

import (
	"fmt"

	"github.com/neuralnmf/neuralnmf/autograd"
	"github.com/neuralnmf/neuralnmf/nnls"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// NNLS returns S = q(A, X) = argmin_{S ≥ 0} ‖X − AS‖_F for a of shape N×k and
// x of shape N×M; S is k×M. This is the layer of Neural NMF:
// S⁽ˡ⁾ = q(A⁽ˡ⁾, S⁽ˡ⁻¹⁾). The forward pass is nnls.Solve (exact active-set
// solution; opt as there, nil for defaults). The backward pass is the paper's
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
// input (negative or non-finite entries, shape mismatch, k > N, a zero or
// numerically dependent column of A) records an error on the tape.
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
