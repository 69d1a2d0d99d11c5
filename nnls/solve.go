package nnls

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/neuralnmf/neuralnmf/tensor"
)

// DefaultTol is the default relative tolerance; see Options.Tol.
const DefaultTol = 1e-10

// chunk is the number of columns a worker takes at a time.
const chunk = 32

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
	if a != nil && a.Rows != x.Rows {
		return nil, fmt.Errorf("nnls: %w: A is %d×%d and X is %d×%d: row counts differ", tensor.ErrShape, a.Rows, a.Cols, x.Rows, x.Cols)
	}
	gm, err := NewGram(a)
	if err != nil {
		return nil, err
	}
	m := x.Cols
	ct := tensor.New(m, gm.k) // Cᵀ = XᵀA: row m is Aᵀx_m, contiguous.
	blas64.Gemm(blas.Trans, blas.NoTrans, 1, x.RawMatrix(), a.RawMatrix(), 0, ct.RawMatrix())
	xn := columnNorms(x)
	col := func(j int, dst []float64) {
		for r := 0; r < x.Rows; r++ {
			dst[r] = x.Data[r*x.Stride+j]
		}
	}
	return gm.solve(a, ct, xn, col, opt)
}

// columnNorms returns ‖x_m‖ for every column, scaled so it does not overflow.
func columnNorms(x *tensor.Dense) []float64 {
	scale := tensor.MaxAbs(x)
	out := make([]float64, x.Cols)
	if scale == 0 {
		return out
	}
	inv := 1 / scale
	for r := 0; r < x.Rows; r++ {
		for j, v := range x.Row(r) {
			v *= inv
			out[j] += v * v
		}
	}
	for j, s := range out {
		out[j] = scale * math.Sqrt(s)
	}
	return out
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

// solve runs the column solves given Cᵀ = XᵀA (M×k), the column norms of X,
// and a way to read column j of X densely (for the Lawson–Hanson fallback).
func (gm *Gram) solve(a, ct *tensor.Dense, xn []float64, col func(j int, dst []float64), opt *Options) (*Result, error) {
	k, m := gm.k, ct.Rows
	o, err := opt.resolve(k, m)
	if err != nil {
		return nil, err
	}
	var u *tensor.Dense // row j is H·c_j, the unconstrained solution
	if gm.trustH {
		u = tensor.New(m, k)
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, ct.RawMatrix(), gm.hMatrix(), 0, u.RawMatrix())
	}
	st := tensor.New(m, k) // Sᵀ
	sup := NewSupport(k, m)
	res := &Result{Support: sup, Gram: gm}

	var next atomic.Int64
	var mu sync.Mutex
	var wg sync.WaitGroup
	workers := min(o.Workers, (m+chunk-1)/chunk)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := newWorker(gm, o.Tol, o.MaxIter)
			var xcol []float64
			var st1 Stats
			for {
				start := int(next.Add(chunk)) - chunk
				if start >= m {
					break
				}
				for j := start; j < min(start+chunk, m); j++ {
					out := st.Row(j)
					if xn[j] == 0 {
						continue // zero column: S column stays zero
					}
					c := ct.Row(j)
					var uj []float64
					if u != nil {
						uj = u.Row(j)
					}
					w.setScale(xn[j])
					for i := range w.inF {
						switch {
						case o.Warm != nil:
							w.inF[i] = o.Warm.Has(i, j)
						case uj != nil:
							w.inF[i] = uj[i] > w.xTol[i]
						default:
							w.inF[i] = c[i] > w.yTol[i]
						}
					}
					ok := w.bpp(c, uj, uj != nil) == solved && w.refine(c, true) && w.kkt(c, xn[j])
					if !ok && uj != nil {
						ok = w.bpp(c, nil, false) == solved && w.kkt(c, xn[j])
						if ok {
							st1.Rechecked++
						}
					}
					if !ok {
						if xcol == nil {
							xcol = make([]float64, a.Rows)
						}
						col(j, xcol)
						w.lawsonHanson(a, xcol)
						st1.Fallbacks++
					}
					for i, in := range w.inF {
						if in {
							out[i] = w.x[i]
							sup.Set(i, j, true)
						}
					}
				}
			}
			mu.Lock()
			res.Stats.Iterations += w.iterSum
			res.Stats.MaxIterations = max(res.Stats.MaxIterations, w.iterMax)
			res.Stats.Rechecked += st1.Rechecked
			res.Stats.Fallbacks += st1.Fallbacks
			mu.Unlock()
		}()
	}
	wg.Wait()
	res.S = st.T()
	return res, nil
}

func (gm *Gram) hMatrix() blas64.General {
	return blas64.General{Rows: gm.k, Cols: gm.k, Stride: gm.k, Data: gm.h}
}

func runtimeWorkers() int { return runtime.GOMAXPROCS(0) }
