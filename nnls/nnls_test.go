package nnls_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/internal/randmat"
	"github.com/neuralnmf/neuralnmf/nnls"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// kktTol is the relative tolerance of the KKT checks below: multipliers on
// the support must be within kktTol·‖a_i‖·‖x_m‖ of zero, and off it no more
// negative than that. The measured violations are 10⁻¹⁵–10⁻¹³ (double
// precision with cond(A) up to ~10⁵, after refinement), so 1e-11 leaves two
// orders of margin and is still far below any real violation: a wrong
// support gives O(1).
const kktTol = 1e-11

// kktViolation returns the largest scaled KKT violation of S for
// min ‖X − AS‖, S ≥ 0, with the multipliers computed from the explicit
// residual Aᵀ(AS − X) — not from the Gram matrix the solver uses.
func kktViolation(a, x, s *tensor.Dense) float64 {
	n, k, m := a.Rows, a.Cols, x.Cols
	r := tensor.New(n, m)
	r.Mat().Mul(a.Mat(), s.Mat())
	tensor.Sub(r, r, x)
	g := tensor.New(k, m)
	g.Mat().Mul(a.Mat().T(), r.Mat())
	an := make([]float64, k)
	for i := 0; i < k; i++ {
		for p := 0; p < n; p++ {
			an[i] += a.At(p, i) * a.At(p, i)
		}
		an[i] = math.Sqrt(an[i])
	}
	var worst float64
	for j := 0; j < m; j++ {
		col := tensor.New(n, 1)
		for p := 0; p < n; p++ {
			col.Data[p] = x.At(p, j)
		}
		xn := tensor.Norm(col) // scaled: safe at 1e±160
		if xn == 0 {
			continue
		}
		for i := 0; i < k; i++ {
			sc := an[i] * xn
			v := s.At(i, j)
			if math.IsInf(sc, 0) || math.IsNaN(g.At(i, j)) {
				return math.Inf(1) // the check itself must not pass vacuously
			}
			switch {
			case v < 0:
				return math.Inf(1)
			case v > 0:
				worst = math.Max(worst, math.Abs(g.At(i, j))/sc)
			default:
				worst = math.Max(worst, -g.At(i, j)/sc)
			}
		}
	}
	return worst
}

func fromJSON(rows [][]float64) *tensor.Dense { return tensor.MustFromRows(rows) }

func TestMatchesScipy(t *testing.T) {
	raw, err := os.ReadFile("testdata/scipy_nnls.json")
	require.NoError(t, err)
	var fx struct {
		Cases []struct {
			Name    string
			A, X, S [][]float64
		}
	}
	require.NoError(t, json.Unmarshal(raw, &fx))
	require.NotEmpty(t, fx.Cases)
	for _, c := range fx.Cases {
		t.Run(c.Name, func(t *testing.T) {
			a, x, want := fromJSON(c.A), fromJSON(c.X), fromJSON(c.S)
			for _, workers := range []int{1, 2, 3} {
				res, err := nnls.Solve(a, x, &nnls.Options{Workers: workers})
				require.NoError(t, err)
				for i := range want.Data {
					// Same support exactly, values to 1e-10 (both are
					// exact active-set methods; scipy uses QR, we use
					// Cholesky of the Gram matrix).
					require.Equal(t, want.Data[i] == 0, res.S.Data[i] == 0, "support differs at %d", i)
					require.InDelta(t, want.Data[i], res.S.Data[i], 1e-10)
				}
				require.Zero(t, res.Stats.Fallbacks)
			}
		})
	}
}

// problem builders for the KKT table.
func uniform(seed uint64, n, k, m int) (*tensor.Dense, *tensor.Dense) {
	rng := tensor.NewRand(seed)
	return tensor.Uniform(n, k, 0, 1, rng), tensor.Uniform(n, m, 0, 1, rng)
}

func sparseSolution(seed uint64, n, k, m int) (*tensor.Dense, *tensor.Dense) {
	rng := tensor.NewRand(seed)
	a := tensor.Uniform(n, k, 0, 1, rng)
	s := randmat.Sparse(k, m, 0.8, rng)
	x := tensor.New(n, m)
	x.Mat().Mul(a.Mat(), s.Mat())
	noise := tensor.Uniform(n, m, 0, 0.01, rng)
	tensor.Add(x, x, noise)
	return a, x
}

