package ssnmf

import (
	"fmt"
	"math"

	"github.com/neuralnmf/neuralnmf/tensor"
)

// Hierarchy is a multilayer factorisation X ≈ A⁽⁰⁾A⁽¹⁾⋯A⁽ᴸ⁾S⁽ᴸ⁾.
type Hierarchy struct {
	// A[ℓ] is k⁽ˡ⁻¹⁾×k⁽ˡ⁾ (k⁽⁻¹⁾ = N); S[ℓ] is k⁽ˡ⁾×M.
	A, S []*tensor.Dense
	// B is the P×k⁽ᴸ⁾ classifier of the last layer; nil without labels.
	B *tensor.Dense
	// Iterations counts the updates of each layer.
	Iterations []int
}

// Reconstruction returns A⁽⁰⁾⋯A⁽ᴸ⁾S⁽ᴸ⁾.
func (h *Hierarchy) Reconstruction() *tensor.Dense {
	r := h.S[len(h.S)-1]
	for l := len(h.A) - 1; l >= 0; l-- {
		r = tensor.MatMul(false, false, h.A[l], r)
	}
	return r
}

// HNMF factors X layer by layer: NMF of X with rank ranks[0], then NMF of
// S⁽⁰⁾ with rank ranks[1], and so on; the last layer is SSNMF when lab is not
// nil. Each layer stops early by opt's rule (relative decrease of its
// objective below Tol over 10 iterations). With opt.Restarts > 1 each layer
// is run from that many seeds for opt.RestartIters updates, and the one with
// the lowest error through the hierarchy is run on to convergence: on the
// paper's synthetic data a single rank-4 second layer
// merges two classes for about half the seeds (error 0.33 instead of 0.28),
// and the hierarchical error tells the two apart. The mask opt.W applies to
// the first layer only. Ranks must be decreasing and at most min(N, M).
func HNMF(x *tensor.Dense, ranks []int, lab *Labels, opt *Options) (*Hierarchy, error) {
	if err := checkRanks(x, ranks); err != nil {
		return nil, err
	}
	o := opt.withDefaults()
	h := &Hierarchy{}
	in := x
	for l := range ranks {
		if err := h.addLayer(denseFit{x}, layerInput{dense: in}, ranks, l, lab, o); err != nil {
			return nil, err
		}
		in = h.S[l]
	}
	return h, nil
}

// addLayer factors in with rank ranks[l] (SSNMF with lab at the top layer)
// from o.Restarts random starts and appends the start with the lowest error
// through the hierarchy, ‖X − A⁽⁰⁾⋯A⁽ˡ⁾S⁽ˡ⁾‖² (plus λ‖Z∘(Y − BS⁽ˡ⁾)‖² at a
// supervised top layer).
func (h *Hierarchy) addLayer(xm fitter, in layerInput, ranks []int, l int, lab *Labels, o Options) error {
	var ll *Labels
	if l == len(ranks)-1 {
		ll = lab
	}
	w := o.W
	if l > 0 {
		w = nil
	}
	if err := validateLayer(in, ranks[l], ll, w, o); err != nil {
		return fmt.Errorf("layer %d: %w", l+1, err)
	}
	mk := func() solver { return o.solverFor(&in, ranks[l], ll, w) }
	var best *Factors
	bestErr := math.Inf(1)
	for r := 0; r < o.Restarts; r++ {
		f := o.layerStart(&in, ranks[l], ll, l, r)
		if o.Restarts == 1 {
			best = f
			break
		}
		f.iterate(mk(), min(o.RestartIters, o.MaxIter), o)
		if e := h.errorWith(xm, f, ll); e < bestErr || best == nil && !(e > bestErr) {
			// The second test keeps a start even when every error is NaN
			// (data whose squares overflow): the caller then sees NaN,
			// not a missing layer.
			best, bestErr = f, e
		}
	}
	best.iterate(mk(), o.MaxIter-best.Updates, o)
	if o.UnitTopics {
		unitTopics(best.A, best.S, best.B)
	}
	h.A = append(h.A, best.A)
	h.S = append(h.S, best.S)
	h.B = best.B
	h.Iterations = append(h.Iterations, best.Updates)
	return nil
}

// errorWith returns ‖X − A⁽⁰⁾⋯A⁽ˡ⁻¹⁾·f.A·f.S‖² (+ the label term of f).
func (h *Hierarchy) errorWith(xm fitter, f *Factors, lab *Labels) float64 {
	w := f.A
	for l := len(h.A) - 1; l >= 0; l-- {
		w = tensor.MatMul(false, false, h.A[l], w)
	}
	e := xm.sqErr(w, f.S)
	if lab != nil && f.B != nil {
		p := tensor.MatMul(false, false, f.B, f.S)
		tensor.Sub(p, lab.Y, p)
		tensor.Mul(p, p, lab.Z)
		e += lab.Lambda * tensor.SqNorm(p)
	}
	return e
}

