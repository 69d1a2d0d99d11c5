package nnls

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/tensor"
)

// sparseRandom returns an n×m sparse matrix with about density·n·m
// nonzeros in (0, 1], with its first row and its last column empty.
func sparseRandom(n, m int, density float64, rng *rand.Rand) *tensor.Sparse {
	var e []tensor.Entry
	for r := 1; r < n; r++ {
		for j := 0; j < m-1; j++ {
			if rng.Float64() < density {
				e = append(e, tensor.Entry{Row: r, Col: j, Val: 1 - rng.Float64()})
			}
		}
	}
	s, err := tensor.NewSparse(n, m, e)
	if err != nil {
		panic(err)
	}
	return s
}

// TestFusedQtX checks the factorisation that forms Q₁ᵀX for a sparse X
// (cholQR2 with X, fusedQtX) against the one that keeps Q₁: R and Q₂'s
// factor are the same bit for bit, Q₁ᵀX agrees with Q₁ᵀX by columns
// (Sparse.MulTA of the kept Q₁) to within the rounding bound of two sums
// of the same terms in different orders, 2·γ_s·Σ|q_ri·x_rj| with s the
// column's nonzeros, and the result does not depend on the number of
// workers.
func TestFusedQtX(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, c := range []struct {
		n, k, m int
		density float64
	}{
		{2048, 3, 50, 0.02}, {2500, 10, 301, 0.01}, {5000, 31, 97, 0.05}, {9000, 7, 40, 0.002},
	} {
		t.Run(fmt.Sprintf("%dx%d_M%d", c.n, c.k, c.m), func(t *testing.T) {
			require.True(t, cholQRShape(c.n, c.k))
			a := tensor.Uniform(c.n, c.k, 0, 1, tensor.NewRand(uint64(c.n)))
			x := sparseRandom(c.n, c.m, c.density, rng)
			ref, err := newFactorX(a, nil, nil, 2)
			require.NoError(t, err)
			require.NotNil(t, ref.q)
			want := make([]float64, ref.kk*c.m)
			x.MulTA(ref.q, 0, c.m, want, c.m)
			absQ := tensor.New(c.n, ref.kk)
			for i, v := range ref.q.Data[:c.n*ref.kk] {
				absQ.Data[i] = math.Abs(v)
			}
			bound := make([]float64, ref.kk*c.m)
			x.MulTA(absQ, 0, c.m, bound, c.m)
			xr := newXRows(x)
			var first []float64
			for _, w := range []int{1, 2, 3, 5} {
				f, err := newFactorX(a, xr, nil, w)
				require.NoError(t, err)
				require.Nil(t, f.q, "Q₁ is not kept")
				require.NotNil(t, f.q1tx)
				require.Equal(t, ref.r, f.r, "R")
				require.Equal(t, ref.qx, f.qx, "R₂⁻¹")
				got := f.q1tx.Data[:ref.kk*c.m]
				if first == nil {
					first = append([]float64(nil), got...)
					for i, v := range got {
						j := i % c.m
						s := float64(x.ColPtr[j+1] - x.ColPtr[j])
						tol := 2 * (s * unitRoundoff / (1 - s*unitRoundoff)) * bound[i]
						require.LessOrEqual(t, math.Abs(v-want[i]), tol, "Q₁ᵀX[%d, %d]", i/c.m, j)
					}
				} else {
					require.Equal(t, first, got, "%d workers", w)
				}
				f.releaseQ()
			}
		})
	}
}

// TestSolveDataFused checks a prepared sparse X's solves: the first is
// SolveSparse's bit for bit, and from the second on (where the
// factorisation forms QᵀX) every column is certified, with the same
// supports and a solution within 1e-12 relative of SolveSparse's; an X with
// extreme entries, a wide A or one past the fusion's size bound is solved
// as before.
func TestSolveDataFused(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	a := tensor.Uniform(3000, 8, 0, 1, tensor.NewRand(5))
	x := sparseRandom(3000, 200, 0.01, rng)
	want, err := SolveSparse(a, x, &Options{AtX: true})
	require.NoError(t, err)
	d, err := NewSparseData(x)
	require.NoError(t, err)
	for call := 1; call <= 3; call++ {
		got, err := SolveData(a, d, &Options{AtX: true})
		require.NoError(t, err)
		require.Zero(t, got.Stats.Uncertified, "call %d", call)
		if call == 1 {
			require.Nil(t, d.xr, "no rows at the first solve")
			require.Equal(t, want.S.Data, got.S.Data)
			continue
		}
		require.NotNil(t, d.xr)
		require.Equal(t, want.Support.Hash(), got.Support.Hash(), "call %d: supports", call)
		scale := tensor.MaxAbs(want.S)
		for i, v := range got.S.Data {
			require.InDelta(t, want.S.Data[i], v, 1e-12*scale, "call %d: S entry %d", call, i)
		}
		for i, v := range got.AtX.Data {
			require.InDelta(t, want.AtX.Data[i], v, 1e-12*tensor.MaxAbs(want.AtX), "call %d: AᵀX entry %d", call, i)
		}
	}

	// Not fused: extreme entries (chunks rescaled before QᵀX).
	xe := sparseRandom(3000, 20, 0.01, rng)
	xe.Val[0] *= 0x1p600
	de, err := NewSparseData(xe)
	require.NoError(t, err)
	for range 2 {
		_, err = SolveData(a, de, nil)
		require.NoError(t, err)
	}
	require.Nil(t, de.xr)
	// Not fused: more than fuseMaxEntries/k columns.
	wide := &Data{data: sparseData{sparseRandom(10, fuseMaxEntries/8+1, 0, rng)}}
	for range 2 {
		xr, xb := wide.prepare(8, 1)
		require.Nil(t, xr)
		require.Nil(t, xb)
	}
}

// TestSolveDataPackedX checks a prepared dense X too large to be read in
// place: from the second solve on it is kept packed for QᵀX, chunks start
// at its strips, and every solve is Solve's bit for bit, on 1 to 3 workers.
func TestSolveDataPackedX(t *testing.T) {
	a := tensor.Uniform(1500, 12, 0, 1, tensor.NewRand(8))
	x := tensor.Uniform(1500, 800, 0, 1, tensor.NewRand(9))
	require.False(t, cholQRShape(1500, 12), "Householder: no preconditioner, so the bits can be compared")
	for _, w := range []int{1, 2, 3} {
		want, err := Solve(a, x, &Options{Workers: w})
		require.NoError(t, err)
		d, err := NewData(x)
		require.NoError(t, err)
		for call := 1; call <= 3; call++ {
			got, err := SolveData(a, d, &Options{Workers: w})
			require.NoError(t, err)
			require.Equal(t, call > 1, d.xb != nil, "%d workers, call %d: X packed", w, call)
			require.Equal(t, want.S.Data, got.S.Data, "%d workers, call %d", w, call)
		}
	}
}
