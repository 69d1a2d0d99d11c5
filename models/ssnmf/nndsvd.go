package ssnmf

import (
	"fmt"
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

// NNDSVDA returns the NNDSVDa start of a rank-k NMF of X (N×M, nonnegative):
// A (N×k) and S (k×M) built from the leading k singular triplets of X as
// Boutsidis & Gallopoulos (2008) describe, with every entry below 1e-6 set
// to the mean entry of X, as scikit-learn's init='nndsvda' does. The
// singular triplets come from a randomized SVD (Halko, Martinsson & Tropp
// 2011: k+10 probe vectors, 7 power iterations when k < min(N, M)/10 and 4
// otherwise, each followed by a QR re-orthonormalisation) seeded by seed, so
// the start is deterministic. It returns an error for invalid X or k.
func NNDSVDA(x *tensor.Dense, k int, seed uint64) (a, s *tensor.Dense, err error) {
	if err := tensor.CheckData("X", x); err != nil {
		return nil, nil, fmt.Errorf("ssnmf: %w", err)
	}
	if err := checkRank(x.Rows, x.Cols, k); err != nil {
		return nil, nil, err
	}
	in := &layerInput{dense: x}
	a, s = nndsvda(in.op(), k, seed, in.mean(), 0)
	return a, s, nil
}

// NNDSVDASparse is NNDSVDA for a sparse X; no dense N×M matrix is formed.
func NNDSVDASparse(x *tensor.Sparse, k int, seed uint64) (a, s *tensor.Dense, err error) {
	if err := tensor.CheckSparseData("X", x); err != nil {
		return nil, nil, fmt.Errorf("ssnmf: %w", err)
	}
	if err := checkRank(x.Rows, x.Cols, k); err != nil {
		return nil, nil, err
	}
	in := &layerInput{sparse: x}
	a, s = nndsvda(in.op(), k, seed, in.mean(), 0)
	return a, s, nil
}

// nndsvdZero is the threshold below which NNDSVD sets an entry to zero (and
// NNDSVDa then to the mean of X): scikit-learn's eps = 1e-6.
const nndsvdZero = 1e-6

func nndsvda(x linop, k int, seed uint64, mean float64, iters int) (a, s *tensor.Dense) {
	n, m := x.dims()
	u, sv, vt := randomizedSVD(x, k, seed, iters)
	a, s = tensor.New(n, k), tensor.New(k, m)
	// One set of buffers for all k pairs: at 10⁶ documents a fresh pair of
	// M-vectors per component was 320 MB of memory touched for the first
	// time at rank 20.
	ucol, up, un := make([]float64, n), make([]float64, n), make([]float64, n)
	vp, vn := make([]float64, m), make([]float64, m)
	for j := 0; j < k; j++ {
		for i := range ucol {
			ucol[i] = u.At(i, j)
		}
		vrow := vt.Row(j)
		var lbd float64
		var uu, vv []float64
		if j == 0 {
			// The leading pair of a nonnegative X can be taken nonnegative.
			lbd = math.Sqrt(sv[0])
			uu, vv = absInto(up, ucol), absInto(vp, vrow)
		} else {
			splitSigns(ucol, up, un)
			splitSigns(vrow, vp, vn)
			nup, nun, nvp, nvn := norm2(up), norm2(un), norm2(vp), norm2(vn)
			mp, mn := nup*nvp, nun*nvn
			if mp > mn {
				lbd = math.Sqrt(sv[j] * mp)
				uu, vv = scaleAll(up, 1/nup), scaleAll(vp, 1/nvp)
			} else if mn > 0 {
				lbd = math.Sqrt(sv[j] * mn)
				uu, vv = scaleAll(un, 1/nun), scaleAll(vn, 1/nvn)
			} else {
				uu, vv = nil, nil // all zero: filled below
			}
		}
		for i, v := range uu {
			a.Set(i, j, lbd*v)
		}
		for i, v := range vv {
			s.Set(j, i, lbd*v)
		}
	}
	for _, d := range []*tensor.Dense{a, s} {
		for i, v := range d.Data {
			if v < nndsvdZero {
				d.Data[i] = mean
			}
		}
	}
	return a, s
}

// absInto sets dst to |v| and returns it.
func absInto(dst, v []float64) []float64 {
	for i, x := range v {
		dst[i] = math.Abs(x)
	}
	return dst
}

// splitSigns sets pos and neg (of v's length) to v's positive part and the
// negation of its negative part.
func splitSigns(v, pos, neg []float64) {
	for i, x := range v {
		if x > 0 {
			pos[i], neg[i] = x, 0
		} else {
			pos[i], neg[i] = 0, -x
		}
	}
}

func norm2(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x * x
	}
	return math.Sqrt(s)
}

func scaleAll(v []float64, c float64) []float64 {
	for i := range v {
		v[i] *= c
	}
	return v
}

