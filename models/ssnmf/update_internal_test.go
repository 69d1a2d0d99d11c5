package ssnmf

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/tensor"
)

func TestFlushSubnormal(t *testing.T) {
	for _, c := range []struct{ in, want float64 }{
		{0, 0},
		{math.SmallestNonzeroFloat64, 0},
		{math.Nextafter(0x1p-1022, 0), 0}, // the largest subnormal
		{0x1p-1022, 0x1p-1022},            // the smallest normal
		{1e-300, 1e-300},
		{1, 1},
		{math.MaxFloat64, math.MaxFloat64},
		{math.Inf(1), math.Inf(1)},
	} {
		require.Equal(t, c.want, flushSubnormal(c.in), "flushSubnormal(%v)", c.in)
	}
	require.True(t, math.IsNaN(flushSubnormal(math.NaN())))
}

// An update whose result falls below the smallest normal float64 leaves
// 0, in the serial and the shared-out form, and the others are exact.
func TestMultiplyFlushesSubnormals(t *testing.T) {
	for _, n := range []int{5, 3 * multiplyChunk} {
		m, num, den := make([]float64, n), make([]float64, n), make([]float64, n)
		for i := range m {
			m[i], num[i], den[i] = 1e-300, 1e-10, 1 // 1e-310: subnormal
			if i%2 == 1 {
				m[i], num[i], den[i] = 3, 2, 4
			}
		}
		row := func(v []float64) *tensor.Dense { return &tensor.Dense{Rows: 1, Cols: n, Stride: n, Data: v} }
		mm := row(m)
		multiply(mm, row(num), row(den), 0)
		for i, v := range mm.Data {
			if i%2 == 1 {
				require.Equal(t, 1.5, v)
			} else {
				require.Zero(t, v, "entry %d of %d", i, n)
			}
		}
	}
}