func checkRanks(x *tensor.Dense, ranks []int) error { return checkRankDims(x.Rows, x.Cols, ranks) }

// checkRank returns an ErrRank error unless 1 ≤ k ≤ min(rows, cols).
func checkRank(rows, cols, k int) error {
	if k < 1 || k > min(rows, cols) {
		return fmt.Errorf("ssnmf: %w: rank %d, want 1 to min(N, M) = %d", ErrRank, k, min(rows, cols))
	}
	return nil
}

func checkRankDims(rows, cols int, ranks []int) error {
	if len(ranks) == 0 {
		return fmt.Errorf("ssnmf: %w: no layer ranks given", ErrRank)
	}
	for l, k := range ranks {
		if k < 1 || k > min(rows, cols) {
			return fmt.Errorf("ssnmf: %w: rank %d of layer %d, want 1 to min(N, M) = %d", ErrRank, k, l+1, min(rows, cols))
		}
		if l > 0 && k >= ranks[l-1] {
			return fmt.Errorf("ssnmf: %w: ranks must decrease, layer %d has %d after %d", ErrRank, l+1, k, ranks[l-1])
		}
	}
	return nil
}

// DeepOptions configures DeepNMF.
type DeepOptions struct {
	Options
	// Pool is the pooling operator applied to S⁽ˡ⁻¹⁾ before layer ℓ ≥ 1
	// factors it; it must keep the shape. Default MaxPoolCols.
	Pool func(s *tensor.Dense) *tensor.Dense
	// Sweeps is the number of layer-wise refinement sweeps after the forward
	// pass. Default 100.
	Sweeps int
}

// DeepNMF is a reconstruction of Deep NMF (Flenner & Hunter 2018), which has
// no public code, from the Neural NMF paper's description: "HNMF with [a]
// pooling operator p applied after each layer of decomposition", refined by a
// "backpropagation" that "only propagates one layer at a time and uses
// multiplicative updates", in which "the update for S⁽ˡ⁾ only depends on
// A⁽ˡ⁺¹⁾ and S⁽ˡ⁺¹⁾". Outputs label it "Deep NMF (reconstructed)".
//
// What is assumed:
//
//   - Forward: layer 0 factors X ≈ A⁽⁰⁾S⁽⁰⁾; layer ℓ ≥ 1 factors
//     p(S⁽ˡ⁻¹⁾) ≈ A⁽ˡ⁾S⁽ˡ⁾, each by multiplicative updates (SSNMF at the last
//     layer with labels), as HNMF does.
//   - p keeps the shape, so that X ≈ A⁽⁰⁾⋯A⁽ᴸ⁾S⁽ᴸ⁾ is still defined. The
//     default, MaxPoolCols, is max pooling over pairs of adjacent columns
//     (samples) with stride 1. Flenner & Hunter pool over neighbouring image
//     positions; here that means neighbouring samples, which assumes the
//     column order carries neighbourhood (as in the paper's synthetic data,
//     ordered by class). Pooling across topics instead (MaxPoolRows) mixes
//     unrelated topics: on the synthetic data it raises the 2-layer error
//     from ≈0.32 to ≈0.79, unlike the paper's Deep NMF, which tracks HNMF.
//     Any shape-preserving p can be passed.
//   - Refinement: Sweeps sweeps from the top layer down. In each, S⁽ˡ⁾ for
//     ℓ < L gets one multiplicative update of
//     ‖P⁽ˡ⁾ − A⁽ˡ⁾S⁽ˡ⁾‖² + ‖S⁽ˡ⁾ − A⁽ˡ⁺¹⁾S⁽ˡ⁺¹⁾‖² (P⁽⁰⁾ = X,
//     P⁽ˡ⁾ = p(S⁽ˡ⁻¹⁾)), which ties it to the layer above; then A⁽ˡ⁾ (and B at
//     the top) get one update of their own layer's objective.
func DeepNMF(x *tensor.Dense, ranks []int, lab *Labels, opt *DeepOptions) (*Hierarchy, error) {
	if err := checkRanks(x, ranks); err != nil {
		return nil, err
	}
	var o DeepOptions
	if opt != nil {
		o = *opt
	}
	o.Options = o.Options.withDefaults()
	if o.Pool == nil {
		o.Pool = MaxPoolCols
	}
	if o.Sweeps == 0 {
		o.Sweeps = 100
	}
	h := &Hierarchy{}
	in := x
	var inputs []*tensor.Dense // P⁽ˡ⁾
	for l := range ranks {
		if l > 0 {
			in = o.Pool(in)
			if !in.SameShape(h.S[l-1]) {
				return nil, fmt.Errorf("ssnmf: DeepNMF: Pool changed the shape %d×%d to %d×%d", h.S[l-1].Rows, h.S[l-1].Cols, in.Rows, in.Cols)
			}
		}
		inputs = append(inputs, in)
		if err := h.addLayer(denseFit{x}, layerInput{dense: in}, ranks, l, lab, o.Options); err != nil {
			return nil, err
		}
		in = h.S[l]
	}
	top := len(ranks) - 1
	ups := make([]*updater, len(ranks))
	for l := range ranks {
		var ll *Labels
		if l == top {
			ll = lab
		}
		w := o.W
		if l > 0 {
			w = nil
		}
		ups[l] = newUpdater(inputs[l], ll, w, ranks[l], o.Eps)
	}
	for sweep := 0; sweep < o.Sweeps; sweep++ {
		for l := top; l >= 0; l-- {
			var b *tensor.Dense
			if l == top {
				b = h.B
			}
			if l < top {
				refineS(ups[l], h.A[l], h.S[l], h.A[l+1], h.S[l+1])
				ups[l].step(h.A[l], h.S[l], nil, true, false)
			} else {
				ups[l].step(h.A[l], h.S[l], b, true, true)
			}
		}
		for l := 1; l <= top; l++ { // the pooled inputs follow the refined S
			p := o.Pool(h.S[l-1])
			ups[l].x.Copy(p) // without a mask wx is x itself
		}
	}
	return h, nil
}

