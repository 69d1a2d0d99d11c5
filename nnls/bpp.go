package nnls

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// pbar is the number of full exchanges block principal pivoting allows
// without progress before it falls back to exchanging one variable (Kim &
// Park 2011 use 3).
const pbar = 3

// status of one column's solve.
type status int

const (
	solved     status = iota
	singular          // a passive block's Cholesky failed
	noConverge        // MaxIter reached
)

// worker holds one goroutine's scratch space: everything is sized by k, so a
// worker allocates nothing per column.
type worker struct {
	gm      *Gram
	tol     float64
	kktTol  float64
	maxIter int

	inF     []bool    // passive set F of the current column
	x, y    []float64 // primal and dual of the current subproblem
	idx     []int     // F (direct form) or B (Schur form) as a list
	sub     []float64 // |idx|×|idx| system
	rhs     []float64
	bad     []int // infeasible variables
	xTol    []float64
	yTol    []float64
	lh      *lhScratch
	nSchur  int // |B| of the last Schur-form solve; −1 if the last solve was direct
	refined []float64
	iterSum int
	iterMax int
}

func newWorker(gm *Gram, tol float64, maxIter int) *worker {
	k := gm.k
	return &worker{
		gm: gm, tol: tol, kktTol: math.Max(1e3*tol, 1e-8), maxIter: maxIter,
		inF: make([]bool, k), x: make([]float64, k), y: make([]float64, k),
		idx: make([]int, 0, k), sub: make([]float64, k*k), rhs: make([]float64, k),
		bad: make([]int, 0, k), xTol: make([]float64, k), yTol: make([]float64, k),
		refined: make([]float64, 2*k),
	}
}

// setScale sets the per-variable thresholds for a column with ‖x_m‖ = xn:
// x_i is zero when x_i·‖a_i‖ ≤ tol·‖x_m‖, and the dual y_i = a_iᵀ(As − x) is
// feasible when y_i ≥ −tol·‖a_i‖·‖x_m‖. Both are invariant under scaling of A
// or X.
func (w *worker) setScale(xn float64) {
	for i, an := range w.gm.anorm {
		w.xTol[i] = w.tol * xn / an
		w.yTol[i] = w.tol * xn * an
	}
}

// subproblem solves min ‖x − As‖ with s_B = 0 (B = complement of F), filling
// w.x (zero on B) and w.y (the dual Gs − c on B; zero on F). c is Aᵀx_m and u
// is H·c (nil when H is not used). It picks the cheaper of two exact forms:
// the direct form factorises G_FF; the Schur form factorises H_BB and uses
// s = u + H_{:,B}·y_B with y_B = −H_BB⁻¹·u_B. It returns false if the
// factorisation fails.
func (w *worker) subproblem(c, u []float64, useH bool) bool {
	k := w.gm.k
	nF := 0
	for _, f := range w.inF {
		if f {
			nF++
		}
	}
	nB := k - nF
	switch {
	case nF == 0:
		for i := range w.x {
			w.x[i], w.y[i] = 0, -c[i]
		}
		return true
	case nB == 0 && useH:
		copy(w.x, u)
		clear(w.y)
		w.nSchur = 0
		return true
	case useH && nB < nF:
		return w.schur(c, u, nB)
	default:
		w.nSchur = -1
		return w.direct(c, nF)
	}
}

func (w *worker) direct(c []float64, nF int) bool {
	k, g := w.gm.k, w.gm.g
	f := w.idx[:0]
	for i, in := range w.inF {
		if in {
			f = append(f, i)
		}
	}
	sub := w.sub[:nF*nF]
	for a, fa := range f {
		row := g[fa*k:]
		for b := a; b < nF; b++ {
			sub[a*nF+b] = row[f[b]]
		}
		w.rhs[a] = c[fa]
	}
	if !cholSolve(sub, nF, w.rhs[:nF]) {
		return false
	}
	clear(w.x)
	for a, fa := range f {
		w.x[fa] = w.rhs[a]
	}
	for i, in := range w.inF {
		if in {
			w.y[i] = 0
			continue
		}
		row := g[i*k:]
		s := -c[i]
		for a, fa := range f {
			s += row[fa] * w.rhs[a]
		}
		w.y[i] = s
	}
	return true
}

func (w *worker) schur(c, u []float64, nB int) bool {
	k, h := w.gm.k, w.gm.h
	b := w.idx[:0]
	for i, in := range w.inF {
		if !in {
			b = append(b, i)
		}
	}
	sub := w.sub[:nB*nB]
	for p, bp := range b {
		row := h[bp*k:]
		for q := p; q < nB; q++ {
			sub[p*nB+q] = row[b[q]]
		}
		w.rhs[p] = -u[bp]
	}
	w.nSchur = nB
	if !cholSolve(sub, nB, w.rhs[:nB]) {
		return false
	}
	yB := w.rhs[:nB]
	for i, in := range w.inF {
		if !in {
			w.x[i] = 0
			continue
		}
		row := h[i*k:]
		s := u[i]
		for p, bp := range b {
			s += row[bp] * yB[p]
		}
		w.x[i] = s
		w.y[i] = 0
	}
	for p, bp := range b {
		w.y[bp] = yB[p]
	}
	return true
}

