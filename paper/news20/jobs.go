package news20

import (
	"runtime"
	"sync"
	"time"

	"github.com/neuralnmf/neuralnmf/internal/parallel"
)

// runJobs runs job(i) for every i in [0, n) on all cores. A job returns a
// function that stores its result, which runJobs calls under a lock (so
// stores need no locking of their own), or an error. progress, if not nil,
// is called after each job. runJobs returns the time taken and the first
// error in finishing order.
func runJobs(n int, progress func(done, total int, elapsed time.Duration), job func(i int) (store func(), err error)) (time.Duration, error) {
	start := time.Now()
	var mu sync.Mutex
	var firstErr error
	done := 0
	parallel.ForChunks(n, 1, runtime.GOMAXPROCS(0), func(_, i, _ int) {
		store, err := job(i)
		mu.Lock()
		defer mu.Unlock()
		done++
		if err != nil && firstErr == nil {
			firstErr = err
		}
		if err == nil {
			store()
		}
		if progress != nil {
			progress(done, n, time.Since(start))
		}
	})
	return time.Since(start), firstErr
}
