package ssnmf_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/models/ssnmf"
	"github.com/neuralnmf/neuralnmf/nnkl"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// denseKL is D(X ‖ W·H) summed entry by entry over the dense product.
func denseKL(x, w, h *tensor.Dense) float64 {
	y := tensor.MatMul(false, false, w, h)
	d := 0.0
	for i, v := range x.Data {
		d += y.Data[i]
		if v > 0 {
			d += v*math.Log(v/y.Data[i]) - v
		}
	}
	return d
}

// countsLike is a word-count-like matrix: Poisson-ish counts of a rank-r
// nonnegative model, most entries zero.
func countsLike(n, m, r int, seed uint64) *tensor.Dense {
	rng := tensor.NewRand(seed)
	w, h := tensor.Uniform(n, r, 0, 1, rng), tensor.Uniform(r, m, 0, 1, rng)
	for i := range w.Data {
		if rng.Float64() < 0.7 {
			w.Data[i] = 0
		}
	}
	y := tensor.MatMul(false, false, w, h)
	x := tensor.New(n, m)
	for i, v := range y.Data {
		// a Poisson draw by inversion (small means)
		l, p, c := math.Exp(-v), 1.0, 0
		for p *= rng.Float64(); p > l; p *= rng.Float64() {
			c++
		}
		x.Data[i] = float64(c)
	}
	return x
}

// The KL updates never increase the divergence (Lee & Seung's theorem; a
// relative 1e-12 allows for rounding), their Objective (after every 10th
// update and after the last) is the divergence
// of the factors they return, and the dense and sparse forms agree bit for
// bit.
func TestNMFKLDecreases(t *testing.T) {
	x := countsLike(60, 80, 5, 3)
	f, err := ssnmf.NMFKL(x, 5, &ssnmf.Options{MaxIter: 300, Tol: -1})
	require.NoError(t, err)
	require.Len(t, f.Objective, 30)
	for i := 1; i < len(f.Objective); i++ {
		require.LessOrEqual(t, f.Objective[i], f.Objective[i-1]*(1+1e-12), "update %d", 10*(i+1))
	}
	g, err := ssnmf.NMFKL(x, 5, &ssnmf.Options{MaxIter: 25, Tol: -1})
	require.NoError(t, err)
	require.Len(t, g.Objective, 3, "after updates 10, 20 and the last, 25")
	require.InEpsilon(t, denseKL(x, g.A, g.S), g.Objective[2], 1e-10)
	last := f.Objective[len(f.Objective)-1]
	require.InEpsilon(t, denseKL(x, f.A, f.S), last, 1e-10)
	require.InEpsilon(t, denseKL(x, f.A, f.S), ssnmf.KLDivergence(tensor.SparseFromDense(x), f.A, f.S), 1e-10)
	require.Less(t, last, f.Objective[0])

	fs, err := ssnmf.NMFKLSparse(tensor.SparseFromDense(x), 5, &ssnmf.Options{MaxIter: 300, Tol: -1})
	require.NoError(t, err)
	require.Equal(t, f.A.Data, fs.A.Data)
	require.Equal(t, f.S.Data, fs.S.Data)
}

// On an exactly factorable X the updates drive D toward 0, and at their
// end the S they return is close to the certified KL solve for their A:
// a wrong update (say, the quotient's numerator and denominator swapped)
// moves away from both.
func TestNMFKLConverges(t *testing.T) {
	rng := tensor.NewRand(9)
	w, h := tensor.Uniform(40, 3, 0.1, 1, rng), tensor.Uniform(3, 50, 0.1, 1, rng)
	x := tensor.MatMul(false, false, w, h)
	total := 0.0
	for _, v := range x.Data {
		total += v
	}
	f, err := ssnmf.NMFKL(x, 3, &ssnmf.Options{MaxIter: 3000, Tol: -1})
	require.NoError(t, err)
	d := f.Objective[len(f.Objective)-1]
	require.Less(t, d, 1e-6*total)
	res, err := nnkl.Solve(f.A, x, nil)
	require.NoError(t, err)
	opt := denseKL(x, f.A, res.S)
	require.LessOrEqual(t, opt, d*(1+1e-9))
	t.Logf("D after 3000 updates %.3g (Σx = %.3g), optimal S for the final A %.3g", d, total, opt)
}

func TestNMFKLErrors(t *testing.T) {
	x := countsLike(10, 12, 2, 1)
	_, err := ssnmf.NMFKL(x, 20, nil)
	require.Error(t, err)
	_, err = ssnmf.NMFKL(x, 2, &ssnmf.Options{W: tensor.New(10, 12)})
	require.Error(t, err)
	x.Data[3] = -1
	_, err = ssnmf.NMFKL(x, 2, nil)
	require.ErrorContains(t, err, "X")
	_, err = ssnmf.HNMFKL(countsLike(10, 12, 2, 1), []int{3, 5}, nil)
	require.Error(t, err)
}

// HNMFKL's second layer factors the first layer's S, and both layers'
// divergences fall from their starts.
func TestHNMFKL(t *testing.T) {
	x := countsLike(50, 70, 6, 5)
	h, err := ssnmf.HNMFKL(x, []int{6, 3}, &ssnmf.Options{MaxIter: 200})
	require.NoError(t, err)
	require.Len(t, h.A, 2)
	require.Equal(t, []int{50, 6}, []int{h.A[0].Rows, h.A[0].Cols})
	require.Equal(t, []int{6, 3}, []int{h.A[1].Rows, h.A[1].Cols})
	require.Equal(t, []int{3, 70}, []int{h.S[1].Rows, h.S[1].Cols})
	one, err := ssnmf.NMFKL(h.S[0], 3, &ssnmf.Options{MaxIter: 200, Seed: 1000})
	require.NoError(t, err)
	require.Equal(t, one.S.Data, h.S[1].Data)
}
