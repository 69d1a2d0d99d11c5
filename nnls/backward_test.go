package nnls

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/lapack/lapack64"

	"github.com/neuralnmf/neuralnmf/tensor"
)

// gaussian returns an r×c matrix of standard normal entries, drawn in
// row-major order.
func gaussian(r, c int, rng *rand.Rand) *tensor.Dense {
	d := tensor.New(r, c)
	for i := range d.Data {
		d.Data[i] = rng.NormFloat64()
	}
	return d
}

// withCond returns an n×k matrix U·diag(σ)·Vᵀ with σ log-spaced from 1 to
// 1/cond and random orthonormal U, V: the thin Q factors (Householder,
// LAPACK's Geqrf and Orgqr) of Gaussian matrices, so that a tall n costs
// n·k memory, not n².
func withCond(n, k int, cond float64, rng *rand.Rand) *tensor.Dense {
	orth := func(r, c int) *tensor.Dense {
		g := gaussian(r, c, rng)
		tau := make([]float64, c)
		work := make([]float64, 64*c)
		lapack64.Geqrf(g.RawMatrix(), tau, work, len(work))
		lapack64.Orgqr(g.RawMatrix(), tau, work, len(work))
		return g
	}
	u, v := orth(n, k), orth(k, k)
	for j := 0; j < k; j++ {
		sig := math.Pow(cond, -float64(j)/float64(max(k-1, 1))) // k = 1: one singular value, 1
		for i := 0; i < n; i++ {
			u.Data[i*k+j] *= sig
		}
	}
	return tensor.MatMul(false, true, u, v)
}

// condMatrix is withCond with its own generator, seeded by seed.
func condMatrix(n, k int, cond float64, seed uint64) *tensor.Dense {
	return withCond(n, k, cond, rand.New(rand.NewPCG(seed, 3)))
}

// bigU solves (A_TᵀA_T) u_T = g_T in 256-bit arithmetic.
func bigU(a *tensor.Dense, set []int, g []float64) []float64 {
	const prec = 256
	m := len(set)
	bf := func(v float64) *big.Float { return new(big.Float).SetPrec(prec).SetFloat64(v) }
	G := make([][]*big.Float, m)
	rhs := make([]*big.Float, m)
	for p := 0; p < m; p++ {
		G[p] = make([]*big.Float, m)
		for q := 0; q < m; q++ {
			s := bf(0)
			for r := 0; r < a.Rows; r++ {
				s.Add(s, new(big.Float).SetPrec(prec).Mul(bf(a.At(r, set[p])), bf(a.At(r, set[q]))))
			}
			G[p][q] = s
		}
		rhs[p] = bf(g[p])
	}
	for c := 0; c < m; c++ { // Gaussian elimination (G is SPD: no pivoting)
		for r := c + 1; r < m; r++ {
			f := new(big.Float).SetPrec(prec).Quo(G[r][c], G[c][c])
			for q := c; q < m; q++ {
				G[r][q].Sub(G[r][q], new(big.Float).SetPrec(prec).Mul(f, G[c][q]))
			}
			rhs[r].Sub(rhs[r], new(big.Float).SetPrec(prec).Mul(f, rhs[c]))
		}
	}
	out := make([]float64, m)
	x := make([]*big.Float, m)
	for r := m - 1; r >= 0; r-- {
		s := new(big.Float).SetPrec(prec).Set(rhs[r])
		for q := r + 1; q < m; q++ {
			s.Sub(s, new(big.Float).SetPrec(prec).Mul(G[r][q], x[q]))
		}
		x[r] = s.Quo(s, G[r][r])
		out[r], _ = x[r].Float64()
	}
	return out
}

// U_T = (A_TᵀA_T)⁻¹·g_T, the heart of the backward pass, against a
// 256-bit solve on the same supports: on the trust path with its batched
// full-support columns (cond 10 to 3·10³), the Gram path without H (10⁵)
// and the QR path (10⁷), and, on every problem the Gram path takes, on the
// QR path too (normalQR, forced), with supports both full and partial. The
// bound is ε/rcond² (cond(R)²·ε, rcond the factor's 1-norm estimate): U is
// a solve with A_TᵀA_T, whose condition is cond(A_T)², so that is the order
// a backward-stable method reaches (measured 0.002–0.14 of it). A wrong
// scaling, support or form gives errors of order one.
func TestBackwardUAgainstReference(t *testing.T) {
	for _, cond := range []float64{10, 1e2, 1e3, 3e3, 1e5, 1e7} {
		t.Run(fmt.Sprintf("cond-%.0e", cond), func(t *testing.T) {
			const n, k, m = 40, 8, 60
			a := condMatrix(n, k, cond, uint64(cond))
			rng := tensor.NewRand(uint64(cond))
			s0 := tensor.Uniform(k, m, 0, 1, rng)
			for i := range s0.Data {
				if i%5 == 0 {
					s0.Data[i] = 0
				}
			}
			x := tensor.MatMul(false, false, a, s0)
			for i := range x.Data {
				x.Data[i] += 1e-3 * rng.NormFloat64()
			}
			res, err := Solve(a, x, nil)
			require.NoError(t, err)
			gs := tensor.Uniform(k, m, -1, 1, rng)
			f := res.Factor
			bound := eps / (f.rcond * f.rcond)
			check := func(t *testing.T, u *tensor.Dense) {
				checkU(t, a, res.Support, gs, u, bound, f.trust)
			}
			cb := getChunkBuf(f, 0, 1, m)
			u := tensor.New(k, m)
			require.NoError(t, res.solveUChunk(cb, gs, u, 0, m))
			putChunkBufs([]*chunkBuf{cb})
			check(t, u)
			if f.fast { // the QR path too, on the same well-conditioned problem
				f.fast, f.trust, f.batch = false, false, false
				cb := getChunkBuf(f, 0, 1, m)
				u := tensor.New(k, m)
				require.NoError(t, res.solveUChunk(cb, gs, u, 0, m))
				putChunkBufs([]*chunkBuf{cb})
				check(t, u)
			}
		})
	}
}

// checkU compares every column of u with the 256-bit U on the support of
// sup, requires zeros off it, and requires the cases to have partial
// supports and, when full is set, full ones.
func checkU(t *testing.T, a *tensor.Dense, sup *Support, gs, u *tensor.Dense, bound float64, full bool) {
	t.Helper()
	k, m := u.Rows, u.Cols
	nFull, partial := 0, 0
	for j := 0; j < m; j++ {
		var set []int
		var g []float64
		for i := 0; i < k; i++ {
			if sup.Has(i, j) {
				set = append(set, i)
				g = append(g, gs.At(i, j))
			} else {
				require.Zero(t, u.At(i, j), "U off the support")
			}
		}
		switch len(set) {
		case 0:
			continue
		case k:
			nFull++
		default:
			partial++
		}
		want := bigU(a, set, g)
		var num, den float64
		for p, i := range set {
			d := u.At(i, j) - want[p]
			num += d * d
			den += want[p] * want[p]
		}
		require.LessOrEqual(t, math.Sqrt(num/den), bound, "column %d (support %v)", j, set)
	}
	require.Positive(t, partial, "the case must have partial supports")
	if full {
		require.Positive(t, nFull, "the case must have full supports (the batched path)")
	}
}
