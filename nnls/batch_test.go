package nnls

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/tensor"
)

// coneProblem returns A (n×k, uniform) and X = A·S + noise·U with S uniform
// in [0, 1) except a fraction zero of its entries set to zero, and U uniform
// in [0, 1): with small noise and no zeros, almost every column's solution
// has a full support.
func coneProblem(seed uint64, n, k, m int, zero, noise float64) (*tensor.Dense, *tensor.Dense) {
	rng := tensor.NewRand(seed)
	a := tensor.Uniform(n, k, 0, 1, rng)
	s := tensor.Uniform(k, m, 0, 1, rng)
	for i := range s.Data {
		if rng.Float64() < zero {
			s.Data[i] = 0
		}
	}
	x := tensor.MatMul(false, false, a, s)
	for i := range x.Data {
		x.Data[i] += noise * rng.Float64()
	}
	return a, x
}

// The columns with a full support are solved together (solveFull, uFull)
// by matrix products over the chunk; every other column, and every column
// when f.batch is off, one by one. Both must give the same supports, the
// same S and the same gradients up to the rounding of a different
// summation order, on problems that send many columns each way: mostly full
// supports, mixed supports, a zero column of A (kk < k), more than 64
// columns (two words of support per column), extreme scales of X (the
// power-of-two column scaling) and a warm start.
func TestBatchMatchesColumnByColumn(t *testing.T) {
	type tc struct {
		name        string
		n, k, m     int
		zero, noise float64
		scale       float64 // X is multiplied by it
		zeroCol     int     // column of A set to zero, or −1
		warm        bool
		minFull     float64 // fraction of full supports the case must have
	}
	cases := []tc{
		{"full", 60, 12, 500, 0, 0.01, 1, -1, false, 0.9},
		{"mixed", 50, 9, 300, 0.15, 0.01, 1, -1, false, 0.1},
		{"one-column", 30, 1, 200, 0.2, 0.01, 1, -1, false, 0.5},
		{"zero-column-of-A", 60, 10, 300, 0, 0.01, 1, 4, false, 0.9},
		{"k>64", 200, 70, 150, 0, 0.001, 1, -1, false, 0.5},
		{"huge-X", 60, 12, 300, 0, 0.01, 0x1p900, -1, false, 0.9},
		{"tiny-X", 60, 12, 300, 0, 0.01, 0x1p-900, -1, false, 0.9},
		{"warm", 60, 12, 500, 0.05, 0.01, 1, -1, true, 0.3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, x := coneProblem(uint64(len(c.name)), c.n, c.k, c.m, c.zero, c.noise)
			if c.zeroCol >= 0 {
				for r := 0; r < c.n; r++ {
					a.Set(r, c.zeroCol, 0)
				}
			}
			tensor.Scale(x, c.scale, x)
			var opt *Options
			if c.warm {
				prev, err := Solve(a, x, nil)
				require.NoError(t, err)
				opt = &Options{Warm: prev.Support}
				for i := range a.Data {
					a.Data[i] *= 1 + 1e-3*math.Sin(float64(i))
				}
			}
			gs := tensor.Uniform(c.k, c.m, -1, 1, tensor.NewRand(9))
			got := twoWays(t, a, x, gs, opt, func(f *Factor, on bool) {
				require.True(t, f.batch, "a well-conditioned A is batched by default")
				f.batch = on
			})
			b, o := got[0].res, got[1].res
			full := 0
			for j := 0; j < c.m; j++ {
				if b.Support.Count(j) == b.Factor.kk {
					full++
				}
			}
			require.GreaterOrEqual(t, float64(full), c.minFull*float64(c.m), "full supports: the case must exercise the batch")
			require.True(t, b.Support.Equal(o.Support), "supports")
			require.Equal(t, o.Stats, b.Stats)
			require.Equal(t, o.Uncertified, b.Uncertified)
			for j := 0; j < c.m; j++ {
				var mx float64
				for i := 0; i < c.k; i++ {
					mx = math.Max(mx, math.Abs(o.S.At(i, j)))
				}
				for i := 0; i < c.k; i++ {
					require.LessOrEqual(t, math.Abs(b.S.At(i, j)-o.S.At(i, j)), 1e-13*mx, "S[%d,%d]", i, j)
				}
			}
			for _, g := range []struct {
				name   string
				b, o   *tensor.Dense
				relTol float64
			}{{"∂L/∂A", got[0].ga, got[1].ga, 1e-12}, {"∂L/∂X", got[0].gx, got[1].gx, 1e-12}} {
				diff := g.b.Clone()
				tensor.Sub(diff, diff, g.o)
				require.LessOrEqual(t, tensor.Norm(diff), g.relTol*tensor.Norm(g.o), g.name)
			}
		})
	}
}

// A column's batched solution does not depend on which columns share its
// chunk, so S and both gradients are bit-identical for any worker count on
// a problem whose columns are mostly batched.
func TestBatchDeterministicAcrossWorkers(t *testing.T) {
	a, x := coneProblem(21, 80, 15, 1500, 0.02, 0.01)
	gs := tensor.Uniform(15, 1500, -1, 1, tensor.NewRand(22))
	ref, err := Solve(a, x, &Options{Workers: 1})
	require.NoError(t, err)
	refA, refX := tensor.New(80, 15), tensor.New(80, 1500)
	require.NoError(t, ref.Backward(a, x, gs, refA, refX, 1))
	for _, w := range []int{2, 3, 7} {
		t.Run(fmt.Sprint(w), func(t *testing.T) {
			res, err := Solve(a, x, &Options{Workers: w})
			require.NoError(t, err)
			require.Equal(t, ref.S.Data, res.S.Data)
			require.True(t, ref.Support.Equal(res.Support))
			ga, gx := tensor.New(80, 15), tensor.New(80, 1500)
			require.NoError(t, res.Backward(a, x, gs, ga, gx, w))
			require.Equal(t, refA.Data, ga.Data)
			require.Equal(t, refX.Data, gx.Data)
		})
	}
}

// fullSupport against its definition, for k at and around word boundaries,
// with every index and with a subset (A with zero columns).
func TestFullSupport(t *testing.T) {
	rng := tensor.NewRand(3)
	for _, k := range []int{1, 9, 63, 64, 65, 128, 130} {
		s := NewSupport(k, 40)
		for j := 0; j < 40; j++ {
			p := []float64{0, 0.5, 0.99, 1}[j%4] // column 3, 7, …: full
			for i := 0; i < k; i++ {
				s.Set(i, j, rng.Float64() < p || p == 1)
			}
		}
		all := make([]int, k)
		for i := range all {
			all[i] = i
		}
		some := all[:0:0]
		for i := 0; i < k; i += 2 {
			some = append(some, i)
		}
		for j := 0; j < 40; j++ {
			for _, cols := range [][]int{all, some} {
				want := true
				for _, i := range cols {
					want = want && s.Has(i, j)
				}
				require.Equal(t, want, fullSupport(s, cols, j), "k=%d j=%d |cols|=%d", k, j, len(cols))
			}
		}
	}
}
