package nnls

import (
	"fmt"
	"math"
	"slices"

	"github.com/neuralnmf/neuralnmf/internal/gemm"
	"github.com/neuralnmf/neuralnmf/internal/parallel"
	"github.com/neuralnmf/neuralnmf/tensor"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// scanRows is the number of rows of X per chunk of scanX's parallel pass.
const scanRows = 64

// scanX reports whether X has an entry whose magnitude is above xScaleLimit
// or below its reciprocal and not zero (extreme), and whether every entry is
// finite, from the largest and the smallest nonzero magnitude in X
// (magnitudes: with AVX2 where the CPU has it). It is one pass over X, which
// for a large X is bound by reading memory, so blocks of rows are scanned on
// up to workers goroutines (the solve's own count, so that a call's
// allocations do not depend on a size of the scan's); the answer does not
// depend on how the rows were shared out.
func scanX(x *tensor.Dense, workers int) (extreme, finite bool) {
	var mx, mn uint64
	if workers <= 1 || x.Rows < 2*scanRows {
		mx, mn = magnitudeRange(x, 0, x.Rows)
	} else {
		const maxWorkers = 64
		var hi, lo [maxWorkers]uint64
		for i := range lo {
			lo[i] = math.MaxUint64
		}
		parallel.ForChunks(x.Rows, scanRows, min(workers, maxWorkers), func(wi, r0, r1 int) {
			a, b := magnitudeRange(x, r0, r1)
			hi[wi], lo[wi] = max(hi[wi], a), min(lo[wi], b)
		})
		mx, mn = slices.Max(hi[:]), slices.Min(lo[:])
	}
	return classify(mx, mn)
}

// classify turns the largest and the smallest nonzero magnitude of X (as
// bits, from magnitudes) into scan's verdict: extreme if either is beyond
// xScaleLimit or its reciprocal, finite unless the largest is NaN or ±Inf.
func classify(mx, mn uint64) (extreme, finite bool) {
	extreme = mx > math.Float64bits(xScaleLimit) || mn < math.Float64bits(1/xScaleLimit)
	return extreme, mx <= math.Float64bits(math.MaxFloat64)
}

// magnitudeRange returns magnitudes over rows r0:r1 of X.
func magnitudeRange(x *tensor.Dense, r0, r1 int) (mx, mn uint64) {
	mn = math.MaxUint64
	if x.Stride == x.Cols { // contiguous rows: one call
		return magnitudes(x.Data[r0*x.Stride : r1*x.Stride])
	}
	for r := r0; r < r1; r++ {
		a, b := magnitudes(x.Data[r*x.Stride : r*x.Stride+x.Cols])
		mx, mn = max(mx, a), min(mn, b)
	}
	return mx, mn
}

// magnitudesGo is magnitudes in Go.
func magnitudesGo(x []float64) (mx, mn uint64) {
	mn = math.MaxUint64
	for _, v := range x {
		u := math.Float64bits(v) &^ (1 << 63)
		if u > mx {
			mx = u
		}
		if u < mn && u != 0 {
			mn = u
		}
	}
	return mx, mn
}

// formedQtX is a prepared sparse X whose Q₁ᵀX the factorisation formed
// (f.q1tx, kk×M): qtx copies its columns. Its X has no extreme entries
// (Data.prepare), so qtxScaled is never called.
type formedQtX struct {
	*Data
	q1tx *tensor.Dense
}

func (d formedQtX) qtx(_ *tensor.Dense, j0, j1 int, dst []float64, stride int) {
	for i := range d.q1tx.Rows {
		copy(dst[i*stride:i*stride+j1-j0], d.q1tx.Row(i)[j0:j1])
	}
}

// data is the right-hand side X as the solver reads it: a chunk of columns at
// a time. It lets a sparse X use the same solver.
type data interface {
	dims() (n, m int)
	// qtx writes Qᵀ·X[:, j0:j1] into dst (q.Cols×(j1−j0), row-major, with
	// the given stride), on the calling goroutine.
	qtx(q *tensor.Dense, j0, j1 int, dst []float64, stride int)
	// scan reads X once, on up to workers goroutines, and reports whether
	// some entry's magnitude is above xScaleLimit or below its reciprocal
	// (and not zero), or returns an error naming X if an entry is NaN or
	// ±Inf.
	scan(workers int) (extreme bool, err error)
	// colMax writes max_i |X_ij| of columns j0:j1 into dst[j−j0].
	colMax(j0, j1 int, dst []float64)
	// qtxScaled is qtx of X[:, j0:j1]·diag(f), using buf as scratch
	// (grown as needed; the grown slice is returned).
	qtxScaled(q *tensor.Dense, j0, j1 int, f []float64, dst []float64, stride int, buf []float64) []float64
}

type denseData struct{ x *tensor.Dense }

func (d denseData) scan(workers int) (bool, error) {
	extreme, finite := scanX(d.x, workers)
	if !finite {
		return false, fmt.Errorf("nnls: %w", tensor.CheckFinite("X", d.x))
	}
	return extreme, nil
}

func (d denseData) dims() (int, int) { return d.x.Rows, d.x.Cols }

func (d denseData) qtx(q *tensor.Dense, j0, j1 int, dst []float64, stride int) {
	x := d.x
	xs := blas64.General{Rows: x.Rows, Cols: j1 - j0, Stride: x.Stride, Data: x.Data[j0:]}
	gemmSerial(blas.Trans, blas.NoTrans, 1, q.RawMatrix(), xs, 0, blas64.General{Rows: q.Cols, Cols: j1 - j0, Stride: stride, Data: dst})
}

// packedQ is a dense X for a solve in several chunks: qtx reads Qᵀ from
// qt, packed once for all of them (gemm.PackA), with the same products bit
// for bit.
type packedQ struct {
	denseData
	qt *gemm.PackedA
	xb *gemm.PackedB // nil, or X packed (Data.prepare)
}

func (d packedQ) qtx(_ *tensor.Dense, j0, j1 int, dst []float64, stride int) {
	if d.xb != nil && d.xb.Aligned(j0) {
		gemm.SerialPackedAB(d.qt, d.xb, j0, j1-j0, 1, 0, dst, stride, nil)
		return
	}
	x := d.x
	gemm.SerialPacked(d.qt, false, j1-j0, 1, x.Data[j0:], x.Stride, 0, dst, stride, nil)
}

func (d denseData) colMax(j0, j1 int, dst []float64) {
	dst = dst[:j1-j0]
	clear(dst)
	for r := 0; r < d.x.Rows; r++ {
		for j, v := range d.x.Data[r*d.x.Stride+j0 : r*d.x.Stride+j1] {
			if v < 0 {
				v = -v
			}
			if v > dst[j] {
				dst[j] = v
			}
		}
	}
}

func (d denseData) qtxScaled(q *tensor.Dense, j0, j1 int, f []float64, dst []float64, stride int, buf []float64) []float64 {
	n, nc := d.x.Rows, j1-j0
	if cap(buf) < n*nc {
		buf = make([]float64, n*nc)
	}
	buf = buf[:n*nc]
	for r := 0; r < n; r++ {
		row := buf[r*nc : (r+1)*nc]
		for j, v := range d.x.Data[r*d.x.Stride+j0 : r*d.x.Stride+j1] {
			row[j] = v * f[j]
		}
	}
	denseData{x: &tensor.Dense{Rows: n, Cols: nc, Stride: nc, Data: buf}}.qtx(q, 0, nc, dst, stride)
	return buf
}
