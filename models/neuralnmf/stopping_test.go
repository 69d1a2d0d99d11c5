package neuralnmf_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/autograd"
	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/ops"
	"github.com/neuralnmf/neuralnmf/optim"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// Algorithm1 is the paper's Algorithm 1 as written: A ← max(0, A − η∇A)
// with the fixed (decayed) step, every epoch, whatever the loss does. The
// trainer's A's must equal the same steps written out by hand on the tape,
// from the same start, to rounding.
func TestAlgorithm1IsFixedStepProjectedGD(t *testing.T) {
	rng := tensor.NewRand(5)
	x := tensor.Uniform(14, 12, 0, 1, rng)
	a0 := tensor.Uniform(14, 4, 0, 1, rng)
	a1 := tensor.Uniform(4, 2, 0, 1, rng)
	const lr, epochs = 0.05, 6 // epochs−1 steps; large enough that A's entries hit zero
	decay := optim.StepDecay{Every: 2, Factor: 0.5}
	m, err := neuralnmf.Train(x, neuralnmf.Config{Ranks: []int{4, 2}, Init: neuralnmf.GivenInit, InitA: []*tensor.Dense{a0, a1},
		Algorithm1: true, LR: lr, Decay: decay, Epochs: epochs})
	require.NoError(t, err)
	require.Len(t, m.History.Loss, epochs, "Algorithm 1 runs every epoch: no tolerance unless one is set")
	require.True(t, strings.HasPrefix(m.History.Stopped, "max epochs"), m.History.Stopped)
	require.Zero(t, m.History.Backtracks)

	a := []*tensor.Dense{a0.Clone(), a1.Clone()}
	clipped := 0
	for step := 0; step < epochs-1; step++ {
		tape := autograd.NewTape()
		p0, p1 := tape.Param(a[0]), tape.Param(a[1])
		xv := tape.Const(x)
		s0, _ := ops.NNLS(p0, xv, nil)
		s1, _ := ops.NNLS(p1, s0, nil)
		loss := ops.FrobeniusLoss(xv, ops.MatMul(p0, ops.MatMul(p1, s1)))
		require.InDelta(t, loss.Value().Data[0], m.History.Loss[step], 1e-10*loss.Value().Data[0], "loss of epoch %d", step+1)
		g, err := tape.Backward(loss)
		require.NoError(t, err)
		eta := lr
		for k := 0; k < step/decay.Every; k++ {
			eta *= decay.Factor
		}
		for l, p := range []*autograd.Var{p0, p1} {
			next := tensor.New(a[l].Rows, a[l].Cols)
			for i, v := range a[l].Data {
				next.Data[i] = v - eta*g.Of(p).Data[i]
				if next.Data[i] < 0 {
					next.Data[i] = 0
					clipped++
				}
			}
			a[l] = next
		}
	}
	require.Positive(t, clipped, "the steps must exercise the projection")
	for l := range a {
		for i, v := range a[l].Data {
			require.InDelta(t, v, m.A[l].Data[i], 1e-10, "A%d entry %d", l, i)
		}
	}
}

func TestAlgorithm1Errors(t *testing.T) {
	x := tensor.Uniform(8, 6, 0, 1, tensor.NewRand(1))
	_, err := neuralnmf.Train(x, neuralnmf.Config{Ranks: []int{2}, Algorithm1: true, Optimizer: neuralnmf.Adam})
	require.ErrorIs(t, err, neuralnmf.ErrConfig)
	require.ErrorContains(t, err, "Algorithm1 is projected gradient descent")
}

// Without the safeguard, a step that raises the loss is kept, as
// Algorithm 1 is written; the default training undoes it.
func TestAlgorithm1KeepsAStepThatRaisesTheLoss(t *testing.T) {
	x := tensor.Uniform(8, 6, 0, 1, tensor.NewRand(1))
	cfg := neuralnmf.Config{Ranks: []int{2}, Init: neuralnmf.RandomInit, Optimizer: neuralnmf.GD, LR: 1e100, Epochs: 5}
	cfg.Algorithm1 = true
	m, err := neuralnmf.Train(x, cfg)
	require.NoError(t, err)
	h := m.History
	require.Greater(t, h.Loss[1], h.Loss[0], "the huge step raised the loss and was kept")
	require.Zero(t, h.Backtracks)
	cfg.Algorithm1 = false
	m, err = neuralnmf.Train(x, cfg)
	require.NoError(t, err)
	for i := 1; i < len(m.History.Loss); i++ {
		require.LessOrEqual(t, m.History.Loss[i], m.History.Loss[0], "the safeguard keeps no step above the start")
	}
	require.Positive(t, m.History.Backtracks)
}

