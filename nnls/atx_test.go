package nnls

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/tensor"
)

// TestAtX checks Result.AtX against the direct product AᵀX on each path of
// the solver: the fast (Gram) path, an ill-conditioned A (Householder, no
// Gram), dependent and zero columns, A wider than tall, X with extreme
// entries (scaled by powers of two inside the solve) and a sparse X. The
// bound is 64·(k+√N)·ε·‖a_i‖·‖x_j‖ per entry: the column-wise backward
// error of Ã = Q·R (Householder or CholeskyQR2, at most a few (N+k)·ε per
// unit column) plus the products' rounding; a solve that forgot the scaling
// of a column of A or X, or mixed up rows, is off by O(1).
func TestAtX(t *testing.T) {
	type tc struct {
		name string
		a, x *tensor.Dense
	}
	rng := rand.New(rand.NewPCG(5, 8))
	dep := gaussian(60, 6, rng)
	for i := 0; i < dep.Rows; i++ { // column 4 = column 1 + column 2; column 5 zero
		dep.Set(i, 4, dep.At(i, 1)+dep.At(i, 2))
		dep.Set(i, 5, 0)
	}
	extreme := gaussian(40, 30, rng)
	for i := 0; i < extreme.Rows; i++ {
		extreme.Set(i, 3, extreme.At(i, 3)*0x1p600)
		extreme.Set(i, 7, extreme.At(i, 7)*0x1p-600)
	}
	scaled := gaussian(50, 5, rng)
	for i := 0; i < scaled.Rows; i++ {
		scaled.Set(i, 2, scaled.At(i, 2)*1e8)
	}
	cases := []tc{
		{"fast", gaussian(80, 7, rng), gaussian(80, 300, rng)},
		{"column scales", scaled, gaussian(50, 40, rng)},
		{"ill-conditioned", withCond(70, 8, 1e9, rng), gaussian(70, 50, rng)},
		{"dependent and zero columns", dep, gaussian(60, 45, rng)},
		{"wide", gaussian(5, 9, rng), gaussian(5, 20, rng)},
		{"extreme X", gaussian(40, 4, rng), extreme},
	}
	check := func(t *testing.T, a, x, got *tensor.Dense) {
		t.Helper()
		want := tensor.MatMul(true, false, a, x)
		require.Equal(t, a.Cols, got.Rows)
		require.Equal(t, x.Cols, got.Cols)
		bound := 8 * (float64(a.Cols) + math.Sqrt(float64(a.Rows))) * eps
		worst := 0.0
		for i := 0; i < a.Cols; i++ {
			ai := 0.0
			for r := 0; r < a.Rows; r++ {
				ai = math.Hypot(ai, a.At(r, i))
			}
			for j := 0; j < x.Cols; j++ {
				xj := 0.0
				for r := 0; r < x.Rows; r++ {
					xj = math.Hypot(xj, x.At(r, j))
				}
				d := math.Abs(got.At(i, j) - want.At(i, j))
				if ai*xj == 0 {
					require.Zero(t, got.At(i, j), "entry (%d, %d) with a zero column", i, j)
					continue
				}
				worst = max(worst, d/(ai*xj*eps))
				require.LessOrEqual(t, d, bound*ai*xj, "entry (%d, %d): got %v, want %v", i, j, got.At(i, j), want.At(i, j))
			}
		}
		t.Logf("worst error %.1f·ε·‖a_i‖·‖x_j‖ (bound %.0f)", worst, bound/eps)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := Solve(c.a, c.x, &Options{AtX: true})
			require.NoError(t, err)
			check(t, c.a, c.x, res.AtX)
			plain, err := Solve(c.a, c.x, nil)
			require.NoError(t, err)
			require.Nil(t, plain.AtX)
			require.Equal(t, plain.S.Data, res.S.Data, "AtX must not change the solution")
		})
	}
	t.Run("sparse", func(t *testing.T) {
		x := gaussian(90, 60, rng)
		for i := range x.Data {
			if rng.Float64() < 0.8 {
				x.Data[i] = 0
			}
		}
		a := gaussian(90, 6, rng)
		res, err := SolveSparse(a, tensor.SparseFromDense(x), &Options{AtX: true})
		require.NoError(t, err)
		check(t, a, x, res.AtX)
	})
}