func TestKKT(t *testing.T) {
	type build func() (*tensor.Dense, *tensor.Dense)
	scaled := func(b build, sa, sx float64) build {
		return func() (*tensor.Dense, *tensor.Dense) {
			a, x := b()
			tensor.Scale(a, sa, a)
			tensor.Scale(x, sx, x)
			return a, x
		}
	}
	collinear := func(eps float64) build {
		return func() (*tensor.Dense, *tensor.Dense) {
			a, x := uniform(7, 60, 8, 40)
			rng := tensor.NewRand(8)
			for r := 0; r < a.Rows; r++ { // column 3 ≈ column 2
				a.Set(r, 3, a.At(r, 2)+eps*rng.Float64())
			}
			return a, x
		}
	}
	cases := []struct {
		name string
		b    build
	}{
		{"random-small", func() (*tensor.Dense, *tensor.Dense) { return uniform(1, 20, 4, 30) }},
		{"random-tall", func() (*tensor.Dense, *tensor.Dense) { return uniform(2, 200, 30, 300) }},
		// Tall enough for the blocked QR (tsqr): the check is against A
		// itself, so a wrong Q cannot pass.
		{"tall-blocked-QR", func() (*tensor.Dense, *tensor.Dense) { return uniform(21, 9000, 40, 30) }},
		{"tall-blocked-QR-sparse-solution", func() (*tensor.Dense, *tensor.Dense) { return sparseSolution(22, 9000, 40, 30) }},
		// Tall and narrow (CholeskyQR2, Q kept as Q₁·R₂⁻¹).
		{"tall-CholeskyQR2", func() (*tensor.Dense, *tensor.Dense) { return uniform(24, 5000, 10, 40) }},
		{"tall-CholeskyQR2-sparse-solution", func() (*tensor.Dense, *tensor.Dense) { return sparseSolution(25, 5000, 12, 40) }},
		{"random-k=N", func() (*tensor.Dense, *tensor.Dense) { return uniform(3, 12, 12, 10) }},
		{"k=1", func() (*tensor.Dense, *tensor.Dense) { return uniform(4, 9, 1, 5) }},
		{"sparse-solution", func() (*tensor.Dense, *tensor.Dense) { return sparseSolution(5, 100, 20, 200) }},
		{"scaled-1e-8", scaled(func() (*tensor.Dense, *tensor.Dense) { return uniform(6, 50, 10, 60) }, 1e-8, 1e-8)},
		{"scaled-1e8", scaled(func() (*tensor.Dense, *tensor.Dense) { return uniform(6, 50, 10, 60) }, 1e8, 1e8)},
		{"scaled-A1e8-X1e-8", scaled(func() (*tensor.Dense, *tensor.Dense) { return sparseSolution(9, 50, 10, 60) }, 1e8, 1e-8)},
		{"X-scaled-1e-160", scaled(func() (*tensor.Dense, *tensor.Dense) { return uniform(20, 30, 6, 40) }, 1, 1e-160)},
		{"X-scaled-1e160", scaled(func() (*tensor.Dense, *tensor.Dense) { return uniform(20, 30, 6, 40) }, 1, 1e160)},
		{"nearly-collinear-1e-3", collinear(1e-3)},
		{"nearly-collinear-1e-5", collinear(1e-5)},
		{"duplicate-X-columns", func() (*tensor.Dense, *tensor.Dense) {
			a, x := uniform(10, 30, 6, 20)
			for r := 0; r < x.Rows; r++ {
				for j := 10; j < 20; j++ {
					x.Set(r, j, x.At(r, j-10))
				}
			}
			return a, x
		}},
		{"exact-fit", func() (*tensor.Dense, *tensor.Dense) {
			rng := tensor.NewRand(11)
			a := tensor.Uniform(40, 7, 0, 1, rng)
			s := tensor.Uniform(7, 30, 0.5, 1, rng)
			x := tensor.New(40, 30)
			x.Mat().Mul(a.Mat(), s.Mat())
			return a, x
		}},
		{"zero-columns-of-X", func() (*tensor.Dense, *tensor.Dense) {
			a, x := uniform(12, 20, 5, 10)
			for r := 0; r < x.Rows; r++ {
				x.Set(r, 3, 0)
				x.Set(r, 7, 0)
			}
			return a, x
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, x := tc.b()
			res, err := nnls.Solve(a, x, nil)
			require.NoError(t, err)
			require.Equal(t, a.Cols, res.S.Rows)
			require.Equal(t, x.Cols, res.S.Cols)
			v := kktViolation(a, x, res.S)
			require.LessOrEqual(t, v, kktTol, "KKT violation %.3g, stats %+v", v, res.Stats)
			// The support must be exactly the positive entries.
			for i := 0; i < res.S.Rows; i++ {
				for j := 0; j < res.S.Cols; j++ {
					require.Equal(t, res.S.At(i, j) > 0, res.Support.Has(i, j))
				}
			}
			t.Logf("KKT %.2g, %+v", v, res.Stats)
		})
	}
}

