package semisup

import (
	"math"

	"github.com/neuralnmf/neuralnmf/classify"
	"github.com/neuralnmf/neuralnmf/internal/unitcol"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// input is X, dense or sparse (exactly one is set).
type input struct {
	dense  *tensor.Dense
	sparse *tensor.Sparse
}

func (x input) dims() (rows, cols int) {
	if x.sparse != nil {
		return x.sparse.Dims()
	}
	return x.dense.Dims()
}

// topicScale returns the reciprocal of the root mean square length of the
// columns of s (1 for an all-zero s).
func topicScale(s *tensor.Dense) float64 {
	ss := 0.0
	for _, v := range s.Data {
		ss += v * v
	}
	if ss == 0 {
		return 1
	}
	return math.Sqrt(float64(s.Cols) / ss)
}

// buildFeatures stacks, for the given columns, s·scale (nil s: none) over
// X's columns at unit length: the rows of the topics first, then the rows
// of X.
func buildFeatures(s *tensor.Dense, scale float64, x input, cols []int) *classify.Features {
	f := &classify.Features{ColPtr: make([]int, 1, len(cols)+1)}
	k := 0
	if s != nil {
		k = s.Rows
	}
	n, _ := x.dims()
	f.Rows = k + n
	for _, j := range cols {
		for i := 0; i < k; i++ {
			if v := s.At(i, j); v != 0 {
				f.RowIdx = append(f.RowIdx, i)
				f.Val = append(f.Val, v*scale)
			}
		}
		unitcol.Each(x.dense, x.sparse, j, func(row int, v float64) {
			f.RowIdx = append(f.RowIdx, k+row)
			f.Val = append(f.Val, v)
		})
		f.ColPtr = append(f.ColPtr, len(f.RowIdx))
	}
	return f
}

// logisticCandidate is what a regression of TrainChoosing reads beside
// X's columns: the topics of the unsupervised model's first layer, scaled
// by scale, or none (topics nil).
type logisticCandidate struct {
	topics *tensor.Dense
	scale  float64
}

// labelled returns the columns with a label ≥ 0 and their labels.
func labelled(labels []int) (cols, y []int) {
	for j, l := range labels {
		if l >= 0 {
			cols, y = append(cols, j), append(y, l)
		}
	}
	return cols, y
}

// classifierOf turns a regression on cand's features into the model's B
// (P×k), BX (P×N, for the N rows of X) and Intercept.
func classifierOf(l *classify.Logistic, cand logisticCandidate, n, k int) (b, bx, intercept *tensor.Dense) {
	P := l.Classes
	b = tensor.New(P, k)
	kt := 0
	if cand.topics != nil {
		kt = cand.topics.Rows
		for i := 0; i < kt; i++ {
			for p := 0; p < P; p++ {
				b.Set(p, i, l.W[i*P+p]*cand.scale)
			}
		}
	}
	bx = tensor.New(P, n)
	for i := 0; i < n; i++ {
		for p := 0; p < P; p++ {
			bx.Set(p, i, l.W[(kt+i)*P+p])
		}
	}
	intercept = tensor.New(P, 1)
	copy(intercept.Data, l.W[l.Features*P:])
	return b, bx, intercept
}

// fitSpread spreads labels over the neighbour graph nb with
// LabelSpreading's defaults, then fits the regression on the words
// (inverse penalty c) to the spread classes of every column they reached;
// words holds every column's word features.
func fitSpread(nb [][]int, words *classify.Features, labels []int, classes int, c float64) (*classify.Logistic, error) {
	spread, err := classify.Spreading{}.Spread(nb, labels, classes)
	if err != nil {
		return nil, err
	}
	cols, y := labelled(spread)
	return classify.FitLogistic(words.Subset(cols), y, classes, c, nil)
}