// randomizedSVD returns approximations of the leading k singular triplets of
// X: U (N×k), the singular values, and Vᵀ (k×M), by the randomized range
// finder with power iterations (see NNDSVDA; iters > 0 sets their number).
func randomizedSVD(x linop, k int, seed uint64, iters int) (u *tensor.Dense, sv []float64, vt *tensor.Dense) {
	n, m := x.dims()
	l := min(k+10, n, m)
	if iters <= 0 {
		iters = 4
		if k < min(n, m)/10 {
			iters = 7
		}
	}
	rng := tensor.NewRand(seed)
	omega := tensor.New(l, m) // Ωᵀ
	for i := range omega.Data {
		omega.Data[i] = rng.NormFloat64()
	}
	// The bases are kept as rows (Qᵀ, l×N, and l×M), where the LQ
	// factorisation that orthonormalises them reads memory contiguously.
	y := tensor.New(n, l) // X·Ω, then Q
	yt := tensor.New(l, n)
	x.mulT(omega, y)
	tensor.TransposeInto(yt, y)
	orthonormalizeRows(yt)
	tensor.TransposeInto(y, yt)
	z := tensor.New(l, m) // (Xᵀ·Q)ᵀ
	for it := 0; it < iters; it++ {
		x.tMul(y, z)
		orthonormalizeRows(z)
		x.mulT(z, y)
		tensor.TransposeInto(yt, y)
		orthonormalizeRows(yt)
		tensor.TransposeInto(y, yt)
	}
	b := tensor.New(l, m) // QᵀX
	x.tMul(y, b)
	ub, sAll, vtAll := svdWide(b)
	u = tensor.New(n, k)
	tensor.Gemm(false, false, 1, y, &tensor.Dense{Rows: l, Cols: k, Stride: ub.Stride, Data: ub.Data}, 0, u)
	vt = tensor.New(k, m)
	vt.Copy(&tensor.Dense{Rows: k, Cols: m, Stride: vtAll.Stride, Data: vtAll.Data})
	return u, sAll[:k], vt
}

// svdWide returns the thin SVD of B (l×m, l ≤ m): B = Ub·diag(sv)·Vᵀ with
// Ub l×l and Vᵀ l×m, the singular values in decreasing order. Where B's
// rows are well enough conditioned for Cholesky QR twice (cholQR2: B = L·Q,
// Q with orthonormal rows), it is L's SVD (l×l) carried to Vᵀ = W_Lᵀ·Q by a
// product shared among goroutines; else LAPACK's Gesvd of B, which runs on
// one core (at 10⁶ documents, 3.3 s of the fit). B is overwritten. If
// Gesvd does not converge (rare) every singular value is 0: no triplet is
// trusted, so every entry of the start becomes X's mean; it is only a
// start, and the solver fits from it.
func svdWide(b *tensor.Dense) (ub *tensor.Dense, sv []float64, vt *tensor.Dense) {
	l, m := b.Rows, b.Cols
	ub, sv, vt = tensor.New(l, l), make([]float64, l), tensor.New(l, m)
	if lf := cholQR2(b); lf != nil {
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

// orthonormalizeRows replaces the rows of y (r×c, r ≤ c) by an orthonormal
// basis of their span: by Cholesky QR twice (cholQR2) where y's rows are
// well enough conditioned, else by Householder LQ, which runs on one core
// and reads y once per row and reflector (at 10⁶ documents its eight
// factorisations of 30×10⁶ bases were 4.4 s of the fit).
func orthonormalizeRows(y *tensor.Dense) {
	if cholQR2(y) == nil {
		orthonormalizeRowsLQ(y)
	}
}

// orthonormalizeRowsLQ is orthonormalizeRows by Householder LQ alone.
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

// cholQR2 orthonormalises the rows of y (r×c, r ≤ c) in place by Cholesky
// QR twice (Fukaya, Nakatsukasa, Yanagisawa & Yamamoto 2014): G = y·yᵀ =
// L·Lᵀ, y ← L⁻¹·y, and once more, which restores orthogonality to rounding
// for y of condition number up to about 10⁸. Each pass reads y twice, its
// products shared among goroutines in fixed chunks (the sums do not depend
// on how many goroutines ran them). It returns the lower-triangular L with
// y (as it was) = L·y (as it is now), or nil if a Cholesky factorisation
// failed, its diagonal spans more than cholQRCond (then y may have changed
// by an invertible map of its rows) or the result is not orthonormal to
// cholQROrth: a caller then falls back to Householder LQ.
func cholQR2(y *tensor.Dense) *tensor.Dense {
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
	g := gramRows(y)
	for i := 0; i < r; i++ {
		for j := 0; j < r; j++ {
			want := 0.0
			if i == j {
				want = 1
			}
			if math.Abs(g.At(i, j)-want) > cholQROrth {
				return nil
			}
		}
	}
	return total
}

// cholQRCond bounds the ratio of the largest to the smallest diagonal entry
// of a Cholesky factor that cholQR2 accepts: that ratio bounds y's
// condition number from below, and Cholesky QR twice is accurate up to a
// condition number near 1/√ε ≈ 6.7·10⁷.
const cholQRCond = 1e6

// cholQROrth is the largest |entry of Q·Qᵀ − I| that cholQR2 accepts:
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