func TestExactFitRecoversS(t *testing.T) {
	rng := tensor.NewRand(11)
	a := tensor.Uniform(40, 7, 0, 1, rng)
	s := tensor.Uniform(7, 30, 0.5, 1, rng)
	x := tensor.New(40, 30)
	x.Mat().Mul(a.Mat(), s.Mat())
	res, err := nnls.Solve(a, x, nil)
	require.NoError(t, err)
	for i := range s.Data {
		require.InDelta(t, s.Data[i], res.S.Data[i], 1e-12)
	}
}

func TestZeroColumnOfXGivesZeroColumn(t *testing.T) {
	a, x := uniform(12, 20, 5, 10)
	for r := 0; r < x.Rows; r++ {
		x.Set(r, 3, 0)
	}
	res, err := nnls.Solve(a, x, nil)
	require.NoError(t, err)
	for i := 0; i < 5; i++ {
		require.Zero(t, res.S.At(i, 3))
	}
	require.Zero(t, res.Support.Count(3))
}

func TestDeterministicAcrossWorkers(t *testing.T) {
	t.Run("tall-blocked-QR", func(t *testing.T) {
		a, x := sparseSolution(23, 9000, 40, 50)
		ref, err := nnls.Solve(a, x, &nnls.Options{Workers: 1})
		require.NoError(t, err)
		res, err := nnls.Solve(a, x, &nnls.Options{Workers: 3})
		require.NoError(t, err)
		require.Equal(t, ref.S.Data, res.S.Data)
	})
	a, x := sparseSolution(13, 80, 15, 500)
	ref, err := nnls.Solve(a, x, &nnls.Options{Workers: 1})
	require.NoError(t, err)
	for _, w := range []int{2, 4, 7} {
		res, err := nnls.Solve(a, x, &nnls.Options{Workers: w})
		require.NoError(t, err)
		require.Equal(t, ref.S.Data, res.S.Data, "workers=%d", w)
		require.True(t, ref.Support.Equal(res.Support))
	}
}

func TestWarmStartSameAnswer(t *testing.T) {
	for _, drift := range []float64{1e-3, 1e-2} {
		a, x := uniform(14, 300, 25, 400)
		prev, err := nnls.Solve(a, x, nil)
		require.NoError(t, err)
		rng := tensor.NewRand(15)
		for i := range a.Data {
			a.Data[i] *= 1 + drift*(2*rng.Float64()-1)
		}
		cold, err := nnls.Solve(a, x, nil)
		require.NoError(t, err)
		warm, err := nnls.Solve(a, x, &nnls.Options{Warm: prev.Support})
		require.NoError(t, err)
		require.True(t, cold.Support.Equal(warm.Support))
		for i := range cold.S.Data {
			require.InDelta(t, cold.S.Data[i], warm.S.Data[i], 1e-12)
		}
		changed := prev.Support.Changed(cold.Support)
		t.Logf("drift %g: %d of %d supports changed; iterations cold %d, warm %d", drift, changed, x.Cols, cold.Stats.Iterations, warm.Stats.Iterations)
		require.LessOrEqual(t, warm.Stats.Iterations, cold.Stats.Iterations)
		if changed == 0 {
			require.Equal(t, x.Cols, warm.Stats.Iterations, "an unchanged support needs one iteration per column")
		}
	}
	// Warm from the exact support: one iteration per column.
	a, x := uniform(16, 50, 8, 60)
	r, err := nnls.Solve(a, x, nil)
	require.NoError(t, err)
	again, err := nnls.Solve(a, x, &nnls.Options{Warm: r.Support})
	require.NoError(t, err)
	require.Equal(t, x.Cols, again.Stats.Iterations)
	require.Equal(t, r.S.Data, again.S.Data)
}

