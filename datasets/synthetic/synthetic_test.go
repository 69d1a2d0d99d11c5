package synthetic_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/datasets/synthetic"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// The checks restate the structure documented in the data's README, which was
// read off the file independently of this package.
func TestStructure(t *testing.T) {
	x := synthetic.X()
	require.Equal(t, synthetic.Rows, x.Rows)
	require.Equal(t, synthetic.Cols, x.Cols)
	require.NoError(t, tensor.CheckData("X", x))
	// Base 4 on the first level-9 diagonal block (rows [0,10), cols [0,10)),
	// 0 off every diagonal block (row 0, col 89); noise is U(0, 0.15).
	require.InDelta(t, 4.075, x.At(0, 0), 0.075)
	require.InDelta(t, 0.075, x.At(0, 89), 0.075)

	sizes := map[int][]int{
		9: {10, 10, 5, 7, 5, 20, 10, 9, 14},
		4: {20, 12, 25, 33},
		2: {32, 58},
	}
	for classes, want := range sizes {
		labels, err := synthetic.Labels(classes)
		require.NoError(t, err)
		got := make([]int, classes)
		for _, l := range labels {
			got[l]++
		}
		require.Equal(t, want, got, "class sizes at %d classes", classes)
	}
	_, err := synthetic.Labels(3)
	require.Error(t, err)

	known, err := synthetic.Known(40)
	require.NoError(t, err)
	n := 0
	for _, k := range known {
		if k {
			n++
		}
	}
	require.Equal(t, 40, n)
	_, err = synthetic.Known(45)
	require.Error(t, err)
}
