package nnls

import (
	"math"
)

// pbar is the number of full exchanges block principal pivoting allows
// without progress before it falls back to exchanging one variable (Kim &
// Park 2011 use 3).
const pbar = 3

// maxRefine bounds the refinement steps after a Gram-path solve. With
// cond(R) ≤ 10⁶ each step shrinks the error by ~cond(R)²ε ≤ 10⁻⁴, so four
// steps take a Cholesky solution to the accuracy of a QR solve.
const maxRefine = 4

// status of one column's pivoting.
type status int

const (
	solved     status = iota
	singular          // a passive block's Cholesky failed
	noConverge        // MaxIter reached
)

// worker holds one goroutine's scratch space: everything is sized by k (and
// p), so a worker allocates nothing per column. All of its work is on the
// reduced problem min ‖d − R·s‖, s ≥ 0, in the scaled columns.
type worker struct {
	f       *Factor
	tau     float64 // certificate tolerance off the support (relative to rounding bounds)
	tauF    float64 // tolerance of stationarity on the support
	maxIter int

	inF     []bool    // passive set F of the current column
	x, y    []float64 // solution and multipliers y = Rᵀ(d − R·x) (or Gram estimates inside pivoting)
	bnd     []float64 // rounding bound of each y_i off the support (sharp)
	bndF    []float64 // backward-error bound of each y_i on the support
	rho, ab []float64 // residual d − R·x and its rounding scale |d| + |R||x| (length p)
	idx     []int     // F (direct form) or B (Schur form) as a list
	sub     []float64 // |idx|×|idx| system and its factor
	dinv    []float64 // reciprocals of the factor's diagonal
	rhs     []float64
	corr    []float64 // 2k: refinement correction
	bad     []int     // infeasible variables
	xTol    float64   // x_i ≤ xTol is infeasible inside pivoting
	yTol    float64   // y_i > yTol is infeasible inside pivoting
	lh      *lhScratch
	nSchur  int // |B| of the last Schur-form solve; −1 if the last solve was direct
	iterSum int
	iterMax int
}

func newWorker(f *Factor, tau float64, maxIter int) *worker {
	k, p := f.kk, f.p
	w := &worker{
		inF: make([]bool, k), x: make([]float64, k), y: make([]float64, k), bnd: make([]float64, k), bndF: make([]float64, k),
		rho: make([]float64, p), ab: make([]float64, p),
		idx: make([]int, 0, k), sub: make([]float64, k*k), dinv: make([]float64, k), rhs: make([]float64, k),
		corr: make([]float64, 2*k), bad: make([]int, 0, k),
	}
	w.use(f, tau, maxIter)
	return w
}

// use points a worker sized for f's (kk, p) at f, with certificate
// tolerance tau and pivoting bound maxIter, and zeroes its counters. The
// stationarity tolerance on the support is the larger of tau and the
// worst-case backward error constant 4(p+k+2)ε (see certify).
func (w *worker) use(f *Factor, tau float64, maxIter int) {
	w.f, w.tau, w.tauF, w.maxIter = f, tau, math.Max(tau, 4*float64(f.p+f.kk+2)*eps), maxIter
	w.iterSum, w.iterMax = 0, 0
}

// subproblem solves min ‖d − R·s‖ with s_B = 0 (B = complement of F) on the
// Gram path, filling w.x (zero on B) and w.y (the multiplier c − G·s on B;
// zero on F). c is Rᵀd and u is R⁻¹d (nil when H is not used). It picks the
// cheaper of two exact forms: the direct form factorises G_FF; the Schur
// form factorises H_BB and uses s = u + H_{:,B}·z_B with z_B = −H_BB⁻¹·u_B.
// It returns false if the factorisation fails. The factor is kept for
// correct.
func (w *worker) subproblem(c, u []float64, useH bool) bool {
	k := w.f.kk
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
			w.x[i], w.y[i] = 0, c[i]
		}
		w.nSchur = -1
		return true
	case useH && nB < nF:
		return w.schur(u, nB)
	default:
		w.nSchur = -1
		return w.direct(c, nF)
	}
}