// TestBackwardTerm checks that BackwardTerm and BackwardSparseTerm give
// Backward's ∂L/∂A plus c·X·Hᵀ + A·M, and ∂L/∂X unchanged.
func TestBackwardTerm(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 2))
	a, x := gaussian(40, 6, rng), gaussian(40, 70, rng)
	for i := range x.Data {
		if rng.Float64() < 0.5 {
			x.Data[i] = 0
		}
	}
	res, err := Solve(a, x, nil)
	require.NoError(t, err)
	gs, h, mm := gaussian(6, 70, rng), gaussian(6, 70, rng), gaussian(6, 6, rng)
	const c = -1.75
	ga, gx := tensor.New(40, 6), tensor.New(40, 70)
	require.NoError(t, res.Backward(a, x, gs, ga, gx, 0))
	want := tensor.MatMul(false, true, x, h)
	tensor.Scale(want, c, want)
	tensor.AddScaled(want, 1, tensor.MatMul(false, false, a, mm))
	tensor.AddScaled(want, 1, ga)
	term := Term{H: h, C: c, M: mm}
	gaT, gxT := tensor.New(40, 6), tensor.New(40, 70)
	require.NoError(t, res.BackwardTerm(a, x, gs, gaT, gxT, term, 0))
	require.Equal(t, gx.Data, gxT.Data)
	sc := tensor.MaxAbs(want)
	for i, v := range gaT.Data {
		require.InDelta(t, want.Data[i], v, 1e-13*sc, "∂L/∂A entry %d", i)
	}
	gaS := tensor.New(40, 6)
	rs, err := SolveSparse(a, tensor.SparseFromDense(x), nil)
	require.NoError(t, err)
	require.NoError(t, rs.BackwardSparseTerm(a, tensor.SparseFromDense(x), gs, gaS, term, 0))
	for i, v := range gaS.Data {
		require.InDelta(t, want.Data[i], v, 1e-13*sc, "sparse ∂L/∂A entry %d", i)
	}
	require.Error(t, res.BackwardTerm(a, x, gs, gaT, nil, Term{H: tensor.New(5, 70)}, 0), "H of the wrong shape")
	require.Error(t, res.BackwardTerm(a, x, gs, gaT, nil, Term{M: tensor.New(5, 5)}, 0), "M of the wrong shape")
}

// Factor.Gram is AᵀA to rounding, with zero rows and columns for A's zero
// columns, on the fast path and a rank-deficient A.
func TestFactorGram(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 1))
	dep := gaussian(30, 5, rng)
	for i := 0; i < dep.Rows; i++ {
		dep.Set(i, 3, dep.At(i, 0)+dep.At(i, 1))
		dep.Set(i, 4, 0)
	}
	for _, a := range []*tensor.Dense{gaussian(50, 6, rng), dep, withCond(40, 5, 1e8, rng)} {
		f, err := NewFactor(a)
		require.NoError(t, err)
		got := tensor.New(a.Cols, a.Cols)
		f.Gram(got)
		want := tensor.MatMul(true, false, a, a)
		for i := 0; i < a.Cols; i++ {
			for j := 0; j < a.Cols; j++ {
				ni, nj := 0.0, 0.0
				for r := 0; r < a.Rows; r++ {
					ni, nj = math.Hypot(ni, a.At(r, i)), math.Hypot(nj, a.At(r, j))
				}
				require.InDelta(t, want.At(i, j), got.At(i, j), 16*float64(a.Rows+a.Cols)*eps*ni*nj, "(%d, %d)", i, j)
			}
		}
	}
	require.Panics(t, func() { f, _ := NewFactor(gaussian(5, 2, rng)); f.Gram(tensor.New(3, 3)) })
}

// SolveData gives Solve's and SolveSparse's solutions bit for bit (on X with
// extreme columns too, whose scaling the prepared scan must keep), and
// NewData rejects what Solve rejects.
func TestSolveData(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	a, x := gaussian(40, 5, rng), gaussian(40, 60, rng)
	for i := 0; i < x.Rows; i++ {
		x.Set(i, 2, x.At(i, 2)*0x1p700)
	}
	want, err := Solve(a, x, nil)
	require.NoError(t, err)
	d, err := NewData(x)
	require.NoError(t, err)
	require.Equal(t, tensor.SqNorm(x), d.SqNorm())
	require.Same(t, x, d.Dense())
	require.Nil(t, d.Sparse())
	got, err := SolveData(a, d, nil)
	require.NoError(t, err)
	require.Equal(t, want.S.Data, got.S.Data)

	xs := tensor.SparseFromDense(x)
	ds, err := NewSparseData(xs)
	require.NoError(t, err)
	require.Nil(t, ds.Dense())
	gotS, err := SolveData(a, ds, nil)
	require.NoError(t, err)
	wantS, err := SolveSparse(a, xs, nil)
	require.NoError(t, err)
	require.Equal(t, wantS.S.Data, gotS.S.Data)

	x.Set(3, 4, math.NaN())
	_, err = NewData(x)
	require.ErrorIs(t, err, tensor.ErrNotFinite)
	_, err = NewSparseData(tensor.SparseFromDense(x))
	require.ErrorIs(t, err, tensor.ErrNotFinite)
	_, err = NewData(tensor.New(0, 3))
	require.Error(t, err)
}
