package ssnmf_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/internal/randmat"
	"github.com/neuralnmf/neuralnmf/models/ssnmf"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// kktResidual returns the largest violation of the KKT conditions of
// min ‖X − AS‖² over A, S ≥ 0: for each entry v with gradient g,
// |min(v, g)|, which is zero exactly when v = 0 ≤ g or v > 0 = g. It is
// relative to the largest entry of XSᵀ and AᵀX, the data's part of the
// gradient, so it does not depend on the scale of X. A stationary point has
// residual 0 up to rounding; a factorisation stopped early does not.
func kktResidual(x, a, s *tensor.Dense) float64 {
	r := tensor.MatMul(false, false, a, s)
	tensor.Sub(r, r, x)                    // AS − X
	ga := tensor.MatMul(false, true, r, s) // (AS − X)Sᵀ
	gs := tensor.MatMul(true, false, a, r) // Aᵀ(AS − X)
	worst := 0.0
	for _, p := range []struct{ v, g *tensor.Dense }{{a, ga}, {s, gs}} {
		for i, v := range p.v.Data {
			worst = math.Max(worst, math.Abs(math.Min(v, p.g.Data[i])))
		}
	}
	scale := math.Max(tensor.MaxAbs(tensor.MatMul(false, true, x, s)), tensor.MaxAbs(tensor.MatMul(true, false, a, x)))
	return worst / scale
}

// lowRankNoisy returns a product of uniform n×k and k×m factors plus
// uniform noise of the given size (seed 7).
func lowRankNoisy(n, m, k int, noise float64) *tensor.Dense {
	rng := tensor.NewRand(7)
	x := tensor.MatMul(false, false, tensor.Uniform(n, k, 0, 1, rng), tensor.Uniform(k, m, 0, 1, rng))
	for i := range x.Data {
		x.Data[i] += noise * rng.Float64()
	}
	return x
}

func TestHALSConvergesToAStationaryPoint(t *testing.T) {
	for _, c := range []struct {
		name  string
		n, m  int
		k     int
		noise float64
	}{
		{"tall low-rank", 60, 30, 4, 0.01},
		{"wide noisy", 25, 80, 6, 0.5},
		{"square rank 1", 40, 40, 1, 0.1},
	} {
		t.Run(c.name, func(t *testing.T) {
			x := lowRankNoisy(c.n, c.m, c.k, c.noise)
			f, err := ssnmf.NMF(x, c.k, &ssnmf.Options{Solver: ssnmf.HALS, Start: ssnmf.NNDSVDAStart, Seed: 1, Tol: -1, MaxIter: 3000})
			require.NoError(t, err)
			for i := 1; i < len(f.Objective); i++ {
				// Each HALS update is an exact minimisation of a convex
				// piece: the objective cannot grow beyond the rounding of its
				// expansion, about ε·‖X‖².
				require.LessOrEqual(t, f.Objective[i], f.Objective[i-1]+1e-13*tensor.SqNorm(x), "iteration %d", i)
			}
			require.Less(t, kktResidual(x, f.A, f.S), 1e-7)
			// The certificate tells a point that is not stationary: 2
			// multiplicative updates from a random start do not pass it.
			mu, err := ssnmf.NMF(x, c.k, &ssnmf.Options{Seed: 1, Tol: -1, MaxIter: 2})
			require.NoError(t, err)
			require.Greater(t, kktResidual(x, mu.A, mu.S), 1e-6)
			d := tensor.MatMul(false, false, f.A, f.S)
			tensor.Sub(d, d, x)
			require.InDelta(t, tensor.SqNorm(d), f.Objective[len(f.Objective)-1], 1e-9*tensor.SqNorm(x), "the objective's expansion is ‖X − AS‖²")
		})
	}
}

