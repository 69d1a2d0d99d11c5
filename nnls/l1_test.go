package nnls

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/tensor"
)

// lassoKKT returns the largest violation of the optimality conditions of
// min over s ≥ 0 of ½‖x − A·s‖² + l1·1ᵀs, column by column, relative to
// ‖a_i‖·‖x_j‖ + l1: the gradient g = Aᵀ(A·s − x) + l1 is 0 where s > 0
// and ≥ 0 where s = 0.
func lassoKKT(a, x, s *tensor.Dense, l1 float64) float64 {
	g := tensor.MatMul(true, false, a, tensor.MatMul(false, false, a, s))
	atx := tensor.MatMul(true, false, a, x)
	worst := 0.0
	for i := 0; i < s.Rows; i++ {
		ai := 0.0
		for r := 0; r < a.Rows; r++ {
			ai = math.Hypot(ai, a.At(r, i))
		}
		for j := 0; j < s.Cols; j++ {
			xj := 0.0
			for r := 0; r < x.Rows; r++ {
				xj = math.Hypot(xj, x.At(r, j))
			}
			gij := g.At(i, j) - atx.At(i, j) + l1
			v := -gij // s = 0: g must be ≥ 0
			if s.At(i, j) > 0 {
				v = math.Abs(gij)
			}
			worst = max(worst, v/(ai*xj+l1))
		}
	}
	return worst
}

// Options.L1 solves the nonnegative lasso: the KKT conditions hold to
// working precision (a solve that dropped the shift, or applied it with the
// wrong sign or scale, violates them by O(1)), the penalty zeroes entries
// that plain NNLS keeps, and the extreme-column and sparse paths agree.
func TestSolveL1(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 4))
	a := gaussian(50, 6, rng)
	for i := range a.Data {
		a.Data[i] = math.Abs(a.Data[i])
	}
	x := tensor.MatMul(false, false, a, gaussian(6, 40, rng))
	for i := range x.Data {
		x.Data[i] = math.Abs(x.Data[i]) + 0.1*rng.Float64()
	}
	plain, err := Solve(a, x, nil)
	require.NoError(t, err)
	zeros := func(s *tensor.Dense) int {
		n := 0
		for _, v := range s.Data {
			if v == 0 {
				n++
			}
		}
		return n
	}
	prev := zeros(plain.S)
	for _, l1 := range []float64{1, 10, 100} {
		res, err := Solve(a, x, &Options{L1: l1, AtX: true})
		require.NoError(t, err)
		require.Zero(t, res.Stats.Uncertified)
		kkt := lassoKKT(a, x, res.S, l1)
		require.Less(t, kkt, 1e-12, "L1 %g", l1)
		z := zeros(res.S)
		require.GreaterOrEqual(t, z, prev, "L1 %g", l1)
		prev = z
		// AᵀX is X's, not the shifted right-hand side's.
		want := tensor.MatMul(true, false, a, x)
		for i, v := range res.AtX.Data {
			require.InDelta(t, want.Data[i], v, 1e-12*math.Abs(want.Data[i])+1e-12)
		}
		sp, err := SolveSparse(a, tensor.SparseFromDense(x), &Options{L1: l1})
		require.NoError(t, err)
		for i, v := range res.S.Data { // QᵀX summed in another order
			require.InDelta(t, v, sp.S.Data[i], 1e-12*(1+v))
		}
		t.Logf("L1 %g: %d of %d entries zero (NNLS %d), KKT %.2g", l1, z, len(res.S.Data), zeros(plain.S), kkt)
	}
	require.Greater(t, prev, zeros(plain.S))

	// Columns of extreme scale are solved in a scaled copy: the shift must
	// scale with them.
	big := x.Clone()
	for i := 0; i < big.Rows; i++ {
		big.Set(i, 0, big.At(i, 0)*0x1p600)
	}
	res, err := Solve(a, big, &Options{L1: 0x1p600})
	require.NoError(t, err)
	ref, err := Solve(a, x, &Options{L1: 1})
	require.NoError(t, err)
	for i := 0; i < res.S.Rows; i++ {
		require.InDelta(t, ref.S.At(i, 0), res.S.At(i, 0)/0x1p600, 1e-12*(1+ref.S.At(i, 0)))
	}

	dep := a.Clone()
	for i := 0; i < dep.Rows; i++ {
		dep.Set(i, 5, dep.At(i, 0))
	}
	_, err = Solve(dep, x, &Options{L1: 1})
	require.ErrorContains(t, err, "Options.L1")
	_, err = Solve(a, x, &Options{L1: math.NaN()})
	require.ErrorContains(t, err, "Options.L1")
}
