package classify

import (
	"fmt"
	"math"
	"runtime"
	"slices"

	"github.com/neuralnmf/neuralnmf/internal/parallel"
)

// Spreading is label spreading over a graph of nearest neighbours, as
// scikit-learn's LabelSpreading with kernel='knn': each sample's
// Neighbours nearest by cosine similarity (on samples at unit length the
// same neighbours as the Euclidean distance), the graph symmetrised, then
// F ← α·D^(−1/2)·W·D^(−1/2)·F + (1−α)·Y for Iterations iterations, W the
// 0/1 graph; each sample takes the class of its largest F. Fields left 0
// are LabelSpreading's defaults (DefaultNeighbours, DefaultAlpha,
// DefaultIterations): the zero Spreading is LabelSpreading's.
type Spreading struct {
	Neighbours int
	Alpha      float64
	Iterations int
}

// Spreading's defaults, scikit-learn's LabelSpreading's: n_neighbors=7,
// alpha=0.2, max_iter=30.
const (
	DefaultNeighbours = 7
	DefaultAlpha      = 0.2
	DefaultIterations = 30
)

func (s Spreading) withDefaults() Spreading {
	if s.Neighbours == 0 {
		s.Neighbours = DefaultNeighbours
	}
	if s.Alpha == 0 {
		s.Alpha = DefaultAlpha
	}
	if s.Iterations == 0 {
		s.Iterations = DefaultIterations
	}
	return s
}

// Graph returns, for each sample of f (each at unit length, so that the
// dot product is the cosine similarity), the s.Neighbours samples of
// largest similarity (itself excluded; ties to the lower index; only
// samples of positive similarity), symmetrised: nb[j] lists j's
// neighbours either way, sorted. It runs on every core.
func (s Spreading) Graph(f *Features) ([][]int, error) {
	if err := f.Check(); err != nil {
		return nil, err
	}
	s = s.withDefaults()
	if s.Neighbours < 1 {
		return nil, fmt.Errorf("classify: Neighbours is %d, want at least 1", s.Neighbours)
	}
	return neighbourGraph(f, s.Neighbours), nil
}

// Spread spreads labels (one per sample of the graph nb, −1 unknown,
// else in 0..classes−1) over nb and returns each sample's class, −1 for
// a sample no label reached.
func (s Spreading) Spread(nb [][]int, labels []int, classes int) ([]int, error) {
	s = s.withDefaults()
	switch {
	case len(labels) != len(nb):
		return nil, fmt.Errorf("classify: %d labels for a graph of %d samples", len(labels), len(nb))
	case classes < 1:
		return nil, fmt.Errorf("classify: %d classes, want at least 1", classes)
	case !(s.Alpha > 0 && s.Alpha < 1) || s.Iterations < 1:
		return nil, fmt.Errorf("classify: Alpha %v and Iterations %d: want α in (0, 1) and at least one iteration", s.Alpha, s.Iterations)
	}
	for j, l := range labels {
		if l < -1 || l >= classes {
			return nil, fmt.Errorf("classify: label %d of sample %d is not in 0..%d or -1", l, j, classes-1)
		}
	}
	for j, list := range nb {
		for _, i := range list {
			if i < 0 || i >= len(nb) {
				return nil, fmt.Errorf("classify: sample %d's neighbour %d is not a sample", j, i)
			}
		}
	}
	return spreadLabels(nb, labels, classes, s.Alpha, s.Iterations), nil
}

// neighbourGraph is Spreading.Graph with kn neighbours, on valid input.
func neighbourGraph(f *Features, kn int) [][]int {
	M := f.Cols()
	// The rows of f as posting lists: the columns holding each feature.
	rowPtr := make([]int, f.Rows+1)
	for _, r := range f.RowIdx {
		rowPtr[r+1]++
	}
	for r := 0; r < f.Rows; r++ {
		rowPtr[r+1] += rowPtr[r]
	}
	postCol, postVal := make([]int, len(f.RowIdx)), make([]float64, len(f.RowIdx))
	next := append([]int(nil), rowPtr[:f.Rows]...)
	for j := 0; j < M; j++ {
		for p := f.ColPtr[j]; p < f.ColPtr[j+1]; p++ {
			r := f.RowIdx[p]
			postCol[next[r]], postVal[next[r]] = j, f.Val[p]
			next[r]++
		}
	}
	knn := make([][]int, M)
	workers := runtime.GOMAXPROCS(0)
	sims := make([][]float64, workers) // per worker: the similarities to column j
	parallel.ForChunks(M, 64, workers, func(worker, j0, j1 int) {
		if sims[worker] == nil {
			sims[worker] = make([]float64, M)
		}
		sim := sims[worker]
		var touched []int
		for j := j0; j < j1; j++ {
			touched = touched[:0]
			for p := f.ColPtr[j]; p < f.ColPtr[j+1]; p++ {
				r, v := f.RowIdx[p], f.Val[p]
				for q := rowPtr[r]; q < rowPtr[r+1]; q++ {
					i := postCol[q]
					if sim[i] == 0 {
						touched = append(touched, i)
					}
					sim[i] += v * postVal[q]
				}
			}
			best := make([]int, 0, kn+1)
			for _, i := range touched {
				if i == j || sim[i] <= 0 {
					continue
				}
				// Insert i into best, kept by similarity (then index).
				k := len(best)
				for k > 0 && (sim[best[k-1]] < sim[i] || sim[best[k-1]] == sim[i] && best[k-1] > i) {
					k--
				}
				if k < kn {
					best = slices.Insert(best, k, i)
					if len(best) > kn {
						best = best[:kn]
					}
				}
			}
			for _, i := range touched {
				sim[i] = 0
			}
			knn[j] = best
		}
	})
	nb := make([][]int, M)
	for j, list := range knn {
		for _, i := range list {
			nb[j] = append(nb[j], i)
			nb[i] = append(nb[i], j)
		}
	}
	for j := range nb {
		slices.Sort(nb[j])
		nb[j] = slices.Compact(nb[j])
	}
	return nb
}

// spreadLabels is Spreading.Spread on valid input.
func spreadLabels(nb [][]int, labels []int, classes int, alpha float64, iterations int) []int {
	M := len(nb)
	y := make([]float64, M*classes)
	for j, l := range labels {
		if l >= 0 {
			y[j*classes+l] = 1
		}
	}
	inv := make([]float64, M) // D^(−1/2)
	for j := range nb {
		if len(nb[j]) > 0 {
			inv[j] = 1 / math.Sqrt(float64(len(nb[j])))
		}
	}
	f, g := append([]float64(nil), y...), make([]float64, M*classes)
	for range iterations {
		for j := range nb {
			row := g[j*classes : (j+1)*classes]
			for c := range row {
				row[c] = (1 - alpha) * y[j*classes+c]
			}
			for _, i := range nb[j] {
				w := alpha * inv[j] * inv[i]
				for c := range row {
					row[c] += w * f[i*classes+c]
				}
			}
		}
		f, g = g, f
	}
	out := make([]int, M)
	for j := range out {
		row := f[j*classes : (j+1)*classes]
		out[j] = -1
		if slices.Max(row) > 0 {
			out[j] = Argmax(row)
		}
	}
	return out
}
