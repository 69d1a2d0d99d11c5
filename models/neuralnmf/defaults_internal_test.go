package neuralnmf

import (
	"testing"

	"github.com/neuralnmf/neuralnmf/tensor"
	"github.com/stretchr/testify/require"
)

// resolvedForEntries is resolvedForX for an X known only by its count of
// stored entries: sparse, but not sparse enough for sparseShare's rule
// (its shape is unknown), so the size rules alone decide.
func (c Config) resolvedForEntries(entries int) Config {
	c.sizeStarts(entries, false, 1)
	return c.withDefaults()
}

// Resolved reports the defaults Train applies.
func TestResolved(t *testing.T) {
	r := Config{Ranks: []int{3}}.withDefaults()
	require.Equal(t, HNMFInit, r.Init)
	require.Equal(t, Adam, r.Optimizer)
	require.Equal(t, 0.01, r.LR)
	require.Zero(t, r.InitRestarts, "sized to X by Train")
	require.Zero(t, r.Restarts, "sized to X by Train")
	require.Equal(t, 1000, r.Epochs)
	require.Equal(t, DefaultTol, r.Tol)
	require.Equal(t, DefaultWindow, r.Window)
	a := Config{Ranks: []int{3}, Algorithm1: true}.withDefaults()
	require.Equal(t, GD, a.Optimizer)
	require.Equal(t, 1e-3, a.LR)
	require.Negative(t, a.Tol, "Algorithm 1 runs its epochs unless Tol is set")
	require.Equal(t, 50, Config{Restarts: 3}.withDefaults().BurnIn)
	b := Config{Ranks: []int{3}, BatchSize: 100}.withDefaults()
	require.Equal(t, []int{1, 1}, []int{b.InitRestarts, b.Restarts}, "mini-batch training keeps one start")
}

// The starts are sized to X: the most where a start is cheapest (with two
// restarts), fewer as it grows, one where it is most of the fit; given
// values are kept.
func TestSizedStarts(t *testing.T) {
	for _, tc := range []struct{ entries, k, starts, restarts int }{
		{int(startBudget) / 90, 9, maxSizedStarts, 2},
		{1, 1, maxSizedStarts, 2},
		{int(startBudget/10) / 3, 10, 3, 1},
		{int(startBudget / 10), 10, 1, 1},
		{1_400_000, 10, 1, 1}, // 20 Newsgroups
	} {
		n, r := sizedStarts(tc.entries, tc.k)
		require.Equal(t, []int{tc.starts, tc.restarts}, []int{n, r}, "%d entries, rank %d", tc.entries, tc.k)
		c := Config{Ranks: []int{tc.k}}.resolvedForEntries(tc.entries)
		if float64(tc.entries)*float64(tc.k) >= halsWork {
			// Large X starts by HALS, whose starts of the layers after the
			// first are sized to their input when training starts.
			require.Equal(t, NNDSVDInit, c.Init)
			require.Equal(t, []int{0, tc.restarts}, []int{c.InitRestarts, c.Restarts})
			continue
		}
		require.Equal(t, []int{tc.starts, tc.restarts}, []int{c.InitRestarts, c.Restarts})
	}
	c := Config{Ranks: []int{9}, InitRestarts: 3, Restarts: 1}.resolvedForEntries(100)
	require.Equal(t, []int{3, 1}, []int{c.InitRestarts, c.Restarts})
}

// The defaults follow X's size: from halsWork (entries × rank) the start is
// HALS from NNDSVDa, and from tolWork the tolerance grows with X; below,
// the small-data defaults stand. What the caller sets stands too.
func TestDefaultsSizedToX(t *testing.T) {
	small := Config{Ranks: []int{10}}.resolvedForEntries(10000) // work 1e5
	require.Equal(t, HNMFInit, small.Init)
	require.Equal(t, DefaultTol, small.Tol)
	entries := int(halsWork/10) + 1
	large := Config{Ranks: []int{10, 5}}.resolvedForEntries(entries)
	require.Equal(t, NNDSVDInit, large.Init)
	huge := Config{Ranks: []int{10}}.resolvedForEntries(int(10 * tolWork / 10))
	require.InEpsilon(t, 10*DefaultTol, huge.Tol, 1e-12)
	require.Equal(t, sizedTol(work(int(10*tolWork/10), false, 10)), huge.Tol)
	given := Config{Ranks: []int{10}, Init: HNMFInit, Tol: 1e-3}.resolvedForEntries(1 << 30)
	require.Equal(t, HNMFInit, given.Init)
	require.Equal(t, 1e-3, given.Tol)
	kl := Config{Ranks: []int{10}, Loss: KL}.resolvedForEntries(1 << 30)
	require.NotEqual(t, NNDSVDInit, kl.Init, "the KL start is its own")
	// A supervised fit keeps the defaults it was chosen with.
	sup := Config{Ranks: []int{10}, Supervision: &Supervision{Labels: []int{0, 1}, Classes: 2}}.resolvedForEntries(1 << 30)
	require.Equal(t, HNMFInit, sup.Init)
	require.Equal(t, DefaultTol, sup.Tol)
}

// A one-layer fit of a sparse X (at most sparseShare of its entries
// non-zero) starts by HALS from NNDSVDa at every size; a dense X, a
// sparse-stored X with many non-zeros, a hierarchy, a supervised fit and a
// start the caller gave keep theirs.
func TestOneLayerSparseStartsByHALS(t *testing.T) {
	sparse := func(n, m, nz int) data {
		d := tensor.New(n, m)
		for i := 0; i < nz; i++ {
			d.Data[(i*7919)%(n*m)] = 1 + float64(i%5)
		}
		return data{sparse: tensor.SparseFromDense(d)}
	}
	few := sparse(100, 80, 400) // 5 % non-zero, work far below halsWork
	many := sparse(100, 80, 4000)
	require.InDelta(t, 0.05, few.nonzeroShare(), 1e-12)
	require.InDelta(t, 0.5, many.nonzeroShare(), 1e-12)
	dense := data{dense: tensor.Uniform(100, 80, 0, 1, tensor.NewRand(1))}
	require.Equal(t, 1.0, dense.nonzeroShare())
	for _, tc := range []struct {
		name string
		cfg  Config
		x    data
		want Init
	}{
		{"one layer, sparse", Config{Ranks: []int{5}}, few, NNDSVDInit},
		{"one layer, sparse-stored but half non-zero", Config{Ranks: []int{5}}, many, HNMFInit},
		{"one layer, dense", Config{Ranks: []int{5}}, dense, HNMFInit},
		{"two layers, sparse", Config{Ranks: []int{5, 2}}, few, HNMFInit},
		{"supervised", Config{Ranks: []int{5}, Supervision: &Supervision{Labels: make([]int, 80), Classes: 2}}, few, HNMFInit},
		{"given", Config{Ranks: []int{5}, Init: HNMFInit}, few, HNMFInit},
		{"KL", Config{Ranks: []int{5}, Loss: KL}, few, DefaultInit},
	} {
		got := tc.cfg.resolvedForX(tc.x).Init
		if tc.want == DefaultInit { // the loss's own start, whatever it resolves to
			require.NotEqual(t, NNDSVDInit, got, tc.name)
			continue
		}
		require.Equal(t, tc.want, got, tc.name)
	}
}