// refineS applies one multiplicative update to S for
// ‖P − AS‖² + ‖S − A₊S₊‖², with P the updater's input.
func refineS(u *updater, a, s, aUp, sUp *tensor.Dense) {
	tensor.Gemm(true, false, 1, a, u.wx, 0, u.numS)
	tensor.Gemm(false, false, 1, aUp, sUp, 1, u.numS)
	u.dataDenS(a, s, u.denS)
	tensor.Add(u.denS, u.denS, s)
	multiply(s, u.numS, u.denS, u.eps)
}

// MaxPoolCols is the default pooling of DeepNMF: column m of the result is the
// element-wise maximum of columns m and m+1 of s (the last column is kept),
// i.e. max pooling over adjacent samples with window 2 and stride 1, which
// keeps the shape.
func MaxPoolCols(s *tensor.Dense) *tensor.Dense {
	p := s.Clone()
	for i := 0; i < s.Rows; i++ {
		r, src := p.Row(i), s.Row(i)
		for j := 0; j+1 < len(r); j++ {
			r[j] = max(src[j], src[j+1])
		}
	}
	return p
}

// MaxPoolRows is an alternative pooling for DeepNMF: row i of the result is the
// element-wise maximum of rows i and i+1 of s (the last row is kept), i.e.
// max pooling over adjacent topics with window 2 and stride 1, which keeps
// the shape.
func MaxPoolRows(s *tensor.Dense) *tensor.Dense {
	p := s.Clone()
	for i := 0; i+1 < s.Rows; i++ {
		r, next := p.Row(i), s.Row(i+1)
		for j, v := range next {
			r[j] = max(r[j], v)
		}
	}
	return p
}

// validateLayer checks a layer's input and options as NMF and SSNMF do.
func validateLayer(in layerInput, k int, lab *Labels, w *tensor.Dense, o Options) error {
	if in.sparse != nil && lab != nil {
		return fmt.Errorf("labels on a sparse first layer are not supported; use at least two layers")
	}
	lo := o
	lo.W = w
	if err := lo.checkHALS(lab); err != nil {
		return err
	}
	if in.dense != nil {
		return validate(in.dense, k, lab, &lo)
	}
	return nil
}

// unitTopics scales each nonzero column of a to unit ℓ₂ norm, the matching
// row of s by its norm and the matching column of b (nil: none) by its
// inverse, so that a·s and b·s are unchanged (up to rounding).
func unitTopics(a, s, b *tensor.Dense) {
	for j := range a.Cols {
		var n float64
		for i := range a.Rows {
			v := a.At(i, j)
			n += v * v
		}
		n = math.Sqrt(n)
		if n == 0 || math.IsInf(n, 0) || math.IsNaN(n) {
			continue
		}
		for i := range a.Rows {
			a.Set(i, j, a.At(i, j)/n)
		}
		row := s.Row(j)
		for c := range row {
			row[c] *= n
		}
		if b != nil {
			for i := range b.Rows {
				b.Set(i, j, b.At(i, j)/n)
			}
		}
	}
}