func TestInputErrors(t *testing.T) {
	a, x := uniform(16, 6, 3, 4)
	nan := x.Clone()
	nan.Set(1, 1, math.NaN())
	inf := a.Clone()
	inf.Set(0, 2, math.Inf(-1))
	huge := a.Clone() // column 1's norm overflows though every entry is finite
	for r := 0; r < huge.Rows; r++ {
		huge.Set(r, 1, math.MaxFloat64/2)
	}
	tiny := a.Clone() // S = x/a overflows
	tensor.Scale(tiny, 1e-300, tiny)
	big := x.Clone()
	tensor.Scale(big, 1e300, big)
	cases := []struct {
		name   string
		a, x   *tensor.Dense
		opt    *nnls.Options
		target error
		msg    string
	}{
		{"nan-X", a, nan, nil, tensor.ErrNotFinite, "X: not finite: entry (1, 1)"},
		{"nan-X-zero-A", tensor.New(6, 3), nan, nil, tensor.ErrNotFinite, "X: not finite: entry (1, 1)"},
		{"inf-A", inf, x, nil, tensor.ErrNotFinite, "A: not finite: entry (0, 2)"},
		{"empty-X", a, tensor.New(6, 0), nil, tensor.ErrEmpty, "X: empty"},
		{"empty-A", tensor.New(6, 0), x, nil, tensor.ErrEmpty, "A: empty"},
		{"rows-differ", a, tensor.New(5, 4), nil, tensor.ErrShape, "A is 6×3 and X is 5×4"},
		{"column-norm-overflows", huge, x, nil, nil, "column 1 is too large"},
		{"S-overflows", tiny, big, nil, nil, "S overflows float64"},
		{"warm-shape", a, x, &nnls.Options{Warm: nnls.NewSupport(3, 5)}, tensor.ErrShape, "warm-start support is 3×5"},
		{"negative-tol", a, x, &nnls.Options{Tol: -1}, nil, "Options.Tol"},
		{"nan-tol", a, x, &nnls.Options{Tol: math.NaN()}, nil, "Options.Tol"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := nnls.Solve(tc.a, tc.x, tc.opt)
			require.Error(t, err)
			require.Nil(t, res)
			require.Contains(t, err.Error(), tc.msg)
			if tc.target != nil {
				require.True(t, errors.Is(err, tc.target), "%v", err)
			}
		})
	}
}

func TestAllocationsIndependentOfM(t *testing.T) {
	counts := map[int][2]float64{}
	for _, m := range []int{256, 4096} {
		a, x := uniform(18, 300, 20, m)
		opt := &nnls.Options{Workers: 2}
		res, err := nnls.Solve(a, x, opt)
		require.NoError(t, err)
		gs := tensor.Uniform(20, m, -1, 1, tensor.NewRand(19))
		ga, gx := tensor.New(300, 20), tensor.New(300, m)
		fwd := testing.AllocsPerRun(10, func() { _, _ = nnls.Solve(a, x, opt) })
		bwd := testing.AllocsPerRun(10, func() { _ = res.Backward(a, x, gs, ga, gx, 2) })
		counts[m] = [2]float64{fwd, bwd}
	}
	t.Logf("allocations (forward, backward) by M: %v", counts)
	// The products take their packing buffers from internal/gemm's
	// sync.Pool, which allocates a new one now and then (after a GC, or
	// when the goroutines land on other Ps than the pooled buffers): allow
	// one per run on average, far below the 16-fold growth of M.
	for i := range 2 {
		require.InDelta(t, counts[256][i], counts[4096][i], 1, "part %d", i)
	}
}

