package nnls

import (
	"fmt"
	"math"
	"runtime"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/neuralnmf/neuralnmf/internal/parallel"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// DefaultTol is the default relative tolerance; see Options.Tol.
const DefaultTol = 1e-10

// chunkFor returns the number of columns a worker takes at a time: all of
// them (up to 256) for a single worker, else about four chunks per worker,
// between 32 and 256. Longer chunks make the chunk's AᵀX product run along
// longer vectors; more chunks balance the load.
func chunkFor(m, workers int) int {
	if workers <= 1 {
		return max(1, min(m, 256))
	}
	return max(32, min(256, m/(4*workers)))
}

// Options configures Solve. The zero value (or nil) gives the defaults.
type Options struct {
	// Tol is the relative tolerance. In column m, S_im is zero when
	// S_im·‖a_i‖ ≤ Tol·‖x_m‖, and the multiplier a_iᵀ(As_m − x_m) counts as
	// nonnegative when it is ≥ −Tol·‖a_i‖·‖x_m‖. Both tests are invariant
	// under scaling A or X. Default DefaultTol.
	Tol float64
	// MaxIter bounds the pivoting iterations per column; a column that needs
	// more is solved by Lawson–Hanson instead. Default 5k + 50.
	MaxIter int
	// Workers is the number of goroutines; default runtime.GOMAXPROCS(0).
	Workers int
	// Warm, if not nil, seeds each column's passive set with a previous
	// support (for example the last epoch's, when A has changed a little).
	// It must be k×M. Without it the seed is the sign pattern of the
	// unconstrained least-squares solution.
	Warm *Support
}

// Stats describes how a Solve went.
type Stats struct {
	// Iterations is the number of pivoting subproblems solved, summed over
	// columns; MaxIterations the most any one column needed.
	Iterations, MaxIterations int
	// Rechecked counts columns whose fast (Schur-form) solution failed the
	// final KKT check and were solved again in the direct form.
	Rechecked int
	// Fallbacks counts columns solved by Lawson–Hanson because pivoting
	// failed or met a numerically singular block.
	Fallbacks int
}

// Result is the output of Solve. S and Support are owned by the caller.
type Result struct {
	// S is the k×M solution.
	S *tensor.Dense
	// Support holds the positive entries of each column of S.
	Support *Support
	// Stats describes the solve.
	Stats Stats
	// Gram is the factorisation of AᵀA the solve used; Backward reuses it.
	Gram *Gram
}

// Solve returns S = argmin_{S ≥ 0} ‖X − AS‖_F, column by column, for A of
// shape N×k and X of shape N×M, both nonnegative. The result is the exact
// active-set solution: in each column, S_T = (A_TᵀA_T)⁻¹A_Tᵀx on its support T
// and zero elsewhere, with the KKT conditions verified to the tolerance.
//
// It returns an error, and no result, if A or X is empty, has a negative or
// non-finite entry, if their row counts differ, if k > N, or if A has a zero
// column or is numerically rank deficient (see NewGram). A zero column of X
// gives a zero column of S.
func Solve(a, x *tensor.Dense, opt *Options) (*Result, error) {
	if err := tensor.CheckData("X", x); err != nil {
		return nil, fmt.Errorf("nnls: %w", err)
	}
	return solveData(a, denseData{x}, opt)
}

// solveData checks that A and the validated X agree, factorises AᵀA and
// solves.
func solveData(a *tensor.Dense, x data, opt *Options) (*Result, error) {
	n, m := x.dims()
	if a != nil && a.Rows != n {
		return nil, fmt.Errorf("nnls: %w: A is %d×%d and X is %d×%d: row counts differ", tensor.ErrShape, a.Rows, a.Cols, n, m)
	}
	gm, err := NewGram(a)
	if err != nil {
		return nil, err
	}
	return gm.solve(a, x, opt)
}

// data is the right-hand side X as the solver reads it: a chunk of columns at
// a time. It lets a sparse X use the same solver.
type data interface {
	dims() (n, m int)
	// atA writes Aᵀ·X[:, j0:j1] into dst (k×(j1−j0), row-major, with the
	// given stride) and ‖x_j‖ into norms[j−j0], on the calling goroutine.
	atA(a *tensor.Dense, j0, j1 int, dst []float64, stride int, norms []float64)
	// column writes x_j densely into dst (length n).
	column(j int, dst []float64)
}

type denseData struct{ x *tensor.Dense }

func (d denseData) dims() (int, int) { return d.x.Rows, d.x.Cols }

func (d denseData) atA(a *tensor.Dense, j0, j1 int, dst []float64, stride int, norms []float64) {
	x, k := d.x, a.Cols
	xs := blas64.General{Rows: x.Rows, Cols: j1 - j0, Stride: x.Stride, Data: x.Data[j0:]}
	gemmSerial(blas.Trans, blas.NoTrans, 1, a.RawMatrix(), xs, 0, blas64.General{Rows: k, Cols: j1 - j0, Stride: stride, Data: dst})
	// Column norms in one pass. Sums of squares overflow only for entries
	// above ~1e154 and underflow only below ~1e-154; a chunk where that may
	// have happened is recomputed with scaling.
	ssq := norms[:j1-j0]
	clear(ssq)
	for r := 0; r < x.Rows; r++ {
		for j, v := range x.Data[r*x.Stride+j0 : r*x.Stride+j1] {
			ssq[j] += v * v
		}
	}
	for j, q := range ssq {
		if q > 1e300 || q < 1e-290 && q != 0 || q == 0 && !zeroColumn(x, j0+j) {
			scaledNorms(x, j0, j1, norms)
			return
		}
		ssq[j] = math.Sqrt(q)
	}
}

func zeroColumn(x *tensor.Dense, j int) bool {
	for r := 0; r < x.Rows; r++ {
		if x.Data[r*x.Stride+j] != 0 {
			return false
		}
	}
	return true
}

// scaledNorms computes ‖x_j‖ for j0 ≤ j < j1 scaled by each column's maximum,
// so squares neither overflow nor underflow.
func scaledNorms(x *tensor.Dense, j0, j1 int, norms []float64) {
	for j := j0; j < j1; j++ {
		var mx float64
		for r := 0; r < x.Rows; r++ {
			mx = math.Max(mx, x.Data[r*x.Stride+j])
		}
		var q float64
		if mx > 0 {
			for r := 0; r < x.Rows; r++ {
				v := x.Data[r*x.Stride+j] / mx
				q += v * v
			}
		}
		norms[j-j0] = mx * math.Sqrt(q)
	}
}

func (d denseData) column(j int, dst []float64) {
	for r := 0; r < d.x.Rows; r++ {
		dst[r] = d.x.Data[r*d.x.Stride+j]
	}
}

func (o *Options) resolve(k, m int) (Options, error) {
	var r Options
	if o != nil {
		r = *o
	}
	if r.Tol == 0 {
		r.Tol = DefaultTol
	}
	if !(r.Tol > 0 && r.Tol < 1) {
		return r, fmt.Errorf("nnls: Options.Tol is %v, want a value in (0, 1)", r.Tol)
	}
	if r.MaxIter <= 0 {
		r.MaxIter = 5*k + 50
	}
	if r.Workers <= 0 {
		r.Workers = runtimeWorkers()
	}
	if r.Warm != nil {
		if wk, wm := r.Warm.Dims(); wk != k || wm != m {
			return r, fmt.Errorf("nnls: %w: warm-start support is %d×%d, solution is %d×%d", tensor.ErrShape, wk, wm, k, m)
		}
	}
	return r, nil
}

// chunkBuf is one worker's per-chunk workspace for the solve.
type chunkBuf struct {
	w     *worker
	ct, u []float64 // k×chunk: Aᵀx_j and H·Aᵀx_j for the chunk's columns
	c, uj []float64 // one column of each, contiguous
	cs    int       // chunk size: the row stride of ct and u
	norms []float64
	xcol  []float64 // dense column for the Lawson–Hanson fallback
	st    Stats
}

// solve runs the column solves for X given as data.
func (gm *Gram) solve(a *tensor.Dense, x data, opt *Options) (*Result, error) {
	k := gm.k
	_, m := x.dims()
	o, err := opt.resolve(k, m)
	if err != nil {
		return nil, err
	}
	s := tensor.New(k, m)
	sup := NewSupport(k, m)
	res := &Result{S: s, Support: sup, Gram: gm}
	n, _ := x.dims()
	workers := effectiveWorkers(o.Workers, n, k, m)
	cs := chunkFor(m, workers)
	bufs := make([]*chunkBuf, parallel.Workers(m, cs, workers))
	for i := range bufs {
		bufs[i] = &chunkBuf{w: newWorker(gm, o.Tol, o.MaxIter), ct: make([]float64, cs*k), u: make([]float64, cs*k),
			c: make([]float64, k), uj: make([]float64, k), norms: make([]float64, cs), cs: cs}
	}
	parallel.ForChunks(m, cs, len(bufs), func(wi, j0, j1 int) {
		gm.solveChunk(bufs[wi], a, x, s, sup, o.Warm, j0, j1)
	})
	for _, cb := range bufs {
		res.Stats.Iterations += cb.w.iterSum
		res.Stats.MaxIterations = max(res.Stats.MaxIterations, cb.w.iterMax)
		res.Stats.Rechecked += cb.st.Rechecked
		res.Stats.Fallbacks += cb.st.Fallbacks
	}
	return res, nil
}

// solveChunk solves columns j0:j1 into s and sup.
func (gm *Gram) solveChunk(cb *chunkBuf, a *tensor.Dense, x data, s *tensor.Dense, sup *Support, warm *Support, j0, j1 int) {
	k, w := gm.k, cb.w
	nc := j1 - j0
	x.atA(a, j0, j1, cb.ct, cb.cs, cb.norms)
	if gm.trustH { // U = H·C: the unconstrained solutions of the chunk
		gemmSerial(blas.NoTrans, blas.NoTrans, 1, gm.hMatrix(), blas64.General{Rows: k, Cols: nc, Stride: cb.cs, Data: cb.ct},
			0, blas64.General{Rows: k, Cols: nc, Stride: cb.cs, Data: cb.u})
	}
	for jj := 0; jj < nc; jj++ {
		j, xn := j0+jj, cb.norms[jj]
		if xn == 0 {
			continue // zero column: S column stays zero
		}
		c := cb.c
		for i := range c {
			c[i] = cb.ct[i*cb.cs+jj]
		}
		var u []float64
		if gm.trustH {
			u = cb.uj
			for i := range u {
				u[i] = cb.u[i*cb.cs+jj]
			}
		}
		w.setScale(xn)
		for i := range w.inF {
			switch {
			case warm != nil:
				w.inF[i] = warm.Has(i, j)
			case u != nil:
				w.inF[i] = u[i] > w.xTol[i]
			default:
				w.inF[i] = c[i] > w.yTol[i]
			}
		}
		ok := w.bpp(c, u, u != nil) == solved && w.verify(c, xn)
		if !ok && u != nil {
			ok = w.bpp(c, nil, false) == solved && w.verify(c, xn)
			if ok {
				cb.st.Rechecked++
			}
		}
		if !ok {
			n, _ := x.dims()
			if cb.xcol == nil {
				cb.xcol = make([]float64, n)
			}
			x.column(j, cb.xcol)
			w.lawsonHanson(a, cb.xcol)
			cb.st.Fallbacks++
		}
		for i, in := range w.inF {
			if in {
				s.Data[i*s.Stride+j] = w.x[i]
				sup.Set(i, j, true)
			}
		}
	}
}

func (gm *Gram) hMatrix() blas64.General {
	return blas64.General{Rows: gm.k, Cols: gm.k, Stride: gm.k, Data: gm.h}
}

func runtimeWorkers() int { return runtime.GOMAXPROCS(0) }
