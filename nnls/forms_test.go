package nnls

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/tensor"
)

// The Schur form (through H = (AᵀA)⁻¹) and the direct form (through G_FF)
// are two exact ways of solving the same subproblems; the solver switches to
// the direct form when AᵀA is ill-conditioned. Both must give the same S and
// the same backward U.
func TestSchurAndDirectFormsAgree(t *testing.T) {
	rng := tensor.NewRand(5)
	a := tensor.Uniform(40, 9, 0, 1, rng)
	x := tensor.Uniform(40, 70, 0, 1, rng)
	gs := tensor.Uniform(9, 70, -1, 1, rng)
	results := map[bool]*Result{}
	us := map[bool]*tensor.Dense{}
	for _, trust := range []bool{true, false} {
		res, err := Solve(a, x, nil)
		require.NoError(t, err)
		require.True(t, res.Gram.trustH, "well-conditioned A must use the Schur form by default")
		res.Gram.trustH = trust
		res2, err := res.Gram.solve(a, mulTA(x, a), columnNorms(x), nil, nil)
		require.NoError(t, err)
		results[trust] = res2
		us[trust], err = res2.solveU(gs, 2)
		require.NoError(t, err)
	}
	require.True(t, results[true].Support.Equal(results[false].Support))
	for i := range results[true].S.Data {
		require.InDelta(t, results[false].S.Data[i], results[true].S.Data[i], 1e-13)
	}
	for i := range us[true].Data {
		require.InDelta(t, us[false].Data[i], us[true].Data[i], 1e-12)
	}
}

func mulTA(x, a *tensor.Dense) *tensor.Dense {
	ct := tensor.New(x.Cols, a.Cols)
	ct.Mat().Mul(x.Mat().T(), a.Mat())
	return ct
}