// With MaxIter 1 every column whose seed support is wrong falls back to
// Lawson–Hanson, so this exercises the fallback; it must give the same
// solution.
func TestLawsonHansonFallback(t *testing.T) {
	for _, build := range []func() (*tensor.Dense, *tensor.Dense){
		func() (*tensor.Dense, *tensor.Dense) { return uniform(21, 40, 10, 80) },
		func() (*tensor.Dense, *tensor.Dense) { return sparseSolution(22, 60, 12, 80) },
	} {
		a, x := build()
		ref, err := nnls.Solve(a, x, nil)
		require.NoError(t, err)
		res, err := nnls.Solve(a, x, &nnls.Options{MaxIter: 1})
		require.NoError(t, err)
		require.Greater(t, res.Stats.Fallbacks, 0, "the test must reach the fallback")
		require.True(t, ref.Support.Equal(res.Support))
		for i := range ref.S.Data {
			require.InDelta(t, ref.S.Data[i], res.S.Data[i], 1e-12)
		}
		require.LessOrEqual(t, kktViolation(a, x, res.S), kktTol)
		t.Logf("%d of %d columns by Lawson–Hanson", res.Stats.Fallbacks, x.Cols)
	}
}

// Solve recycles its per-worker workspaces between calls (a sync.Pool). A
// workspace left by a problem of another shape, another conditioning (fast
// path or Lawson–Hanson), or another goroutine must not change an answer:
// every solve below, run interleaved from four goroutines, is bit-identical
// to the same solve run first, alone, and passes the independent KKT check.
func TestRecycledWorkspacesChangeNothing(t *testing.T) {
	type prob struct{ a, x *tensor.Dense }
	var probs []prob
	for i, s := range [][3]int{{90, 9, 87}, {200, 50, 300}, {60, 8, 700}, {40, 3, 5}, {300, 40, 257}} {
		a, x := uniform(uint64(40+i), s[0], s[1], s[2])
		probs = append(probs, prob{a, x})
	}
	a, x := uniform(50, 60, 8, 300) // two nearly parallel columns: Lawson–Hanson
	for r := 0; r < a.Rows; r++ {
		a.Set(r, 3, a.At(r, 2)*(1+1e-9*float64(r%3)))
	}
	probs = append(probs, prob{a, x})
	want := make([]*nnls.Result, len(probs))
	for i, p := range probs {
		res, err := nnls.Solve(p.a, p.x, &nnls.Options{Workers: 2})
		require.NoError(t, err)
		require.Less(t, kktViolation(p.a, p.x, res.S), kktTol, "problem %d", i)
		want[i] = res
	}
	errs := make(chan error, 4)
	for g := range 4 {
		go func() {
			for round := range 3 {
				for j := range probs {
					i := (j + g + round) % len(probs)
					res, err := nnls.Solve(probs[i].a, probs[i].x, &nnls.Options{Workers: 1 + g%2})
					if err == nil && (!slices.Equal(res.S.Data, want[i].S.Data) || res.Stats != want[i].Stats) {
						err = fmt.Errorf("goroutine %d, problem %d: answer or stats differ after recycling", g, i)
					}
					if err != nil {
						errs <- err
						return
					}
				}
			}
			errs <- nil
		}()
	}
	for range 4 {
		require.NoError(t, <-errs)
	}
}

// Solves of different shapes in turn (a Neural NMF epoch solves one shape
// per layer) each find their own recycled workspace: alternating two shapes
// allocates no more than solving each alone.
func TestWorkspacesRecycledAcrossAlternatingShapes(t *testing.T) {
	a1, x1 := uniform(60, 90, 9, 87)
	a2, x2 := uniform(61, 9, 4, 87)
	opt := &nnls.Options{Workers: 1}
	solve := func(a, x *tensor.Dense) {
		_, err := nnls.Solve(a, x, opt)
		require.NoError(t, err)
	}
	one := testing.AllocsPerRun(20, func() { solve(a1, x1) })
	two := testing.AllocsPerRun(20, func() { solve(a2, x2) })
	both := testing.AllocsPerRun(20, func() { solve(a1, x1); solve(a2, x2) })
	t.Logf("allocations per solve: %v and %v alone, %v alternating", one, two, both)
	require.LessOrEqual(t, both, one+two+1)
}
