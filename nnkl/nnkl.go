// Package nnkl solves nonnegative Kullback–Leibler regression, the KL
// counterpart of package nnls:
//
//	S = argmin_{S ≥ 0} D(X ‖ A·S),  D(X ‖ Y) = Σ x·log(x/y) − x + y,
//
// column by column, for a nonnegative A (N×k) and X (N×M); S is k×M. It is
// the forward pass of ops.KLLayer (the layer of a KL Neural NMF), and
// Result.Backward its backward pass.
//
// Each column is solved by projected Newton steps with an Armijo line
// search (D is convex in s; its gradient and Hessian are g = Aᵀ(1 − x/y)
// and H = Aᵀdiag(x/y²)A, y = A·s, summed over the rows where x > 0 apart
// from the constant Aᵀ1) and the result is certified: the optimality
// conditions g_c = 0 where s_c > 0 and g_c ≥ 0 where s_c = 0 hold to Tol
// relative to the largest column sum of A, or Solve returns an error
// naming the column. The backward pass is the same implicit-differentiation
// argument as the paper's theorem for NNLS: on each column's support T,
// with r = 1 − x/y, w = x/y² and U_T = H_TT⁻¹·G_T,
//
//	∂L/∂A = −Σ_m (r_m·u_mᵀ + (w_m ∘ A·u_m)·s_mᵀ),   ∂L/∂X = (A·U) / Y,
//
// the division element-wise (0 where y = 0, where x must be 0 and D is not
// differentiable in x). Like NNLS the map is piecewise smooth, one piece
// per set of supports (Result.Support).
//
// Errors: negative or non-finite entries, mismatched rows, a column of X
// with a positive entry in a row where A is all zero (D is infinite for
// every S), and a column whose solution is not certified. Columns (0-based)
// are solved concurrently on every core; the result does not depend on
// their number.
package nnkl

