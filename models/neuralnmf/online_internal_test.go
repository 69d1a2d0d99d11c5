package neuralnmf

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/autograd"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// Repeated HALS sweeps over a fixed model reach its nonnegative minimiser:
// the KKT conditions of min ½tr(A C Aᵀ) − tr(Aᵀ E) over A ≥ 0 hold, with
// the gradient G = AC − E zero (to 1e-10 of E's scale) where A > 0 and
// nonnegative where A = 0. E has negative entries, so some of A must be 0
// and an unprojected solve would fail the check.
func TestSweepReachesTheMinimiser(t *testing.T) {
	rng := tensor.NewRand(4)
	p := tensor.Uniform(5, 40, 0, 1, rng)
	c := tensor.MatMul(false, true, p, p)
	e := tensor.Uniform(30, 5, -1, 2, rng)
	o := &onlineStats{c: c, e: e}
	a := tensor.Uniform(30, 5, 0, 1, rng)
	for range 2000 {
		o.sweep(a, 2)
	}
	g := tensor.MatMul(false, false, a, c)
	zeros := 0
	for i := range a.Data {
		gi := g.Data[i] - e.Data[i]
		if a.Data[i] > 0 {
			require.InDelta(t, 0, gi, 1e-10, "entry %d is positive: its gradient must vanish", i)
		} else {
			zeros++
			require.GreaterOrEqual(t, gi, -1e-10, "entry %d is zero: its gradient must not point inwards", i)
		}
	}
	require.Positive(t, zeros, "the constraint is active somewhere")
	// The split over goroutines does not change a bit.
	b := tensor.Uniform(5000, 5, 0, 1, tensor.NewRand(5))
	o.e = tensor.Uniform(5000, 5, 0, 1, tensor.NewRand(6))
	b1 := b.Clone()
	o.sweep(b, 1)
	o.sweep(b1, 3)
	require.Equal(t, b.Data, b1.Data)
}

// For one layer without supervision, the model's E built from the tape's
// gradient is Σ β^age X_b S_bᵀ (what flows through S vanishes at the NNLS
// optimum), and C is Σ β^age S_b S_bᵀ: checked against those sums formed
// directly, with a forgetting factor, for the normalised and plain loss.
func TestStatisticsAreTheSums(t *testing.T) {
	rng := tensor.NewRand(9)
	x := tensor.Uniform(12, 60, 0, 1, rng)
	for _, normalize := range []bool{false, true} {
		cfg := Config{Ranks: []int{3}, Normalize: normalize, BatchSize: 20, Forget: 0.5}.withDefaults()
		a := tensor.Uniform(12, 3, 0.1, 1, rng)
		tr := &trainer{cfg: cfg, a: []*tensor.Dense{a}, tape: autograd.NewTape()}
		tr.online = newOnlineStats(12, 3, 60, cfg.Forget)
		wantC, wantE := tensor.New(3, 3), tensor.New(12, 3)
		beta := math.Pow(0.5, 20.0/60)
		for b := 0; b < 3; b++ {
			cols := []int{b * 20}
			for j := 1; j < 20; j++ {
				cols = append(cols, b*20+j)
			}
			xb := tensor.New(12, 20)
			for i := 0; i < 12; i++ {
				for j, c := range cols {
					xb.Set(i, j, x.At(i, c))
				}
			}
			require.NoError(t, tr.setBatch(batch{x: data{dense: xb}, cols: cols}))
			tr.tape.Reset()
			f, _ := tr.forward(tr.tape)
			loss, _, err := tr.loss(f)
			require.NoError(t, err)
			g, err := tr.tape.Backward(loss)
			require.NoError(t, err)
			tr.addStatistics(f, g.Of(f.A[0]))
			s := f.S[0].Value()
			tensor.Gemm(false, true, 1, s, s, beta, wantC)
			tensor.Gemm(false, true, 1, xb, s, beta, wantE)
		}
		require.InDeltaSlice(t, wantC.Data, tr.online.c.Data, 1e-12)
		require.InDeltaSlice(t, wantE.Data, tr.online.e.Data, 1e-9)
	}
}
