package nnls

import (
	"fmt"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"

	"github.com/neuralnmf/neuralnmf/internal/gemm"
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
// solves reuse the forward pass's factorisation of A (see solveUChunk). workers ≤ 0 means GOMAXPROCS.
//
// It returns an error if a shape does not match, or if a column's A_TᵀA_T is
// numerically singular, where q is not differentiable.
func (r *Result) Backward(a, x, gs, ga, gx *tensor.Dense, workers int) error {
	return r.backward(a, denseData{x: x}, x, gs, ga, gx, Term{}, workers)
}

// Term is an extra term of ∂L/∂A, c·X·Hᵀ + A·M, that BackwardTerm forms in
// the products it makes anyway:
//
//	∂L/∂A = X·(U + c·H)ᵀ − A·(S·Uᵀ + U·Sᵀ − M)
//
// A loss of S and A whose gradient with respect to A has such terms (the
// reconstruction ‖X − A·H‖² has −2·X·Hᵀ + 2·A·(H·Hᵀ)) so reads X once in the
// backward pass instead of twice, and makes no product with A of its own
// (ops.NNLSData). H is k×M and M k×k; either may be nil.
type Term struct {
	H *tensor.Dense
	C float64
	M *tensor.Dense
}

// BackwardTerm is Backward with the Term t added to ∂L/∂A. ∂L/∂X, if gx is
// not nil, is A·U as in Backward, without the term.
func (r *Result) BackwardTerm(a, x, gs, ga, gx *tensor.Dense, t Term, workers int) error {
	if err := termShape(t, r.S); err != nil {
		return err
	}
	return r.backward(a, denseData{x: x}, x, gs, ga, gx, t, workers)
}

// termShape checks a Term against the solution s.
func termShape(t Term, s *tensor.Dense) error {
	if t.H != nil {
		if err := tensor.CheckShape("Term.H", t.H, s.Rows, s.Cols); err != nil {
			return fmt.Errorf("nnls.BackwardTerm: %w", err)
		}
	}
	if t.M != nil {
		if err := tensor.CheckShape("Term.M", t.M, s.Rows, s.Rows); err != nil {
			return fmt.Errorf("nnls.BackwardTerm: %w", err)
		}
	}
	return nil
}

// backward is Backward for X given as data; xd is the dense X when there is
// one (needed for ∂L/∂A as X·Uᵀ). The Term t is added to ∂L/∂A
// (BackwardTerm); the zero Term adds nothing.
func (r *Result) backward(a *tensor.Dense, x data, xd *tensor.Dense, gs, ga, gx *tensor.Dense, t Term, workers int) error {
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
	// Phase 1, by column chunks: U, and ∂L/∂X = A·U for the chunk.
	// U is scratch: pooled memory (a training loop asks for the same shape
	// every epoch), cleared because solveUChunk skips empty supports.
	u := getDense(k, m)
	clear(u.Data)
	defer putDense(u)
	sp, isSparse := x.(sparseData)
	cs := chunkFor(m, workers)
	// The forward pass's recycled workspaces (its worker and two k-vectors,
	// cj and uj, serve as g and u here).
	bufs := make([]*chunkBuf, parallel.Workers(m, cs, workers))
	for i := range bufs {
		bufs[i] = getChunkBuf(r.Factor, 0, 1, cs)
	}
	defer putChunkBufs(bufs)
	var errOnce sync.Once
	var firstErr error
	parallel.ForChunks(m, cs, len(bufs), func(wi, j0, j1 int) {
		b := bufs[wi]
		if err := r.solveUChunk(b, gs, u, j0, j1); err != nil {
			errOnce.Do(func() { firstErr = err })
			return
		}
		uc := blas64.General{Rows: k, Cols: j1 - j0, Stride: u.Stride, Data: u.Data[j0:]}
		if gx != nil { // gx[:, j0:j1] = A·U[:, j0:j1]
			gemmSerial(blas.NoTrans, blas.NoTrans, 1, a.RawMatrix(), uc, 0,
				blas64.General{Rows: n, Cols: j1 - j0, Stride: gx.Stride, Data: gx.Data[j0:]})
		}
	})
	if firstErr != nil {
		return firstErr
	}
	if ga == nil {
		return nil
	}
	// Q = P + Pᵀ with P = S·Uᵀ, one product after the chunks rather than
	// per-worker partial sums: which chunks a worker takes varies from run
	// to run, and partials summed per worker would make ∂L/∂A vary in its
	// last bits with it.
	q := make([]float64, k*k)
	tensor.Gemm(false, true, 1, r.S, u, 0, &tensor.Dense{Rows: k, Cols: k, Stride: k, Data: q})
	for i := 0; i < k; i++ {
		for j := i; j < k; j++ {
			v := q[i*k+j] + q[j*k+i]
			q[i*k+j], q[j*k+i] = v, v
		}
	}
	if t.H != nil { // X·(U + c·H)ᵀ: U is scratch, and Q above has read it
		tensor.AddScaled(u, t.C, t.H)
	}
	if t.M != nil { // −A·(Q − M)
		for i := range k {
			for j, v := range t.M.Row(i) {
				q[i*k+j] -= v
			}
		}
	}
	// Phase 2: ∂L/∂A = X·Uᵀ − A·Q.
	if !isSparse {
		// Two products over all rows on up to workers goroutines, each
		// packing Uᵀ once for its share of the rows rather than once per
		// small tile: every entry's sum runs over the same blocks in the
		// same order as a per-tile product's, so the result is the same.
		gemm.Dgemm(false, true, n, k, m, 1, xd.Data, xd.Stride, u.Data, u.Stride, 0, ga.Data, ga.Stride, workers)
		gemm.Dgemm(false, false, n, k, k, -1, a.Data, a.Stride, q, k, 1, ga.Data, ga.Stride, workers)
		return nil
	}
	// For a sparse X, by row tiles: row r of X·Uᵀ is Σ_j x_rj·U[:, j] over
	// the row's nonzeros in increasing j (tensor.Sparse.MulRows with Uᵀ,
	// formed once): no partial sums per worker, and the same rounding
	// however the rows were shared out. Each tile searches every column of X
	// for its rows, so sparse tiles are larger (tensor.Sparse.RowBlock).
	tile := sp.x.RowBlock(rowTile)
	qm := blas64.General{Rows: k, Cols: k, Stride: k, Data: q}
	ut := tensor.New(u.Cols, u.Rows) // Uᵀ, read row by row by every tile
	tensor.TransposeInto(ut, u)
	parallel.ForChunks(n, tile, workers, func(_, r0, r1 int) {
		gt := blas64.General{Rows: r1 - r0, Cols: k, Stride: ga.Stride, Data: ga.Data[r0*ga.Stride:]}
		at := blas64.General{Rows: r1 - r0, Cols: k, Stride: a.Stride, Data: a.Data[r0*a.Stride:]}
		for rr := r0; rr < r1; rr++ {
			clear(ga.Row(rr))
		}
		sp.x.MulRows(1, ut, r0, r1, ga)
		gemmSerial(blas.NoTrans, blas.NoTrans, -1, at, qm, 1, gt)
	})
	return nil
}

// solveUChunk writes columns j0:j1 of U: column j is (A_TᵀA_T)⁻¹·gs_{T,j} on
// the support T of column j and zero elsewhere. With D = diag(1/‖a_i‖) and
// the scaled Ã = A·D = Q·R, (A_TᵀA_T)⁻¹ = D_T·(R_TᵀR_T)⁻¹·D_T; the middle
// solve uses the Gram factorisation when cond(R) ≤ 10⁶ (one correction step
// follows) and a QR factorisation of R_T otherwise, so it never forms a
// worse-conditioned matrix than the problem itself. On the Gram path with
// H, the columns whose support is full are solved together (uFull); the
// others one by one, with cb's worker and its k-vectors cj and uj as
// scratch.
func (r *Result) solveUChunk(cb *chunkBuf, gs, ut *tensor.Dense, j0, j1 int) error {
	w, g, u := cb.w, cb.cj, cb.uj
	f := r.Factor
	k := f.kk
	batched := f.batch
	if batched {
		f.uFull(cb, r.Support, gs, ut, j0, j1-j0, cb.done[:j1-j0])
	}
	for j := j0; j < j1; j++ {
		if batched && cb.done[j-j0] {
			continue
		}
		nF := 0
		for c, i := range f.cols {
			w.inF[c] = r.Support.Has(i, j)
			g[c] = 0
			if w.inF[c] {
				nF++
				g[c] = gs.Data[i*gs.Stride+j] / f.norm[c] // only g_T enters
			}
		}
		if nF == 0 {
			continue
		}
		ok := false
		if f.fast {
			var uj []float64
			if f.trust {
				matVec(u, f.h, g) // u = H·g̃ (g̃ is zero off T)
				uj = u
			}
			if ok = w.subproblem(g, uj, uj != nil); ok {
				// One correction with the residual g̃_F − G_FF·x_F.
				res := w.y[:k]
				matVec(res, f.g, w.x[:k]) // x is zero off T
				for i, in := range w.inF {
					if in {
						res[i] = g[i] - res[i]
					} else {
						res[i] = 0
					}
				}
				w.correct(res)
			}
		}
		if !ok && !w.normalQR(g) {
			return fmt.Errorf("nnls.Backward: column %d: A_TᵀA_T is singular on its support of size %d; q is not differentiable here", j, nF)
		}
		for c, in := range w.inF {
			if in {
				i := f.cols[c]
				ut.Data[i*ut.Stride+j] = w.x[c] / f.norm[c]
			}
		}
	}
	return nil
}

// normalQR solves (R_FᵀR_F)·x_F = g_F into w.x through the QR factorisation
// R_F = Q̂·R̂ (two triangular solves with R̂), for F in w.inF. It returns false
// if R̂ is singular.
func (w *worker) normalQR(g []float64) bool {
	w.ensureLH()
	k, p, r, s := w.f.kk, w.f.p, w.f.r, w.lh
	s.order = s.order[:0]
	for i, in := range w.inF {
		if in {
			s.order = append(s.order, i)
		}
	}
	np := len(s.order)
	if np > p {
		return false
	}
	m := s.m[:p*np]
	for row := 0; row < p; row++ {
		rr := r[row*k : (row+1)*k]
		for c, i := range s.order {
			m[row*np+c] = rr[i]
		}
	}
	lapack64.Geqrf(blas64.General{Rows: p, Cols: np, Stride: np, Data: m}, s.tau[:min(p, np)], s.work, len(s.work))
	z := s.z[:np]
	for c, i := range s.order {
		if m[c*np+c] == 0 {
			return false
		}
		z[c] = g[i]
	}
	t := blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: np, Stride: np, Data: m}
	v := blas64.Vector{N: np, Inc: 1, Data: z}
	blas64.Trsv(blas.Trans, t, v)
	blas64.Trsv(blas.NoTrans, t, v)
	clear(w.x)
	for c, i := range s.order {
		w.x[i] = z[c]
	}
	return true
}
