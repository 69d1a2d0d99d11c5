package nnls_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/internal/randmat"
	"github.com/neuralnmf/neuralnmf/nnls"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// A sparse X gives the same solution and gradient as its dense copy, and
// both solutions pass the KKT check computed from A itself, also for an A
// tall and narrow enough for CholeskyQR2 (3000×10).
func TestSparseMatchesDense(t *testing.T) {
	for _, c := range []struct{ n, k, m int }{{200, 8, 150}, {3000, 10, 120}} {
		rng := tensor.NewRand(31)
		a := tensor.Uniform(c.n, c.k, 0, 1, rng)
		x := randmat.Sparse(c.n, c.m, 0.95, rng)
		for r := 0; r < x.Rows; r++ { // and an all-zero column
			x.Set(r, 7, 0)
		}
		xs := tensor.SparseFromDense(x)
		dense, err := nnls.Solve(a, x, nil)
		require.NoError(t, err)
		sp, err := nnls.SolveSparse(a, xs, nil)
		require.NoError(t, err)
		require.True(t, dense.Support.Equal(sp.Support))
		for i := range dense.S.Data {
			require.InDelta(t, dense.S.Data[i], sp.S.Data[i], 1e-12)
		}
		require.LessOrEqual(t, kktViolation(a, x, sp.S), kktTol)
		require.LessOrEqual(t, kktViolation(a, x, dense.S), kktTol)
		gs := tensor.Uniform(c.k, c.m, -1, 1, rng)
		gaD, gaS := tensor.New(c.n, c.k), tensor.New(c.n, c.k)
		require.NoError(t, dense.Backward(a, x, gs, gaD, nil, 2))
		require.NoError(t, sp.BackwardSparse(a, xs, gs, gaS, 2))
		for i := range gaD.Data {
			require.InDelta(t, gaD.Data[i], gaS.Data[i], 1e-10)
		}
	}
}

// ∂L/∂A for a sparse X is bit-identical whatever the number of workers:
// each row of X·Uᵀ is summed over its own nonzeros in order (before, each
// worker kept a partial N×k sum over whichever column chunks it happened to
// take, and the partials were added in worker order).
func TestBackwardSparseDeterministicAcrossWorkers(t *testing.T) {
	rng := tensor.NewRand(33)
	a := tensor.Uniform(3000, 10, 0, 1, rng)
	xs := tensor.SparseFromDense(randmat.Sparse(3000, 1000, 0.98, rng))
	res, err := nnls.SolveSparse(a, xs, nil)
	require.NoError(t, err)
	gs := tensor.Uniform(10, 1000, -1, 1, rng)
	ref := tensor.New(3000, 10)
	require.NoError(t, res.BackwardSparse(a, xs, gs, ref, 1))
	for _, w := range []int{2, 3, 8} {
		for range 3 {
			ga := tensor.New(3000, 10)
			require.NoError(t, res.BackwardSparse(a, xs, gs, ga, w))
			require.Equal(t, ref.Data, ga.Data, "workers=%d", w)
		}
	}
}

// The same for a dense X, ∂L/∂A and ∂L/∂X.
func TestBackwardDeterministicAcrossWorkers(t *testing.T) {
	rng := tensor.NewRand(34)
	a, x := tensor.Uniform(400, 12, 0, 1, rng), tensor.Uniform(400, 3000, 0, 1, rng)
	res, err := nnls.Solve(a, x, nil)
	require.NoError(t, err)
	gs := tensor.Uniform(12, 3000, -1, 1, rng)
	refA, refX := tensor.New(400, 12), tensor.New(400, 3000)
	require.NoError(t, res.Backward(a, x, gs, refA, refX, 1))
	for _, w := range []int{2, 3, 8} {
		for range 3 {
			ga, gx := tensor.New(400, 12), tensor.New(400, 3000)
			require.NoError(t, res.Backward(a, x, gs, ga, gx, w))
			require.Equal(t, refA.Data, ga.Data, "∂A, workers=%d", w)
			require.Equal(t, refX.Data, gx.Data, "∂X, workers=%d", w)
		}
	}
}
