package nnls

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

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

// scanRows is the number of rows of X per chunk of scanX's parallel pass.
const scanRows = 64

// scanX reports whether X has an entry whose magnitude is above xScaleLimit
// or below its reciprocal and not zero (extreme), and whether every entry is
// finite, from the largest and the smallest nonzero magnitude in X
// (magnitudes: with AVX2 where the CPU has it). It is one pass over X, which
// for a large X is bound by reading memory, so blocks of rows are scanned on
// up to workers goroutines (the solve's own count, so that a call's
// allocations do not depend on a size of the scan's); the answer does not
// depend on how the rows were shared out.
func scanX(x *tensor.Dense, workers int) (extreme, finite bool) {
	var mx, mn uint64
	if workers <= 1 || x.Rows < 2*scanRows {
		mx, mn = magnitudeRange(x, 0, x.Rows)
	} else {
		const maxWorkers = 64
		var hi, lo [maxWorkers]uint64
		for i := range lo {
			lo[i] = math.MaxUint64
		}
		parallel.ForChunks(x.Rows, scanRows, min(workers, maxWorkers), func(wi, r0, r1 int) {
			a, b := magnitudeRange(x, r0, r1)
			hi[wi], lo[wi] = max(hi[wi], a), min(lo[wi], b)
		})
		mx, mn = slices.Max(hi[:]), slices.Min(lo[:])
	}
	return classify(mx, mn)
}

// classify turns the largest and the smallest nonzero magnitude of X (as
// bits, from magnitudes) into scan's verdict: extreme if either is beyond
// xScaleLimit or its reciprocal, finite unless the largest is NaN or ±Inf.
func classify(mx, mn uint64) (extreme, finite bool) {
	extreme = mx > math.Float64bits(xScaleLimit) || mn < math.Float64bits(1/xScaleLimit)
	return extreme, mx <= math.Float64bits(math.MaxFloat64)
}

// magnitudeRange returns magnitudes over rows r0:r1 of X.
func magnitudeRange(x *tensor.Dense, r0, r1 int) (mx, mn uint64) {
	mn = math.MaxUint64
	if x.Stride == x.Cols { // contiguous rows: one call
		return magnitudes(x.Data[r0*x.Stride : r1*x.Stride])
	}
	for r := r0; r < r1; r++ {
		a, b := magnitudes(x.Data[r*x.Stride : r*x.Stride+x.Cols])
		mx, mn = max(mx, a), min(mn, b)
	}
	return mx, mn
}

