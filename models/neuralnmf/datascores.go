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
	}
	unitcol.AddScores(scores, bx, intercept, x.dense, x.sparse)
	return nil
}