import (
	"fmt"
	"math"
	"runtime"

	"github.com/neuralnmf/neuralnmf/internal/parallel"
	"github.com/neuralnmf/neuralnmf/nnls"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// Tol bounds the certified optimality residual of a column, relative to
// the largest column sum of A.
const Tol = klTol

// Options configures Solve. The zero value (or nil) is the default.
type Options struct {
	// Start, if not nil, starts each column's Newton iteration from its
	// column of Start (k×M, nonnegative; for example the previous epoch's
	// S) instead of the best one-entry solution: the same certified
	// minimiser, in fewer steps from a start near it. A column whose start
	// gives A·s = 0 where x > 0 (or a Start of the wrong shape or with a
	// negative or non-finite entry) starts cold. Where the minimiser is
	// not unique the basic one returned may depend on the start.
	Start *tensor.Dense
}

// Result is a solution: S (k×M) and its support, which Backward needs.
type Result struct {
	S       *tensor.Dense
	Support *nnls.Support
}

// Solve returns the certified solution for a dense x, or an error for bad
// input or a column that is not certified.
func Solve(a, x *tensor.Dense, opt *Options) (*Result, error) {
	return checkedSolve(a, klData{dense: x, start: opt.start()})
}

// SolveSparse is Solve for a sparse x (CSC): the solves touch only its
// non-zeros (each Newton step costs k²·(non-zeros of the column)), and no
// N×M matrix is formed.
func SolveSparse(a *tensor.Dense, x *tensor.Sparse, opt *Options) (*Result, error) {
	return checkedSolve(a, klData{sparse: x, start: opt.start()})
}

func (o *Options) start() *tensor.Dense {
	if o == nil {
		return nil
	}
	return o.Start
}

// Backward forms ∂L/∂A into ga and ∂L/∂X into gx (either may be nil;
// both zeroed by the caller, of a's and x's shapes) from the upstream
// gradient g (k×M) of S, for the a and dense x that r solved.
func (r *Result) Backward(a, x, g, ga, gx *tensor.Dense) error {
	return klBackward(a, klData{dense: x}, r.S, r.Support, g, ga, gx)
}

// BackwardSparse is Backward for a sparse x, which receives no gradient.
func (r *Result) BackwardSparse(a *tensor.Dense, x *tensor.Sparse, g, ga *tensor.Dense) error {
	return klBackward(a, klData{sparse: x}, r.S, r.Support, g, ga, nil)
}

// checkedSolve checks a and x (matching rows, finite, nonnegative) and
// solves.
func checkedSolve(a *tensor.Dense, x klData) (*Result, error) {
	if a == nil || (x.dense == nil && x.sparse == nil) {
		return nil, fmt.Errorf("nnkl: %w: A or X is nil", tensor.ErrEmpty)
	}
	n, m := x.dims()
	if a.Rows != n {
		return nil, fmt.Errorf("nnkl: %w: A is %d×%d, X is %d×%d", tensor.ErrShape, a.Rows, a.Cols, n, m)
	}
	err := tensor.CheckData("A", a)
	if err == nil && x.sparse != nil {
		err = tensor.CheckSparseData("X", x.sparse)
	} else if err == nil {
		err = tensor.CheckData("X", x.dense)
	}
	if err != nil {
		return nil, fmt.Errorf("nnkl: %w", err)
	}
	s, sup, err := klSolve(a, x)
	if err != nil {
		return nil, fmt.Errorf("nnkl: %w", err)
	}
	return &Result{S: s, Support: sup}, nil
}

// klData is X for the KL layer, dense or sparse (CSC).
type klData struct {
	dense  *tensor.Dense
	sparse *tensor.Sparse
	start  *tensor.Dense // k×M warm start, or nil (KLLayerFrom)
}

func (d klData) dims() (int, int) {
	if d.sparse != nil {
		return d.sparse.Dims()
	}
	return d.dense.Rows, d.dense.Cols
}

// klSolve solves every column of x and returns S and its supports.
func klSolve(a *tensor.Dense, x klData) (*tensor.Dense, *nnls.Support, error) {
	n, k := a.Rows, a.Cols
	_, m := x.dims()
	colSum := make([]float64, k)
	rowZero := make([]bool, n)
	for i := range n {
		z := true
		for c, v := range a.Row(i) {
			colSum[c] += v
			z = z && v == 0
		}
		rowZero[i] = z
	}
	scale := 0.0
	for _, v := range colSum {
		scale = math.Max(scale, v)
	}
	s := tensor.New(k, m)
	errs := make([]error, m)
	if scale == 0 {
		c := newKLColumn(k, colSum)
		for j := range m {
			if c.load(a, x, j); len(c.rows) > 0 {
				return nil, nil, fmt.Errorf("every entry of A is 0 but column %d of X is not: the divergence is infinite for every S", j)
			}
		}
		return s, nnls.NewSupport(k, m), nil
	}
	warm := x.start // a usable warm start, or nil
	if warm != nil && (warm.Rows != k || warm.Cols != m || tensor.CheckData("start", warm) != nil) {
		warm = nil
	}
	workers := runtime.GOMAXPROCS(0)
	parallel.ForChunks(m, max(1, m/(4*workers)), workers, func(_, j0, j1 int) {
		c := newKLColumn(k, colSum)
		col := make([]float64, k)
		for j := j0; j < j1; j++ {
			c.load(a, x, j)
			if len(c.rows) == 0 {
				continue // x_j = 0: S's column is 0 (g = Aᵀ1 ≥ 0)
			}
			total := 0.0
			for r, i := range c.rows {
				if rowZero[i] {
					errs[j] = fmt.Errorf("column %d of X is positive in row %d, where A is zero: the divergence is infinite for every S", j, i)
					break
				}
				total += c.xv[r]
			}
			if errs[j] != nil {
				continue
			}
			if !c.warmStart(col, warm, j) {
				c.start(col, total)
			}
			if _, err := c.solve(col, scale); err != nil {
				errs[j] = fmt.Errorf("column %d: %w", j, err)
				continue
			}
			if err := c.purify(col, scale); err != nil {
				errs[j] = fmt.Errorf("column %d: %w", j, err)
				continue
			}
			for i, v := range col {
				s.Set(i, j, v)
			}
		}
	})
	for _, err := range errs {
		if err != nil {
			return nil, nil, err
		}
	}
	sup := nnls.NewSupport(k, m)
	for j := range m {
		for i := range k {
			if s.At(i, j) > 0 {
				sup.Set(i, j, true)
			}
		}
	}
	return s, sup, nil
}
