package ssnmf

import (
	"fmt"
	"math"

	"github.com/neuralnmf/neuralnmf/internal/wide"
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
	wide.OrthonormalizeRows(yt)
	tensor.TransposeInto(y, yt)
	z := tensor.New(l, m) // (Xᵀ·Q)ᵀ
	for it := 0; it < iters; it++ {
		x.tMul(y, z)
		wide.OrthonormalizeRows(z)
		x.mulT(z, y)
		tensor.TransposeInto(yt, y)
		wide.OrthonormalizeRows(yt)
		tensor.TransposeInto(y, yt)
	}
	b := tensor.New(l, m) // QᵀX
	x.tMul(y, b)
	ub, sAll, vtAll := wide.SVD(b)
	u = tensor.New(n, k)
	tensor.Gemm(false, false, 1, y, &tensor.Dense{Rows: l, Cols: k, Stride: ub.Stride, Data: ub.Data}, 0, u)
	vt = tensor.New(k, m)
	vt.Copy(&tensor.Dense{Rows: k, Cols: m, Stride: vtAll.Stride, Data: vtAll.Data})
	return u, sAll[:k], vt
}
