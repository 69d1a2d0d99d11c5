package ssnmf

import (
	"math"
	"runtime"

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
	chunks    []float64 // per chunk of rows (columns) its violation, summed in order
}

func newHALS(x linop, k int) *halsUpdater {
	n, m := x.dims()
	return &halsUpdater{x: x, xst: tensor.New(n, k), g: tensor.New(k, k), atx: tensor.New(k, m), q: tensor.New(k, k)}
}

// halsChunk is the rows of A (columns of S) per goroutine chunk.
const halsChunk = 256

func (u *halsUpdater) step(a, s, _ *tensor.Dense, updA, updS bool) {
	u.violation = 0
	if updA {
		u.x.mulT(s, u.xst)
		tensor.Gemm(false, true, 1, s, s, 0, u.g)
		u.violation += halsRows(a, u.xst, u.g, u.chunkSums(a.Rows))
		u.fresh = false
	}
	if updS {
		u.x.tMul(a, u.atx)
		tensor.Gemm(true, false, 1, a, a, 0, u.q)
		u.violation += halsColumns(s, u.atx, u.q, u.chunkSums(s.Cols))
		u.fresh = true
	}
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
		u.x.tMul(a, u.atx)
		tensor.Gemm(true, false, 1, a, a, 0, u.q)
		u.fresh = true
	}
	tensor.Gemm(false, true, 1, s, s, 0, u.g)
	return max(0, u.x.sqNorm()-2*tensor.Dot(u.atx, s)+tensor.Dot(u.q, u.g))
}

func workersFor(work int) int { return max(1, min(runtime.GOMAXPROCS(0), work>>16)) }

// halsRows updates A (N×k) row by row: for each row i and each j in turn,
// a_ij ← max(0, a_ij + (r_ij − Σ_t a_it g_tj)/g_jj), skipping j with
// g_jj = 0 (a topic no sample uses). g is symmetric. It returns the
// violation (see halsUpdater), each chunk's into chunks.
func halsRows(a, r, g *tensor.Dense, chunks []float64) float64 {
	k := a.Cols
	parallel.ForChunks(a.Rows, halsChunk, workersFor(a.Rows*k*k), func(_, i0, i1 int) {
		viol := 0.0
		for i := i0; i < i1; i++ {
			ai, ri := a.Row(i), r.Row(i)
			for j := 0; j < k; j++ {
				gj := g.Row(j)
				d := gj[j]
				if d <= 0 {
					continue
				}
				num := ri[j]
				for t, v := range ai {
					num -= v * gj[t]
				}
				// The gradient is −num; projected: only its negative
				// part counts at a_ij = 0.
				if ai[j] > 0 || num > 0 {
					viol += math.Abs(num)
				}
				ai[j] = max(0, ai[j]+num/d)
			}
		}
		chunks[i0/halsChunk] = viol
	})
	return sum(chunks)
}

// halsColumns updates S (k×M) a block of columns at a time: for each j in
// turn, s_jm ← max(0, s_jm + (p_jm − Σ_t q_jt s_tm)/q_jj), skipping j with
// q_jj = 0 (a dead topic). It returns the violation, as halsRows.
func halsColumns(s, p, q *tensor.Dense, chunks []float64) float64 {
	k, m := s.Rows, s.Cols
	parallel.ForChunks(m, halsChunk, workersFor(m*k*k), func(_, m0, m1 int) {
		var buf [halsChunk]float64
		viol := 0.0
		tmp := buf[:m1-m0]
		for j := 0; j < k; j++ {
			qj := q.Row(j)
			d := qj[j]
			if d <= 0 {
				continue
			}
			copy(tmp, p.Row(j)[m0:m1])
			for t, c := range qj {
				if c == 0 {
					continue
				}
				st := s.Row(t)[m0:m1]
				st = st[:len(tmp)]
				for i, v := range st {
					tmp[i] -= c * v
				}
			}
			sj := s.Row(j)[m0:m1]
			sj = sj[:len(tmp)]
			for i, v := range tmp {
				if sj[i] > 0 || v > 0 {
					viol += math.Abs(v)
				}
				sj[i] = max(0, sj[i]+v/d)
			}
		}
		chunks[m0/halsChunk] = viol
	})
	return sum(chunks)
}
