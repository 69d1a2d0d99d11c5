package train

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// The in-memory tree adds in the order the reduce's nodes do: written out
// here level by level, each node a copy of its first child plus the others
// in index order; with at most FanIn shards that is the plain sum in shard
// order.
func TestTreeSumOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 15, 16, 17, 40, 255, 256, 257, 1000} {
		vecs := make([][]float64, n)
		for i := range vecs {
			vecs[i] = []float64{r.NormFloat64() * 1e3, r.Float64() * 1e-3, r.NormFloat64()}
		}
		ts := newTreeSum(n)
		for _, v := range vecs {
			require.NoError(t, ts.add(v))
		}
		got, err := ts.total()
		require.NoError(t, err)

		level := vecs
		for {
			var up [][]float64
			for lo := 0; lo < len(level); lo += FanIn {
				node := append([]float64(nil), level[lo]...)
				for _, v := range level[lo+1 : min(lo+FanIn, len(level))] {
					for j := range node {
						node[j] += v[j]
					}
				}
				up = append(up, node)
			}
			level = up
			if len(level) == 1 {
				break
			}
		}
		require.Equal(t, level[0], got, "%d shards", n)
		require.Len(t, treeSizes(n), max(2, len(treeLevels(n))), "%d shards", n)
		if n <= FanIn {
			plain := append([]float64(nil), vecs[0]...)
			for _, v := range vecs[1:] {
				for j := range plain {
					plain[j] += v[j]
				}
			}
			require.Equal(t, plain, got)
		}
	}
	ts := newTreeSum(2)
	require.NoError(t, ts.add([]float64{1}))
	_, err := ts.total()
	require.Error(t, err, "a shard missing")
	require.Error(t, ts.add([]float64{1, 2}), "a vector of another length")
}

// treeLevels is the levels of the reduce written out: the sizes above the
// shards.
func treeLevels(n int) []int {
	var l []int
	for n > 1 {
		n = (n + FanIn - 1) / FanIn
		l = append(l, n)
	}
	return append([]int{0}, l...)
}
