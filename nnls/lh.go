package nnls

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"

	"github.com/neuralnmf/neuralnmf/tensor"
)

// lhScratch is the Lawson–Hanson workspace, allocated the first time a worker
// needs the fallback.
type lhScratch struct {
	ap, b, r, z, work []float64
}

// lawsonHanson solves min ‖b − As‖ with s ≥ 0 for one column by the active-set
// method of Lawson & Hanson (1974, ch. 23), solving each least-squares
// subproblem by QR of A_P itself rather than by normal equations, so it
// survives a Gram block that is numerically singular. It leaves the solution
// in w.x and the passive set in w.inF.
func (w *worker) lawsonHanson(a *tensor.Dense, b []float64) {
	n, k := a.Rows, a.Cols
	if w.lh == nil {
		lwork := max(1, n*k+n+64*k) // generous: the blocked QR of an n×k matrix
		w.lh = &lhScratch{ap: make([]float64, n*k), b: make([]float64, n), r: make([]float64, n),
			z: make([]float64, k), work: make([]float64, lwork)}
	}
	s := w.lh
	clear(w.x)
	for i := range w.inF {
		w.inF[i] = false
	}
	grad := w.y // w = Aᵀ(b − As)
	residual := func() {
		copy(s.r, b)
		blas64.Gemv(blas.NoTrans, -1, a.RawMatrix(), blas64.Vector{N: k, Inc: 1, Data: w.x}, 1, blas64.Vector{N: n, Inc: 1, Data: s.r})
		blas64.Gemv(blas.Trans, 1, a.RawMatrix(), blas64.Vector{N: n, Inc: 1, Data: s.r}, 0, blas64.Vector{N: k, Inc: 1, Data: grad})
	}
	residual()
	for outer := 0; outer < 3*k; outer++ {
		t, best := -1, 0.0
		for i, in := range w.inF {
			if !in && grad[i] > w.yTol[i] && grad[i] > best {
				t, best = i, grad[i]
			}
		}
		if t < 0 {
			break
		}
		w.inF[t] = true
		for inner := 0; inner <= k; inner++ {
			p := w.passiveList()
			if !w.lhSubproblem(a, b, p) {
				w.inF[t] = false // t is dependent on P: leave it out
				break
			}
			alpha, clipped := 1.0, false
			for _, i := range p {
				if s.z[i] <= w.xTol[i] {
					clipped = true
					if d := w.x[i] - s.z[i]; d > 0 {
						alpha = math.Min(alpha, w.x[i]/d)
					} else {
						alpha = 0
					}
				}
			}
			if !clipped {
				for _, i := range p {
					w.x[i] = s.z[i]
				}
				break
			}
			for _, i := range p {
				w.x[i] += alpha * (s.z[i] - w.x[i])
				if w.x[i] <= w.xTol[i] {
					w.x[i] = 0
					w.inF[i] = false
				}
			}
		}
		residual()
	}
	for i, in := range w.inF {
		if !in || w.x[i] <= 0 {
			w.x[i], w.inF[i] = 0, false
		}
	}
}

func (w *worker) passiveList() []int {
	p := w.idx[:0]
	for i, in := range w.inF {
		if in {
			p = append(p, i)
		}
	}
	w.idx = p
	return p
}

// lhSubproblem solves min ‖b − A_P z_P‖ by QR into w.lh.z (zero off P).
// It returns false if A_P is singular.
func (w *worker) lhSubproblem(a *tensor.Dense, b []float64, p []int) bool {
	n, s := a.Rows, w.lh
	np := len(p)
	ap := s.ap[:n*np]
	for r := 0; r < n; r++ {
		row := a.Row(r)
		for j, i := range p {
			ap[r*np+j] = row[i]
		}
	}
	copy(s.r, b)
	ok := lapack64.Gels(blas.NoTrans, blas64.General{Rows: n, Cols: np, Stride: np, Data: ap},
		blas64.General{Rows: n, Cols: 1, Stride: 1, Data: s.r}, s.work, len(s.work))
	clear(s.z)
	if !ok {
		return false
	}
	for j, i := range p {
		s.z[i] = s.r[j]
	}
	return true
}
