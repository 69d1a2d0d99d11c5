// Package parallel runs a loop over [0, n) on several goroutines, in
// chunks, with a worker number for per-goroutine scratch. The NNLS solver
// uses it over columns; the demo and the experiments use it over runs.
package parallel

import (
	"sync"
	"sync/atomic"
)

// Workers returns how many goroutines ForChunks uses for n items in chunks
// of size with at most workers goroutines, so callers can allocate
// per-worker scratch up front (which makes allocation counts independent of
// scheduling). It is at least 1.
func Workers(n, size, workers int) int { return max(1, min(workers, (n+size-1)/size)) }

// ForChunks calls fn(worker, start, end) for consecutive chunks [start, end)
// of [0, n) of the given size (the last may be shorter) on Workers(n, size,
// workers) goroutines, handing out chunks in order as goroutines become
// free, and returns when all calls have returned. worker numbers the
// goroutine (0 ≤ worker < the number used), so fn can use per-worker
// scratch. With one worker fn runs on the calling goroutine. ForChunks
// returns the number of goroutines used. size must be at least 1.
func ForChunks(n, size, workers int, fn func(worker, start, end int)) int {
	workers = Workers(n, size, workers)
	if workers == 1 {
		for start := 0; start < n; start += size {
			fn(0, start, min(start+size, n))
		}
		return 1
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				start := int(next.Add(int64(size))) - size
				if start >= n {
					return
				}
				fn(w, start, min(start+size, n))
			}
		}()
	}
	wg.Wait()
	return workers
}
