package classify

import (
	"math"
	"slices"

	"github.com/neuralnmf/neuralnmf/internal/parallel"
)

// objective is the regression's mean penalised loss on the samples of f
// (labels y, classes P, inverse penalty c) with its gradient, evaluated by
// workers goroutines in two passes: the samples' residuals (softmax minus
// the label), each sample on its own, then the gradient's rows, each over
// the samples that have its feature in increasing order, from f's
// transpose. Every sum is taken in the order of a loop over the samples
// (the losses, each gradient entry, the intercepts), so the value and the
// gradient are bit for bit those of that loop, for any number of workers.
type objective struct {
	f       *Features
	y       []int
	P       int
	c       float64
	workers int
	// f's transpose: row r's samples are col[ptr[r]:ptr[r+1]], increasing,
	// with values val.
	ptr, col []int
	val      []float64
	resid    []float64 // samples×P: softmax(z) − e_y, sample by sample
	loss     []float64 // each sample's −log softmax(z)_y
}

// Chunk sizes of the two passes: a few microseconds of work each, so that
// small fits run on one goroutine and large ones spread evenly.
const (
	objSamplesChunk = 256
	objRowsChunk    = 256
)

func newObjective(f *Features, y []int, P int, c float64, workers int) *objective {
	o := &objective{f: f, y: y, P: P, c: c, workers: workers,
		ptr: make([]int, f.Rows+1), col: make([]int, len(f.RowIdx)), val: make([]float64, len(f.Val)),
		resid: make([]float64, f.Cols()*P), loss: make([]float64, f.Cols())}
	for _, r := range f.RowIdx {
		o.ptr[r+1]++
	}
	for r := range f.Rows {
		o.ptr[r+1] += o.ptr[r]
	}
	next := slices.Clone(o.ptr[:f.Rows])
	for j := range f.Cols() {
		for p := f.ColPtr[j]; p < f.ColPtr[j+1]; p++ {
			r := f.RowIdx[p]
			o.col[next[r]], o.val[next[r]] = j, f.Val[p]
			next[r]++
		}
	}
	return o
}

// eval returns the mean penalised loss at w and writes its gradient into
// grad (both of length (Rows+1)·P).
func (o *objective) eval(grad, w []float64) float64 {
	f, P, F := o.f, o.P, o.f.Rows
	n := f.Cols()
	l := &Logistic{Features: F, Classes: P, W: w}
	parallel.ForChunks(n, objSamplesChunk, o.workers, func(_, j0, j1 int) {
		for j := j0; j < j1; j++ {
			z := o.resid[j*P : (j+1)*P]
			l.Scores(f, j, z)
			zmax := slices.Max(z)
			var sum float64
			for k := range z {
				z[k] = math.Exp(z[k] - zmax)
				sum += z[k]
			}
			o.loss[j] = math.Log(sum) - math.Log(z[o.y[j]])
			for k := range z {
				z[k] /= sum
			}
			z[o.y[j]]--
		}
	})
	var loss float64
	for _, v := range o.loss {
		loss += v
	}
	clear(grad)
	parallel.ForChunks(F, objRowsChunk, o.workers, func(_, r0, r1 int) {
		for r := r0; r < r1; r++ {
			g := grad[r*P : (r+1)*P]
			for q := o.ptr[r]; q < o.ptr[r+1]; q++ {
				v, z := o.val[q], o.resid[o.col[q]*P:(o.col[q]+1)*P]
				for k := range g {
					g[k] += v * z[k]
				}
			}
		}
	})
	g := grad[F*P:]
	for j := range n {
		for k, v := range o.resid[j*P : (j+1)*P] {
			g[k] += v
		}
	}
	var reg float64
	for i, v := range w[:F*P] {
		reg += v * v
		grad[i] += v / o.c
	}
	fn := float64(n)
	for i := range grad {
		grad[i] /= fn
	}
	return (loss + reg/(2*o.c)) / fn
}
