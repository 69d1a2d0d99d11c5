package neuralnmf_test

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/internal/randmat"
	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/nnls"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// One layer from the HALS start is the fit: Train measures it in one
// epoch and takes no step; the model's S is the exact NNLS solution for
// its A (as Transform computes it), and its error is the start's, which
// no epoch of training lowers by more than rounding (so skipping them
// loses nothing). With Epochs set, training runs as asked.
func TestStartIsTheFit(t *testing.T) {
	x := tensor.SparseFromDense(randmat.Sparse(120, 300, 0.2, tensor.NewRand(5)))
	startOnly := func(cfg neuralnmf.Config) (bool, *neuralnmf.Model) {
		var stages []neuralnmf.Stage
		cfg.Phase = func(s neuralnmf.Stage) { stages = append(stages, s) }
		m, err := neuralnmf.Train(x, cfg)
		require.NoError(t, err)
		require.NotEmpty(t, stages)
		for _, s := range stages[1:] {
			require.Equal(t, stages[0].StartOnly, s.StartOnly, "every stage of a fit says the same")
		}
		return stages[0].StartOnly, m
	}
	only, m := startOnly(neuralnmf.Config{Ranks: []int{6}, Init: neuralnmf.NNDSVDInit})
	require.True(t, only, "Phase reports that the start is the fit")
	require.Len(t, m.History.Loss, 1)
	require.True(t, strings.HasPrefix(m.History.Stopped, "the start is the fit"), m.History.Stopped)
	res, err := nnls.SolveSparse(m.A[0], x, nil)
	require.NoError(t, err)
	require.Equal(t, res.S.Data, m.S[0].Data)
	trained, err := neuralnmf.Train(x, neuralnmf.Config{Ranks: []int{6}, Init: neuralnmf.NNDSVDInit, Epochs: 40, Tol: -1})
	require.NoError(t, err)
	require.Len(t, trained.History.Loss, 40)
	require.InDelta(t, m.History.FinalRelError, trained.History.FinalRelError, 1e-3*m.History.FinalRelError,
		"40 epochs of training move a converged one-layer start by less than 0.1 %")
	for _, c := range []neuralnmf.Config{
		{Ranks: []int{6, 3}, Init: neuralnmf.NNDSVDInit, Epochs: 0, Tol: 1e-2},
		{Ranks: []int{6}, Init: neuralnmf.NNDSVDInit, Epochs: 5},
		{Ranks: []int{6}, Init: neuralnmf.NNDSVDInit, AlphaS: 1e-3, Tol: 1e-2},
		{Ranks: []int{6}, Init: neuralnmf.HNMFInit, Tol: 1e-2},
	} {
		only, _ := startOnly(c)
		require.False(t, only, "%+v", c)
	}
	require.False(t, math.IsNaN(m.History.FinalRelError))
}
