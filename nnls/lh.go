package nnls

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// lhScratch is the Lawson–Hanson workspace, allocated the first time a worker
// needs it.
type lhScratch struct {
	order    []int     // the passive set in the order variables joined it
	dropped  []int     // scratch for prune
	dep      []float64 // scratch for independent
	rejected []bool    // variables refused since the passive set last grew
	m        []float64 // p×(|P|+1): [R_P | d], factorised in place
	tau, z   []float64
	beta     float64 // after lhSubproblem: d's component along the last column's new direction
	work     []float64
	// exchange's copy of the solution it may restore
	saveX     []float64
	saveF     []bool
	saveOrder []int
}

// depTol is the distance, relative to its unit norm and to 1 + the size of
// its coefficients on the passive columns (see independent), below which a
// column of R joining the passive set counts as a combination of the columns
// already there (scipy's nnls uses 100·ε without the second factor).
const depTol = 100 * eps

// lawsonHanson solves min ‖d − R·s‖, s ≥ 0 by the active-set method of
// Lawson & Hanson (1974, ch. 23), solving each least-squares subproblem by
// QR of R_P itself, so its accuracy follows cond(R_P) and not its square.
// As in scipy's nnls, the variable with the largest positive multiplier is
// tried first; it joins only if its column is independent of the passive
// ones (distance above depTol), the subproblem gives it a positive
// coefficient, and it reduces the residual by more than the rounding of d
// (|β_t| > xTol, β_t the component of d along the new direction: a noise
// multiplier on a well-separated column fails this, a small real one on a
// nearly parallel column passes). A refused variable is skipped until the
// passive set next grows, and the passive set never grows beyond A's
// numerical rank. So the support it returns has independent columns. The
// result is then pruned (prune) and polished (exchange). It leaves the
// solution in w.x, the passive set in w.inF and the multipliers and bounds
// of the result in w.y, w.bnd and w.bndF.
func (w *worker) lawsonHanson(d []float64) {
	k := w.f.kk
	w.ensureLH()
	s := w.lh
	clear(w.x)
	clear(s.rejected)
	for i := range w.inF {
		w.inF[i] = false
	}
	s.order = s.order[:0]
	w.residual(d, true)
	for outer := 0; outer < 3*k && len(s.order) < w.f.rank; outer++ {
		t, best := -1, 0.0
		for i, in := range w.inF {
			if !in && !s.rejected[i] && w.y[i] > best {
				t, best = i, w.y[i]
			}
		}
		if t < 0 {
			break
		}
		w.inF[t] = true
		s.order = append(s.order, t)
		if !w.lhSubproblem(d, true) || s.z[t] <= 0 || !(math.Abs(s.beta) > w.xTol) {
			// t depends on P, or rounding makes it useless: leave it out
			// until P changes.
			w.inF[t] = false
			s.order = s.order[:len(s.order)-1]
			s.rejected[t] = true
			continue
		}
		clear(s.rejected)
		w.lhFeasible(d)
		w.residual(d, true)
	}
	w.prune(d)
	w.exchange(d)
}

// lhFeasible is Lawson and Hanson's inner loop: from the feasible w.x and
// the subproblem solution in w.lh.z for the passive set, it moves towards z
// until the first passive variable reaches zero, drops it (and any other
// that rounding took to zero), solves again, and repeats until z is
// positive on the passive set; then w.x = z.
func (w *worker) lhFeasible(d []float64) {
	s := w.lh
	for inner := 0; inner <= w.f.kk; inner++ {
		alpha, drop := 2.0, -1
		for _, i := range s.order {
			if s.z[i] <= 0 {
				if a := w.x[i] / (w.x[i] - s.z[i]); a < alpha {
					alpha, drop = a, i
				}
			}
		}
		if drop < 0 {
			for _, i := range s.order {
				w.x[i] = s.z[i]
			}
			return
		}
		kept := s.order[:0]
		for _, i := range s.order {
			w.x[i] += alpha * (s.z[i] - w.x[i])
			if i == drop || w.x[i] <= 0 {
				w.x[i], w.inF[i] = 0, false
				continue
			}
			kept = append(kept, i)
		}
		s.order = kept
		w.lhSubproblem(d, false)
	}
}

// exchange improves a Lawson–Hanson solution where its multipliers cannot
// decide. With coefficients much larger than the data (an ill-conditioned
// A), the multipliers of the computed solution are resolved only to about
// the size the on-support test tolerates, τ_F·bndF_i; an off-support
// multiplier y_i that is negative but within that size may have the wrong
// sign, and a support that passes the certificate can be far from the best
// in objective (two supports of one column at cond 10¹⁰ both passed, with
// ‖d − R·x‖² 0.177 and 0.162). The objective itself is resolved to
// rounding (the residual is formed with compensated products where it
// cancels). So for each such variable, largest multiplier first, exchange
// tries it: it joins the passive set (if independent of it), Lawson and
// Hanson's inner loop restores feasibility, and the result is kept only if
// it lowers ‖d − R·x‖² by more than its rounding; otherwise the previous
// solution is restored and the variable is not tried again until the
// support changes. Each kept exchange lowers the objective, and at most 2k
// are made.
func (w *worker) exchange(d []float64) {
	s := w.lh
	k := w.f.kk
	saveX, saveF := s.saveX[:k], s.saveF[:k]
	clear(s.rejected)
	obj := w.objective()
	for kept := 0; kept < 2*k; {
		t, best := -1, math.Inf(-1)
		for i, in := range w.inF {
			if !in && !s.rejected[i] && w.y[i] > -w.tauF*w.bndF[i] && w.y[i] > best {
				t, best = i, w.y[i]
			}
		}
		if t < 0 {
			return
		}
		copy(saveX, w.x)
		copy(saveF, w.inF)
		s.saveOrder = append(s.saveOrder[:0], s.order...)
		w.inF[t] = true
		s.order = append(s.order, t)
		ok := len(s.order) <= w.f.rank && w.lhSubproblem(d, true) && s.z[t] > 0
		if ok {
			w.lhFeasible(d)
			w.residual(d, true)
			if o := w.objective(); o < obj*(1-16*float64(w.f.p)*eps) {
				obj = o
				kept++
				clear(s.rejected)
				continue
			}
		}
		copy(w.x, saveX)
		copy(w.inF, saveF)
		s.order = append(s.order[:0], s.saveOrder...)
		w.residual(d, true)
		s.rejected[t] = true
	}
}