func TestHALSSparseMatchesDense(t *testing.T) {
	rng := tensor.NewRand(3)
	x := randmat.Sparse(70, 50, 0.8, rng)
	opt := &ssnmf.Options{Solver: ssnmf.HALS, Start: ssnmf.NNDSVDAStart, Seed: 5, MaxIter: 200}
	fd, err := ssnmf.NMF(x, 5, opt)
	require.NoError(t, err)
	fs, err := ssnmf.NMFSparse(tensor.SparseFromDense(x), 5, opt)
	require.NoError(t, err)
	require.Equal(t, len(fd.Objective), len(fs.Objective))
	scale := tensor.MaxAbs(fd.A)
	for i, v := range fd.A.Data {
		require.InDelta(t, v, fs.A.Data[i], 1e-9*scale)
	}
	hd, err := ssnmf.HNMF(x, []int{5, 2}, nil, opt)
	require.NoError(t, err)
	hs, err := ssnmf.HNMFSparse(tensor.SparseFromDense(x), []int{5, 2}, nil, opt)
	require.NoError(t, err)
	require.InDelta(t, relErr(x, hd.Reconstruction()), relErr(x, hs.Reconstruction()), 1e-9)
}

func TestNNDSVDA(t *testing.T) {
	t.Run("rank 1 exactly", func(t *testing.T) {
		// X = u·vᵀ with entries ≥ 1: the leading singular pair is X itself,
		// no entry falls below the threshold, so A·S = X.
		rng := tensor.NewRand(11)
		x := tensor.MatMul(false, false, tensor.Uniform(30, 1, 1, 2, rng), tensor.Uniform(1, 20, 1, 2, rng))
		a, s, err := ssnmf.NNDSVDA(x, 1, 1)
		require.NoError(t, err)
		require.Less(t, relErr(x, tensor.MatMul(false, false, a, s)), 1e-12)
	})
	t.Run("disjoint blocks", func(t *testing.T) {
		// Three blocks of ones on disjoint rows and columns with distinct
		// sizes: the singular vectors are the block indicators, so NNDSVD
		// puts each block in one topic exactly; NNDSVDa then fills the
		// zeros with the mean entry of X.
		x := tensor.New(12, 9)
		blocks := [][4]int{{0, 6, 0, 4}, {6, 10, 4, 7}, {10, 12, 7, 9}}
		for _, b := range blocks {
			for i := b[0]; i < b[1]; i++ {
				for j := b[2]; j < b[3]; j++ {
					x.Set(i, j, 1)
				}
			}
		}
		mean := tensor.Sum(x) / float64(x.Len())
		a, s, err := ssnmf.NNDSVDA(x, 3, 4)
		require.NoError(t, err)
		for j, b := range blocks {
			for i := 0; i < 12; i++ {
				in := i >= b[0] && i < b[1]
				if in {
					require.Greater(t, a.At(i, j), 0.1)
				} else {
					require.Equal(t, mean, a.At(i, j))
				}
			}
			for m := 0; m < 9; m++ {
				if m >= b[2] && m < b[3] {
					require.InDelta(t, 1, a.At(b[0], j)*s.At(j, m), 1e-12)
				} else {
					require.Equal(t, mean, s.At(j, m))
				}
			}
		}
	})
	t.Run("dense and sparse agree, deterministic", func(t *testing.T) {
		x := randmat.Sparse(50, 40, 0.7, tensor.NewRand(2))
		a1, s1, err := ssnmf.NNDSVDA(x, 4, 9)
		require.NoError(t, err)
		a2, s2, err := ssnmf.NNDSVDASparse(tensor.SparseFromDense(x), 4, 9)
		require.NoError(t, err)
		a3, _, err := ssnmf.NNDSVDA(x, 4, 9)
		require.NoError(t, err)
		require.Equal(t, a1.Data, a3.Data)
		for i := range a1.Data {
			require.InDelta(t, a1.Data[i], a2.Data[i], 1e-10)
		}
		for i := range s1.Data {
			require.InDelta(t, s1.Data[i], s2.Data[i], 1e-10)
		}
	})
	t.Run("errors", func(t *testing.T) {
		x := tensor.MustFromRows([][]float64{{1, 2}, {3, -1}})
		_, _, err := ssnmf.NNDSVDA(x, 1, 1)
		require.ErrorContains(t, err, "X")
		_, _, err = ssnmf.NNDSVDA(tensor.MustFromRows([][]float64{{1, 2}, {3, 4}}), 3, 1)
		require.ErrorIs(t, err, ssnmf.ErrRank)
	})
}

