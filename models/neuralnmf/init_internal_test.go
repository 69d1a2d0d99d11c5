package neuralnmf

import (
	"cmp"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/models/ssnmf"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// HNMFBestInit starts from whichever of HNMF by multiplicative updates and
// HNMF by HALS (same seed, same starts) has the lower error through the
// hierarchy, computed here from ssnmf directly. The table holds data where
// each of the two wins, so a start that always took one side fails.
func TestBestInitKeepsTheLowerError(t *testing.T) {
	winners := map[string]int{}
	for _, tc := range []struct {
		name  string
		x     *tensor.Dense
		ranks []int
	}{
		{"planted 2 layers", planted(60, 80, []int{6, 3}, 0.2, 1), []int{6, 3}},
		{"planted 3 layers", planted(50, 90, []int{8, 4, 2}, 0.3, 2), []int{8, 4, 2}},
		{"uniform", tensor.Uniform(40, 70, 0, 1, tensor.NewRand(3)), []int{10}},
		{"uniform 2 layers", tensor.Uniform(40, 70, 0, 1, tensor.NewRand(4)), []int{10, 4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := data{dense: tc.x}
			const seed = 7
			tr, err := newTrainer(x, Config{Ranks: tc.ranks, Init: HNMFBestInit}.withDefaults(), seed)
			require.NoError(t, err)
			var best *ssnmf.Hierarchy
			var bestErr float64
			for _, solver := range []ssnmf.Solver{ssnmf.Multiplicative, ssnmf.HALS} {
				h, err := ssnmf.HNMF(tc.x, tc.ranks, nil, &ssnmf.Options{Seed: seed, Restarts: 1, Solver: solver})
				require.NoError(t, err)
				last := len(h.A) - 1
				if e := tensor.SqDist(tc.x, LayerTopics(h.A)[last], h.S[last]); best == nil || e < bestErr {
					best, bestErr = h, e
					winners[tc.name] = int(solver)
				}
			}
			for l := range tc.ranks {
				require.Equal(t, best.A[l].Data, tr.a[l].Data, "layer %d is the lower-error HNMF's", l+1)
			}
		})
	}
	won := map[int]bool{}
	for _, s := range winners {
		won[s] = true
	}
	require.Len(t, won, 2, "each solver wins somewhere in the table: %v (0 multiplicative, 1 HALS)", winners)
}

// planted is W·H plus uniform noise of the given level, with W the
// product of random nonnegative layers of the given ranks.
func planted(n, m int, ranks []int, noise float64, seed uint64) *tensor.Dense {
	rng := tensor.NewRand(seed)
	w := tensor.Uniform(n, ranks[0], 0, 1, rng)
	for l := 1; l < len(ranks); l++ {
		w = tensor.MatMul(false, false, w, tensor.Uniform(ranks[l-1], ranks[l], 0, 1, rng))
	}
	x := tensor.MatMul(false, false, w, tensor.Uniform(ranks[len(ranks)-1], m, 0, 1, rng))
	for i := range x.Data {
		x.Data[i] += noise * rng.Float64()
	}
	return x
}

// A start kept in a StartCache and handed to a second fit gives that fit
// bit for bit the model it trains from its own start, for every init that
// computes one and with restarts (which start from other seeds); and the
// cache hands out copies, so training from a start does not change it.
func TestSharedStartChangesNothing(t *testing.T) {
	x := planted(40, 60, []int{6, 3}, 0.2, 5)
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"hnmf", Config{Ranks: []int{6, 3}, Init: HNMFInit, Epochs: 30, Seed: 3}},
		{"nndsvd", Config{Ranks: []int{6, 3}, Init: NNDSVDInit, Epochs: 30, Seed: 3}},
		{"hnmf-best, 2 restarts", Config{Ranks: []int{6, 3}, Init: HNMFBestInit, Restarts: 2, InitRestarts: 2, BurnIn: 5, Epochs: 30, Seed: 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			own, err := Train(x, tc.cfg)
			require.NoError(t, err)
			shared := tc.cfg
			shared.Starts = &StartCache{}
			for range 3 { // the first fills the cache, the others read it
				m, err := Train(x, shared)
				require.NoError(t, err)
				for l := range own.A {
					require.Equal(t, own.A[l].Data, m.A[l].Data, "layer %d", l+1)
				}
				require.Nil(t, m.cfg.Starts, "the model keeps no cache")
			}
			require.Equal(t, own.cfg.Restarts, len(shared.Starts.a), "one start per restart's seed")
		})
	}
}

