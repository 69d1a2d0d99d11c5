package neuralnmf_test

import (
	"bytes"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/autograd"
	"github.com/neuralnmf/neuralnmf/internal/randmat"
	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/ops"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// elasticKKT returns the largest violation of the optimality conditions of
// min over S ≥ 0 of ½‖X − A·S‖² + α(ρ·ΣS + ½(1−ρ)‖S‖²), relative to the
// scale of the gradient's terms: on S's support the gradient
// Aᵀ(A·S − X) + α(ρ + (1−ρ)S) is 0, off it at least 0.
func elasticKKT(a, x, s *tensor.Dense, alpha, rho float64) float64 {
	g := tensor.MatMul(true, false, a, tensor.MatMul(false, false, a, s))
	atx := tensor.MatMul(true, false, a, x)
	scale := 0.0
	for i := range g.Data {
		scale = math.Max(scale, math.Abs(atx.Data[i])+math.Abs(g.Data[i])+alpha)
	}
	worst := 0.0
	for i, v := range s.Data {
		gi := g.Data[i] - atx.Data[i] + alpha*(rho+(1-rho)*v)
		if v > 0 {
			worst = math.Max(worst, math.Abs(gi))
		} else {
			worst = math.Max(worst, -gi)
		}
	}
	return worst / scale
}

func zeros(d *tensor.Dense) int {
	n := 0
	for _, v := range d.Data {
		if v == 0 {
			n++
		}
	}
	return n
}

// With AlphaS every layer solves the elastic-net problem (its optimality
// conditions hold to rounding, at α = AlphaS × the layer input's rows),
// its S has more zeros than without, Transform of dense and sparse x give
// the training S again, and the model file keeps the penalty.
func TestElasticNetLayers(t *testing.T) {
	rng := tensor.NewRand(5)
	x := tensor.MatMul(false, false, tensor.Uniform(40, 6, 0, 1, rng), tensor.Uniform(6, 70, 0, 1, rng))
	noise := tensor.Uniform(40, 70, 0, 0.2, rng)
	tensor.AddScaled(x, 1, noise)
	base := neuralnmf.Config{Ranks: []int{6, 3}, Epochs: 30, Seed: 2}
	plain, err := neuralnmf.Train(x, base)
	require.NoError(t, err)
	for _, rho := range []float64{0.5, 1} { // 1: the pure ℓ₁ penalty (nnls.Options.L1)
		pen := base
		pen.AlphaS, pen.L1Ratio = 0.05, rho
		m, err := neuralnmf.Train(x, pen)
		require.NoError(t, err)
		require.Equal(t, 0.05, m.AlphaS)
		in, rows := x, 40
		for l := range m.A {
			require.Less(t, elasticKKT(m.A[l], in, m.S[l], 0.05*float64(rows), rho), 1e-9, "ρ %g, layer %d", rho, l+1)
			require.Greater(t, elasticKKT(m.A[l], in, m.S[l], 0.06*float64(rows), rho), 1e-6, "ρ %g, layer %d: the certificate fails at 6/5 of α", rho, l+1)
			in, rows = m.S[l], m.A[l].Cols
		}
		require.Greater(t, zeros(m.S[0]), zeros(plain.S[0]), "ρ %g: the ℓ₁ part makes S sparser", rho)

		ss, err := m.Transform(x)
		require.NoError(t, err)
		for l := range ss {
			require.InDeltaSlice(t, m.S[l].Data, ss[l].Data, 1e-9, "ρ %g: Transform, layer %d", rho, l+1)
		}
		sp, err := m.Transform(tensor.SparseFromDense(x))
		require.NoError(t, err)
		require.InDeltaSlice(t, ss[1].Data, sp[1].Data, 1e-9, "ρ %g: Transform of sparse x", rho)

		var buf bytes.Buffer
		require.NoError(t, m.Write(&buf))
		back, err := neuralnmf.Read(&buf)
		require.NoError(t, err)
		require.Equal(t, [2]float64{0.05, rho}, [2]float64{back.AlphaS, back.L1Ratio})
		again, err := back.Transform(x)
		require.NoError(t, err)
		require.InDeltaSlice(t, ss[1].Data, again[1].Data, 1e-12)
	}
}

// Train of a sparse X with AlphaS trains the same problems as Train (its first
// layer on the sparse augmented X), and AlphaA shrinks the A's.
func TestElasticNetSparseAndFactorPenalty(t *testing.T) {
	rng := tensor.NewRand(9)
	d := randmat.Sparse(50, 60, 0.7, rng)
	cfg := neuralnmf.Config{Ranks: []int{5}, Epochs: 20, Seed: 3, AlphaS: 0.02, L1Ratio: 0.3}
	dense, err := neuralnmf.Train(d, cfg)
	require.NoError(t, err)
	sparse, err := neuralnmf.Train(tensor.SparseFromDense(d), cfg)
	require.NoError(t, err)
	require.InDelta(t, dense.History.FinalRelError, sparse.History.FinalRelError, 1e-8)
	require.Less(t, elasticKKT(sparse.A[0], d, sparse.S[0], 0.02*50, 0.3), 1e-9)

	cfg.AlphaS = 0
	plain, err := neuralnmf.Train(d, cfg)
	require.NoError(t, err)
	cfg.AlphaA = 0.05
	shrunk, err := neuralnmf.Train(d, cfg)
	require.NoError(t, err)
	require.Less(t, tensor.Sum(shrunk.A[0]), tensor.Sum(plain.A[0]), "AlphaA shrinks A")
}

func TestElasticNetConfigErrors(t *testing.T) {
	x := tensor.Uniform(8, 10, 0, 1, tensor.NewRand(1))
	for _, tc := range []struct {
		name string
		cfg  neuralnmf.Config
		want string
	}{
		{"negative AlphaS", neuralnmf.Config{AlphaS: -1}, "AlphaS is -1"},
		{"NaN AlphaA", neuralnmf.Config{AlphaA: math.NaN()}, "AlphaA is NaN"},
		{"L1Ratio above 1", neuralnmf.Config{L1Ratio: 1.5}, "L1Ratio is 1.5"},
		{"mini-batch", neuralnmf.Config{AlphaA: 0.1, BatchSize: 4}, "not supported with BatchSize"},
		// Issue 50, item 9: not silently ignored.
		{"custom loss", neuralnmf.Config{AlphaA: 0.1, CustomLoss: func(t *autograd.Tape, f *neuralnmf.Forward) *autograd.Var {
			return ops.FrobeniusLoss(f.X, ops.MatMul(f.A[0], f.S[0]))
		}}, "AlphaA is a term of the built-in loss, and CustomLoss replaces it"},
		{"overflowing AlphaS", neuralnmf.Config{AlphaS: 1e150}, "AlphaS is 1e+150: α times the 8 rows of X is 8e+150, above 1e+150"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Ranks = []int{2}
			_, err := neuralnmf.Train(x, tc.cfg)
			require.ErrorIs(t, err, neuralnmf.ErrConfig)
			require.ErrorContains(t, err, tc.want)
		})
	}
	// A pure ℓ₁ penalty on the A's alone is fine: ΣA is smooth on A ≥ 0.
	_, err := neuralnmf.Train(x, neuralnmf.Config{Ranks: []int{2}, Epochs: 3, AlphaA: 0.1, L1Ratio: 1})
	require.NoError(t, err)
}
