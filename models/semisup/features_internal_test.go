package semisup

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/tensor"
)

// Dense and sparse X give the same features, each column at unit length.
func TestBuildFeaturesUnitColumns(t *testing.T) {
	x := tensor.New(3, 2)
	x.Set(0, 0, 3)
	x.Set(2, 0, 4)
	d := buildFeatures(nil, 1, input{dense: x}, []int{0, 1})
	sp := buildFeatures(nil, 1, input{sparse: tensor.SparseFromDense(x)}, []int{0, 1})
	require.InDeltaSlice(t, []float64{0.6, 0.8}, d.Val, 1e-15)
	require.Equal(t, d, sp)
	require.Equal(t, []int{0, 2, 2}, d.ColPtr, "the zero column has no entry")
}

// The held-out labels are fold 0; the others are dealt to the other folds
// class by class, so that every fold gets its share of each class and the
// folds' sizes differ by at most one.
func TestCVFolds(t *testing.T) {
	y := []int{0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2}
	cols := make([]int, len(y))
	held := make([]bool, 40)
	for i := range cols {
		cols[i] = 2 * i // columns need not be positions
		held[cols[i]] = i%4 == 0
	}
	for _, folds := range []int{2, 3, 4} {
		fold := cvFolds(cols, y, held, 3, folds, 7)
		size := make([]int, folds)
		perClass := make([][]int, folds)
		for f := range perClass {
			perClass[f] = make([]int, 3)
		}
		for i, f := range fold {
			require.Equal(t, held[cols[i]], f == 0, "label %d", i)
			size[f]++
			perClass[f][y[i]]++
		}
		require.LessOrEqual(t, slices.Max(size[1:])-slices.Min(size[1:]), 1, "folds %d: sizes %v", folds, size)
		for f := 1; f < folds; f++ {
			for c := range 3 {
				require.Positive(t, perClass[f][c], "folds %d: fold %d has no label of class %d", folds, f, c)
			}
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
