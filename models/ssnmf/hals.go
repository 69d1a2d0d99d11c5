package ssnmf

import (
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
}

func newHALS(x linop, k int) *halsUpdater {
	n, m := x.dims()
	return &halsUpdater{x: x, xst: tensor.New(n, k), g: tensor.New(k, k), atx: tensor.New(k, m), q: tensor.New(k, k)}
}

// halsChunk is the rows of A (columns of S) per goroutine chunk.
const halsChunk = 256

func (u *halsUpdater) step(a, s, _ *tensor.Dense, updA, updS bool) {
	if updA {
		u.x.mulT(s, u.xst)
		tensor.Gemm(false, true, 1, s, s, 0, u.g)
		halsRows(a, u.xst, u.g)
		u.fresh = false
	}
	if updS {
		u.x.tMul(a, u.atx)
		tensor.Gemm(true, false, 1, a, a, 0, u.q)
		halsColumns(s, u.atx, u.q)
		u.fresh = true
	}
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
// g_jj = 0 (a topic no sample uses). g is symmetric.
func halsRows(a, r, g *tensor.Dense) {
	k := a.Cols
	parallel.ForChunks(a.Rows, halsChunk, workersFor(a.Rows*k*k), func(_, i0, i1 int) {
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
				ai[j] = max(0, ai[j]+num/d)
			}
		}
	})
}

// halsColumns updates S (k×M) a block of columns at a time: for each j in
// turn, s_jm ← max(0, s_jm + (p_jm − Σ_t q_jt s_tm)/q_jj), skipping j with
// q_jj = 0 (a dead topic).
func halsColumns(s, p, q *tensor.Dense) {
	k, m := s.Rows, s.Cols
	parallel.ForChunks(m, halsChunk, workersFor(m*k*k), func(_, m0, m1 int) {
		var buf [halsChunk]float64
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
				sj[i] = max(0, sj[i]+v/d)
			}
		}
	})
}