// refine improves a Schur-form solution by one step of iterative
// refinement: the residual r_F = c_F − G_FF·x_F is computed from G directly
// and the correction G_FF⁻¹·r_F is solved in the same Schur form, reusing the
// factor of H_BB left in w.sub. This recovers the digits the explicit inverse
// H loses when AᵀA is moderately ill-conditioned. It returns false if the
// corrected solution leaves the positive orthant and nonneg is set (the
// caller then re-solves the column directly). It does nothing after a
// direct-form solve.
func (w *worker) refine(c []float64, nonneg bool) bool {
	nB := w.nSchur
	if nB < 0 {
		return true
	}
	k, g, h := w.gm.k, w.gm.g, w.gm.h
	r, v := w.refined[:k], w.refined[k:]
	for i, in := range w.inF {
		r[i] = 0
		if !in {
			continue
		}
		row := g[i*k:]
		s := c[i]
		for j, xj := range w.x {
			if xj != 0 {
				s -= row[j] * xj
			}
		}
		r[i] = s
	}
	for i := range v { // v = H·r̃ (r̃ = r on F, 0 on B)
		row := h[i*k:]
		var s float64
		for j, rj := range r {
			if rj != 0 {
				s += row[j] * rj
			}
		}
		v[i] = s
	}
	b := w.idx[:0]
	for i, in := range w.inF {
		if !in {
			b = append(b, i)
		}
	}
	z := w.rhs[:nB]
	for p, bp := range b {
		z[p] = -v[bp]
	}
	if nB > 0 {
		t := blas64.Triangular{N: nB, Stride: nB, Data: w.sub[:nB*nB], Uplo: blas.Upper, Diag: blas.NonUnit}
		lapack64.Potrs(t, blas64.General{Rows: nB, Cols: 1, Stride: 1, Data: z})
	}
	for i, in := range w.inF {
		if !in {
			continue
		}
		row := h[i*k:]
		d := v[i]
		for p, bp := range b {
			d += row[bp] * z[p]
		}
		w.x[i] += d
	}
	if nonneg {
		for i, in := range w.inF {
			if in && w.x[i] <= w.xTol[i] {
				return false
			}
		}
	}
	return true
}

// cholSolve solves sub·z = rhs in place for the symmetric positive definite
// n×n matrix whose upper triangle is in sub (row-major, stride n).
func cholSolve(sub []float64, n int, rhs []float64) bool {
	t, ok := lapack64.Potrf(blas64.Symmetric{N: n, Stride: n, Data: sub, Uplo: blas.Upper})
	if !ok {
		return false
	}
	lapack64.Potrs(t, blas64.General{Rows: n, Cols: 1, Stride: 1, Data: rhs})
	return true
}

// bpp runs block principal pivoting from the passive set in w.inF and leaves
// the solution in w.x.
func (w *worker) bpp(c, u []float64, useH bool) status {
	k := w.gm.k
	ninf, p := k+1, pbar
	for it := 1; it <= w.maxIter; it++ {
		if !w.subproblem(c, u, useH) {
			w.count(it)
			return singular
		}
		bad := w.bad[:0]
		for i, in := range w.inF {
			if in && w.x[i] <= w.xTol[i] || !in && w.y[i] < -w.yTol[i] {
				bad = append(bad, i)
			}
		}
		if len(bad) == 0 {
			w.count(it)
			return solved
		}
		// Kim & Park's rule: exchange every infeasible variable while the
		// count of infeasible variables keeps falling, or for up to pbar
		// rounds without progress; then exchange only the largest index
		// (Murty's rule), which guarantees termination.
		switch {
		case len(bad) < ninf:
			ninf, p = len(bad), pbar
			w.flip(bad)
		case p > 0:
			p--
			w.flip(bad)
		default:
			w.flip(bad[len(bad)-1:])
		}
	}
	w.count(w.maxIter)
	return noConverge
}

func (w *worker) flip(vars []int) {
	for _, i := range vars {
		w.inF[i] = !w.inF[i]
	}
}

func (w *worker) count(it int) {
	w.iterSum += it
	w.iterMax = max(w.iterMax, it)
}

// refineTol is the relative residual |(Gs − c)_i|/(‖a_i‖‖x‖) on the support
// above which a Schur-form solution is refined: well above roundoff for a
// well-conditioned A, so refinement runs only where H lost digits.
const refineTol = 1e-13

// verify accepts the current solution if it satisfies the KKT conditions,
// after one step of refinement when the residual on the support shows that the
// Schur form lost digits. It returns false if the column must be re-solved.
func (w *worker) verify(c []float64, xn float64) bool {
	resid, ok := w.kkt(c, xn)
	if resid <= refineTol {
		return ok
	}
	if !w.refine(c, true) {
		return false
	}
	_, ok = w.kkt(c, xn)
	return ok
}

// kkt computes the multipliers y = Gs − c of the current solution directly
// from G and checks the KKT conditions: s ≥ 0, |y_i| ≈ 0 on the support and
// y_i ≥ 0 off it, within kktTol·‖a_i‖·‖x‖. It also returns the largest
// relative residual |y_i|/(‖a_i‖‖x‖) on the support, which tells whether a
// Schur-form solution needs refinement.
func (w *worker) kkt(c []float64, xn float64) (resid float64, ok bool) {
	k, g := w.gm.k, w.gm.g
	ok = true
	for i := 0; i < k; i++ {
		row := g[i*k:]
		y := -c[i]
		for j, xj := range w.x {
			if xj != 0 {
				y += row[j] * xj
			}
		}
		sc := xn * w.gm.anorm[i]
		switch xi := w.x[i]; {
		case xi > 0:
			r := math.Abs(y) / sc
			resid = math.Max(resid, r)
			ok = ok && r <= w.kktTol
		case xi == 0:
			ok = ok && y >= -w.kktTol*sc
		default:
			ok = false
		}
	}
	return resid, ok
}
