package nnls_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/nnls"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// Cosine is a_iᵀa_j/(‖a_i‖‖a_j‖) to 2·k·ε, 0 for a zero column, on A that
// take each factorisation path (Householder, blocked Householder,
// CholeskyQR2), a wide A, and an A with two identical columns.
func TestFactorCosine(t *testing.T) {
	for _, c := range []struct{ n, k int }{{30, 5}, {3, 6}, {3000, 8}, {9000, 40}} {
		t.Run(fmt.Sprintf("%dx%d", c.n, c.k), func(t *testing.T) {
			a := tensor.Uniform(c.n, c.k, 0, 1, tensor.NewRand(uint64(c.n)))
			for r := range c.n {
				a.Set(r, 2, 0)              // a zero column
				a.Set(r, 4, 3*a.At(r, 1))   // a multiple of column 1
				a.Set(r, 0, a.At(r, 0)-0.5) // some negative entries
			}
			f, err := nnls.NewFactor(a)
			require.NoError(t, err)
			g := tensor.MatMul(true, false, a, a)
			for i := range c.k {
				for j := range c.k {
					want := 0.0
					if g.At(i, i) > 0 && g.At(j, j) > 0 {
						want = g.At(i, j) / math.Sqrt(g.At(i, i)*g.At(j, j))
					}
					require.InDelta(t, want, f.Cosine(i, j), 2*float64(c.k)*0x1p-52, "cos(a_%d, a_%d)", i, j)
				}
			}
		})
	}
}
