package nnls

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"

	"github.com/neuralnmf/neuralnmf/tensor"
)

// cholSolve (own loops up to smallChol, LAPACK above) solves symmetric
// positive definite systems to the accuracy of gonum's Cholesky solve, and
// refuses a matrix that is not positive definite.
func TestCholSolve(t *testing.T) {
	rng := tensor.NewRand(3)
	for _, n := range []int{1, 2, 3, 9, smallChol, smallChol + 1, 60} {
		b := tensor.Uniform(n+5, n, -1, 1, rng)
		var a mat.SymDense
		a.SymOuterK(1, b.Mat().T())
		rhs := make([]float64, n)
		for i := range rhs {
			rhs[i] = rng.Float64() - 0.5
		}
		sub := make([]float64, n*n)
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				sub[i*n+j] = a.At(i, j)
			}
		}
		z := append([]float64(nil), rhs...)
		require.True(t, cholSolve(sub, n, z, make([]float64, n)), "n=%d", n)
		var ch mat.Cholesky
		require.True(t, ch.Factorize(&a))
		var want mat.VecDense
		require.NoError(t, ch.SolveVecTo(&want, mat.NewVecDense(n, rhs)))
		cond := ch.Cond()
		for i := range z {
			// Both are backward stable: they agree to cond·ε·|x| (×10 for
			// the constants of the two rounding-error bounds).
			require.InDelta(t, want.AtVec(i), z[i], 10*cond*eps*mat.Norm(&want, math.Inf(1)), "n=%d i=%d", n, i)
		}
		// Not positive definite: a negative diagonal after a few steps.
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				sub[i*n+j] = a.At(i, j)
			}
		}
		sub[(n-1)*n+n-1] = -1
		require.False(t, cholSolve(sub, n, z, make([]float64, n)), "n=%d", n)
	}
}
