package nnls

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/neuralnmf/neuralnmf/internal/gemm"
)

// rowTile is the number of rows of A per chunk of the backward pass's
// second phase: one row block (mc) of internal/gemm.
const rowTile = 96

// gemmSerial computes c = alpha·op(a)·op(b) + beta·c on the calling
// goroutine (internal/gemm with one worker): the solver parallelises over
// column chunks itself.
func gemmSerial(tA, tB blas.Transpose, alpha float64, a, b blas64.General, beta float64, c blas64.General) {
	k := a.Cols
	if tA == blas.Trans {
		k = a.Rows
	}
	gemm.Dgemm(tA == blas.Trans, tB == blas.Trans, c.Rows, c.Cols, k, alpha, a.Data, a.Stride, b.Data, b.Stride, beta, c.Data, c.Stride, 1)
}

// minWorkPerWorker is the work (N·k·M multiply-adds) below which another
// goroutine costs more in start-up and wake-up than it saves.
const minWorkPerWorker = 1 << 19

// effectiveWorkers caps workers so that each has at least minWorkPerWorker
// multiply-adds of the N×k×M product to do.
func effectiveWorkers(workers, n, k, m int) int {
	return max(1, min(workers, n*k*m/minWorkPerWorker))
}
