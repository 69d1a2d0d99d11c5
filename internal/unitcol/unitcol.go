// Package unitcol walks a column of X scaled to unit Euclidean length, as
// the classifiers that read the words do (a TF-IDF vectoriser's L2 norm):
// documents of every length weigh alike.
package unitcol

import (
	"math"

	"github.com/neuralnmf/neuralnmf/tensor"
)

// Each calls f(row, v/‖x_j‖₂) for every non-zero entry v of column j of X,
// in row order, where X is sparse if sparse is not nil and dense
// otherwise; nothing for a zero column.
func Each(dense *tensor.Dense, sparse *tensor.Sparse, j int, f func(row int, v float64)) {
	if sparse != nil {
		idx, vals := sparse.Column(j)
		var ss float64
		for _, v := range vals {
			ss += v * v
		}
		if ss == 0 {
			return
		}
		inv := 1 / math.Sqrt(ss)
		for k, i := range idx {
			f(i, vals[k]*inv)
		}
		return
	}
	var ss float64
	for i := 0; i < dense.Rows; i++ {
		v := dense.At(i, j)
		ss += v * v
	}
	if ss == 0 {
		return
	}
	inv := 1 / math.Sqrt(ss)
	for i := 0; i < dense.Rows; i++ {
		if v := dense.At(i, j); v != 0 {
			f(i, v*inv)
		}
	}
}
