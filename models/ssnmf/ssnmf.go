// Package ssnmf implements the baselines Neural NMF is compared with:
// NMF and semi-supervised NMF (SSNMF) by multiplicative updates, hierarchical
// NMF (HNMF), and a reconstruction of Deep NMF; and, for word counts, NMF
// and HNMF under the generalised Kullback–Leibler divergence (NMFKL,
// HNMFKL), the start of Neural NMF's KL loss.
//
// # SSNMF
//
// SSNMF (Lee, Yoo & Choi 2010) minimises
//
//	‖W∘(X − AS)‖² + λ‖Z∘(Y − BS)‖²     over A, S, B ≥ 0
//
// where X (N×M) is the data, W its 0/1 mask of known entries, Y (P×M) the
// labels, Z their 0/1 mask (a column of ones for each labelled sample) and λ
// the weight of the classification term. NMF is the case without labels. The
// multiplicative updates
//
//	A ← A ∘ [(W∘X)Sᵀ] / [(W∘AS)Sᵀ]
//	B ← B ∘ [(Z∘Y)Sᵀ] / [(Z∘BS)Sᵀ]
//	S ← S ∘ [Aᵀ(W∘X) + λBᵀ(Z∘Y)] / [Aᵀ(W∘AS) + λBᵀ(Z∘BS)]
//
// never increase the objective (the auxiliary-function argument of Lee &
// Seung 2001 applies term by term); a denominator floor of 1e-300 only
// guards against 0/0. Options.Eps, Options.Rand and StopFirst reproduce the
// ssnmf 1.0.3 Python package that the paper's HNMF baseline used.
//
// # HNMF and Deep NMF
//
// HNMF factors X ≈ A⁽⁰⁾S⁽⁰⁾, then S⁽⁰⁾ ≈ A⁽¹⁾S⁽¹⁾, and so on, each layer an
// independent NMF, with SSNMF at the last layer when labels are given. Deep
// NMF (Flenner & Hunter 2018) has no public code; DeepNMF here is a
// reconstruction from the Neural NMF paper's description, documented on the
// function and labelled "Deep NMF (reconstructed)" in every output.
package ssnmf

import (
	"errors"
	"fmt"
	"math"

	"github.com/neuralnmf/neuralnmf/tensor"
)