// objective returns ‖ρ‖² for the residual ρ = d − R·x that residual left.
func (w *worker) objective() float64 {
	var o float64
	for _, r := range w.rho[:w.f.p] {
		o += r * r
	}
	return o
}

// prune drops passive variables at the level of rounding (x_i ≤ xTol: the
// column has unit norm, so dropping it moves the fit by no more than the
// rounding of d) that the loop above let in, and solves again on the rest;
// the smaller support is kept only if its solution stays positive. This
// keeps a noise-level coefficient from putting a column into the support,
// where the backward pass would differentiate through it.
func (w *worker) prune(d []float64) {
	s := w.lh
	kept := s.order[:0]
	dropped := s.dropped[:0]
	for _, i := range s.order {
		if w.x[i] <= w.xTol {
			dropped = append(dropped, i)
			continue
		}
		kept = append(kept, i)
	}
	s.dropped = dropped
	if len(dropped) == 0 {
		return
	}
	s.order = kept
	if w.lhSubproblem(d, false) {
		ok := true
		for _, i := range kept {
			ok = ok && s.z[i] > 0
		}
		if ok {
			for _, i := range dropped {
				w.x[i], w.inF[i] = 0, false
			}
			for _, i := range kept {
				w.x[i] = s.z[i]
			}
			w.residual(d, true)
			return
		}
	}
	s.order = append(s.order, dropped...) // keep the unpruned solution
}

// independent reports whether the last of the np passive columns, factorised
// in m (stride cols) with the others, is independent of them to working
// precision: its distance |R̂_tt| from their span must exceed
// depTol·(1 + ‖c‖), where c = R̂_P⁻¹·(Q̂ᵀr_t)_P are the coefficients that
// express its projection through them. The distance is exact with respect
// to r_t, but a perturbation δ of R_P moves it by up to ‖δ‖·‖c‖; so when c is
// large (r_t nearly a combination of an ill-conditioned set) a distance of
// that order is rounding, not independence.
func (w *worker) independent(m []float64, np, cols int) bool {
	dist := math.Abs(m[(np-1)*cols+np-1])
	if np == 1 {
		return dist > depTol
	}
	c := w.lh.dep[:np-1]
	for i := range c {
		c[i] = m[i*cols+np-1]
	}
	blas64.Trsv(blas.NoTrans, blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: np - 1, Stride: cols, Data: m}, blas64.Vector{N: np - 1, Inc: 1, Data: c})
	var cn float64
	for _, v := range c {
		cn = math.Hypot(cn, v)
	}
	return dist > depTol*(1+cn)
}

// ensureLH allocates the Lawson–Hanson workspace on first use.
func (w *worker) ensureLH() {
	if w.lh != nil {
		return
	}
	k, p := w.f.kk, w.f.p
	s := &lhScratch{order: make([]int, 0, k), dropped: make([]int, 0, k), dep: make([]float64, k), rejected: make([]bool, k), m: make([]float64, p*(k+1)),
		tau: make([]float64, min(p, k+1)), z: make([]float64, k),
		saveX: make([]float64, k), saveF: make([]bool, k), saveOrder: make([]int, 0, k)}
	work := []float64{0}
	lapack64.Geqrf(blas64.General{Rows: p, Cols: k + 1, Stride: k + 1, Data: s.m}, s.tau, work, -1)
	s.work = make([]float64, max(1, int(work[0]), p*(k+1)))
	w.lh = s
}

// lhSubproblem solves min ‖d − R_P·z_P‖ for the passive set in w.lh.order by
// Householder QR of [R_P | d] into w.lh.z (zero off P). With check set it
// returns false if the last variable of the order is numerically dependent
// on the others.
func (w *worker) lhSubproblem(d []float64, check bool) bool {
	k, p, r, s := w.f.kk, w.f.p, w.f.r, w.lh
	np := len(s.order)
	clear(s.z)
	if np == 0 {
		return true
	}
	if np > p {
		return false // more passive columns than rows: dependent
	}
	cols := np + 1
	m := s.m[:p*cols]
	for row := 0; row < p; row++ {
		rr := r[row*k : (row+1)*k]
		for c, i := range s.order {
			m[row*cols+c] = rr[i]
		}
		m[row*cols+np] = d[row]
	}
	mg := blas64.General{Rows: p, Cols: cols, Stride: cols, Data: m}
	lapack64.Geqrf(mg, s.tau[:min(p, cols)], s.work, len(s.work))
	s.beta = m[(np-1)*cols+np]
	if check && !w.independent(m, np, cols) {
		return false
	}
	z := s.work[:np]
	for c := 0; c < np; c++ {
		z[c] = m[c*cols+np]
		if m[c*cols+c] == 0 {
			return false
		}
	}
	blas64.Trsv(blas.NoTrans, blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: np, Stride: cols, Data: m}, blas64.Vector{N: np, Inc: 1, Data: z})
	for c, i := range s.order {
		s.z[i] = z[c]
	}
	return true
}
