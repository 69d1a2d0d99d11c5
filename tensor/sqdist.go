package tensor

import (
	"fmt"
	"runtime"

	"github.com/neuralnmf/neuralnmf/internal/gemm"
	"github.com/neuralnmf/neuralnmf/internal/parallel"
)

// sqDistRows and sqDistCols are the block of X in SqDist: a block of W·H
// (32×2048, 512 KB) is formed, compared and summed while it is in cache.
// The columns are tiled too, so that the block stays in cache however wide
// X is (a block of 32 full rows is 25 MB at M = 10⁵).
const (
	sqDistRows = 32
	sqDistCols = 2048
)

// SqDist returns ‖X − W·H‖²_F for X m×n, W m×k and H k×n, without forming
// the m×n product: it computes W·H a block at a time on all cores, so its
// memory is a few blocks, and its result is the same whatever the number of
// cores (blocks are summed in order). It panics if the shapes disagree.
func SqDist(x, w, h *Dense) float64 {
	if w.Rows != x.Rows || h.Cols != x.Cols || w.Cols != h.Rows {
		panic(fmt.Sprintf("tensor: SqDist: X %d×%d, W %d×%d, H %d×%d", x.Rows, x.Cols, w.Rows, w.Cols, h.Rows, h.Cols))
	}
	m, n := x.Rows, x.Cols
	if m == 0 || n == 0 {
		return 0
	}
	blocks := (m + sqDistRows - 1) / sqDistRows
	sums := make([]float64, blocks)
	workers := parallel.Workers(m, sqDistRows, runtime.GOMAXPROCS(0))
	bufs := make([][]float64, workers)
	ws := make([]gemm.Workspace, workers)
	nt := min(n, sqDistCols)
	parallel.ForChunks(m, sqDistRows, workers, func(wi, r0, r1 int) {
		rows := r1 - r0
		if bufs[wi] == nil {
			bufs[wi] = make([]float64, sqDistRows*nt)
		}
		var s lanes
		ph := 0
		for c0 := 0; c0 < n; c0 += nt {
			c1 := min(c0+nt, n)
			cols := c1 - c0
			buf := bufs[wi][:rows*cols]
			// buf = X[r0:r1, c0:c1] − W[r0:r1]·H[:, c0:c1].
			for r := 0; r < rows; r++ {
				copy(buf[r*cols:(r+1)*cols], x.Data[(r0+r)*x.Stride+c0:(r0+r)*x.Stride+c1])
			}
			if w.Cols > 0 {
				gemm.Serial(false, false, rows, cols, w.Cols, -1, w.Data[r0*w.Stride:], w.Stride, h.Data[c0:], h.Stride, 1, buf, cols, &ws[wi])
			}
			ph = s.dot(buf, buf, ph)
		}
		sums[r0/sqDistRows] = s.total()
	})
	var total float64
	for _, s := range sums {
		total += s
	}
	return total
}
