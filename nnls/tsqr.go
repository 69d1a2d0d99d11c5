package nnls

import (
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"

	"github.com/neuralnmf/neuralnmf/internal/gemm"
	"github.com/neuralnmf/neuralnmf/internal/parallel"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// tsqrBytes is the size of one row block of a tall Ã in the blocked QR: a
// block and its reflectors stay in a core's L2 cache (1 MiB on Zen 4) while
// Householder QR sweeps it kk times.
const tsqrBytes = 256 << 10

// tsqrBlocks is the fewest blocks, and tsqrMinCols the fewest columns, for
// which tsqr is used. Both are measured (NewFactor, this 2-core machine,
// alternating binaries): with 3 blocks (2000×50) the stacked QR and the
// product that forms Q cost more than the second core saves; with fewer
// than 32 columns tsqr was slower than gonum's QR of the whole matrix
// (45,534×10: 6.7–8.9 against 5.8–7.0 ms; 20000×20: 8.0–8.3 against
// 7.0–8.1 ms), and from 32 on faster (20000×32: 11.7–13.0 against
// 16.3–17.1 ms; 10000×50: 11.3–13.3 against 15.7–17.3 ms; 5000×100: 19–20
// against 23 ms).
const (
	tsqrBlocks  = 8
	tsqrMinCols = 32
)

// tsqrRows returns the rows per block of tsqr for an n×kk Ã, or 0 when Ã is
// too narrow or not tall enough for tsqr (see tsqrBlocks). It does not
// depend on the number of workers, so neither does the factorisation.
func tsqrRows(n, kk int) int {
	rows := max(2*kk, tsqrBytes/(8*kk))
	if kk < tsqrMinCols || n < tsqrBlocks*rows {
		return 0
	}
	return rows
}

// tsqr factorises the tall n×kk matrix at (row-major, stride kk) as Q·R by
// a one-level TSQR (Demmel, Grigori, Hoemmen & Langou, SIAM J. Sci. Comput.
// 2012): Householder QR of each block of rows (the last takes the
// remainder), Q_b·R_b; Householder QR of the stacked R_b, [R_0; …] = Q̂·R;
// and Q's block b = Q_b·Q̂_b. Like Householder QR on the whole matrix it is
// backward stable and Q is orthonormal to working precision, and unlike it,
// its blocks are independent: they are shared out over up to workers
// goroutines (gonum's QR runs on one). Each block's arithmetic is the
// same whoever does it, so the result does not depend on workers. It writes
// R (kk×kk, upper) into r and Q over at.
func tsqr(at *tensor.Dense, rows int, r []float64, workers int) {
	n, kk := at.Rows, at.Cols
	nb := n / rows
	block := func(b int) blas64.General {
		r0, r1 := b*rows, (b+1)*rows
		if b == nb-1 {
			r1 = n
		}
		return blas64.General{Rows: r1 - r0, Cols: kk, Stride: at.Stride, Data: at.Data[r0*at.Stride:]}
	}
	stack := blas64.General{Rows: nb * kk, Cols: kk, Stride: kk, Data: make([]float64, nb*kk*kk)}
	var query [1]float64
	lapack64.Geqrf(block(nb-1), nil, query[:], -1)
	lwork := int(query[0])
	lapack64.Orgqr(block(nb-1), nil, query[:], -1)
	lwork = max(lwork, int(query[0]))
	lapack64.Geqrf(stack, nil, query[:], -1)
	lwork = max(lwork, int(query[0]))
	lapack64.Orgqr(stack, nil, query[:], -1)
	lwork = max(lwork, int(query[0]), 1)
	bufs := make([][]float64, parallel.Workers(nb, 1, workers))
	parallel.ForChunks(nb, 1, len(bufs), func(wi, b0, b1 int) {
		if bufs[wi] == nil {
			bufs[wi] = make([]float64, lwork+kk)
		}
		work, tau := bufs[wi][:lwork], bufs[wi][lwork:]
		for b := b0; b < b1; b++ {
			blk := block(b)
			lapack64.Geqrf(blk, tau, work, lwork)
			for i := 0; i < kk; i++ {
				copy(stack.Data[(b*kk+i)*kk+i:(b*kk+i+1)*kk], blk.Data[i*blk.Stride+i:i*blk.Stride+kk])
			}
			lapack64.Orgqr(blk, tau, work, lwork)
		}
	})
	work, tau := make([]float64, lwork), make([]float64, kk)
	lapack64.Geqrf(stack, tau, work, lwork)
	for i := 0; i < kk; i++ {
		copy(r[i*kk+i:(i+1)*kk], stack.Data[i*kk+i:(i+1)*kk])
	}
	lapack64.Orgqr(stack, tau, work, lwork)
	tmps := make([][]float64, parallel.Workers(nb, 1, workers))
	wss := make([]gemm.Workspace, len(tmps))
	parallel.ForChunks(nb, 1, len(tmps), func(wi, b0, b1 int) {
		ws := &wss[wi]
		for b := b0; b < b1; b++ {
			blk := block(b)
			if m := blk.Rows * kk; len(tmps[wi]) < m {
				tmps[wi] = make([]float64, m)
			}
			tmp := tmps[wi]
			gemm.Serial(false, false, blk.Rows, kk, kk, 1, blk.Data, blk.Stride, stack.Data[b*kk*kk:], kk, 0, tmp, kk, ws)
			for i := 0; i < blk.Rows; i++ {
				copy(blk.Data[i*blk.Stride:i*blk.Stride+kk], tmp[i*kk:(i+1)*kk])
			}
		}
	})
}
