package nnls

import (
	"fmt"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

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
	k, m := r.S.Rows, r.S.Cols
	if err := tensor.CheckShape("∂L/∂S", gs, k, m); err != nil {
		return fmt.Errorf("nnls.Backward: %w", err)
	}
	if a.Cols != k || x.Cols != m || a.Rows != x.Rows {
		return fmt.Errorf("nnls.Backward: %w: A is %d×%d and X is %d×%d, solution is %d×%d", tensor.ErrShape, a.Rows, a.Cols, x.Rows, x.Cols, k, m)
	}
	if ga != nil {
		if err := tensor.CheckShape("∂L/∂A", ga, a.Rows, k); err != nil {
			return fmt.Errorf("nnls.Backward: %w", err)
		}
	}
	if gx != nil {
		if err := tensor.CheckShape("∂L/∂X", gx, x.Rows, m); err != nil {
			return fmt.Errorf("nnls.Backward: %w", err)
		}
	}
	if ga == nil && gx == nil {
		return nil
	}
	ut, err := r.solveU(gs, workers)
	if err != nil {
		return err
	}
	if gx != nil { // A·U = A·(Uᵀ)ᵀ
		blas64.Gemm(blas.NoTrans, blas.Trans, 1, a.RawMatrix(), ut.RawMatrix(), 0, gx.RawMatrix())
	}
	if ga != nil {
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, x.RawMatrix(), ut.RawMatrix(), 0, ga.RawMatrix())
		p := tensor.New(k, k) // S·Uᵀ, then symmetrised to S·Uᵀ + U·Sᵀ
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, r.S.RawMatrix(), ut.RawMatrix(), 0, p.RawMatrix())
		for i := 0; i < k; i++ {
			for j := i; j < k; j++ {
				v := p.Data[i*k+j] + p.Data[j*k+i]
				p.Data[i*k+j], p.Data[j*k+i] = v, v
			}
		}
		blas64.Gemm(blas.NoTrans, blas.NoTrans, -1, a.RawMatrix(), p.RawMatrix(), 1, ga.RawMatrix())
	}
	return nil
}

// solveU returns Uᵀ (M×k): row m is (A_TᵀA_T)⁻¹·gs_{T,m} on the support T of
// column m and zero elsewhere.
func (r *Result) solveU(gs *tensor.Dense, workers int) (*tensor.Dense, error) {
	gm := r.Gram
	k, m := gm.k, r.S.Cols
	gst := gs.T()
	ut := tensor.New(m, k)
	if workers <= 0 {
		workers = runtimeWorkers()
	}
	workers = min(workers, (m+chunk-1)/chunk)
	var next atomic.Int64
	var wg sync.WaitGroup
	var once sync.Once
	var firstErr error
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := newWorker(gm, DefaultTol, 1)
			u := make([]float64, k)
			for {
				start := int(next.Add(chunk)) - chunk
				if start >= m {
					return
				}
				for j := start; j < min(start+chunk, m); j++ {
					c := gst.Row(j)
					nF := 0
					for i := range w.inF {
						w.inF[i] = r.Support.Has(i, j)
						if w.inF[i] {
							nF++
						} else {
							c[i] = 0 // only g_T enters
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
							for p, cp := range c {
								if cp != 0 {
									s += row[p] * cp
								}
							}
							u[i] = s
						}
						uj = u
					}
					if !w.subproblem(c, uj, uj != nil) {
						once.Do(func() {
							firstErr = fmt.Errorf("nnls.Backward: column %d: A_TᵀA_T is numerically singular on its support of size %d; q is not differentiable here", j, nF)
						})
						return
					}
					if uj != nil {
						w.refine(c, false)
					}
					row := ut.Row(j)
					for i, in := range w.inF {
						if in {
							row[i] = w.x[i]
						}
					}
				}
			}
		}()
	}
	wg.Wait()
	return ut, firstErr
}
