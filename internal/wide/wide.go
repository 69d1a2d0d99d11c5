// Package wide factorises wide matrices (a few rows, many columns, as the
// bases of a randomized SVD of a large corpus) on all cores: an
// orthonormal basis of the rows (OrthonormalizeRows) and the thin SVD
// (SVD), by Cholesky QR twice (CholQR2), with LAPACK's Householder LQ and
// Gesvd, which run on one core, as the fallback where the rows are not
// well enough conditioned. Every sum is over fixed chunks of columns added
// in order, so the results do not depend on the number of goroutines.
//
// Package nnls has its own Cholesky QR twice, for the tall A of an NNLS
// problem: there the columns are scaled to unit norm, zero columns
// dropped, Q kept implicitly and QᵀX fused into the factorisation, and a
// proven test on κ₂ decides; here the caller needs Q explicitly, and the
// result is checked instead (orthonormal to cholQROrth).
package wide

import (
	"math"
	"runtime"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/lapack64"

	"github.com/neuralnmf/neuralnmf/internal/gemm"
	"github.com/neuralnmf/neuralnmf/internal/parallel"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// SVD returns the thin SVD of B (l×m, l ≤ m): B = Ub·diag(sv)·Vᵀ with
// Ub l×l and Vᵀ l×m, the singular values in decreasing order. Where B's
// rows are well enough conditioned for Cholesky QR twice (CholQR2: B = L·Q,
// Q with orthonormal rows), it is L's SVD (l×l) carried to Vᵀ = W_Lᵀ·Q by a
// product shared among goroutines; else LAPACK's Gesvd of B, which runs on
// one core (at 10⁶ documents, 3.3 s of the fit). B is overwritten. If
// Gesvd does not converge (rare) every singular value is 0: no triplet is
// trusted, so every entry of the start becomes X's mean; it is only a
// start, and the solver fits from it.
func SVD(b *tensor.Dense) (ub *tensor.Dense, sv []float64, vt *tensor.Dense) {
	l, m := b.Rows, b.Cols
	ub, sv, vt = tensor.New(l, l), make([]float64, l), tensor.New(l, m)
	if lf := CholQR2(b); lf != nil {
		wt := tensor.New(l, l)
		gesvd(lf, ub, sv, wt)
		mulRowsBy(wt, b, vt)
		return ub, sv, vt
	}
	gesvd(b, ub, sv, vt)
	return ub, sv, vt
}

// gesvd sets u, sv and vt to the thin SVD of a (r×c, r ≤ c) by LAPACK,
// overwriting a; all singular values 0 if it does not converge.
func gesvd(a, u *tensor.Dense, sv []float64, vt *tensor.Dense) {
	raw, ur, vr := a.RawMatrix(), u.RawMatrix(), vt.RawMatrix()
	var q [1]float64
	lapack64.Gesvd(lapack.SVDAll, lapack.SVDStore, raw, ur, vr, sv, q[:], -1)
	work := make([]float64, int(q[0]))
	if !lapack64.Gesvd(lapack.SVDAll, lapack.SVDStore, raw, ur, vr, sv, work, len(work)) {
		clear(sv)
	}
}

// OrthonormalizeRows replaces the rows of y (r×c, r ≤ c) by an orthonormal
// basis of their span: by Cholesky QR twice (CholQR2) where y's rows are
// well enough conditioned, else by Householder LQ, which runs on one core
// and reads y once per row and reflector (at 10⁶ documents its eight
// factorisations of 30×10⁶ bases were 4.4 s of the fit).
func OrthonormalizeRows(y *tensor.Dense) {
	if CholQR2(y) == nil {
		orthonormalizeRowsLQ(y)
	}
}

// orthonormalizeRowsLQ is OrthonormalizeRows by Householder LQ alone.
func orthonormalizeRowsLQ(y *tensor.Dense) {
	g := blas64.General{Rows: y.Rows, Cols: y.Cols, Stride: y.Stride, Data: y.Data}
	tau := make([]float64, min(y.Rows, y.Cols))
	var q [1]float64
	lapack64.Gelqf(g, tau, q[:], -1)
	lw := int(q[0])
	lapack64.Orglq(g, tau, q[:], -1)
	lw = max(lw, int(q[0]), 1)
	work := make([]float64, lw)
	lapack64.Gelqf(g, tau, work, lw)
	lapack64.Orglq(g, tau, work, lw)
}

// CholQR2 orthonormalises the rows of y (r×c, r ≤ c) in place by Cholesky
// QR twice (Fukaya, Nakatsukasa, Yanagisawa & Yamamoto 2014): G = y·yᵀ =
// L·Lᵀ, y ← L⁻¹·y, and once more, which restores orthogonality to rounding
// for y of condition number up to about 10⁸. Each pass reads y twice, its
// products shared among goroutines in fixed chunks (the sums do not depend
// on how many goroutines ran them). It returns the lower-triangular L with
// y (as it was) = L·y (as it is now), or nil if a Cholesky factorisation
// failed, its diagonal spans more than cholQRCond (then y may have changed
// by an invertible map of its rows) or the result is not orthonormal to
// cholQROrth: a caller then falls back to Householder LQ.
func CholQR2(y *tensor.Dense) *tensor.Dense {
	r := y.Rows
	var total *tensor.Dense
	for pass := 0; pass < 2; pass++ {
		lf := gramRows(y)
		sym := blas64.Symmetric{Uplo: blas.Lower, N: r, Stride: lf.Stride, Data: lf.Data}
		if _, ok := lapack64.Potrf(sym); !ok {
			return nil
		}
		lo, hi := math.Inf(1), 0.0
		for i := 0; i < r; i++ {
			d := lf.At(i, i)
			lo, hi = min(lo, d), max(hi, d)
			clear(lf.Row(i)[i+1:]) // Potrf left G's upper triangle
		}
		if !(lo > hi/cholQRCond) {
			return nil
		}
		inv := lf.Clone()
		if !lapack64.Trtri(blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: r, Stride: inv.Stride, Data: inv.Data}) {
			return nil
		}
		mulRowsBy(inv, y, y)
		if total == nil {
			total = lf
		} else {
			total = tensor.MatMul(false, false, total, lf)
		}
	}
	if offIdentity(gramRows(y)) > cholQROrth {
		return nil
	}
	return total
}

