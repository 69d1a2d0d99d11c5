package nnls

import (
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// tile is the output tile edge for gemmSerial. gonum's Dgemm goes parallel
// (one goroutine, and allocations, per 64×64 block) only when the output has
// at least 4 such blocks; a 64×64 tile is one block, so each call runs
// serially and allocates nothing. The solver parallelises over column chunks
// itself, which keeps allocations per call independent of M.
const tile = 64

// gemmSerial computes c = alpha·op(a)·op(b) + beta·c on the calling
// goroutine, tile by tile.
func gemmSerial(tA, tB blas.Transpose, alpha float64, a, b blas64.General, beta float64, c blas64.General) {
	if c.Rows == 0 || c.Cols == 0 {
		return
	}
	for i0 := 0; i0 < c.Rows; i0 += tile {
		i1 := min(i0+tile, c.Rows)
		at := a
		if tA == blas.NoTrans { // rows i0:i1 of a
			at.Rows, at.Data = i1-i0, a.Data[i0*a.Stride:]
		} else { // columns i0:i1 of a
			at.Cols, at.Data = i1-i0, a.Data[i0:]
		}
		for j0 := 0; j0 < c.Cols; j0 += tile {
			j1 := min(j0+tile, c.Cols)
			bt := b
			if tB == blas.NoTrans { // columns j0:j1 of b
				bt.Cols, bt.Data = j1-j0, b.Data[j0:]
			} else { // rows j0:j1 of b
				bt.Rows, bt.Data = j1-j0, b.Data[j0*b.Stride:]
			}
			ct := blas64.General{Rows: i1 - i0, Cols: j1 - j0, Stride: c.Stride, Data: c.Data[i0*c.Stride+j0:]}
			blas64.Gemm(tA, tB, alpha, at, bt, beta, ct)
		}
	}
}

// workersFor returns how many goroutines forChunks uses for n items in chunks
// of size, so callers can allocate per-worker scratch up front (which makes
// allocation counts independent of scheduling).
func workersFor(n, size, workers int) int { return max(1, min(workers, (n+size-1)/size)) }

// forChunks calls fn(worker, start, end) for consecutive chunks of [0, n) of
// the given size on up to workers goroutines; worker numbers the goroutine
// (0 ≤ worker < the number used), so fn can use per-worker scratch. It
// returns the number of goroutines used.
func forChunks(n, size, workers int, fn func(worker, start, end int)) int {
	workers = workersFor(n, size, workers)
	if workers == 1 { // no goroutine for a problem that gets one worker
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

// minWorkPerWorker is the work (N·k·M multiply-adds) below which another
// goroutine costs more in start-up and wake-up than it saves.
const minWorkPerWorker = 1 << 19

// effectiveWorkers caps workers so that each has at least minWorkPerWorker
// multiply-adds of the N×k×M product to do.
func effectiveWorkers(workers, n, k, m int) int {
	return max(1, min(workers, n*k*m/minWorkPerWorker))
}
