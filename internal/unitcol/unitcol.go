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

// AddScores adds bx·x/‖x‖₂ (each column of X at unit length, as Each
// walks it; bx is P×N) and the intercept (P×1) to scores (P×M, M the
// columns of X): the part of a classifier's scores that reads the words.
// Either of bx and intercept may be nil; the caller checks the shapes.
func AddScores(scores, bx, intercept *tensor.Dense, dense *tensor.Dense, sparse *tensor.Sparse) {
	if bx != nil {
		for j := 0; j < scores.Cols; j++ {
			Each(dense, sparse, j, func(row int, v float64) {
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
}
