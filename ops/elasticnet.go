package ops

import (
	"fmt"
	"math"

	"github.com/neuralnmf/neuralnmf/autograd"
	"github.com/neuralnmf/neuralnmf/nnls"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// ConcatRows returns the (r₁+r₂)×c matrix of a's rows over b's; a and b
// must have the same number of columns.
func ConcatRows(a, b *autograd.Var) *autograd.Var {
	const op = "ops.ConcatRows"
	t := autograd.TapeOf(op, a, b)
	if t.Err() != nil {
		return t.Failed()
	}
	av, bv := a.Value(), b.Value()
	if av.Cols != bv.Cols {
		return t.Fail(shapeErr(op, "column counts differ", a, b))
	}
	out := t.Alloc(av.Rows+bv.Rows, av.Cols)
	for i := 0; i < av.Rows; i++ {
		copy(out.Row(i), av.Row(i))
	}
	for i := 0; i < bv.Rows; i++ {
		copy(out.Row(av.Rows+i), bv.Row(i))
	}
	return t.Record(op, out, func(g *tensor.Dense, need []bool) []*tensor.Dense {
		var ga, gb *tensor.Dense
		if need[0] {
			ga = t.Alloc(av.Rows, av.Cols)
			for i := 0; i < av.Rows; i++ {
				copy(ga.Row(i), g.Row(i))
			}
		}
		if need[1] {
			gb = t.Alloc(bv.Rows, bv.Cols)
			for i := 0; i < bv.Rows; i++ {
				copy(gb.Row(i), g.Row(av.Rows+i))
			}
		}
		return []*tensor.Dense{ga, gb}
	}, a, b)
}

// NNLSElasticNet returns the elastic-net nonnegative least squares layer
//
//	S = argmin_{S ≥ 0} ½‖X − A·S‖²_F + α·(ρ·Σ S + ½(1−ρ)·‖S‖²_F)
//
// for a (N×k) and x (N×M), with alpha = α ≥ 0 and l1Ratio = ρ in [0, 1],
// scikit-learn's form of the penalty on the factor it regularises (its
// l1_ratio; its alpha_W, alpha_H scale α by the number of samples or
// features, see scikit-learn's NMF). It is NNLS on the augmented system
//
//	A′ = [A; β·I],  X′ = [X; −(αρ/β)·1],  β = √(α(1−ρ)),
//
// since ½‖X′ − A′S‖² = ½‖X − AS‖² + ½β²‖S‖² + αρ·ΣS + const. So the layer
// is composed of ConcatRows and NNLS on the tape, and its backward pass is
// the paper's theorem on the augmented system: with U_T = (A_TᵀA_T +
// β²I)⁻¹·G_T on each column's support, ∂L/∂X = A·U and ∂L/∂A = X·Uᵀ −
// A·(S·Uᵀ + U·Sᵀ), the penalty entering through β²I and the shifted right-
// hand side, neither of which depends on A or X. A pure ℓ₁ penalty (ρ = 1)
// has no β to shift by: it is NNLS with nnls.Options.L1 = α, which shifts
// the right-hand side of the solver's QR form instead (A's nonzero columns
// must then be independent), and whose backward pass is NNLS's formula.
// alpha = 0 is NNLS.
func NNLSElasticNet(a, x *autograd.Var, alpha, l1Ratio float64, opt *nnls.Options) (*autograd.Var, *nnls.Result) {
	const op = "ops.NNLSElasticNet"
	t := autograd.TapeOf(op, a, x)
	if t.Err() != nil {
		return t.Failed(), nil
	}
	switch {
	case !(alpha >= 0) || math.IsInf(alpha, 0):
		return t.Fail(fmt.Errorf("%s: alpha is %v, want a finite α ≥ 0", op, alpha)), nil
	case !(l1Ratio >= 0 && l1Ratio <= 1):
		return t.Fail(fmt.Errorf("%s: l1Ratio is %v, want ρ in [0, 1]", op, l1Ratio)), nil
	}
	if alpha == 0 {
		return NNLS(a, x, opt)
	}
	if l1Ratio == 1 {
		o := nnls.Options{}
		if opt != nil {
			o = *opt
		}
		o.L1 = alpha
		return NNLS(a, x, &o)
	}
	_, k := a.Shape()
	_, m := x.Shape()
	beta := math.Sqrt(alpha * (1 - l1Ratio))
	ridge := t.Alloc(k, k)
	for i := range k {
		ridge.Set(i, i, beta)
	}
	shift := t.Alloc(k, m)
	shift.Fill(-alpha * l1Ratio / beta)
	return NNLS(ConcatRows(a, t.Const(ridge)), ConcatRows(x, t.Const(shift)), opt)
}