func (w *worker) direct(c []float64, nF int) bool {
	k, g := w.f.kk, w.f.g
	f := w.idx[:0]
	for i, in := range w.inF {
		if in {
			f = append(f, i)
		}
	}
	w.idx = f
	sub := w.sub[:nF*nF]
	for a, fa := range f {
		row := g[fa*k:]
		for b := a; b < nF; b++ {
			sub[a*nF+b] = row[f[b]]
		}
		w.rhs[a] = c[fa]
	}
	if !cholSolve(sub, nF, w.rhs[:nF], w.dinv) {
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
		s := c[i]
		for a, fa := range f {
			s -= row[fa] * w.rhs[a]
		}
		w.y[i] = s
	}
	return true
}

func (w *worker) schur(u []float64, nB int) bool {
	k, h := w.f.kk, w.f.h
	b := w.idx[:0]
	for i, in := range w.inF {
		if !in {
			b = append(b, i)
		}
	}
	w.idx = b
	w.nSchur = nB
	if nB == 0 {
		copy(w.x, u)
		clear(w.y)
		return true
	}
	sub := w.sub[:nB*nB]
	for p, bp := range b {
		row := h[bp*k:]
		for q := p; q < nB; q++ {
			sub[p*nB+q] = row[b[q]]
		}
		w.rhs[p] = -u[bp]
	}
	if !cholSolve(sub, nB, w.rhs[:nB], w.dinv) {
		return false
	}
	zB := w.rhs[:nB]
	for i, in := range w.inF {
		if !in {
			w.x[i] = 0
			continue
		}
		row := h[i*k:]
		s := u[i]
		for p, bp := range b {
			s += row[bp] * zB[p]
		}
		w.x[i] = s
		w.y[i] = 0
	}
	// The multiplier of the Schur form is −z_B = (c − G·s)_B.
	for p, bp := range b {
		w.y[bp] = -zB[p]
	}
	return true
}

// correct adds G_FF⁻¹·r_F to x_F, with the factor the last subproblem left in
// w.sub (direct form: G_FF; Schur form: H_BB, using G_FF⁻¹ = H_FF −
// H_FB·H_BB⁻¹·H_BF). It returns max|Δx_i|.
func (w *worker) correct(r []float64) float64 {
	k := w.f.kk
	d := w.corr[:k]
	clear(d)
	if w.nSchur < 0 { // direct: idx = F
		f := w.idx
		z := w.rhs[:len(f)]
		for a, fa := range f {
			z[a] = r[fa]
		}
		cholSolveFactored(w.sub, len(f), z, w.dinv)
		for a, fa := range f {
			d[fa] = z[a]
		}
	} else { // Schur: idx = B
		h, b, nB := w.f.h, w.idx, w.nSchur
		v, rt := w.corr[k:2*k], d // d is zero here: use it for r̃ = r on F, 0 on B
		for j, in := range w.inF {
			if in {
				rt[j] = r[j]
			}
		}
		matVec(v, h, rt) // v = H·r̃
		clear(rt)
		z := w.rhs[:nB]
		for p, bp := range b {
			z[p] = -v[bp]
		}
		cholSolveFactored(w.sub, nB, z, w.dinv)
		for i, in := range w.inF {
			if !in {
				continue
			}
			row := h[i*k : (i+1)*k]
			s := v[i]
			for p, bp := range b {
				s += row[bp] * z[p]
			}
			d[i] = s
		}
	}
	var m float64
	for i, in := range w.inF {
		if in {
			w.x[i] += d[i]
			if a := math.Abs(d[i]); a > m {
				m = a
			}
		}
	}
	return m
}

