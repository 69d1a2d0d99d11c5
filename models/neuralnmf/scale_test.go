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

// The defaults follow X's size: from HALSWork (entries × rank) the start is
// HALS from NNDSVDa, and from TolWork the tolerance grows with X; below,
// the small-data defaults stand. What the caller sets stands too.
func TestDefaultsSizedToX(t *testing.T) {
	small := neuralnmf.Config{Ranks: []int{10}}.ResolvedFor(10000) // work 1e5
	require.Equal(t, neuralnmf.HNMFInit, small.Init)
	require.Equal(t, neuralnmf.DefaultTol, small.Tol)
	entries := int(neuralnmf.HALSWork/10) + 1
	large := neuralnmf.Config{Ranks: []int{10, 5}}.ResolvedFor(entries)
	require.Equal(t, neuralnmf.NNDSVDInit, large.Init)
	huge := neuralnmf.Config{Ranks: []int{10}}.ResolvedFor(int(10 * neuralnmf.TolWork / 10))
	require.InEpsilon(t, 10*neuralnmf.DefaultTol, huge.Tol, 1e-12)
	require.Equal(t, neuralnmf.SizedTol(int(10*neuralnmf.TolWork/10), 10), huge.Tol)
	given := neuralnmf.Config{Ranks: []int{10}, Init: neuralnmf.HNMFInit, Tol: 1e-3}.ResolvedFor(1 << 30)
	require.Equal(t, neuralnmf.HNMFInit, given.Init)
	require.Equal(t, 1e-3, given.Tol)
	kl := neuralnmf.Config{Ranks: []int{10}, Loss: neuralnmf.KL}.ResolvedFor(1 << 30)
	require.NotEqual(t, neuralnmf.NNDSVDInit, kl.Init, "the KL start is its own")
	// A supervised fit keeps the defaults it was chosen with.
	sup := neuralnmf.Config{Ranks: []int{10}, Supervision: &neuralnmf.Supervision{Labels: []int{0, 1}, Classes: 2}}.ResolvedFor(1 << 30)
	require.Equal(t, neuralnmf.HNMFInit, sup.Init)
	require.Equal(t, neuralnmf.DefaultTol, sup.Tol)
}

// One layer from the HALS start is the fit: Train measures it in one
// epoch and takes no step; the model's S is the exact NNLS solution for
// its A (as Transform computes it), and its error is the start's, which
// no epoch of training lowers by more than rounding (so skipping them
// loses nothing). With Epochs set, training runs as asked.
func TestStartIsTheFit(t *testing.T) {
	x := tensor.SparseFromDense(randmat.Sparse(120, 300, 0.2, tensor.NewRand(5)))
	cfg := neuralnmf.Config{Ranks: []int{6}, Init: neuralnmf.NNDSVDInit}
	require.True(t, cfg.StartIsTheFit(len(x.Val), false))
	m, err := neuralnmf.TrainSparse(x, cfg)
	require.NoError(t, err)
	require.Len(t, m.History.Loss, 1)
	require.True(t, strings.HasPrefix(m.History.Stopped, "the start is the fit"), m.History.Stopped)
	res, err := nnls.SolveSparse(m.A[0], x, nil)
	require.NoError(t, err)
	require.Equal(t, res.S.Data, m.S[0].Data)
	trained, err := neuralnmf.TrainSparse(x, neuralnmf.Config{Ranks: []int{6}, Init: neuralnmf.NNDSVDInit, Epochs: 40, Tol: -1})
	require.NoError(t, err)
	require.Len(t, trained.History.Loss, 40)
	require.InDelta(t, m.History.FinalRelError, trained.History.FinalRelError, 1e-3*m.History.FinalRelError,
		"40 epochs of training move a converged one-layer start by less than 0.1 %")
	for _, c := range []neuralnmf.Config{
		{Ranks: []int{6, 3}, Init: neuralnmf.NNDSVDInit},
		{Ranks: []int{6}, Init: neuralnmf.NNDSVDInit, Epochs: 5},
		{Ranks: []int{6}, Init: neuralnmf.NNDSVDInit, AlphaS: 1e-3},
		{Ranks: []int{6}, Init: neuralnmf.HNMFInit},
	} {
		require.False(t, c.StartIsTheFit(len(x.Val), false), "%+v", c)
	}
	require.False(t, math.IsNaN(m.History.FinalRelError))
}
