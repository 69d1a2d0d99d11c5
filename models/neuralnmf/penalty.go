package neuralnmf

import (
	"fmt"
	"math"

	"github.com/neuralnmf/neuralnmf/autograd"
	"github.com/neuralnmf/neuralnmf/nnls"
	"github.com/neuralnmf/neuralnmf/ops"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// elasticNet is the elastic-net penalty α(ρ·ΣS + ½(1−ρ)‖S‖²) of one
// layer's problem, min over S ≥ 0 of ½‖X − A·S‖² plus it, in the form
// NNLS solves it: the augmented system [A; βI]·S ≈ [X; shift·1] with β =
// √(α(1−ρ)) and shift = −αρ/β (see ops.NNLSElasticNet); or, for the pure
// ℓ₁ penalty (ρ = 1, pure), NNLS with nnls.Options.L1 = α.
type elasticNet struct {
	alpha, beta, shift float64
	pure               bool
}

// options returns the NNLS options of a layer under p: opt (nil for the
// defaults) with L1 = α for the pure ℓ₁ penalty, opt itself otherwise
// (no penalty, or one with a ridge part, solved by the augmented system).
func (p elasticNet) options(opt *nnls.Options) *nnls.Options {
	if !p.pure {
		return opt
	}
	o := nnls.Options{}
	if opt != nil {
		o = *opt
	}
	o.L1 = p.alpha
	return &o
}

// layerPenalty returns the elastic-net penalty of a layer whose input has
// rows rows: α = alphaS·rows, as scikit-learn scales alpha_W by its number
// of features. ok is false without a penalty (alphaS = 0).
func layerPenalty(alphaS, l1Ratio float64, rows int) (p elasticNet, ok bool) {
	if alphaS == 0 {
		return elasticNet{}, false
	}
	alpha := alphaS * float64(rows)
	if l1Ratio == 1 {
		return elasticNet{alpha: alpha, pure: true}, true
	}
	beta := math.Sqrt(alpha * (1 - l1Ratio))
	return elasticNet{alpha: alpha, beta: beta, shift: -alpha * l1Ratio / beta}, true
}

// ridge returns the k×k block βI appended to a layer's A.
func (p elasticNet) ridge(k int) *tensor.Dense {
	r := tensor.New(k, k)
	for i := range k {
		r.Set(i, i, p.beta)
	}
	return r
}

// augmentA returns [A; βI] (N+k)×k.
func (p elasticNet) augmentA(a *tensor.Dense) *tensor.Dense {
	k := a.Cols
	out := tensor.New(a.Rows+k, k)
	for i := range a.Rows {
		copy(out.Row(i), a.Row(i))
	}
	for i := range k {
		out.Set(a.Rows+i, i, p.beta)
	}
	return out
}

// augmentX returns [X; shift·1] (N+k)×M for a dense X.
func (p elasticNet) augmentX(x *tensor.Dense, k int) *tensor.Dense {
	out := tensor.New(x.Rows+k, x.Cols)
	for i := range x.Rows {
		copy(out.Row(i), x.Row(i))
	}
	for i := x.Rows; i < x.Rows+k; i++ {
		row := out.Row(i)
		for j := range row {
			row[j] = p.shift
		}
	}
	return out
}

// augmentSparse returns [X; shift·1] (N+k)×M for a sparse X: each column
// gains k entries below its own (none when shift is 0, a pure ridge).
func (p elasticNet) augmentSparse(x *tensor.Sparse, k int) *tensor.Sparse {
	extra := k
	if p.shift == 0 {
		extra = 0
	}
	out := &tensor.Sparse{Rows: x.Rows + k, Cols: x.Cols, ColPtr: make([]int, x.Cols+1),
		RowIdx: make([]int, 0, x.NNZ()+extra*x.Cols), Val: make([]float64, 0, x.NNZ()+extra*x.Cols)}
	for j := range x.Cols {
		lo, hi := x.ColPtr[j], x.ColPtr[j+1]
		out.RowIdx = append(out.RowIdx, x.RowIdx[lo:hi]...)
		out.Val = append(out.Val, x.Val[lo:hi]...)
		for i := range extra {
			out.RowIdx = append(out.RowIdx, x.Rows+i)
			out.Val = append(out.Val, p.shift)
		}
		out.ColPtr[j+1] = len(out.Val)
	}
	return out
}

// factorPenalty returns 2·alphaA·M·(ρ·ΣA + ½(1−ρ)‖A‖²) summed over the A's,
// scikit-learn's penalty alpha_H·n_samples·(ρ‖H‖₁ + ½(1−ρ)‖H‖²) on its
// components (our A⁽⁰⁾), doubled because our fit term ‖X − A·S‖² is twice
// scikit-learn's ½‖X − W·H‖². The A's are nonnegative, so ΣA is ‖A‖₁.
func factorPenalty(as []*autograd.Var, alphaA, l1Ratio float64, samples int) *autograd.Var {
	scale := 2 * alphaA * float64(samples)
	var total *autograd.Var
	for _, a := range as {
		term := ops.Add(ops.Scale(ops.Sum(a), scale*l1Ratio), ops.Scale(ops.Sum(ops.Hadamard(a, a)), scale*(1-l1Ratio)/2))
		if total == nil {
			total = term
		} else {
			total = ops.Add(total, term)
		}
	}
	return total
}

// checkPenalties checks Config.AlphaS, AlphaA and L1Ratio.
func (c *Config) checkPenalties() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"AlphaS", c.AlphaS}, {"AlphaA", c.AlphaA}} {
		if !(f.v >= 0) || math.IsInf(f.v, 0) {
			return fmt.Errorf("neuralnmf: %w: %s is %v, want a finite α ≥ 0 (0: no penalty)", ErrConfig, f.name, f.v)
		}
	}
	if !(c.L1Ratio >= 0 && c.L1Ratio <= 1) {
		return fmt.Errorf("neuralnmf: %w: L1Ratio is %v, want ρ in [0, 1]", ErrConfig, c.L1Ratio)
	}
	if c.AlphaA > 0 && c.CustomLoss != nil {
		return fmt.Errorf("neuralnmf: %w: AlphaA is a term of the built-in loss, and CustomLoss replaces it: add the penalty to your loss (2·AlphaA·M·(ρ·ΣA + ½(1−ρ)‖A‖²) for each A), or leave AlphaA 0", ErrConfig)
	}
	if (c.AlphaS > 0 || c.AlphaA > 0) && c.BatchSize > 0 {
		return fmt.Errorf("neuralnmf: %w: AlphaS and AlphaA are not supported with BatchSize (mini-batch training)", ErrConfig)
	}
	return nil
}
