package nnls

import (
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

// minWorkPerWorker is the work (N·k·M multiply-adds) below which another
// goroutine costs more in start-up and wake-up than it saves.
const minWorkPerWorker = 1 << 19

// effectiveWorkers caps workers so that each has at least minWorkPerWorker
// multiply-adds of the N×k×M product to do.
func effectiveWorkers(workers, n, k, m int) int {
	return max(1, min(workers, n*k*m/minWorkPerWorker))
}
