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

// minWorkPerWorker is the work (in multiply-adds of the N×k×M product)
// below which another goroutine costs more in start-up, wake-up and smaller
// chunks than it saves.
const minWorkPerWorker = 1 << 19

// columnWork is what one column's own solve costs on top of the product,
// per k², in multiply-adds of the product: pivoting, refinement and the
// certificate run through short loops over k-vectors and small factors at
// a small fraction of the product's speed. Measured on the epoch
// benchmark's second layer (N = 20, k = 10, M = 1000, partial supports):
// about 770 ns a column against 0.037 ns a multiply-add of the product
// (27 GFLOP/s a core), i.e. 200·k²; 64 is a lower bound that also holds
// for the cheaper columns solved together (solveFull).
const columnWork = 64

// effectiveWorkers caps workers so that each has at least minWorkPerWorker
// of work: the N×k×M product plus columnWork·k² per column.
func effectiveWorkers(workers, n, k, m int) int {
	return max(1, min(workers, (n*k*m+columnWork*k*k*m)/minWorkPerWorker))
}
