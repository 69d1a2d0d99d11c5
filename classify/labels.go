package classify

import (
	"fmt"
	"math"

	"github.com/neuralnmf/neuralnmf/autograd"
	"github.com/neuralnmf/neuralnmf/ops"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// Labels and least-squares read-outs
//
// The helpers below are shared by the models that train with labels
// (packages neuralnmf and semisup) and the commands that score them: the
// known and held-out labels of a column split, the accuracy of a
// prediction, and the least-squares read-out B = Y·s† of a layer's S that
// the paper's accuracy protocol fits.

// Predict returns argmax_p (B·S)_pm for each column m of s (k⁽ᴸ⁾×M).
func Predict(b, s *tensor.Dense) []int {
	return ArgmaxColumns(tensor.MatMul(false, false, b, s))
}

// Accuracy returns the share of the columns with a label ≥ 0 for which pred
// is the label, or NaN if no column has one or pred and labels differ in
// length (pred nil, say, from neuralnmf.Model.Predict of a model whose classifier reads X).
func Accuracy(pred, labels []int) float64 {
	if len(pred) != len(labels) {
		return math.NaN()
	}
	right, n := 0, 0
	for m, l := range labels {
		if l < 0 {
			continue
		}
		n++
		if pred[m] == l {
			right++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return float64(right) / float64(n)
}

// CheckLabels validates class labels for M = len(labels) columns and returns
// the number of classes P = max label + 1. Every label must be −1 (unknown)
// or 0..P−1; P may not exceed M (more classes than columns cannot all be
// labelled), and every class must have at least one label. Errors name the
// 1-based column and say what to fix. It allocates nothing in proportion to
// the label values.
func CheckLabels(labels []int) (int, error) {
	classes := 0
	for m, l := range labels {
		if l < -1 {
			return 0, fmt.Errorf("label %d of column %d: want -1 (unknown) or a class 0..P-1", l, m+1)
		}
		if l >= len(labels) {
			return 0, fmt.Errorf("label %d of column %d: more classes than the %d columns; number the classes 0..P-1", l, m+1, len(labels))
		}
		classes = max(classes, l+1)
	}
	if classes == 0 {
		return 0, fmt.Errorf("no column has a label (all are -1)")
	}
	seen := make([]bool, classes)
	for _, l := range labels {
		if l >= 0 {
			seen[l] = true
		}
	}
	var empty []int
	for c, s := range seen {
		if !s {
			empty = append(empty, c)
		}
	}
	if len(empty) > 0 {
		return 0, fmt.Errorf("class(es) %v of 0..%d have no labelled column; renumber the labels 0..P-1 without gaps", empty, classes-1)
	}
	return classes, nil
}

// SplitLabels returns labels with the columns not known set to −1 (the
// labels training may see), and labels with the known columns set to −1
// (the held-out ones to score). known nil means all known.
func SplitLabels(labels []int, known []bool) (seen, heldOut []int) {
	seen, heldOut = make([]int, len(labels)), make([]int, len(labels))
	for m, l := range labels {
		if known == nil || known[m] {
			seen[m], heldOut[m] = l, -1
		} else {
			seen[m], heldOut[m] = -1, l
		}
	}
	return seen, heldOut
}

// ReadoutAccuracy measures how linearly the classes can be read off a
// representation s (k×M): it fits B = Y·s† by least squares on every column
// with a label ≥ 0 (Y one-hot) and returns the share of those columns for
// which argmax(B·s) is the label. It is the accuracy the authors' code
// reports for every method and supervision level, and the one the demo
// reports for unsupervised runs, which have no classifier of their own.
// It returns NaN for labels outside 0..classes−1 or no labelled column.
func ReadoutAccuracy(s *tensor.Dense, labels []int, classes int) float64 {
	pred, err := Readout(s, labels, classes)
	if err != nil {
		return math.NaN()
	}
	return Accuracy(pred, labels)
}

// Readout fits B = Y·s† by least squares on the columns of s (k×M) with a
// label ≥ 0 (Y one-hot, classes rows; the other columns of Y are zero) and
// returns argmax(B·s) for every column. With the labels of SplitLabels it
// is the paper's accuracy protocol: fit on the known labels, then score the
// held-out columns with Accuracy.
func Readout(s *tensor.Dense, labels []int, classes int) ([]int, error) {
	b, err := FitReadout(s, labels, classes)
	if err != nil {
		return nil, err
	}
	return Predict(b, s), nil
}

// FitReadout returns the classes×k read-out B = Y·s† of Readout, fitted on
// the columns of s (k×M) with a label ≥ 0, so that new columns s′ (the
// same layer of Transform) are classified by Predict(B, s′).
func FitReadout(s *tensor.Dense, labels []int, classes int) (*tensor.Dense, error) {
	y, err := tensor.OneHot(labels, classes)
	if err != nil {
		return nil, fmt.Errorf("classify: Readout: %w", err)
	}
	tape := autograd.NewTape()
	b := ops.MatMul(tape.Const(y), ops.Pinv(tape.Const(s)))
	if err := tape.Err(); err != nil {
		return nil, fmt.Errorf("classify: Readout: %w", err)
	}
	return b.Value(), nil
}

// argmaxColumns returns the row of the largest entry of each column.
func ArgmaxColumns(scores *tensor.Dense) []int {
	pred := make([]int, scores.Cols)
	for m := range pred {
		best := math.Inf(-1)
		for p := 0; p < scores.Rows; p++ {
			if v := scores.At(p, m); v > best {
				best, pred[m] = v, p
			}
		}
	}
	return pred
}