func TestHALSRejectsLabelsAndMasks(t *testing.T) {
	x := tensor.Uniform(6, 5, 0, 1, tensor.NewRand(1))
	lab := &ssnmf.Labels{Y: tensor.New(2, 5), Z: tensor.New(2, 5), Lambda: 1}
	_, err := ssnmf.SSNMF(x, 2, lab, &ssnmf.Options{Solver: ssnmf.HALS})
	require.ErrorContains(t, err, "HALS solver does not support labels")
	_, err = ssnmf.NMF(x, 2, &ssnmf.Options{Solver: ssnmf.HALS, W: tensor.New(6, 5)})
	require.ErrorContains(t, err, "data mask")
	_, err = ssnmf.HNMF(x, []int{3, 2}, lab, &ssnmf.Options{Solver: ssnmf.HALS})
	require.ErrorContains(t, err, "layer 2", "labels apply at the last layer, layer 2 of 2")
}

// StopViolation (scikit-learn's rule) stops HALS once an update's violation,
// the summed |projected gradient|, is at most Tol times the first's: at
// Tol 1e-4 the factors are near stationary (the KKT residual below 1e-3,
// against above 1e-2 after 2 updates), at 1e-8 nearer still, the tighter
// tolerance never stops sooner, and the objective kept is the last one,
// ‖X − AS‖² of the factors returned.
func TestHALSStopViolation(t *testing.T) {
	rng := tensor.NewRand(11)
	x := tensor.MatMul(false, false, tensor.Uniform(80, 6, 0, 1, rng), tensor.Uniform(6, 120, 0, 1, rng))
	for i := range x.Data {
		x.Data[i] += 0.2 * rng.Float64()
	}
	run := func(tol float64, iters int) *ssnmf.Factors {
		f, err := ssnmf.NMFSparse(tensor.SparseFromDense(x), 6, &ssnmf.Options{Solver: ssnmf.HALS, Start: ssnmf.NNDSVDAStart, Seed: 1,
			Stop: ssnmf.StopViolation, Tol: tol, MaxIter: iters})
		require.NoError(t, err)
		require.Len(t, f.Objective, 1, "one objective, after the last update")
		d := tensor.MatMul(false, false, f.A, f.S)
		tensor.Sub(d, d, x)
		require.InDelta(t, tensor.SqNorm(d), f.Objective[0], 1e-9*tensor.SqNorm(x))
		return f
	}
	early, loose, tight := run(-1, 2), run(1e-4, 5000), run(1e-8, 5000)
	require.Greater(t, kktResidual(x, early.A, early.S), 1e-2)
	require.Less(t, kktResidual(x, loose.A, loose.S), 1e-3)
	require.Less(t, kktResidual(x, tight.A, tight.S), kktResidual(x, loose.A, loose.S))
	require.LessOrEqual(t, tight.Objective[0], loose.Objective[0]*(1+1e-12))
}

// UnitTopics leaves every layer's topics at unit norm without changing
// what the layer reconstructs (A·S, and B·S of a supervised top layer),
// and on data whose topics come out of HALS at very different scales it
// makes the second layer fit X: the product of two uniform factors of rank
// 30 plus noise, where the unscaled hierarchy of ranks 30,10 ends several
// times further from X than the scaled one.
func TestUnitTopics(t *testing.T) {
	rng := tensor.NewRand(300)
	x := tensor.MatMul(false, false, tensor.Uniform(300, 30, 0, 1, rng), tensor.Uniform(30, 300, 0, 1, rng))
	for i, u := range tensor.Uniform(300, 300, 0, 0.1, rng).Data {
		x.Data[i] += u
	}
	rel := func(h *ssnmf.Hierarchy) float64 {
		p := h.A[0]
		for _, a := range h.A[1:] {
			p = tensor.MatMul(false, false, p, a)
		}
		r := tensor.MatMul(false, false, p, h.S[len(h.S)-1])
		tensor.Sub(r, r, x)
		return math.Sqrt(tensor.SqNorm(r) / tensor.SqNorm(x))
	}
	opt := ssnmf.Options{Seed: 1, Solver: ssnmf.HALS, Start: ssnmf.NNDSVDAStart, Stop: ssnmf.StopViolation, Tol: 1e-4}
	plain, err := ssnmf.HNMF(x, []int{30, 10}, nil, &opt)
	require.NoError(t, err)
	opt.UnitTopics = true
	unit, err := ssnmf.HNMF(x, []int{30, 10}, nil, &opt)
	require.NoError(t, err)
	for l, a := range unit.A {
		for j := range a.Cols {
			var n float64
			for i := range a.Rows {
				n += a.At(i, j) * a.At(i, j)
			}
			require.InDelta(t, 1, math.Sqrt(n), 1e-12, "layer %d topic %d", l+1, j)
		}
	}
	// The first layer is the same factorisation, rescaled.
	require.InDelta(t, 0, relDiff(tensor.MatMul(false, false, plain.A[0], plain.S[0]), tensor.MatMul(false, false, unit.A[0], unit.S[0])), 1e-12)
	t.Logf("relative error of ranks 30,10: %.4f unscaled, %.4f with UnitTopics", rel(plain), rel(unit))
	require.Less(t, 3*rel(unit), rel(plain))

	// A supervised top layer keeps B·S.
	a, s, b := tensor.Uniform(6, 3, 0, 2, rng), tensor.Uniform(3, 5, 0, 1, rng), tensor.Uniform(2, 3, 0, 1, rng)
	as, bs := tensor.MatMul(false, false, a, s), tensor.MatMul(false, false, b, s)
	ssnmf.UnitTopicsForTest(a, s, b)
	require.InDelta(t, 0, relDiff(as, tensor.MatMul(false, false, a, s)), 1e-14)
	require.InDelta(t, 0, relDiff(bs, tensor.MatMul(false, false, b, s)), 1e-14)
}

