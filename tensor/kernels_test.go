package tensor_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/tensor"
)

// strided returns a copy of d whose rows are 3 elements apart more than
// they need be, the gaps holding NaN: a kernel that reads a gap gives NaN,
// and one that writes a gap changes it.
func strided(d *tensor.Dense) *tensor.Dense {
	s := &tensor.Dense{Rows: d.Rows, Cols: d.Cols, Stride: d.Cols + 3, Data: make([]float64, d.Rows*(d.Cols+3))}
	for i := range s.Data {
		s.Data[i] = math.NaN()
	}
	for i := range d.Rows {
		copy(s.Row(i), d.Row(i))
	}
	return s
}

// requireGapsNaN checks that no kernel wrote into the gaps of a strided
// matrix.
func requireGapsNaN(t *testing.T, s *tensor.Dense) {
	t.Helper()
	for i := range s.Rows {
		for _, v := range s.Data[i*s.Stride+s.Cols : (i+1)*s.Stride] {
			require.True(t, math.IsNaN(v), "a gap between rows was written")
		}
	}
}

// The element-wise kernels give the same bits on contiguous matrices (one
// loop over all elements) and on strided ones (a loop per row), for
// ordinary and single-row or single-column shapes, read nothing and write
// nothing between rows, and compute what they say.
func TestElementwiseKernels(t *testing.T) {
	for _, shape := range [][2]int{{7, 5}, {1, 9}, {9, 1}, {40, 10}} {
		rng := tensor.NewRand(uint64(shape[0]*100 + shape[1]))
		a := tensor.Uniform(shape[0], shape[1], -1, 1, rng)
		b := tensor.Uniform(shape[0], shape[1], -1, 1, rng)
		binary := []struct {
			name string
			f    func(dst, a, b *tensor.Dense)
			want func(x, y float64) float64
		}{
			{"Add", tensor.Add, func(x, y float64) float64 { return x + y }},
			{"Sub", tensor.Sub, func(x, y float64) float64 { return x - y }},
			{"Mul", tensor.Mul, func(x, y float64) float64 { return x * y }},
			{"Scale", func(dst, a, _ *tensor.Dense) { tensor.Scale(dst, -2.5, a) }, func(x, _ float64) float64 { return -2.5 * x }},
			{"AddScaled", func(dst, a, b *tensor.Dense) { dst.Copy(a); tensor.AddScaled(dst, 0.75, b) }, func(x, y float64) float64 { return x + 0.75*y }},
			{"ClampZero", func(dst, a, _ *tensor.Dense) { dst.Copy(a); tensor.ClampZero(dst) }, func(x, _ float64) float64 { return math.Max(x, 0) }},
		}
		for _, k := range binary {
			dc := tensor.New(shape[0], shape[1])
			k.f(dc, a, b)
			as, bs, ds := strided(a), strided(b), strided(tensor.New(shape[0], shape[1]))
			k.f(ds, as, bs)
			for i := range shape[0] {
				for j := range shape[1] {
					require.Equal(t, k.want(a.At(i, j), b.At(i, j)), dc.At(i, j), "%s %v (%d,%d)", k.name, shape, i, j)
					require.Equal(t, dc.At(i, j), ds.At(i, j), "%s %v: strided differs at (%d,%d)", k.name, shape, i, j)
				}
			}
			requireGapsNaN(t, ds)
		}
		as, bs := strided(a), strided(b)
		var sum, dot, maxAbs float64
		for i := range shape[0] {
			for j := range shape[1] {
				sum += a.At(i, j)
				dot += a.At(i, j) * b.At(i, j)
				maxAbs = math.Max(maxAbs, math.Abs(a.At(i, j)))
			}
		}
		require.Equal(t, sum, tensor.Sum(a), "Sum sums in row-major order")
		require.Equal(t, sum, tensor.Sum(as))
		require.Equal(t, dot, tensor.Dot(a, b))
		require.Equal(t, dot, tensor.Dot(as, bs))
		require.Equal(t, maxAbs, tensor.MaxAbs(a))
		require.Equal(t, maxAbs, tensor.MaxAbs(as))
		require.InEpsilon(t, math.Sqrt(tensor.Dot(a, a)), tensor.Norm(a), 1e-15)
		require.Equal(t, tensor.Norm(a), tensor.Norm(as))
	}
}
