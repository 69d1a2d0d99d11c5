package nnls

import (
	"fmt"
	"math"
	"runtime"
	"slices"

	"github.com/neuralnmf/neuralnmf/internal/gemm"
	"github.com/neuralnmf/neuralnmf/internal/parallel"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// chunkFor returns the number of columns a worker takes at a time: all of
// them (up to 256) for a single worker, else about four chunks per worker,
// between 32 and 256. Longer chunks make the chunk's QᵀX product run along
// longer vectors; more chunks balance the load.
func chunkFor(m, workers int) int {
	if workers <= 1 {
		return max(1, min(m, 256))
	}
	return max(32, min(256, m/(4*workers)))
}

// Options configures Solve. The zero value (or nil) gives the defaults.
type Options struct {
	// Tol is the tolerance of the optimality certificate, relative to the
	// rounding-error bound of each multiplier (see the package doc). The
	// default, 0, is 2·√(p+k+2)·ε (p = min(N, k)), the probabilistic bound
	// on accumulated rounding (Higham & Mary 2019), so only a solution that
	// is optimal to working precision is certified. A larger Tol certifies
	// less exact solutions; it must be below 1/ε.
	Tol float64
	// MaxIter bounds the pivoting iterations per column on the fast path; a
	// column that needs more is solved by Lawson–Hanson instead. Default
	// 5k + 50.
	MaxIter int
	// Workers is the number of goroutines; default runtime.GOMAXPROCS(0).
	Workers int
	// Warm, if not nil, seeds each column's passive set with a previous
	// support (for example the last epoch's, when A has changed a little).
	// It must be k×M. Without it the seed is the sign pattern of the
	// unconstrained least-squares solution.
	Warm *Support
	// AtX, if true, makes Result.AtX hold AᵀX (k×M). It is formed from the
	// QᵀX the solve computes anyway, as diag(‖a_i‖)·Rᵀ·(QᵀX) with the
	// column-scaled Ã = A·diag(1/‖a_i‖) = Q·R: a k×k·M product instead of a
	// second pass over X (k·N·M for a dense X). Its rounding error is that
	// of a direct product, a few k·ε·‖a_i‖·‖x_j‖ per entry. A loss whose
	// value or gradient needs AᵀX, such as ‖X − A·H‖² expanded, reads it
	// from there (ops.NNLSData).
	AtX bool
	// L1, if positive, adds L1·Σ_i s_i to each column's objective: S
	// minimises ½‖x − A·s‖² + L1·1ᵀs over s ≥ 0, the nonnegative lasso
	// (scikit-learn's elastic net with l1_ratio 1). Completing the square
	// in the QR form, ½‖R·s̃ − d‖² + L1·1ᵀD⁻¹s̃ = ½‖R·s̃ − (d − L1·R⁻ᵀD⁻¹1)‖²
	// + const (Ã = A·D⁻¹ = Q·R, d = QᵀX), so the solver and its certificate
	// run unchanged on the shifted right-hand side; the backward pass is
	// Backward's formula (the penalty does not depend on A or X). It needs
	// R to be invertible: A's nonzero columns independent and N ≥ their
	// number, or Solve returns an error. Must be finite and ≥ 0.
	L1 float64
}

// Stats describes how a Solve went.
type Stats struct {
	// Iterations is the number of pivoting subproblems solved on the fast
	// path, summed over columns; MaxIterations the most any one column
	// needed.
	Iterations, MaxIterations int
	// Rechecked counts columns whose Schur-form solution failed the
	// certificate and were solved again in the direct form.
	Rechecked int
	// Fallbacks counts columns solved by Lawson–Hanson: every column when A
	// is rank deficient, ill-conditioned (cond > 10⁶ after column scaling)
	// or wider than tall, else the columns whose fast solution was not
	// certified.
	Fallbacks int
	// Uncertified counts columns whose Lawson–Hanson solution still failed
	// the certificate; Result.Uncertified lists them. This happens on
	// degenerate problems (an optimum where a zero coefficient also has a
	// zero multiplier, such as an exact fit by fewer columns than the rank),
	// where the rounding of the QR reduction moves multipliers of order
	// 10–100·ε·‖x‖. Such a column is still Lawson–Hanson's solution of the
	// rounded problem, with an objective equal to the optimum to rounding; it
	// is zero on every non-degenerate test problem.
	Uncertified int
}

// Result is the output of Solve. S and Support are owned by the caller.
type Result struct {
	// S is the k×M solution.
	S *tensor.Dense
	// Support holds the positive entries of each column of S.
	Support *Support
	// Stats describes the solve.
	Stats Stats
	// Factor is the factorisation of A the solve used; Backward reuses it.
	Factor *Factor
	// Uncertified lists, in increasing order, the columns counted by
	// Stats.Uncertified; nil when every column is certified.
	Uncertified []int
	// AtX is AᵀX (k×M) when Options.AtX was set, else nil.
	AtX *tensor.Dense
}

// Solve returns S = argmin_{S ≥ 0} ‖X − A·S‖_F, column by column, for A of
// shape N×k and X of shape N×M, of any sign, shape and rank. Each column of
// the result is certified optimal to working precision (see the package
// doc); its support columns are linearly independent, so where the
// minimiser is not unique (dependent columns in A) Solve returns the one
// Lawson–Hanson would, and S_T = (A_TᵀA_T)⁻¹·A_Tᵀ·x on its support T.
//
// It returns an error, and no result, if A or X is empty or has a non-finite
// entry, if their row counts differ, if Options are invalid, or if an entry
// of S overflows float64 (a column of A too small for its X). A zero column
// of X, or of A, gives a zero column, or row, of S.
func Solve(a, x *tensor.Dense, opt *Options) (*Result, error) {
	if err := tensor.CheckNotEmpty("X", x); err != nil {
		return nil, fmt.Errorf("nnls: %w", err)
	}
	return solveData(a, denseData{x}, opt)
}

// solveData checks that A and X agree, factorises A and solves (the solve
// validates X in the same pass that tells whether it needs rescaling).
func solveData(a *tensor.Dense, x data, opt *Options) (*Result, error) {
	n, m := x.dims()
	if a != nil && a.Rows != n {
		return nil, fmt.Errorf("nnls: %w: A is %d×%d and X is %d×%d: row counts differ", tensor.ErrShape, a.Rows, a.Cols, n, m)
	}
	var xr *xRows
	var xb *gemm.PackedB
	var pre []float64
	d, prepared := x.(*Data)
	if prepared && a != nil {
		xr, xb = d.prepare(a.Cols, opt.workers())
		pre = d.preconditioner(a.Cols)
	}
	f, err := newFactorX(a, xr, pre, opt.workers())
	if err != nil {
		return nil, err
	}
	if prepared {
		d.setPreconditioner(f.unscaledR())
	}
	defer f.releaseQ() // the backward pass reads R, G and H, never Q
	if f.q1tx != nil {
		x = formedQtX{Data: d, q1tx: f.q1tx}
	}
	return f.solveWith(x, xb, opt)
}

// tolFor returns the certificate tolerance for p rows and k columns.
func tolFor(user float64, p, k int) float64 {
	if user > 0 {
		return user
	}
	return 2 * math.Sqrt(float64(p+k+2)) * eps
}

// workers returns Options.Workers, or GOMAXPROCS when it is 0 or o is nil.
func (o *Options) workers() int {
	if o == nil || o.Workers <= 0 {
		return runtimeWorkers()
	}
	return o.Workers
}

func (o *Options) resolve(k, m int) (Options, error) {
	var r Options
	if o != nil {
		r = *o
	}
	if !(r.L1 >= 0) || math.IsInf(r.L1, 0) {
		return r, fmt.Errorf("nnls: Options.L1 is %v, want a finite value ≥ 0", r.L1)
	}
	if !(r.Tol >= 0 && r.Tol < 1/eps) {
		return r, fmt.Errorf("nnls: Options.Tol is %v, want 0 (the default) or a positive value below 1/ε", r.Tol)
	}
	if r.MaxIter <= 0 {
		r.MaxIter = 5*k + 50
	}
	r.Workers = o.workers()
	if r.Warm != nil {
		if wk, wm := r.Warm.Dims(); wk != k || wm != m {
			return r, fmt.Errorf("nnls: %w: warm-start support is %d×%d, solution is %d×%d", tensor.ErrShape, wk, wm, k, m)
		}
	}
	return r, nil
}

// [3]int{k, p, cs} → *sync.Pool of *chunkBuf

// xScaleLimit bounds max|x_j| of a column before X is rescaled column by
// column by powers of two (exactly): beyond it, or below its reciprocal, the
// products in QᵀX may overflow or lose digits to underflow.
const xScaleLimit = 0x1p500

// solve runs the column solves for X given as data.
func (f *Factor) solve(x data, opt *Options) (*Result, error) { return f.solveWith(x, nil, opt) }

// solveWith is solve with, if xb is not nil, a dense X's panels packed
// for QᵀX (Data.prepare).
func (f *Factor) solveWith(x data, xb *gemm.PackedB, opt *Options) (*Result, error) {
	k, kk, p := f.k, f.kk, f.p
	n, m := x.dims()
	o, err := opt.resolve(k, m)
	if err != nil {
		return nil, err
	}
	workers := effectiveWorkers(o.Workers, n, k, m)
	extreme, err := x.scan(workers)
	if err != nil {
		return nil, err
	}
	s := tensor.New(k, m)
	sup := NewSupport(k, m)
	res := &Result{S: s, Support: sup, Factor: f}
	if o.AtX {
		res.AtX = tensor.New(k, m) // rows of zero columns of A stay zero
	}
	var l1 []float64 // L1·R⁻ᵀD⁻¹1, the shift of every column's d
	if o.L1 > 0 && kk > 0 {
		if l1, err = f.l1Shift(o.L1); err != nil {
			return nil, err
		}
	}
	if kk == 0 {
		return res, nil // S = 0 is the solution
	}
	cs := chunkFor(m, workers)
	dd, ok := x.(denseData)
	if d, prepared := x.(*Data); prepared {
		dd, ok = d.data.(denseData)
	}
	if ok && cs < m && f.q != nil {
		// Qᵀ packed once for every chunk's QᵀX, not once per chunk; with X
		// packed too, chunks start at its strips.
		if xb != nil {
			cs = (cs + xb.Strip() - 1) / xb.Strip() * xb.Strip()
		}
		x = packedQ{denseData: dd, qt: gemm.PackA(true, f.q.Cols, n, f.q.Data, f.q.Stride), xb: xb}
	}
	tau := tolFor(o.Tol, p, kk)
	bufs := make([]*chunkBuf, parallel.Workers(m, cs, workers))
	for i := range bufs {
		bufs[i] = getChunkBuf(f, tau, o.MaxIter, cs)
	}
	defer putChunkBufs(bufs)
	parallel.ForChunks(m, cs, len(bufs), func(wi, j0, j1 int) {
		f.solveChunk(bufs[wi], x, extreme, s, sup, o.Warm, res.AtX, l1, j0, j1)
	})
	for _, cb := range bufs {
		res.Stats.Iterations += cb.w.iterSum
		res.Stats.MaxIterations = max(res.Stats.MaxIterations, cb.w.iterMax)
		res.Stats.Rechecked += cb.st.Rechecked
		res.Stats.Fallbacks += cb.st.Fallbacks
		res.Stats.Uncertified += cb.st.Uncertified
		res.Uncertified = append(res.Uncertified, cb.uncertified...)
		if cb.overflow {
			return nil, fmt.Errorf("nnls: S overflows float64: a column of A is too small for the scale of X; rescale A or X")
		}
	}
	slices.Sort(res.Uncertified)
	return res, nil
}

// atxChunk writes AᵀX's columns j0:j0+nc into atx from the chunk's QᵀX
// (dt): row cols[c] is ‖a_c‖·(Rᵀ·dt)_c, times the chunk's power-of-two
// column scaling undone (exact). With gram, on the fast path, Rᵀ·dt is
// the Gram right-hand side C, already formed; otherwise it is formed here.
func (f *Factor) atxChunk(cb *chunkBuf, atx *tensor.Dense, j0, nc int, gram bool) {
	c := cb.c
	if !f.fast || !gram {
		if len(cb.ca) < f.kk*cb.cs {
			cb.ca = make([]float64, f.kk*cb.cs)
		}
		c = cb.ca
		gemm.Serial(false, false, f.kk, nc, f.p, 1, f.rt, f.p, cb.dt, cb.cs, 0, c, cb.cs, &cb.ws)
	}
	for ci, col := range f.cols {
		dst := atx.Data[col*atx.Stride+j0 : col*atx.Stride+j0+nc]
		src := c[ci*cb.cs : ci*cb.cs+nc]
		nrm := f.norm[ci]
		if cb.scaled {
			for jj := range dst {
				dst[jj] = src[jj] * nrm * cb.unscale[jj]
			}
			continue
		}
		for jj := range dst {
			dst[jj] = src[jj] * nrm
		}
	}
}

// l1Shift returns L1·R⁻ᵀD⁻¹1 (kk entries), the shift of d that adds
// L1·1ᵀs to the objective (Options.L1), or an error if R is singular.
func (f *Factor) l1Shift(l1 float64) ([]float64, error) {
	kk, p := f.kk, f.p
	if p < kk || f.rank < kk {
		return nil, fmt.Errorf("nnls: Options.L1 needs A's nonzero columns independent (rank %d of %d, %d rows)", f.rank, kk, f.n)
	}
	// Rᵀv = D⁻¹1 by forward substitution (Rᵀ is lower triangular).
	v := make([]float64, kk)
	for i := range kk {
		t := 1 / f.norm[i]
		for j := range i {
			t -= f.r[j*kk+i] * v[j]
		}
		v[i] = t / f.r[i*kk+i]
	}
	for i := range v {
		v[i] *= l1
		if math.IsInf(v[i], 0) || math.IsNaN(v[i]) {
			return nil, fmt.Errorf("nnls: Options.L1: the shift overflows float64 (R is too ill-conditioned)")
		}
	}
	return v, nil
}

// solveChunk solves columns j0:j1 into s and sup; extreme is what x.scan
// reported. If atx is not nil, it writes AᵀX's columns j0:j1 there. If l1
// is not nil (Options.L1), each column's d is shifted by −l1.
func (f *Factor) solveChunk(cb *chunkBuf, x data, extreme bool, s *tensor.Dense, sup *Support, warm *Support, atx *tensor.Dense, l1 []float64, j0, j1 int) {
	w := cb.w
	nc := j1 - j0
	// Columns whose entries are extreme are scaled by powers of two (exactly)
	// before QᵀX, where their products could overflow or underflow.
	cb.scaled = false
	if extreme {
		x.colMax(j0, j1, cb.cmax)
		for _, c := range cb.cmax[:nc] {
			if c > xScaleLimit || c > 0 && c < 1/xScaleLimit {
				cb.scaled = true
				break
			}
		}
	}
	if cb.scaled {
		for j, c := range cb.cmax[:nc] {
			_, e := math.Frexp(c)
			cb.cmax[j], cb.unscale[j] = math.Ldexp(1, -e), math.Ldexp(1, e)
		}
		cb.xbuf = x.qtxScaled(f.q, j0, j1, cb.cmax, cb.dt, cb.cs, cb.xbuf)
	} else {
		x.qtx(f.q, j0, j1, cb.dt, cb.cs)
	}
	f.qtxPost(cb.dt, nc, cb.cs)
	if l1 != nil {
		if atx != nil { // from QᵀX before the shift
			f.atxChunk(cb, atx, j0, nc, false)
			atx = nil
		}
		for i, v := range l1 {
			row := cb.dt[i*cb.cs : i*cb.cs+nc]
			for jj := range row {
				if cb.scaled { // d of the chunk's scaled column x_j·cmax_j
					row[jj] -= v * cb.cmax[jj]
				} else {
					row[jj] -= v
				}
			}
		}
	}
	cb.columnScales(f.p, nc)
	if f.fast { // C = RᵀD and U = R⁻¹D: the Gram right-hand sides and unconstrained solutions
		f.gramRHS(cb.dt, cb.c, cb.u, nc, cb.cs, &cb.ws)
	}
	if atx != nil {
		f.atxChunk(cb, atx, j0, nc, true)
	}
	batched := f.batch
	if batched {
		f.solveFull(cb, warm, s, sup, j0, nc, cb.done[:nc])
	}
	for jj := 0; jj < nc; jj++ {
		if batched && cb.done[jj] {
			continue
		}
		sc := cb.sc[jj]
		if sc == 0 {
			continue // x_j is orthogonal to the range of A: S column stays zero
		}
		j := j0 + jj
		d := cb.dj
		for i := range d {
			d[i] = cb.dt[i*cb.cs+jj] * sc
		}
		dn := cb.dn[jj]
		w.xTol = w.tau * math.Sqrt(dn)
		w.yTol = w.xTol
		ok := false
		if f.fast {
			c, u := cb.cj, cb.uj
			for i := range c {
				c[i] = cb.c[i*cb.cs+jj] * sc
				u[i] = cb.u[i*cb.cs+jj] * sc
			}
			seed := func() {
				for i := range w.inF {
					if warm != nil {
						w.inF[i] = warm.Has(f.cols[i], j)
					} else {
						w.inF[i] = u[i] > w.xTol
					}
				}
			}
			seed()
			ok = w.bpp(c, u, f.trust) == solved && w.refine(d) && w.certify()
			if !ok && f.trust {
				seed()
				ok = w.bpp(c, nil, false) == solved && w.refine(d) && w.certify()
				if ok {
					cb.st.Rechecked++
				}
			}
		}
		if !ok {
			w.lawsonHanson(d)
			cb.st.Fallbacks++
			if !w.certify() {
				cb.st.Uncertified++
				cb.uncertified = append(cb.uncertified, j)
			}
		}
		back := cb.back(jj)
		for c, in := range w.inF {
			if in {
				i := f.cols[c]
				v := w.x[c] * back / f.norm[c]
				if math.IsInf(v, 0) {
					cb.overflow = true
				}
				s.Data[i*s.Stride+j] = v
				sup.Set(i, j, v > 0)
			}
		}
	}
}

func runtimeWorkers() int { return runtime.GOMAXPROCS(0) }