// Options configures the multiplicative-update solvers. The zero value (or
// nil) gives the defaults.
type Options struct {
	// MaxIter bounds the number of updates. Default 1000.
	MaxIter int
	// Tol stops early when the objective's relative decrease over the last
	// 10 iterations is below Tol. Default 1e-6; a negative Tol disables
	// early stopping.
	Tol float64
	// Seed seeds the random initial factors.
	Seed uint64
	// W is the N×M 0/1 mask of known data entries; nil means all known.
	W *tensor.Dense
	// Restarts is the number of starts per layer of HNMF and DeepNMF
	// (seeds Seed+1000ℓ+r: random starts, or NNDSVDa's randomized SVD); each
	// layer keeps the start with the lowest error through the hierarchy.
	// Default 1. NMF and SSNMF ignore it.
	Restarts int
	// Stop selects the early-stopping rule Tol applies to. Default
	// StopWindow.
	Stop StopRule
	// UnscaledInit draws the initial factors from U(0, 1) as the ssnmf 1.0.3
	// Python package does, instead of scaling them to the mean of the data.
	// With StopFirst it reproduces the paper's 20 Newsgroups HNMF.
	UnscaledInit bool
	// RestartIters is how many updates each start gets before the best is
	// chosen and run on to convergence. Default 300: on the synthetic data,
	// 100 updates often pick a start that converges to a worse minimum of
	// the rank-9 layer (error 0.111 instead of 0.024); 300 never did in our
	// runs.
	RestartIters int
	// Eps is added to the denominator of every multiplicative update, as
	// the ssnmf 1.0.3 Python package does with 1e-10. Default 0: only a
	// floor of 1e-300 guards against 0/0. Must be finite and ≥ 0.
	Eps float64
	// Rand, if not nil, returns the random source of the start of layer ℓ
	// (0 for NMF and SSNMF), restart r; the default is
	// tensor.NewRand(Seed + 1000ℓ + r). A, S and then B are filled
	// row-major from it, each draw scaled as described at UnscaledInit, so
	// with mt19937.New(s) for every layer and UnscaledInit the starts are
	// those of ssnmf 1.0.3 after np.random.seed(s).
	Rand func(layer, restart int) Float64Source
	// Solver selects the update rule. Default Multiplicative.
	Solver Solver
	// Start selects the initial factors. Default RandomStart.
	Start Start
	// UnitTopics scales, in HNMF, each layer's topics (the columns of its
	// A) to unit ℓ₂ norm and the matching rows of its S by the same
	// factors (A·S is unchanged) before the next layer factors that S. A
	// layer's fit weighs S's rows by their scale, which the factorisation
	// leaves arbitrary, while their weight in X is the scale of their
	// topics: without it, on a dense 2000×2000 matrix of rank 50 (a product
	// of uniform factors plus noise) HALS from NNDSVDa left a hierarchy of
	// ranks 50,20 at relative error 0.251 where its first layer had 0.039,
	// and 0.047 with it. Zero topics are left as they are.
	UnitTopics bool
	// Extrapolate, with HALS, moves each factor on along its last change
	// before the other is updated from it (Ang & Gillis 2019; see
	// extrapolation in hals.go): the same fixed points, reached in 2–3
	// times fewer updates on the text corpora it was chosen on. Each
	// update then computes S·Sᵀ twice (k²·M more work) and keeps two more
	// copies of the factors. Without HALS it is ignored.
	Extrapolate bool
	// PowerIters, if positive, is the number of power iterations of the
	// randomized SVD behind Start NNDSVDAStart; 0 is scikit-learn's rule
	// (7 when the rank is below a tenth of the smaller dimension, 4
	// otherwise; see NNDSVDA). Each iteration costs two products with X of
	// rank+10 columns: at 7 they were about 60 % of the products of a
	// rank-20 fit by HALS of a generated corpus at its true rank.
	PowerIters int
	// exParams, if not nil, replaces the extrapolation's β₀, γ and γ̄ (the
	// test that chose them).
	exParams *[4]float64
}

// Solver is an NMF update rule.
type Solver int

const (
	// Multiplicative is Lee & Seung's multiplicative updates (the package
	// doc's), which support masks and labels.
	Multiplicative Solver = iota
	// HALS is hierarchical alternating least squares (scikit-learn's
	// coordinate descent): each column of A and row of S is solved exactly
	// in turn. It converges in far fewer updates than Multiplicative, but
	// supports neither a mask W nor labels.
	HALS
)

// Start selects the initial factors of each layer.
type Start int

const (
	// RandomStart draws A and S uniformly (see UnscaledInit and Rand);
	// Restarts starts are tried per layer of HNMF.
	RandomStart Start = iota
	// NNDSVDAStart is NNDSVDA of the layer's input, its randomized SVD
	// seeded by Seed + 1000ℓ + r for restart r of layer ℓ.
	NNDSVDAStart
)

func (o *Options) withDefaults() Options {
	var r Options
	if o != nil {
		r = *o
	}
	if r.MaxIter <= 0 {
		r.MaxIter = 1000
	}
	if r.Tol == 0 {
		r.Tol = 1e-6
	}
	if r.Restarts <= 0 {
		r.Restarts = 1
	}
	if r.RestartIters <= 0 {
		r.RestartIters = 300
	}
	return r
}

// Factors is the result of NMF or SSNMF.
type Factors struct {
	A, S *tensor.Dense // N×k and k×M
	B    *tensor.Dense // P×k, nil without labels
	// Objective holds the objective after each iteration (after the last
	// alone with StopViolation).
	Objective []float64
	// Updates is the number of updates run.
	Updates int
}

// Labels is the supervision of SSNMF: Y (P×M, typically one-hot), its mask Z
// (P×M, 0/1) and the weight λ.
type Labels struct {
	Y, Z   *tensor.Dense
	Lambda float64
}

// StopRule is an early-stopping rule for the multiplicative updates.
type StopRule int

