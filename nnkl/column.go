package nnkl

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"

	"github.com/neuralnmf/neuralnmf/tensor"
)

// klTol bounds the certified optimality residual of a KLLayer column,
// relative to the largest column sum of A (the scale of both terms of the
// gradient): Newton's method converges quadratically, so the residual
// reaches rounding (about N·ε relative) within a step or two of the last
// one that mattered.
const klTol = 1e-10

// klMaxSteps bounds the Newton steps of one column's solve.
const klMaxSteps = 500

// klColumn is one column's problem and workspace: rows are the rows where
// x > 0, with their values and A's rows packed (nz×k) for contiguous sums.
type klColumn struct {
	k          int
	colSum     []float64 // Aᵀ1, over all rows
	rows       []int
	xv, ar     []float64 // x on rows, A's rows packed
	y, g, h, d []float64
	trial      []float64
	gSave      []float64
	free       []bool
	// Scratch of the Newton systems, reused by every step: the entries a
	// system is on, its Cholesky factor and its right-hand side.
	idx  []int
	l, b []float64
}

func newKLColumn(k int, colSum []float64) *klColumn {
	return &klColumn{k: k, colSum: colSum, g: make([]float64, k), h: make([]float64, k*k), d: make([]float64, k),
		trial: make([]float64, k), gSave: make([]float64, k), free: make([]bool, k),
		idx: make([]int, 0, k), l: make([]float64, k*k), b: make([]float64, k)}
}

// factorOn factors H + mu·I on the entries idx (rows and columns) into
// c.l by LAPACK's Cholesky, and reports whether it is positive definite.
func (c *klColumn) factorOn(idx []int, mu float64) (blas64.Triangular, bool) {
	n, k := len(idx), c.k
	l := c.l[:n*n]
	for p, i := range idx {
		for q, j := range idx {
			l[p*n+q] = c.h[i*k+j]
		}
		l[p*n+p] += mu
	}
	return lapack64.Potrf(blas64.Symmetric{N: n, Stride: max(n, 1), Data: l, Uplo: blas.Lower})
}

// solveOn solves the system factorOn factored for b (of its size), in place.
func solveOn(t blas64.Triangular, b []float64) {
	lapack64.Potrs(t, blas64.General{Rows: t.N, Cols: 1, Stride: 1, Data: b})
}

// entries sets c.idx to the i with keep(i), in increasing order, and
// returns it.
func (c *klColumn) entries(keep func(i int) bool) []int {
	c.idx = c.idx[:0]
	for i := range c.k {
		if keep(i) {
			c.idx = append(c.idx, i)
		}
	}
	return c.idx
}

// load packs column j of x's positive entries and the rows of a there.
func (c *klColumn) load(a *tensor.Dense, x klData, j int) {
	c.rows, c.xv, c.ar = c.rows[:0], c.xv[:0], c.ar[:0]
	add := func(i int, v float64) {
		if v > 0 {
			c.rows = append(c.rows, i)
			c.xv = append(c.xv, v)
			c.ar = append(c.ar, a.Row(i)...)
		}
	}
	if x.sparse != nil {
		rows, vals := x.sparse.Column(j)
		for p, i := range rows {
			add(i, vals[p])
		}
	} else {
		for i := range x.dense.Rows {
			add(i, x.dense.At(i, j))
		}
	}
	c.y = append(c.y[:0], make([]float64, len(c.rows))...)
}

// start sets s to the best one-entry solution, s_c = Σx / (Aᵀ1)_c for the
// column c of A that is positive on every row where x > 0 and gives the
// lowest D; if no column is, every usable entry equal, with Σ A·s = Σ x.
// Few entries start free, so Newton's systems start small.
func (c *klColumn) start(s []float64, total float64) {
	k := c.k
	best, bestF := -1, math.Inf(1)
	for cc, cs := range c.colSum {
		if !(cs > 0) {
			continue
		}
		v := total / cs
		f := cs * v
		for r, xv := range c.xv {
			y := c.ar[r*k+cc] * v
			if !(y > 0) {
				f = math.Inf(1)
				break
			}
			f -= xv * math.Log(y)
		}
		if f < bestF {
			best, bestF = cc, f
		}
	}
	clear(s)
	if best >= 0 {
		s[best] = total / c.colSum[best]
		return
	}
	sum := 0.0
	for _, v := range c.colSum {
		sum += v
	}
	for i, v := range c.colSum {
		if v > 0 {
			s[i] = total / sum
		}
	}
}

