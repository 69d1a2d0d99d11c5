package randmat_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/internal/randmat"
	"github.com/neuralnmf/neuralnmf/tensor"
)

func TestSparse(t *testing.T) {
	d := randmat.Sparse(200, 100, 0.9, tensor.NewRand(1))
	zeros := 0
	for _, v := range d.Data {
		require.True(t, v >= 0 && v < 1)
		if v == 0 {
			zeros++
		}
	}
	// 20 000 entries, P(zero) = 0.9: the count is 18 000 ± 42 (one standard
	// deviation); 6 standard deviations bound it for any seed we would use.
	require.InDelta(t, 18000, zeros, 255)
	require.Equal(t, d.Data, randmat.Sparse(200, 100, 0.9, tensor.NewRand(1)).Data, "a seed fixes the matrix")
}
