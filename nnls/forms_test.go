package nnls

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/tensor"
)

// The Schur form (through H = (AᵀA)⁻¹) and the direct form (through G_FF)
// are two exact ways of solving the same subproblems; the solver switches to
// the direct form when A is ill-conditioned. Both must give the same S,
// the same supports and the same gradients.
func TestSchurAndDirectFormsAgree(t *testing.T) {
	rng := tensor.NewRand(5)
	const n, k, m = 40, 9, 70
	a := tensor.Uniform(n, k, 0, 1, rng)
	x := tensor.Uniform(n, m, 0, 1, rng)
	gs := tensor.Uniform(k, m, -1, 1, rng)
	got := twoWays(t, a, x, gs, nil, func(f *Factor, on bool) {
		require.True(t, f.trust, "a well-conditioned A uses the Schur form by default")
		f.trust, f.batch = on, on
	})
	require.True(t, got[0].res.Support.Equal(got[1].res.Support))
	for i := range got[0].res.S.Data {
		require.InDelta(t, got[1].res.S.Data[i], got[0].res.S.Data[i], 1e-13)
	}
	for i := range got[0].ga.Data {
		require.InDelta(t, got[1].ga.Data[i], got[0].ga.Data[i], 1e-11)
	}
	for i := range got[0].gx.Data {
		require.InDelta(t, got[1].gx.Data[i], got[0].gx.Data[i], 1e-12)
	}
}

// twoWaysOut is a solution and its gradients for one factor setting.
type twoWaysOut struct {
	res    *Result
	ga, gx *tensor.Dense
}

// twoWays solves for X with A twice, calling set on the fresh factor with
// on = true and then false, and returns both solutions with their ∂L/∂A
// and ∂L/∂X for the upstream gradient gs (two workers).
func twoWays(t *testing.T, a, x, gs *tensor.Dense, opt *Options, set func(f *Factor, on bool)) [2]twoWaysOut {
	var got [2]twoWaysOut
	for i, on := range []bool{true, false} {
		f, err := NewFactor(a)
		require.NoError(t, err)
		set(f, on)
		res, err := f.solve(denseData{x: x}, opt)
		require.NoError(t, err)
		ga, gx := tensor.New(a.Rows, a.Cols), tensor.New(x.Rows, x.Cols)
		require.NoError(t, res.Backward(a, x, gs, ga, gx, 2))
		got[i] = twoWaysOut{res, ga, gx}
	}
	return got
}
