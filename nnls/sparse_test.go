package nnls_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/internal/randmat"
	"github.com/neuralnmf/neuralnmf/nnls"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// A sparse X gives the same solution and gradient as its dense copy.
func TestSparseMatchesDense(t *testing.T) {
	rng := tensor.NewRand(31)
	a := tensor.Uniform(200, 8, 0, 1, rng)
	x := randmat.Sparse(200, 150, 0.95, rng)
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
	gs := tensor.Uniform(8, 150, -1, 1, rng)
	gaD, gaS := tensor.New(200, 8), tensor.New(200, 8)
	require.NoError(t, dense.Backward(a, x, gs, gaD, nil, 2))
	require.NoError(t, sp.BackwardSparse(a, xs, gs, gaS, 2))
	for i := range gaD.Data {
		require.InDelta(t, gaD.Data[i], gaS.Data[i], 1e-10)
	}
}
