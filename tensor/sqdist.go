package tensor

import (
	"fmt"
	"runtime"

	"github.com/neuralnmf/neuralnmf/internal/gemm"
	"github.com/neuralnmf/neuralnmf/internal/parallel"
)

// sqDistRows is the number of rows of X per block in SqDist: a block of
// W·H is formed, compared and summed while it is in cache.
const sqDistRows = 32

// SqDist returns ‖X − W·H‖²_F for X m×n, W m×k and H k×n, without forming
// the m×n product: it computes W·H a block of rows at a time on all cores,
// so its memory is a few blocks, and its result is the same whatever the
// number of cores (blocks are summed in order). It panics if the shapes
// disagree.
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
	parallel.ForChunks(m, sqDistRows, workers, func(wi, r0, r1 int) {
		rows := r1 - r0
		if bufs[wi] == nil {
			bufs[wi] = make([]float64, sqDistRows*n)
		}
		buf := bufs[wi][:rows*n]
		// buf = X[r0:r1] − W[r0:r1]·H.
		for r := 0; r < rows; r++ {
			copy(buf[r*n:(r+1)*n], x.Data[(r0+r)*x.Stride:(r0+r)*x.Stride+n])
		}
		if w.Cols > 0 {
			gemm.Serial(false, false, rows, n, w.Cols, -1, w.Data[r0*w.Stride:], w.Stride, h.Data, h.Stride, 1, buf, n, &ws[wi])
		}
		var s float64
		for _, v := range buf {
			s += v * v
		}
		sums[r0/sqDistRows] = s
	})
	var total float64
	for _, s := range sums {
		total += s
	}
	return total
}
