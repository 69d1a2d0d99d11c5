package neuralnmf

import (
	"fmt"

	"github.com/neuralnmf/neuralnmf/internal/unitcol"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// A classifier that reads the words
//
// A model's classifier may read the columns of X themselves beside the
// topics (package semisup fits such logistic regressions): it scores a
// column x with S⁽ˡ⁾ = s as
//
//	B·s + BX·x/‖x‖₂ + Intercept
//
// (Model.Scores), each column of X scaled to unit Euclidean length.

// unitColumn calls f for the nonzero entries of column j of x, scaled to
// unit length (nothing for a zero column).
func (x data) unitColumn(j int, f func(row int, v float64)) { unitcol.Each(x.dense, x.sparse, j, f) }

// addDataScores adds bx·x/‖x‖₂ (each column of x at unit length) and the
// intercept to scores (P×M), checking x's shape.
func addDataScores(scores, bx, intercept *tensor.Dense, x data) error {
	if bx != nil {
		if x.dense == nil && x.sparse == nil {
			return fmt.Errorf("the classifier reads the columns of X themselves (BX), and no x was given")
		}
		n, m := x.dims()
		if n != bx.Cols || m != scores.Cols {
			return fmt.Errorf("%w: x is %d×%d, want %d×%d", tensor.ErrShape, n, m, bx.Cols, scores.Cols)
		}
		for j := 0; j < m; j++ {
			x.unitColumn(j, func(row int, v float64) {
				for p := 0; p < bx.Rows; p++ {
					scores.Set(p, j, scores.At(p, j)+v*bx.At(p, row))
				}
			})
		}
	}
	if intercept != nil {
		for p := 0; p < scores.Rows; p++ {
			for j := 0; j < scores.Cols; j++ {
				scores.Set(p, j, scores.At(p, j)+intercept.Data[p])
			}
		}
	}
	return nil
}

// Spreading the known labels
//
// With few known labels (a few per class), a classifier fitted on them
// alone misses what the unlabelled columns say about the classes' shape;
// scikit-learn's LabelSpreading, which spreads the labels over a graph of
// nearest neighbours, beat every other method at 5 % known labels on two of
// our corpora. The SpreadWords candidate does the same on the columns of X
// (package classify's Spreading with LabelSpreading's defaults, on the
// columns at unit length). Each column then takes the class of its largest
// spread score, and a logistic regression on the words, fitted to those
// classes of every reached column with the C that cross-validation on the
// known labels chose, makes the spread classes a classifier of new columns.