// warmStart sets s to column j of warm, if warm is not nil and that start
// has A·s > 0 wherever x > 0, and reports whether it did.
func (c *klColumn) warmStart(s []float64, warm *tensor.Dense, j int) bool {
	if warm == nil {
		return false
	}
	for i := range s {
		s[i] = warm.At(i, j)
	}
	return !math.IsInf(c.objective(s), 1)
}

// objective returns D(x ‖ A·s) up to a constant, setting c.y = A·s on the
// rows; +Inf if some y is 0 where x > 0.
func (c *klColumn) objective(s []float64) float64 {
	f := 0.0
	for i, v := range s {
		f += c.colSum[i] * v
	}
	k := c.k
	for r, xv := range c.xv {
		y := 0.0
		for i, av := range c.ar[r*k : r*k+k] {
			y += av * s[i]
		}
		c.y[r] = y
		if !(y > 0) {
			return math.Inf(1)
		}
		f -= xv * math.Log(y)
	}
	return f
}

// gradient sets c.g (and c.h when hess) at the point whose c.y objective
// last computed.
func (c *klColumn) gradient(hess bool) {
	k := c.k
	copy(c.g, c.colSum)
	if hess {
		clear(c.h)
	}
	for r, xv := range c.xv {
		row := c.ar[r*k : r*k+k]
		q := xv / c.y[r]
		for i, av := range row {
			c.g[i] -= av * q
		}
		if hess { // the upper triangle; mirrored below
			w := q / c.y[r]
			for i, ai := range row {
				if ai == 0 {
					continue
				}
				wa := w * ai
				hr := c.h[i*k+i : i*k+k]
				for l, al := range row[i:] {
					hr[l] += wa * al
				}
			}
		}
	}
	if hess {
		for i := 0; i < k; i++ {
			for l := i + 1; l < k; l++ {
				c.h[l*k+i] = c.h[i*k+l]
			}
		}
	}
}

// residual returns the optimality residual of s given c.g, relative to
// scale: |g| where s > 0, max(0, −g) where s = 0.
func (c *klColumn) residual(s []float64, scale float64) float64 {
	r := 0.0
	for i, v := range s {
		if v > 0 {
			r = math.Max(r, math.Abs(c.g[i]))
		} else {
			r = math.Max(r, -c.g[i])
		}
	}
	return r / scale
}

