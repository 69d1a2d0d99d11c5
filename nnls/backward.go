package nnls

import (
	"fmt"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/neuralnmf/neuralnmf/internal/parallel"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// Backward computes the vector–Jacobian product of S = q(A, X) for the
// solution r: given gs = ∂L/∂S (k×M), it writes ∂L/∂A (N×k) into ga and
// ∂L/∂X (N×M) into gx. Either may be nil to skip it. a and x must be the
// matrices r was solved from, unchanged.
//
// With T_m the support of column m, U (k×M) is defined column by column by
// U_{T,m} = (A_TᵀA_T)⁻¹·gs_{T,m} and zero off T, and then
//
//	∂L/∂X = A·U
//	∂L/∂A = X·Uᵀ − A·(S·Uᵀ + U·Sᵀ)
//
// which is the paper's Theorem (derivs_of_q) contracted with gs and summed
// over columns; it never forms the N×M residual or a pseudoinverse. The small
// solves reuse the forward pass's factorisation of AᵀA in the same exact forms
// (direct or Schur with refinement). workers ≤ 0 means GOMAXPROCS.
//
// It returns an error if a shape does not match, or if a column's A_TᵀA_T is
// numerically singular, where q is not differentiable.
func (r *Result) Backward(a, x, gs, ga, gx *tensor.Dense, workers int) error {
	return r.backward(a, denseData{x}, x, gs, ga, gx, workers)
}

// backward is Backward for X given as data; xd is the dense X when there is
// one (needed for ∂L/∂A as X·Uᵀ).
func (r *Result) backward(a *tensor.Dense, x data, xd *tensor.Dense, gs, ga, gx *tensor.Dense, workers int) error {
	gm := r.Gram
	k, m := r.S.Rows, r.S.Cols
	n, xm := x.dims()
	if err := tensor.CheckShape("∂L/∂S", gs, k, m); err != nil {
		return fmt.Errorf("nnls.Backward: %w", err)
	}
	if a.Cols != k || xm != m || a.Rows != n {
		return fmt.Errorf("nnls.Backward: %w: A is %d×%d and X is %d×%d, solution is %d×%d", tensor.ErrShape, a.Rows, a.Cols, n, xm, k, m)
	}
	if ga != nil {
		if err := tensor.CheckShape("∂L/∂A", ga, n, k); err != nil {
			return fmt.Errorf("nnls.Backward: %w", err)
		}
	}
	if gx != nil {
		if _, ok := x.(sparseData); ok {
			return fmt.Errorf("nnls.Backward: ∂L/∂X is not available for a sparse X (it is data)")
		}
		if err := tensor.CheckShape("∂L/∂X", gx, n, m); err != nil {
			return fmt.Errorf("nnls.Backward: %w", err)
		}
	}
	if ga == nil && gx == nil {
		return nil
	}
	if workers <= 0 {
		workers = runtimeWorkers()
	}

	workers = effectiveWorkers(workers, n, k, m)
	// Phase 1, by column chunks: U, ∂L/∂X = A·U for the chunk, and each
	// worker's share of P = S·Uᵀ.
	u := tensor.New(k, m)
	type buf struct {
		w    *worker
		g, u []float64
		p    []float64     // k×k partial S·Uᵀ
		xu   *tensor.Dense // N×k partial X·Uᵀ, for a sparse X
	}
	sp, isSparse := x.(sparseData)
	cs := chunkFor(m, workers)
	bufs := make([]*buf, parallel.Workers(m, cs, workers))
	for i := range bufs {
		bufs[i] = &buf{w: newWorker(gm, DefaultTol, 1), g: make([]float64, k), u: make([]float64, k)}
		if ga != nil {
			bufs[i].p = make([]float64, k*k)
			if isSparse {
				bufs[i].xu = tensor.New(n, k)
			}
		}
	}
	var errOnce sync.Once
	var firstErr error
	parallel.ForChunks(m, cs, len(bufs), func(wi, j0, j1 int) {
		b := bufs[wi]
		if err := r.solveUChunk(b.w, gs, u, b.g, b.u, j0, j1); err != nil {
			errOnce.Do(func() { firstErr = err })
			return
		}
		uc := blas64.General{Rows: k, Cols: j1 - j0, Stride: u.Stride, Data: u.Data[j0:]}
		if gx != nil { // gx[:, j0:j1] = A·U[:, j0:j1]
			gemmSerial(blas.NoTrans, blas.NoTrans, 1, a.RawMatrix(), uc, 0,
				blas64.General{Rows: n, Cols: j1 - j0, Stride: gx.Stride, Data: gx.Data[j0:]})
		}
		if ga != nil { // P += S[:, j0:j1]·U[:, j0:j1]ᵀ
			sc := blas64.General{Rows: k, Cols: j1 - j0, Stride: r.S.Stride, Data: r.S.Data[j0:]}
			gemmSerial(blas.NoTrans, blas.Trans, 1, sc, uc, 1, blas64.General{Rows: k, Cols: k, Stride: k, Data: b.p})
			if isSparse {
				sp.x.MulDenseT(1, u, j0, j1, b.xu)
			}
		}
	})
	if firstErr != nil {
		return firstErr
	}
	if ga == nil {
		return nil
	}
	// Q = P + Pᵀ = S·Uᵀ + U·Sᵀ.
	q := make([]float64, k*k)
	for _, b := range bufs {
		for i, v := range b.p {
			q[i] += v
		}
	}
	for i := 0; i < k; i++ {
		for j := i; j < k; j++ {
			v := q[i*k+j] + q[j*k+i]
			q[i*k+j], q[j*k+i] = v, v
		}
	}
	// Phase 2, by row tiles: ∂L/∂A = X·Uᵀ − A·Q. For a sparse X, X·Uᵀ is the
	// sum of the workers' partials from phase 1.
	qm := blas64.General{Rows: k, Cols: k, Stride: k, Data: q}
	parallel.ForChunks(n, tile, workers, func(_, r0, r1 int) {
		gt := blas64.General{Rows: r1 - r0, Cols: k, Stride: ga.Stride, Data: ga.Data[r0*ga.Stride:]}
		at := blas64.General{Rows: r1 - r0, Cols: k, Stride: a.Stride, Data: a.Data[r0*a.Stride:]}
		if isSparse {
			for rr := r0; rr < r1; rr++ {
				row := ga.Row(rr)
				clear(row)
				for _, b := range bufs {
					for i, v := range b.xu.Row(rr) {
						row[i] += v
					}
				}
			}
		} else {
			xt := blas64.General{Rows: r1 - r0, Cols: m, Stride: xd.Stride, Data: xd.Data[r0*xd.Stride:]}
			gemmSerial(blas.NoTrans, blas.Trans, 1, xt, u.RawMatrix(), 0, gt)
		}
		gemmSerial(blas.NoTrans, blas.NoTrans, -1, at, qm, 1, gt)
	})
	return nil
}

// rcondRefineBackward is the reciprocal condition of AᵀA below which the
// backward pass refines its Schur-form solves. Above it the Schur form is
// accurate to about cond(AᵀA)·ε ≤ 1e-10 relative, ample for a gradient.
const rcondRefineBackward = 1e-6

// solveUChunk writes columns j0:j1 of U: column j is (A_TᵀA_T)⁻¹·gs_{T,j} on
// the support T of column j and zero elsewhere. g and u are k-length scratch.
func (r *Result) solveUChunk(w *worker, gs, ut *tensor.Dense, g, u []float64, j0, j1 int) error {
	gm := r.Gram
	k := gm.k
	for j := j0; j < j1; j++ {
		nF := 0
		for i := range w.inF {
			w.inF[i] = r.Support.Has(i, j)
			g[i] = 0
			if w.inF[i] {
				nF++
				g[i] = gs.Data[i*gs.Stride+j] // only g_T enters
			}
		}
		if nF == 0 {
			continue
		}
		var uj []float64
		if gm.trustH {
			for i := range u { // u = H·g̃
				row := gm.h[i*k:]
				var s float64
				for p, gp := range g {
					if gp != 0 {
						s += row[p] * gp
					}
				}
				u[i] = s
			}
			uj = u
		}
		if !w.subproblem(g, uj, uj != nil) {
			return fmt.Errorf("nnls.Backward: column %d: A_TᵀA_T is numerically singular on its support of size %d; q is not differentiable here", j, nF)
		}
		if uj != nil && gm.rcond < rcondRefineBackward {
			w.refine(g, false)
		}
		for i, in := range w.inF {
			if in {
				ut.Data[i*ut.Stride+j] = w.x[i]
			}
		}
	}
	return nil
}