const (
	// StopWindow stops when the objective fell by less than Tol (relative)
	// over the last 10 iterations.
	StopWindow StopRule = iota
	// StopFirst is the rule of the ssnmf 1.0.3 Python package that the
	// paper's 20 Newsgroups HNMF used: stop when (e_{t−1} − e_t)/e_0 < Tol,
	// where e_t is ‖X − AS‖ for NMF but the objective itself,
	// ‖X − AS‖² + λ‖Z∘(Y − BS)‖², for SSNMF (the package's quirk, kept so
	// the baseline is reproduced). With Tol = 1e-4 it stops HNMF's first
	// 20 Newsgroups layer after about 20 iterations.
	StopFirst
	// StopViolation is scikit-learn's rule for its coordinate descent, for
	// the HALS solver (the multiplicative updates fall back on
	// StopWindow): stop when the violation of an update, the sum over the
	// entries it updated of |the projected gradient| before each update, is
	// at most Tol times the first update's. The objective is computed once,
	// after the last update (Factors.Objective has one value), which saves
	// a Gram matrix and a product a step.
	StopViolation
)

// ErrRank is wrapped by errors about a factorisation rank.
var ErrRank = errors.New("invalid rank")

// NMF computes X ≈ AS with A, S ≥ 0 of rank k by multiplicative updates.
func NMF(x *tensor.Dense, k int, opt *Options) (*Factors, error) {
	return SSNMF(x, k, nil, opt)
}

// SSNMF computes the semi-supervised factorisation described in the package
// doc; lab may be nil, which gives NMF. It returns an error, naming the
// argument, for empty, negative or non-finite data, masks or labels of the
// wrong shape, a rank k outside 1..min(N, M), or a negative λ.
func SSNMF(x *tensor.Dense, k int, lab *Labels, opt *Options) (*Factors, error) {
	o := opt.withDefaults()
	if err := validate(x, k, lab, &o); err != nil {
		return nil, err
	}
	if err := o.checkHALS(lab); err != nil {
		return nil, err
	}
	in := &layerInput{dense: x}
	f := o.layerStart(in, k, lab, 0, 0)
	f.iterate(o.solverFor(in, k, lab, o.W), o.MaxIter, o)
	return f, nil
}

// Float64Source is a source of uniform draws on [0, 1).
type Float64Source interface{ Float64() float64 }

// start returns random initial factors for an n×m input with the given mean
// entry: A, S and then B (with labels) filled row-major from the source of
// layer l, restart r.
func (o *Options) start(n, m int, mean float64, k int, lab *Labels, l, r int) *Factors {
	var rng Float64Source
	if o.Rand != nil {
		rng = o.Rand(l, r)
	} else {
		rng = tensor.NewRand(o.Seed + uint64(1000*l+r))
	}
	a, s := randomInit(n, m, mean, k, rng)
	var b *tensor.Dense
	if lab != nil {
		b = tensor.New(lab.Y.Rows, k)
		for i := range b.Data {
			b.Data[i] = rng.Float64()
		}
	}
	return &Factors{A: a, S: s, B: b}
}

// iterate runs up to maxIter more updates, appending to f.Objective, and stops
// early by o's rule.
func (f *Factors) iterate(mu solver, maxIter int, o Options) {
	if v, ok := mu.(violator); ok && o.Stop == StopViolation {
		f.iterateViolation(v, maxIter, o.Tol)
		return
	}
	for it := 0; it < maxIter; it++ {
		mu.step(f.A, f.S, f.B, true, true)
		f.Updates++
		if st, ok := mu.(settler); ok {
			st.settle(f.A, f.S)
		}
		f.Objective = append(f.Objective, mu.objective(f.A, f.S, f.B))
		if o.Stop == StopFirst {
			if n := len(f.Objective); n >= 2 {
				e0, prev, cur := f.Objective[0], f.Objective[n-2], f.Objective[n-1]
				if f.B == nil { // ssnmf 1.0.3 measures NMF by the norm, SSNMF by the objective
					e0, prev, cur = math.Sqrt(e0), math.Sqrt(prev), math.Sqrt(cur)
				}
				if e0 > 0 && (prev-cur)/e0 < o.Tol {
					return
				}
			}
			continue
		}
		if converged(f.Objective, o.Tol) {
			return
		}
	}
}