// solve minimises D over s ≥ 0 from s (positive where it may be) by
// projected Newton steps and returns the certified residual, or an error.
func (c *klColumn) solve(s []float64, scale float64) (float64, error) {
	k := c.k
	f := c.objective(s)
	if math.IsInf(f, 1) {
		return 0, fmt.Errorf("the start has A·s = 0 where x > 0")
	}
	polish, lastRes, muRuns := 0, math.Inf(1), 0
	for iter := 0; iter < klMaxSteps; iter++ {
		c.gradient(true)
		res := c.residual(s, scale)
		// Below klTol, Newton steps continue while they halve the residual
		// (at most 3 of them): quadratic convergence takes S to rounding,
		// which finite differences of the layer need.
		if res <= klTol && (polish >= 3 || res >= lastRes/2) {
			return res, nil
		}
		if res <= klTol {
			polish++
		}
		lastRes = res
		// ε-active set (Bertsekas 1982): entries at or near 0 whose gradient
		// pushes them down stay at 0; Newton on the others.
		eps := 0.0
		for i, v := range s {
			eps = math.Max(eps, math.Abs(v-math.Max(0, v-c.g[i])))
		}
		smax := 0.0
		for _, v := range s {
			smax = math.Max(smax, v)
		}
		eps = math.Min(eps, 1e-3*smax)
		nf := 0
		for i, v := range s {
			// H_ii = 0 means A's column i is 0 wherever x > 0, so D is
			// linear in s_i with slope Aᵀ1 > 0: s_i = 0.
			c.free[i] = !(v <= eps && c.g[i] > 0) && c.h[i*k+i] > 0
			if c.free[i] {
				nf++
			}
		}
		// The held entries take a diagonally scaled gradient step, which
		// the projection stops at 0 (Bertsekas's projected Newton): sending
		// them to 0 outright can empty a row of y where x > 0.
		for i := range c.d {
			c.d[i] = 0
			if !c.free[i] && s[i] > 0 {
				c.d[i] = -s[i]
				if hii := c.h[i*k+i]; hii > 0 {
					c.d[i] = -c.g[i] / hii
				}
			}
		}
		// Newton on the free set; an entry at 0 that the step would push
		// below 0 is bound instead, and the step taken again without it, so
		// that the projected step is a descent direction (its reduced
		// system is positive definite and the bound entries do not move).
		singular := false
		for nf > 0 {
			if !c.newton() {
				singular = true
				break
			}
			bound := false
			for i, v := range s {
				if c.free[i] && v == 0 && c.d[i] < 0 {
					c.free[i], c.d[i], bound = false, 0, true
					nf--
				}
			}
			if !bound {
				break
			}
		}
		if singular { // no Newton step (H zero or not finite on the free set): multiplicative updates instead
			if muRuns >= 20 {
				return 0, fmt.Errorf("the Hessian on the free set is singular or not finite (residual %.2g)", res)
			}
			muRuns++
			f = c.multiplicative(s, 50)
			continue
		}
		if nf == 0 { // nothing free: a scaled gradient step on the entries that want to grow
			for i, v := range s {
				if v <= eps && c.g[i] < 0 && c.h[i*k+i] > 0 {
					c.free[i], c.d[i] = true, -c.g[i]/c.h[i*k+i]
				}
			}
		}
		// Armijo backtracking along the projected arc. Near the solution the
		// decrease falls below the rounding of D itself; there the full step
		// is taken when it lowers the optimality residual instead.
		t := 1.0
		accepted := false
		for ls := 0; ls < 60; ls++ {
			dec := 0.0
			for i := range s {
				c.trial[i] = math.Max(0, s[i]+t*c.d[i])
				dec += c.g[i] * (s[i] - c.trial[i])
			}
			ft := c.objective(c.trial)
			if ft <= f-1e-4*dec || (ft <= f && dec <= 0) {
				copy(s, c.trial)
				f = ft
				accepted = true
				break
			}
			if t == 1 && math.Abs(dec) <= 1e-9*(1+math.Abs(f)) && !math.IsInf(ft, 1) {
				copy(c.gSave, c.g)
				c.gradient(false)
				if c.residual(c.trial, scale) < res {
					copy(s, c.trial)
					f = ft
					accepted = true
					break
				}
				copy(c.g, c.gSave)
			}
			t /= 2
		}
		if !accepted {
			// No decrease along Newton's step: s is optimal to rounding if
			// the residual allows it; otherwise a run of multiplicative
			// updates, which decrease D from any positive point (Lee &
			// Seung), moves s where Newton's model is good again (a badly
			// scaled A, with entries near 0 on rows where x > 0, makes it
			// poor far from the solution).
			c.objective(s)
			c.gradient(false)
			if res := c.residual(s, scale); res <= klTol {
				return res, nil
			}
			if muRuns >= 20 {
				return 0, fmt.Errorf("no decrease after %d runs of multiplicative updates (residual %.2g)", muRuns, c.residual(s, scale))
			}
			muRuns++
			f = c.multiplicative(s, 50)
		}
	}
	c.objective(s)
	c.gradient(false)
	if res := c.residual(s, scale); res <= klTol {
		return res, nil
	}
	return 0, fmt.Errorf("not converged in %d Newton steps (residual %.2g)", klMaxSteps, c.residual(s, scale))
}

