package neuralnmf

import (
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