// settler is a solver whose factors may have moved on from the best pair
// it measured (HALS with extrapolation): settle puts that pair back.
type settler interface {
	settle(a, s *tensor.Dense)
}

// violator is a solver that measures the violation of its last step
// (HALS).
type violator interface {
	solver
	lastViolation() float64
}

// iterateViolation is iterate with StopViolation: up to maxIter updates,
// stopping when an update's violation is at most tol times the first's;
// the objective is computed once, after the last.
func (f *Factors) iterateViolation(mu violator, maxIter int, tol float64) {
	v0 := math.NaN()
	for it := 0; it < maxIter; it++ {
		mu.step(f.A, f.S, f.B, true, true)
		f.Updates++
		v := mu.lastViolation()
		if it == 0 {
			v0 = v
		}
		if tol > 0 && (v0 == 0 || v <= tol*v0) {
			break
		}
	}
	if st, ok := mu.(settler); ok {
		st.settle(f.A, f.S)
	}
	f.Objective = append(f.Objective, mu.objective(f.A, f.S, f.B))
}

// converged reports whether the relative decrease over the last 10 values is
// below tol.
func converged(obj []float64, tol float64) bool {
	n := len(obj)
	if tol < 0 || n <= 10 {
		return false
	}
	prev, cur := obj[n-11], obj[n-1]
	return prev-cur <= tol*math.Max(prev, 1e-300)
}

func (o *Options) checkEps() error {
	if !(o.Eps >= 0) || math.IsInf(o.Eps, 0) {
		return fmt.Errorf("ssnmf: Eps is %v, want a finite value ≥ 0", o.Eps)
	}
	return nil
}

// initMean is the mean entry of AS the random start aims for: the data's,
// or k/4 (U(0, 1) factors) with UnscaledInit.
func initMean(mean float64, k int, o Options) float64 {
	if o.UnscaledInit {
		return float64(k) / 4
	}
	return mean
}

// randomInit returns A (n×k) and S (k×m) uniform on [0, c) with c chosen so
// that AS has the given mean: E[(AS)_ij] = k·c²/4 = mean.
func randomInit(n, m int, mean float64, k int, rng Float64Source) (*tensor.Dense, *tensor.Dense) {
	c := math.Sqrt(4 * math.Max(mean, 1e-12) / float64(k))
	a, s := tensor.New(n, k), tensor.New(k, m)
	for i := range a.Data {
		a.Data[i] = c * rng.Float64()
	}
	for i := range s.Data {
		s.Data[i] = c * rng.Float64()
	}
	return a, s
}

func validate(x *tensor.Dense, k int, lab *Labels, o *Options) error {
	if err := tensor.CheckData("X", x); err != nil {
		return fmt.Errorf("ssnmf: %w", err)
	}
	if err := checkRank(x.Rows, x.Cols, k); err != nil {
		return err
	}
	if err := o.checkEps(); err != nil {
		return err
	}
	if o.W != nil {
		if err := tensor.CheckShape("W", o.W, x.Rows, x.Cols); err != nil {
			return fmt.Errorf("ssnmf: %w", err)
		}
		if err := tensor.CheckNonnegative("W", o.W); err != nil {
			return fmt.Errorf("ssnmf: %w", err)
		}
	}
	if lab != nil {
		if err := tensor.CheckNonnegative("Y", lab.Y); err != nil {
			return fmt.Errorf("ssnmf: %w", err)
		}
		if lab.Y.Cols != x.Cols || lab.Y.Rows == 0 {
			return fmt.Errorf("ssnmf: Y: %w: is %d×%d, want P×%d with P ≥ 1", tensor.ErrShape, lab.Y.Rows, lab.Y.Cols, x.Cols)
		}
		if err := tensor.CheckShape("Z", lab.Z, lab.Y.Rows, lab.Y.Cols); err != nil {
			return fmt.Errorf("ssnmf: %w", err)
		}
		if err := tensor.CheckNonnegative("Z", lab.Z); err != nil {
			return fmt.Errorf("ssnmf: %w", err)
		}
		if !(lab.Lambda >= 0) || math.IsInf(lab.Lambda, 0) {
			return fmt.Errorf("ssnmf: lambda is %v, want a finite value ≥ 0", lab.Lambda)
		}
	}
	return nil
}