// relDiff is ‖p − q‖ / ‖p‖.
func relDiff(p, q *tensor.Dense) float64 {
	d := tensor.New(p.Rows, p.Cols)
	tensor.Sub(d, p, q)
	return math.Sqrt(tensor.SqNorm(d) / tensor.SqNorm(p))
}

// TestHALSExtrapolated checks HALS with extrapolation: run long, it ends
// at a stationary point (the certificate of
// TestHALSConvergesToAStationaryPoint) and its objective is the factors'
// error; stopped by scikit-learn's test, it stops in fewer updates than
// plain HALS at an error no more than 1e-4 (relative) above plain HALS's.
func TestHALSExtrapolated(t *testing.T) {
	for _, c := range []struct {
		name  string
		n, m  int
		k     int
		noise float64
		long  bool // also run to a stationary point
	}{
		{"tall low-rank", 60, 30, 4, 0.01, true},
		{"wide noisy", 25, 80, 6, 0.5, true},
		{"square rank 1", 40, 40, 1, 0.1, true},
		{"rank 10 of 300×200", 300, 200, 10, 0.2, false},
		{"rank 20 of 200×500", 200, 500, 20, 1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			x := lowRankNoisy(c.n, c.m, c.k, c.noise)
			if c.long {
				f, err := ssnmf.NMF(x, c.k, &ssnmf.Options{Solver: ssnmf.HALS, Start: ssnmf.NNDSVDAStart, Seed: 1, Tol: -1, MaxIter: 3000, Extrapolate: true})
				require.NoError(t, err)
				require.Less(t, kktResidual(x, f.A, f.S), 1e-7)
				d := tensor.MatMul(false, false, f.A, f.S)
				tensor.Sub(d, d, x)
				require.InDelta(t, tensor.SqNorm(d), f.Objective[len(f.Objective)-1], 1e-9*tensor.SqNorm(x), "the objective is ‖X − AS‖²")
			}
			opt := ssnmf.Options{Solver: ssnmf.HALS, Start: ssnmf.NNDSVDAStart, Seed: 1, Stop: ssnmf.StopViolation, Tol: 1e-4}
			plain, err := ssnmf.NMF(x, c.k, &opt)
			require.NoError(t, err)
			opt.Extrapolate = true
			ex, err := ssnmf.NMF(x, c.k, &opt)
			require.NoError(t, err)
			pe, ee := plain.Objective[len(plain.Objective)-1], ex.Objective[len(ex.Objective)-1]
			t.Logf("updates: plain %d, extrapolated %d; relative error %.6f and %.6f", plain.Updates, ex.Updates, math.Sqrt(pe/tensor.SqNorm(x)), math.Sqrt(ee/tensor.SqNorm(x)))
			if plain.Updates < 1000 { // else both ran to the default cap
				require.Less(t, ex.Updates, plain.Updates)
			}
			require.LessOrEqual(t, ex.Updates, plain.Updates)
			require.LessOrEqual(t, ee, pe*(1+2e-4)) // squared error: 1e-4 of the error
		})
	}
}