// magnitudesGo is magnitudes in Go.
func magnitudesGo(x []float64) (mx, mn uint64) {
	mn = math.MaxUint64
	for _, v := range x {
		u := math.Float64bits(v) &^ (1 << 63)
		if u > mx {
			mx = u
		}
		if u < mn && u != 0 {
			mn = u
		}
	}
	return mx, mn
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

// formedQtX is a prepared sparse X whose Q₁ᵀX the factorisation formed
// (f.q1tx, kk×M): qtx copies its columns. Its X has no extreme entries
// (Data.prepare), so qtxScaled is never called.
type formedQtX struct {
	*Data
	q1tx *tensor.Dense
}

func (d formedQtX) qtx(_ *tensor.Dense, j0, j1 int, dst []float64, stride int) {
	for i := range d.q1tx.Rows {
		copy(dst[i*stride:i*stride+j1-j0], d.q1tx.Row(i)[j0:j1])
	}
}

// data is the right-hand side X as the solver reads it: a chunk of columns at
// a time. It lets a sparse X use the same solver.
type data interface {
	dims() (n, m int)
	// qtx writes Qᵀ·X[:, j0:j1] into dst (q.Cols×(j1−j0), row-major, with
	// the given stride), on the calling goroutine.
	qtx(q *tensor.Dense, j0, j1 int, dst []float64, stride int)
	// scan reads X once, on up to workers goroutines, and reports whether
	// some entry's magnitude is above xScaleLimit or below its reciprocal
	// (and not zero), or returns an error naming X if an entry is NaN or
	// ±Inf.
	scan(workers int) (extreme bool, err error)
	// colMax writes max_i |X_ij| of columns j0:j1 into dst[j−j0].
	colMax(j0, j1 int, dst []float64)
	// qtxScaled is qtx of X[:, j0:j1]·diag(f), using buf as scratch
	// (grown as needed; the grown slice is returned).
	qtxScaled(q *tensor.Dense, j0, j1 int, f []float64, dst []float64, stride int, buf []float64) []float64
}

type denseData struct{ x *tensor.Dense }

func (d denseData) scan(workers int) (bool, error) {
	extreme, finite := scanX(d.x, workers)
	if !finite {
		return false, fmt.Errorf("nnls: %w", tensor.CheckFinite("X", d.x))
	}
	return extreme, nil
}

func (d denseData) dims() (int, int) { return d.x.Rows, d.x.Cols }

func (d denseData) qtx(q *tensor.Dense, j0, j1 int, dst []float64, stride int) {
	x := d.x
	xs := blas64.General{Rows: x.Rows, Cols: j1 - j0, Stride: x.Stride, Data: x.Data[j0:]}
	gemmSerial(blas.Trans, blas.NoTrans, 1, q.RawMatrix(), xs, 0, blas64.General{Rows: q.Cols, Cols: j1 - j0, Stride: stride, Data: dst})
}

// packedQ is a dense X for a solve in several chunks: qtx reads Qᵀ from
// qt, packed once for all of them (gemm.PackA), with the same products bit
// for bit.
type packedQ struct {
	denseData
	qt *gemm.PackedA
	xb *gemm.PackedB // nil, or X packed (Data.prepare)
}

func (d packedQ) qtx(_ *tensor.Dense, j0, j1 int, dst []float64, stride int) {
	if d.xb != nil && d.xb.Aligned(j0) {
		gemm.SerialPackedAB(d.qt, d.xb, j0, j1-j0, 1, 0, dst, stride, nil)
		return
	}
	x := d.x
	gemm.SerialPacked(d.qt, false, j1-j0, 1, x.Data[j0:], x.Stride, 0, dst, stride, nil)
}

func (d denseData) colMax(j0, j1 int, dst []float64) {
	dst = dst[:j1-j0]
	clear(dst)
	for r := 0; r < d.x.Rows; r++ {
		for j, v := range d.x.Data[r*d.x.Stride+j0 : r*d.x.Stride+j1] {
			if v < 0 {
				v = -v
			}
			if v > dst[j] {
				dst[j] = v
			}
		}
	}
}

func (d denseData) qtxScaled(q *tensor.Dense, j0, j1 int, f []float64, dst []float64, stride int, buf []float64) []float64 {
	n, nc := d.x.Rows, j1-j0
	if cap(buf) < n*nc {
		buf = make([]float64, n*nc)
	}
	buf = buf[:n*nc]
	for r := 0; r < n; r++ {
		row := buf[r*nc : (r+1)*nc]
		for j, v := range d.x.Data[r*d.x.Stride+j0 : r*d.x.Stride+j1] {
			row[j] = v * f[j]
		}
	}
	denseData{x: &tensor.Dense{Rows: n, Cols: nc, Stride: nc, Data: buf}}.qtx(q, 0, nc, dst, stride)
	return buf
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

// chunkBuf is one worker's per-chunk workspace for the solve.
type chunkBuf struct {
	w           *worker
	dt, c, u    []float64 // Qᵀx_j, Rᵀ(Qᵀx_j) and R⁻¹(Qᵀx_j) for the chunk's columns (rows × chunk)
	ca          []float64 // Rᵀ(Qᵀx_j) off the fast path, for Options.AtX
	dj          []float64 // one column of dt, contiguous and scaled
	sc, dn      []float64 // per column: scale of d and ‖d‖² after it (columnScales)
	cj, uj      []float64 // the same column of c and u, scaled (the backward pass's g and u)
	cs          int       // chunk size: the row stride of dt, c and u
	st          Stats
	uncertified []int
	overflow    bool
	// Column scaling of X, for a chunk with extreme columns: cmax holds
	// max|x_j| and then the power of two applied, unscale its inverse;
	// xbuf is the scaled copy of the chunk.
	cmax, unscale, xbuf []float64
	scaled              bool
	bb                  *batchBuf // the columns solved together (fast path with H)
	done                []bool    // per column of the chunk: solved by the batch
	ws                  gemm.Workspace
}

// chunkBufs recycles the solver's per-worker workspaces between calls. A
// training loop solves problems of one shape every epoch; without the pool
// each solve would allocate, and the collector clear, about 3·k floats per
// column of a chunk per worker, which at small sizes costs as much as the
// solve's arithmetic. A workspace is reused only for the same (k, p, chunk
// size), from a pool per shape: Neural NMF solves one shape per layer in
// turn, and a single pool would hand each solve the previous layer's
// workspace. Every field is overwritten before it is read. The map holds
// one small entry per shape a program uses; the pools' contents are dropped
// by the garbage collector as usual.
var chunkBufs sync.Map // [3]int{k, p, cs} → *sync.Pool of *chunkBuf

// chunkPool returns the pool for workspaces of the given shape.
func chunkPool(shape [3]int) *sync.Pool {
	if p, ok := chunkBufs.Load(shape); ok {
		return p.(*sync.Pool)
	}
	p, _ := chunkBufs.LoadOrStore(shape, new(sync.Pool))
	return p.(*sync.Pool)
}

// getChunkBuf returns a workspace for solves with f in chunks of cs columns.
func getChunkBuf(f *Factor, tau float64, maxIter, cs int) *chunkBuf {
	cb, ok := chunkPool([3]int{f.kk, f.p, cs}).Get().(*chunkBuf)
	if !ok {
		cb = &chunkBuf{w: newWorker(f, tau, maxIter), dt: make([]float64, cs*f.p), dj: make([]float64, f.p),
			cj: make([]float64, f.kk), uj: make([]float64, f.kk), cs: cs, cmax: make([]float64, cs), unscale: make([]float64, cs),
			sc: make([]float64, cs), dn: make([]float64, cs)}
	}
	cb.w.use(f, tau, maxIter)
	cb.st, cb.uncertified, cb.overflow, cb.scaled = Stats{}, cb.uncertified[:0], false, false
	if f.fast && cb.c == nil {
		cb.c, cb.u, cb.done = make([]float64, cs*f.kk), make([]float64, cs*f.kk), make([]bool, cs)
	}
	return cb
}

// putChunkBufs returns workspaces to their pools.
func putChunkBufs(bufs []*chunkBuf) {
	for _, cb := range bufs {
		cb.w.f = nil                                             // do not keep A's factor alive in the pool
		chunkPool([3]int{len(cb.cj), len(cb.dj), cb.cs}).Put(cb) // (k, p, cs)
	}
}

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

// columnScales sets, for the chunk's nc columns d_j of dt (p rows), sc[j] =
// the power of two that brings max_i |d_ij| into [1, 2) (0 for a zero
// column) and dn[j] = ‖sc_j·d_j‖², summed in increasing i; both the batched
// and the column-by-column path read them. It runs along rows, over all the
// chunk's columns at once.
func (cb *chunkBuf) columnScales(p, nc int) {
	sc, dn, cs := cb.sc[:nc], cb.dn[:nc], cb.cs
	clear(sc)
	for i := 0; i < p; i++ {
		for jj, v := range cb.dt[i*cs : i*cs+nc] {
			if v < 0 {
				v = -v
			}
			if v > sc[jj] {
				sc[jj] = v
			}
		}
	}
	for jj, dm := range sc {
		if dm > 0 {
			_, e := math.Frexp(dm)
			sc[jj] = math.Ldexp(1, 1-e)
		}
	}
	clear(dn)
	for i := 0; i < p; i++ {
		for jj, v := range cb.dt[i*cs : i*cs+nc] {
			v *= sc[jj]
			dn[jj] += v * v
		}
	}
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

// back returns what column jj's solution is multiplied by to undo the
// scaling of d (and the column's power-of-two scaling of X, if the chunk
// has one).
func (cb *chunkBuf) back(jj int) float64 {
	if cb.scaled {
		return cb.unscale[jj] / cb.sc[jj]
	}
	return 1 / cb.sc[jj]
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