// The stopping rule stops at the first epoch where the loss fell by at
// most Tol (relative) over Window epochs, and says so with the numbers;
// at the cap it says the loss was still falling.
func TestStoppingRule(t *testing.T) {
	x := tensor.Uniform(30, 25, 0, 1, tensor.NewRand(1))
	for _, tc := range []struct {
		tol    float64
		window int
	}{{1e-2, 3}, {1e-3, 10}, {3e-3, 5}} {
		t.Run(fmt.Sprintf("tol %g window %d", tc.tol, tc.window), func(t *testing.T) {
			var reported []float64
			m, err := neuralnmf.Train(x, neuralnmf.Config{Ranks: []int{5, 3}, Init: neuralnmf.RandomInit, Restarts: 1, Optimizer: neuralnmf.GD, LR: 1e-3, Tol: tc.tol, Window: tc.window, Epochs: 2000, Seed: 2,
				Progress: func(e neuralnmf.Epoch) { reported = append(reported, e.Decrease) }})
			require.NoError(t, err)
			h := m.History
			n, w := len(h.Loss), tc.window
			require.Greater(t, n, w)
			require.Less(t, n, 2000, "the rule must stop this run before the cap")
			dec := func(e int) float64 { return (h.Loss[e-w] - h.Loss[e]) / h.Loss[e-w] }
			require.LessOrEqual(t, dec(n-1), tc.tol, "stopped although the loss fell more than tol")
			for e := w; e < n-1; e++ {
				require.Greater(t, dec(e), tc.tol, "epoch %d already met the rule", e+1)
			}
			require.Equal(t, fmt.Sprintf("converged: relative decrease %.2g over %d epochs ≤ tol %g", dec(n-1), w, tc.tol), h.Stopped)
			require.Len(t, reported, n)
			require.True(t, math.IsNaN(reported[w-1]), "no decrease before Window+1 epochs")
			require.Equal(t, dec(n-1), reported[n-1], "Epoch.Decrease is the rule's own number")
		})
	}
	m, err := neuralnmf.Train(x, neuralnmf.Config{Ranks: []int{5, 3}, Init: neuralnmf.RandomInit, Restarts: 1, Optimizer: neuralnmf.GD, LR: 1e-3, Tol: 1e-9, Window: 3, Epochs: 20, Seed: 2})
	require.NoError(t, err)
	require.Len(t, m.History.Loss, 20)
	require.True(t, strings.HasPrefix(m.History.Stopped, "max epochs: stopped at the cap of 20 epochs while the loss still fell "), m.History.Stopped)
	require.True(t, strings.HasSuffix(m.History.Stopped, "over 3 epochs > tol 1e-09"), m.History.Stopped)
}

// The NNDSVD start is deterministic and gives a model no worse than its
// own start (training only accepts steps that lower the loss).
func TestNNDSVDInit(t *testing.T) {
	x := tensor.Uniform(40, 30, 0, 1, tensor.NewRand(3))
	cfg := neuralnmf.Config{Ranks: []int{6, 3}, Init: neuralnmf.NNDSVDInit, Seed: 4}
	m1, err := neuralnmf.Train(x, cfg)
	require.NoError(t, err)
	m2, err := neuralnmf.Train(x, cfg)
	require.NoError(t, err)
	require.Equal(t, m1.A[0].Data, m2.A[0].Data)
	h := m1.History.RelError
	require.LessOrEqual(t, h[len(h)-1], h[0])
	_, err = neuralnmf.Train(x, neuralnmf.Config{Ranks: []int{35}, Init: neuralnmf.NNDSVDInit})
	require.True(t, errors.Is(err, neuralnmf.ErrConfig))
	require.ErrorContains(t, err, "which Init nndsvd factorises")
}

// A run the stopping rule ends because the loss rose (Algorithm 1 keeps
// every step) says so; it is not called converged.
func TestStoppedOnRisingLoss(t *testing.T) {
	x := tensor.Uniform(30, 400, 0, 1, tensor.NewRand(1))
	m, err := neuralnmf.Train(x, neuralnmf.Config{Ranks: []int{5, 3}, Algorithm1: true, LR: 0.1, Seed: 1, Tol: 1e-4, Window: 1, Epochs: 200})
	require.NoError(t, err)
	h := m.History
	n := len(h.Loss)
	require.Greater(t, h.Loss[n-1], h.Loss[n-2], "the setting must make the loss rise")
	require.True(t, strings.HasPrefix(h.Stopped, "loss rising: it rose by "), h.Stopped)
	require.NotContains(t, h.Stopped, "converged")
}