// behind stops a fit whose held-out accuracy, rising at its rate over
// the last Patience epochs (50, as TrainChoosing sets it), cannot reach
// the target by the cap, and no other.
func TestBehindStopsOnlyAFitThatCannotCatchUp(t *testing.T) {
	rising := func(n int, from, perEpoch float64) []float64 {
		acc := make([]float64, n)
		for i := range acc {
			acc[i] = from + perEpoch*float64(i)
		}
		return acc
	}
	for _, tc := range []struct {
		name     string
		acc      []float64
		target   float64
		cap      int
		stop     bool
		patience int // 0: DefaultPatience
	}{
		// 0.30 + 0.0004·(1000−100) = 0.66 < 0.8.
		{"slow and far behind", rising(100, 0.26, 0.0004), 0.8, 1000, true, 0},
		// 0.30 + 0.0004·900 = 0.66 ≥ 0.6.
		{"slow but within reach", rising(100, 0.26, 0.0004), 0.6, 1000, false, 0},
		{"fast", rising(100, 0.2, 0.005), 0.8, 1000, false, 0},
		{"no target", rising(100, 0.26, 0.0004), 0, 1000, false, 0},
		{"window not yet full", rising(40, 0.26, 0.0004), 0.8, 1000, false, 0},
		{"no window (no Patience)", rising(100, 0.26, 0.0004), 0.8, 1000, false, -1},
		// Flat for the last 50 epochs at 0.5, the best reached before.
		{"flat", append(rising(50, 0.3, 0.004), slices.Repeat([]float64{0.49}, 50)...), 0.55, 1000, true, 0},
		// A dip does not lower the running best: 0.7 is kept.
		{"best kept through a dip", append(rising(60, 0.1, 0.01), slices.Repeat([]float64{0.2}, 40)...), 0.69, 1000, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := &trainer{cfg: Config{Epochs: tc.cap, Supervision: &Supervision{Target: tc.target, Patience: cmp.Or(tc.patience, 50)}}}
			tr.hist.HeldOutAccuracy = tc.acc
			msg := tr.behind(len(tc.acc))
			require.Equal(t, tc.stop, msg != "", msg)
		})
	}
}

// A negative InitIters is refused; a positive one bounds the start's
// updates.
func TestInitIters(t *testing.T) {
	x := planted(30, 40, []int{4}, 0.1, 1)
	_, err := Train(x, Config{Ranks: []int{4}, InitIters: -1})
	require.ErrorIs(t, err, ErrConfig)
	require.ErrorContains(t, err, "InitIters")
	short, err := Train(x, Config{Ranks: []int{4}, InitIters: 3, Epochs: 1, InitRestarts: 1, Restarts: 1, Seed: 2})
	require.NoError(t, err)
	h, err := ssnmf.HNMF(x, []int{4}, nil, &ssnmf.Options{Seed: 2, Restarts: 1, MaxIter: 3})
	require.NoError(t, err)
	full, err := Train(x, Config{Ranks: []int{4}, Epochs: 1, InitRestarts: 1, Restarts: 1, Seed: 2})
	require.NoError(t, err)
	fromH, err := Train(x, Config{Ranks: []int{4}, Init: GivenInit, InitA: h.A, Epochs: 1, Seed: 2})
	require.NoError(t, err)
	require.Equal(t, fromH.A[0].Data, short.A[0].Data, "the start of 3 updates")
	require.NotEqual(t, full.A[0].Data, short.A[0].Data)
}

// The HALS start of several layers scales each layer's topics to unit norm
// before the next (ssnmf.Options.UnitTopics). Without that, on the product
// of two uniform factors of rank 30 plus noise, the two-layer start's
// forward pass ended at 8 times the relative error of the multiplicative
// start (0.400 against 0.049; at 2000×2000 and ranks 50,20, 1.003, worse
// than A = 0, and a default fit then stopped at 0.569); with it, 1.5 times.
func TestNNDSVDStartOfTwoLayers(t *testing.T) {
	rng := tensor.NewRand(300)
	x := tensor.MatMul(false, false, tensor.Uniform(300, 30, 0, 1, rng), tensor.Uniform(30, 300, 0, 1, rng))
	for i, u := range tensor.Uniform(300, 300, 0, 0.1, rng).Data {
		x.Data[i] += u
	}
	start := func(init Init) float64 {
		m, err := Train(x, Config{Ranks: []int{30, 10}, Init: init, Epochs: 1, Tol: -1, Restarts: 1})
		require.NoError(t, err)
		return m.History.RelError[0]
	}
	hals, mu := start(NNDSVDInit), start(HNMFInit)
	t.Logf("start's relative error: NNDSVDa+HALS %.4f, multiplicative %.4f", hals, mu)
	require.Less(t, hals, 2*mu)
}
