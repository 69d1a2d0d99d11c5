package parallel_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/internal/parallel"
)

// Every index is visited exactly once, chunks have the given size (the last
// may be shorter), and worker numbers stay below the number of goroutines.
func TestForChunks(t *testing.T) {
	cases := []struct{ n, size, workers, want int }{
		{0, 4, 3, 1},
		{1, 4, 3, 1},
		{10, 3, 1, 1},
		{10, 3, 2, 2},
		{10, 3, 8, 4},
		{100, 1, 0, 1},
	}
	for _, c := range cases {
		seen := make([]int, c.n)
		var mu sync.Mutex
		maxWorker := -1
		used := parallel.ForChunks(c.n, c.size, c.workers, func(w, s, e int) {
			mu.Lock()
			defer mu.Unlock()
			require.True(t, e-s == c.size || e == c.n, "chunk [%d, %d)", s, e)
			for i := s; i < e; i++ {
				seen[i]++
			}
			maxWorker = max(maxWorker, w)
		})
		require.Equal(t, c.want, used, "%+v", c)
		require.Equal(t, c.want, parallel.Workers(c.n, c.size, c.workers), "%+v", c)
		require.Less(t, maxWorker, used, "%+v", c)
		for i, k := range seen {
			require.Equal(t, 1, k, "%+v: index %d", c, i)
		}
	}
}