// bpp runs block principal pivoting on the Gram path from the passive set in
// w.inF and leaves the solution in w.x.
func (w *worker) bpp(c, u []float64, useH bool) status {
	k := w.f.kk
	ninf, p := k+1, pbar
	for it := 1; it <= w.maxIter; it++ {
		if !w.subproblem(c, u, useH) {
			w.count(it)
			return singular
		}
		bad := w.bad[:0]
		for i, in := range w.inF {
			if in && w.x[i] <= w.xTol || !in && w.y[i] > w.yTol {
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

// refine polishes a Gram-path solution: the multipliers y = Rᵀ(d − R·x) are
// formed once from R (not from G), and x_F is corrected by G_FF⁻¹·y_F until
// the correction is below the accuracy cond(R)·ε that a QR solve would
// reach. Later multipliers are updated as y ← y − G_{:,F}·Δx_F, which is as
// accurate as a fresh residual because Δx is small (its error ε·|G|·|Δx| is
// within the bounds, which are formed at the first x and change by no more
// than Δx does). It returns false if the corrections do not converge or push an entry of x_F to
// zero or below; the column is then solved by Lawson–Hanson.
func (w *worker) refine(d []float64) bool {
	k, g := w.f.kk, w.f.g
	w.residual(d, true)
	if w.nSchur == 0 {
		// x = u = R⁻¹d, a triangular solve with R: already as accurate as
		// a QR solve, nothing to refine.
		return true
	}
	floor := math.Max(2, 1/w.f.rcond) * eps
	// Each step shrinks the error by about rate = cond(G_FF)·ε ≤ k·cond(R)²·ε
	// (1/rcond over-estimates cond(R) by at most k in the 1-norm), so after a
	// correction of size dm the error left is about rate·dm.
	rate := float64(k) * eps / (w.f.rcond * w.f.rcond)
	prev := math.Inf(1)
	for step := 0; step < maxRefine; step++ {
		dm := w.correct(w.y)
		if !(dm <= prev/2) { // not contracting: G_FF is too ill-conditioned
			return false
		}
		prev = dm
		var xm float64
		for i, in := range w.inF {
			if in {
				if w.x[i] <= 0 {
					return false
				}
				if w.x[i] > xm {
					xm = w.x[i]
				}
			}
		}
		dx, gdx, y := w.corr[:k], w.corr[k:2*k], w.y[:k] // dx is zero off F; correct is done with corr[k:]
		matVec(gdx, g, dx)
		for i := range y {
			y[i] -= gdx[i]
		}
		if dm*math.Min(rate, 1) <= floor*xm {
			return true
		}
	}
	return false
}

const eps = 0x1p-52

// residual forms ρ = d − R·x and y = Rᵀρ from R and, if bound is set, two
// bounds for the certificate (each y_i is then compared with τ times one of
// them, τ ≈ (p + k)·ε):
//
//   - w.bndF = |R|ᵀ·a + ‖d‖ + √k·‖x‖ with a = |d| + |R|·|x|: the size of
//     y_i that the backward error of a least-squares solve on the support
//     leaves (componentwise and normwise), and so the tolerance of
//     stationarity on the support;
//   - w.bnd, the rounding error of forming y_i itself plus ‖d‖, the
//     tolerance of the sign test off the support.
//
// The ‖d‖ term (‖r_i‖·‖d‖, and every column of R has unit norm) is the error
// that R and d bring from the QR reduction and the product QᵀX, which are
// accurate to a few ε relative to ‖Ã‖ = 1 and ‖x‖ ≥ ‖d‖: even an exact fit
// (ρ = 0) leaves multipliers of that size.
//
// Formed plainly, ρ_j carries an error of up to k·ε·a_j, which is far above
// |ρ_j| when x is large against d (ill-conditioning: R·x ≈ d by
// cancellation), and a sign test at that tolerance would accept supports
// that are plainly wrong. So when a exceeds |d| by more than 8× ρ is formed
// again with compensated products and sums (FMA), which makes its error
// ε·|ρ_j| + O(k²ε²)·a_j, and w.bnd = |R|ᵀ·(|ρ| + ε·a): sharp to the size of
// the residual itself. Otherwise w.bnd = w.bndF.
func (w *worker) residual(d []float64, bound bool) {
	f := w.f
	k, p, r, ra := f.kk, f.p, f.r, f.rabs
	x, rho, ab := w.x[:k], w.rho[:p], w.ab[:p]
	d = d[:p]
	var amax, dmax float64
	for j := range rho { // ρ_j = d_j − Σ_i R_ji·x_i and a_j = |d_j| + Σ_i |R_ji|·x_i (x ≥ 0)
		row := r[j*k+j : (j+1)*k]
		arow, xx := ra[j*k+j:(j+1)*k], x[j:]
		arow, xx = arow[:len(row)], xx[:len(row)]
		var s, a float64
		for i, v := range row {
			s += v * xx[i]
			a += arow[i] * xx[i]
		}
		dj := d[j]
		ad := math.Abs(dj)
		rho[j], ab[j] = dj-s, ad+a
		amax = max(amax, ad+a)
		dmax = max(dmax, ad)
	}
	compensated := bound && amax > 8*dmax
	if compensated {
		for j := range rho {
			row := r[j*k+j : (j+1)*k]
			xx := x[j:]
			xx = xx[:len(row)]
			s, c := d[j], 0.0
			for i, v := range row {
				if xi := xx[i]; xi != 0 {
					t := v * xi
					te := math.FMA(v, xi, -t) // t + te = v·xi exactly
					u := s - t
					bv := u - s // TwoSum(s, −t): u + e = s − t exactly
					e := (s - (u - bv)) + (-t - bv)
					s = u
					c += e - te
				}
			}
			rho[j] = s + c
		}
	}
	// y_i = Σ_{j ≤ i} R_ji·ρ_j as a dot product with column i of R (a row of
	// f.rt), and likewise the bound |R|ᵀa.
	y, rt, rat := w.y[:k], f.rt, f.rabsT
	if !bound {
		lowerDot(y, rt, rho, p)
		return
	}
	var dn float64
	for _, v := range d {
		dn += v * v
	}
	dn = math.Sqrt(dn) // d is scaled to max|d_j| ∈ [1, 2): no overflow
	// The normwise backward error of a least-squares solve, ‖R‖·‖x‖ with
	// ‖R‖_F = √k (unit columns), joins the componentwise terms: the solve's
	// error spreads over every coefficient, so a row whose own coefficients
	// are small still sees the large ones' rounding.
	var xn float64
	for _, v := range x {
		xn += v * v
	}
	normwise := math.Sqrt(float64(k) * xn)
	bf, bnd := w.bndF[:k], w.bnd[:k]
	for i := range y {
		n := min(i+1, p)
		col, acol, rr, aa := rt[i*p:i*p+n], rat[i*p:i*p+n], rho[:n], ab[:n]
		acol = acol[:len(col)]
		var s, b float64
		for j, v := range col {
			s += v * rr[j]
			b += acol[j] * aa[j]
		}
		y[i], bf[i] = s, dn+b
	}
	if compensated {
		for j := range ab {
			ab[j] = math.Abs(rho[j]) + eps*ab[j]
		}
		lowerDot(bnd, rat, ab, p)
		for i := range bnd {
			bnd[i] += dn
		}
	} else {
		copy(bnd, bf) // before the normwise term: the sign test stays sharp
	}
	for i := range bf {
		bf[i] += normwise
	}
}

// certify checks the KKT conditions of the current solution against the
// multipliers and bounds that residual left: on the support, x_i > 0 and
// |y_i| ≤ τ_F·bndF_i (a least-squares solution's backward error, with the
// worst-case constant τ_F = 4(p+k+2)ε: it accumulates over the solve and is
// not what tells a wrong support apart); off it,
// x_i = 0 and y_i ≤ τ·bnd_i, the rounding error of forming y_i. τ is a small
// multiple of the unit roundoff, so a support passes only if no variable
// outside it has a multiplier of the wrong sign beyond rounding: a wrong
// support that is wrong by more than working precision can resolve fails.
func (w *worker) certify() bool {
	for i, in := range w.inF {
		y := w.y[i]
		if in {
			if !(w.x[i] > 0) || !(math.Abs(y) <= w.tauF*w.bndF[i]) {
				return false
			}
		} else if w.x[i] != 0 || !(y <= w.tau*w.bnd[i]) {
			return false
		}
	}
	return true
}