// cholQRCond bounds the ratio of the largest to the smallest diagonal entry
// of a Cholesky factor that CholQR2 accepts: that ratio bounds y's
// condition number from below, and Cholesky QR twice is accurate up to a
// condition number near 1/√ε ≈ 6.7·10⁷.
const cholQRCond = 1e6

// cholQROrth is the largest |entry of Q·Qᵀ − I| that CholQR2 accepts:
// Householder LQ reaches about r·ε (10⁻¹⁴ at r = 30).
const cholQROrth = 1e-12

// rowChunk is the number of columns of a wide matrix per goroutine chunk
// in gramRows and mulRowsBy.
const rowChunk = 4096

// gramRows returns y·yᵀ (r×r) for y of r rows: partial products of fixed
// chunks of columns, formed on all cores and added in chunk order.
func gramRows(y *tensor.Dense) *tensor.Dense {
	r, c := y.Rows, y.Cols
	chunks := (c + rowChunk - 1) / rowChunk
	parts := make([]float64, chunks*r*r)
	parallel.ForChunks(c, rowChunk, runtime.GOMAXPROCS(0), func(_, j0, j1 int) {
		p := parts[j0/rowChunk*r*r:][:r*r]
		gemm.Dgemm(false, true, r, r, j1-j0, 1, y.Data[j0:], y.Stride, y.Data[j0:], y.Stride, 0, p, r, 1)
	})
	g := tensor.New(r, r)
	for c := 0; c < chunks; c++ {
		for i, v := range parts[c*r*r : (c+1)*r*r] {
			g.Data[i] += v
		}
	}
	return g
}

// mulRowsBy sets dst (r×c) to a·y for a (r×r) and y (r×c), chunks of
// columns on all cores; dst may be y. Each chunk of y is copied first, so
// no second r×c matrix is formed.
func mulRowsBy(a, y, dst *tensor.Dense) {
	r := a.Rows
	workers := runtime.GOMAXPROCS(0)
	bufs := make([][]float64, workers)
	parallel.ForChunks(y.Cols, rowChunk, workers, func(w, j0, j1 int) {
		if bufs[w] == nil {
			bufs[w] = make([]float64, r*rowChunk)
		}
		n := j1 - j0
		buf := bufs[w][:r*n]
		for i := 0; i < r; i++ {
			copy(buf[i*n:(i+1)*n], y.Row(i)[j0:j1])
		}
		gemm.Dgemm(false, false, r, n, a.Cols, 1, a.Data, a.Stride, buf, n, 0, dst.Data[j0:], dst.Stride, 1)
	})
}

// offIdentity returns max |g_ij − δ_ij| for a square g.
func offIdentity(g *tensor.Dense) float64 {
	worst := 0.0
	for i := 0; i < g.Rows; i++ {
		for j, v := range g.Row(i) {
			if i == j {
				v--
			}
			worst = max(worst, math.Abs(v))
		}
	}
	return worst
}
