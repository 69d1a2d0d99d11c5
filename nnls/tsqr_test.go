package nnls

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"

	"github.com/neuralnmf/neuralnmf/tensor"
)

// The blocked QR of a tall Ã is a QR factorisation to working precision,
// however ill-conditioned Ã is: Q has orthonormal columns
// (‖QᵀQ − I‖_max ≤ 20·k·ε), Q·R reproduces Ã (‖Ã − Q·R‖_F ≤ 20·k·ε·‖Ã‖_F;
// Householder QR's bounds are of order n·k·ε, observed values are far
// smaller), R is upper triangular, and the result does not depend on the
// number of workers. Unblocked Householder QR of the same matrix gives the
// same |R_ii| to within 100·cond·k·ε of |R_00| (R is unique up to the
// signs of its rows, and a backward error of ε·‖Ã‖ moves it by up to
// cond·ε).
func TestTSQR(t *testing.T) {
	for _, c := range []struct {
		n, k int
		cond float64
	}{{7000, 40, 1}, {7000, 40, 1e6}, {7000, 40, 1e12}, {9001, 32, 1e3}, {5000, 100, 1e4}, {12000, 64, 1e8}} {
		t.Run(fmt.Sprintf("%dx%d-cond%g", c.n, c.k, c.cond), func(t *testing.T) {
			rows := tsqrRows(c.n, c.k)
			require.Positive(t, rows, "the case must take the blocked path")
			require.Zero(t, tsqrRows(rows*tsqrBlocks-1, c.k), "one row fewer than tsqrBlocks blocks is not blocked")
			require.Zero(t, tsqrRows(c.n, tsqrMinCols-1), "fewer than tsqrMinCols columns are not blocked")
			a := condMatrix(c.n, c.k, c.cond, uint64(c.n+c.k))
			var qs [2]*tensor.Dense
			var rs [2][]float64
			for i, workers := range []int{1, 3} {
				at := a.Clone()
				rs[i] = make([]float64, c.k*c.k)
				tsqr(at, rows, rs[i], workers)
				qs[i] = at
			}
			require.Equal(t, qs[0].Data, qs[1].Data, "Q depends on the number of workers")
			require.Equal(t, rs[0], rs[1], "R depends on the number of workers")
			q, r := qs[0], rs[0]
			k, eps := c.k, 0x1p-52
			checkQRFactors(t, a, q, r, 20*float64(k)*eps)
			var ref mat.QR
			ref.Factorize(a.Mat())
			var rr mat.Dense
			ref.RTo(&rr)
			for i := 0; i < k; i++ {
				got, want := math.Abs(r[i*k+i]), math.Abs(rr.At(i, i))
				require.InDelta(t, want, got, 100*c.cond*float64(k)*eps*math.Abs(rr.At(0, 0)), "|R_%d%d|", i, i)
			}
		})
	}
}