// purify moves a minimiser s whose support's columns of A, on the rows
// where x > 0, are dependent to a basic one: along a null vector v of that
// submatrix A·s is unchanged on those rows, and so is D (its gradient on
// the support is 0, so Aᵀ1·v = (x/y)ᵀ·A·v = 0); s moves along ±v until an
// entry reaches 0, which leaves the support. Then H on the support is
// positive definite and S is differentiable in A there, as NNLS's solution
// is on its independent support columns. The result is certified again.
func (c *klColumn) purify(s []float64, scale float64) error {
	k := c.k
	if c.supportDefinite(s) {
		return nil // the usual case: basic already, no SVD needed
	}
	for range k {
		idx := make([]int, 0, k)
		for i, v := range s {
			if v > 0 {
				idx = append(idx, i)
			}
		}
		nr, nt := len(c.rows), len(idx)
		if nt == 0 {
			return nil
		}
		b := mat.NewDense(max(nr, nt), nt, nil)
		for r := range nr {
			for q, i := range idx {
				b.Set(r, q, c.ar[r*k+i])
			}
		}
		var svd mat.SVD
		if !svd.Factorize(b, mat.SVDFull) {
			return fmt.Errorf("the SVD of the support's columns failed")
		}
		sv := svd.Values(nil)
		if sv[nt-1] > 1e-12*sv[0]*float64(max(nr, nt)) && nr >= nt {
			break // independent: basic already
		}
		var vm mat.Dense
		svd.VTo(&vm)
		v := make([]float64, nt)
		for q := range nt {
			v[q] = vm.At(q, nt-1)
		}
		// Step along whichever sign of v reaches 0 first.
		step, hit := math.Inf(1), -1
		for _, sign := range []float64{1, -1} {
			for q, i := range idx {
				if d := sign * v[q]; d < 0 && s[i]/-d < step {
					step, hit = s[i]/-d, q
					if sign < 0 {
						step = -step
					}
				}
			}
			if hit >= 0 {
				break
			}
		}
		if hit < 0 {
			return fmt.Errorf("no null direction reaches the boundary")
		}
		for q, i := range idx {
			s[i] = math.Max(0, s[i]+step*v[q])
		}
		s[idx[hit]] = 0
	}
	_, err := c.solve(s, scale) // polish and certify
	return err
}

// multiplicative runs n multiplicative updates s_c ← s_c·(Aᵀ(x/y))_c/(Aᵀ1)_c,
// each of which does not increase D, from an s whose entries that may move
// are positive (an entry at 0 with a negative gradient is first set to a
// small positive value, so that it can grow), and returns D at the end.
func (c *klColumn) multiplicative(s []float64, n int) float64 {
	k := c.k
	smax := 0.0
	for _, v := range s {
		smax = math.Max(smax, v)
	}
	for i, v := range s {
		if v == 0 && c.g[i] < 0 {
			s[i] = 1e-6 * smax
		}
	}
	num := c.b // scratch of size k, free between Newton systems
	f := c.objective(s)
	for range n {
		clear(num)
		for r, xv := range c.xv {
			q := xv / c.y[r]
			for i, av := range c.ar[r*k : r*k+k] {
				num[i] += av * q
			}
		}
		for i := range s {
			if c.colSum[i] > 0 {
				s[i] *= num[i] / c.colSum[i]
			}
		}
		f = c.objective(s)
	}
	return f
}

// supportDefinite reports whether H on s's support is positive definite
// with every Cholesky pivot above 1e-10 of the largest diagonal entry
// (then the support's columns are independent on the rows where x > 0).
func (c *klColumn) supportDefinite(s []float64) bool {
	k := c.k
	if math.IsInf(c.objective(s), 1) {
		return false
	}
	c.gradient(true)
	idx := c.entries(func(i int) bool { return s[i] > 0 })
	dmax := 0.0
	for _, i := range idx {
		dmax = math.Max(dmax, c.h[i*k+i])
	}
	t, ok := c.factorOn(idx, 0)
	if !ok {
		return false
	}
	for p := range t.N {
		if d := t.Data[p*t.Stride+p]; d*d <= 1e-10*dmax {
			return false
		}
	}
	return true
}

// newton sets c.d on the free set to −H_FF⁻¹·g_F (Cholesky), and reports
// whether H_FF, or H_FF with a little Levenberg damping, was positive
// definite.
func (c *klColumn) newton() bool {
	k := c.k
	idx := c.entries(func(i int) bool { return c.free[i] })
	t, ok := c.factorOn(idx, 0)
	if !ok {
		// Singular on the free set (fewer rows with x > 0 than free
		// entries): Levenberg damping gives a descent direction; purify
		// picks a basic minimiser at the end.
		dmax := 0.0
		for _, i := range idx {
			dmax = math.Max(dmax, c.h[i*k+i])
		}
		if !(dmax > 0) || math.IsInf(dmax, 1) {
			return false // a zero or non-finite Hessian: no damping helps
		}
		for mu, tries := 1e-12*dmax, 0; tries < 5 && !ok; mu, tries = mu*1e3, tries+1 {
			t, ok = c.factorOn(idx, mu)
		}
		if !ok {
			return false
		}
	}
	b := c.b[:len(idx)]
	for p, i := range idx {
		b[p] = -c.g[i]
	}
	solveOn(t, b)
	for p, i := range idx {
		c.d[i] = b[p]
	}
	return true
}
