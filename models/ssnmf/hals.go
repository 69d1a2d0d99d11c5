package ssnmf

import (
	"math"
	"runtime"

	"github.com/neuralnmf/neuralnmf/internal/gather"
	"github.com/neuralnmf/neuralnmf/internal/parallel"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// halsUpdater runs hierarchical alternating least squares (Cichocki & Phan
// 2009; the coordinate descent of scikit-learn's NMF, solver='cd', is the
// same update) for an unmasked, unlabelled X ≈ AS. Each update solves for one
// column of A (one row of S) exactly with the others fixed, in turn:
//
//	A[:, j] ← max(0, A[:, j] + (XSᵀ[:, j] − A·SSᵀ[:, j]) / SSᵀ[j, j])
//	S[j, :] ← max(0, S[j, :] + (AᵀX[j, :] − AᵀA[j, :]·S) / AᵀA[j, j])
//
// so the objective never increases. Rows of A (columns of S) are independent
// given the k×k Gram matrix, so they are shared among goroutines without
// changing any sum. The scratch is allocated once.
type halsUpdater struct {
	x      linop
	xst, g *tensor.Dense // N×k: X·Sᵀ; k×k: S·Sᵀ
	atx, q *tensor.Dense // k×M: AᵀX; k×k: AᵀA, of the last S update
	fresh  bool          // atx and q belong to the current A
	// violation is the last step's: the sum over the entries it updated of
	// |the projected gradient| before each update, scikit-learn's
	// coordinate-descent measure of how far from a stationary point the
	// factors are (StopViolation).
	violation float64
	chunks    []float64      // per chunk of rows (columns) its violation, summed in order
	ex        *extrapolation // nil: plain HALS (Options.Extrapolate)
}

// The parameters of HALS with extrapolation (Options.Extrapolate): the
// first β, its growth while the error falls, its ceiling's growth, its cut
// when the error rises, and the contraction of the violation over an update
// above which the next update extrapolates (exSlow). Ang & Gillis (2019)
// propose the scheme with a larger first β and faster growth, extrapolating
// from the start. Chosen by TestChooseExtrapolation on the validation
// corpora of issue 68 (man, info, godoc, pydoc and manuals-passages of
// experiments/corpora, and a generated corpus of seed 7; ranks 10, 20 and
// 50, to scikit-learn's test at 1e-4): in a first round
// (results/bench/rcppml/accel-validation-first.log, extrapolating at every
// update) these β parameters took fewer updates than plain HALS on all 15
// text fits, where β₀ = 0.5 or γ = 1.05 each overshot once; but where plain
// HALS converges fast (its violation falls 3–5 times an update: a generated
// corpus at its true rank, 8 updates) extrapolation slowed it (11–12). In
// the second (accel-validation.log), extrapolating only after an update
// whose violation fell by less than half took 745 updates over the 18 fits
// against 789 always and 1,679 for plain HALS, and 8 where plain HALS took
// 8; 0.7 took 800.
const (
	exBeta0    = 0.3
	exGamma    = 1.02
	exGammaBar = 1.01
	exEta      = 1.5
	exSlow     = 0.5
)

// extrapolation is the state of HALS with extrapolation (Ang & Gillis
// 2019, "Accelerating nonnegative matrix factorization algorithms using
// extrapolation", Neural Computation 31(2)): A, once updated, moves on by
// β times its change over the last update (projected onto A ≥ 0) before S
// is updated from it, and S likewise before the next A. The error of each
// update's pair (the extrapolated A, the S updated from it) is measured
// from the products S's update computed. While it falls, the pair is kept
// as the best and β grows by γ under a ceiling that grows by γ̄; when it
// rises, both factors go back to the best pair, the ceiling is set to β
// and β is cut by exEta, so the best error never rises (Ang & Gillis go
// on from the worse pair; on small dense data that let the error drift up
// to NaN over thousands of updates). An update extrapolates only if the
// one before it reduced the violation by less than the factor exSlow:
// where plain HALS converges fast, extrapolation overshoots and slows it.
type extrapolation struct {
	aPrev, sPrev    *tensor.Dense // each factor's last update before extrapolation; nil before the first update
	aBest, sBest    *tensor.Dense // the pair of the lowest error so far
	beta, betaMax   float64
	gamma, gammaBar float64 // exGamma and exGammaBar, unless a test chose others
	slow            float64 // exSlow, unless a test chose another
	best            float64
	prevViol        float64 // the last update's violation
	on              bool    // extrapolate in this update
}

// newExtrapolation returns the extrapolation state of the first update:
// the package's parameters, or p's (β₀, γ, γ̄, slow) if p is not nil.
func newExtrapolation(p *[4]float64) *extrapolation {
	if p != nil {
		return &extrapolation{beta: p[0], betaMax: 1, gamma: p[1], gammaBar: p[2], slow: p[3]}
	}
	return &extrapolation{beta: exBeta0, betaMax: 1, gamma: exGamma, gammaBar: exGammaBar, slow: exSlow}
}

func newHALS(x linop, k int) *halsUpdater {
	n, m := x.dims()
	return &halsUpdater{x: x, xst: tensor.New(n, k), g: tensor.New(k, k), atx: tensor.New(k, m), q: tensor.New(k, k)}
}

// halsChunk is the rows of A (columns of S) per goroutine chunk.
const halsChunk = 256

func (u *halsUpdater) step(a, s, _ *tensor.Dense, updA, updS bool) {
	if u.ex != nil && updA && updS {
		u.stepExtrapolated(a, s)
		return
	}
	u.violation = 0
	if updA {
		u.updateA(a, s)
	}
	if updS {
		u.updateS(a, s)
	}
}

// updateA sweeps A once from X·Sᵀ and S·Sᵀ, adding the sweep's violation.
func (u *halsUpdater) updateA(a, s *tensor.Dense) {
	u.x.mulT(s, u.xst)
	tensor.Gemm(false, true, 1, s, s, 0, u.g)
	u.violation += halsRows(a, u.xst, u.g, u.chunkSums(a.Rows))
	u.fresh = false
}

// updateS sweeps S once from AᵀX and AᵀA (kept: fresh), adding the
// sweep's violation.
func (u *halsUpdater) updateS(a, s *tensor.Dense) {
	u.productsOf(a)
	u.violation += halsColumns(s, u.atx, u.q, u.chunkSums(s.Cols))
}

// productsOf sets atx to AᵀX and q to AᵀA.
func (u *halsUpdater) productsOf(a *tensor.Dense) {
	u.x.tMul(a, u.atx)
	tensor.Gemm(true, false, 1, a, a, 0, u.q)
	u.fresh = true
}

// extrapolate sets a ← max(0, a + β(a − prev)) and prev to a before it.
func extrapolate(a, prev *tensor.Dense, beta float64) {
	p := prev.Data[:len(a.Data)]
	for i, v := range a.Data {
		a.Data[i] = max(0, v+beta*(v-p[i]))
		p[i] = v
	}
}

// stepExtrapolated is one update with extrapolation (see extrapolation): A
// from the (extrapolated) S, A extrapolated, S from it, the error of that
// pair measured, and then either S extrapolated (the error fell) or both
// factors back at the best pair (it rose). The violation is the two HALS
// sweeps', as step's.
func (u *halsUpdater) stepExtrapolated(a, s *tensor.Dense) {
	e := u.ex
	u.violation = 0
	u.updateA(a, s)
	beta := 0.0
	if e.on {
		beta = e.beta
	}
	first := e.aPrev == nil
	if first {
		e.aPrev, e.aBest = a.Clone(), tensor.New(a.Rows, a.Cols)
		e.sPrev, e.sBest = tensor.New(s.Rows, s.Cols), tensor.New(s.Rows, s.Cols)
	} else {
		extrapolate(a, e.aPrev, beta)
	}
	u.updateS(a, s)
	err := u.objective(a, s, nil) // from the AᵀX and AᵀA the S update formed
	// Extrapolate in the next update only if this one's violation fell by
	// less than the factor e.slow: where plain HALS contracts fast,
	// extrapolation overshoots and slows it.
	wasOn := e.on
	e.on = !first && u.violation >= e.slow*e.prevViol
	e.prevViol = u.violation
	if first || err <= e.best {
		copy(e.aBest.Data, a.Data)
		copy(e.sBest.Data, s.Data)
		e.best = err
		if first {
			copy(e.sPrev.Data, s.Data)
			return
		}
		extrapolate(s, e.sPrev, beta)
		if wasOn {
			e.beta = min(e.betaMax, e.gamma*e.beta)
			e.betaMax = min(1, e.gammaBar*e.betaMax)
		}
	} else {
		copy(a.Data, e.aBest.Data)
		copy(s.Data, e.sBest.Data)
		copy(e.aPrev.Data, a.Data)
		copy(e.sPrev.Data, s.Data)
		e.betaMax = e.beta
		e.beta /= exEta
		u.fresh = false // A went back: atx and q are of the A it left
	}
}

// settle leaves in a and s the pair of the lowest error measured, where
// extrapolation may have moved them on from it; without extrapolation it
// does nothing.
func (u *halsUpdater) settle(a, s *tensor.Dense) {
	if u.ex == nil || u.ex.aBest == nil {
		return
	}
	copy(a.Data, u.ex.aBest.Data)
	copy(s.Data, u.ex.sBest.Data)
	u.fresh = false
}

// lastViolation returns the violation of the last step (see violation).
func (u *halsUpdater) lastViolation() float64 { return u.violation }

// chunkSums returns a zeroed slice of one sum per chunk of n items.
func (u *halsUpdater) chunkSums(n int) []float64 {
	c := (n + halsChunk - 1) / halsChunk
	if cap(u.chunks) < c {
		u.chunks = make([]float64, c)
	}
	u.chunks = u.chunks[:c]
	clear(u.chunks)
	return u.chunks
}

// sum adds v in order: the same total however the chunks were shared out.
func sum(v []float64) float64 {
	t := 0.0
	for _, x := range v {
		t += x
	}
	return t
}

// objective is ‖X − AS‖² = ‖X‖² − 2⟨AᵀX, S⟩ + ⟨AᵀA, SSᵀ⟩ clamped at 0;
// right after an S update only SSᵀ is new.
func (u *halsUpdater) objective(a, s, _ *tensor.Dense) float64 {
	if !u.fresh {
		u.productsOf(a)
	}
	tensor.Gemm(false, true, 1, s, s, 0, u.g)
	return max(0, u.x.sqNorm()-2*tensor.Dot(u.atx, s)+tensor.Dot(u.q, u.g))
}

func workersFor(work int) int { return max(1, min(runtime.GOMAXPROCS(0), work>>16)) }

// halsRows updates A (N×k) row by row: for each row i and each j in turn,
// a_ij ← max(0, a_ij + (r_ij − Σ_t a_it g_tj)/g_jj), skipping j with
// g_jj = 0 (a topic no sample uses). g is symmetric. It returns the
// violation (see halsUpdater), each chunk's into chunks. A block of rows is
// transposed, swept as halsColumns sweeps S (the same sums in the same
// order, along contiguous vectors), and transposed back.
func halsRows(a, r, g *tensor.Dense, chunks []float64) float64 {
	k := a.Cols
	workers := workersFor(a.Rows * k * k)
	bufs := make([][]float64, workers)
	parallel.ForChunks(a.Rows, halsChunk, workers, func(w, i0, i1 int) {
		n := i1 - i0
		if bufs[w] == nil {
			bufs[w] = make([]float64, 2*k*halsChunk+halsChunk)
		}
		at, rt, tmp := bufs[w][:k*n], bufs[w][k*halsChunk:k*halsChunk+k*n], bufs[w][2*k*halsChunk:2*k*halsChunk+n]
		for i := i0; i < i1; i++ {
			ai, ri := a.Row(i), r.Row(i)
			for t := range k {
				at[t*n+i-i0], rt[t*n+i-i0] = ai[t], ri[t]
			}
		}
		chunks[i0/halsChunk] = halsSweep(k, n, at, rt, g, tmp)
		for i := i0; i < i1; i++ {
			ai := a.Row(i)
			for t := range k {
				ai[t] = at[t*n+i-i0]
			}
		}
	})
	return sum(chunks)
}

// halsColumns updates S (k×M) a block of columns at a time: for each j in
// turn, s_jm ← max(0, s_jm + (p_jm − Σ_t q_jt s_tm)/q_jj), skipping j with
// q_jj = 0 (a dead topic). It returns the violation, as halsRows.
func halsColumns(s, p, q *tensor.Dense, chunks []float64) float64 {
	k, m := s.Rows, s.Cols
	workers := workersFor(m * k * k)
	bufs := make([][]float64, workers)
	parallel.ForChunks(m, halsChunk, workers, func(w, m0, m1 int) {
		n := m1 - m0
		if bufs[w] == nil {
			bufs[w] = make([]float64, 2*k*halsChunk+halsChunk)
		}
		st, pt, tmp := bufs[w][:k*n], bufs[w][k*halsChunk:k*halsChunk+k*n], bufs[w][2*k*halsChunk:2*k*halsChunk+n]
		for t := range k {
			copy(st[t*n:(t+1)*n], s.Row(t)[m0:m1])
			copy(pt[t*n:(t+1)*n], p.Row(t)[m0:m1])
		}
		chunks[m0/halsChunk] = halsSweep(k, n, st, pt, q, tmp)
		for t := range k {
			copy(s.Row(t)[m0:m1], st[t*n:(t+1)*n])
		}
	})
	return sum(chunks)
}

// halsSweep is one HALS sweep over n columns held as k rows of n (s, and
// p the right-hand sides, row j at [j·n, (j+1)·n)): for each j in turn,
// s_j ← max(0, s_j + (p_j − Σ_t q_jt s_t)/q_jj), skipping q_jj ≤ 0. The
// sums run along the rows of n with fused multiply-adds (gather.Add). It
// returns the violation: Σ |p_j − Σ_t q_jt s_t| over the entries where
// s_j > 0 or that sum is positive, before each update.
func halsSweep(k, n int, s, p []float64, q *tensor.Dense, tmp []float64) float64 {
	viol := 0.0
	for j := 0; j < k; j++ {
		qj := q.Row(j)
		d := qj[j]
		if d <= 0 {
			continue
		}
		copy(tmp, p[j*n:(j+1)*n])
		for t, c := range qj {
			if c != 0 {
				gather.Add(tmp, -c, s[t*n:(t+1)*n])
			}
		}
		sj := s[j*n : (j+1)*n]
		for i, v := range tmp {
			if sj[i] > 0 || v > 0 {
				viol += math.Abs(v)
			}
			sj[i] = max(0, sj[i]+v/d)
		}
	}
	return viol
}
