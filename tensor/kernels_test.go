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
		var sum, maxAbs float64
		var dot, sqd [4]float64 // term e of Dot and SqDiff goes to partial e mod 4
		for i := range shape[0] {
			for j := range shape[1] {
				e := i*shape[1] + j
				sum += a.At(i, j)
				dot[e%4] += a.At(i, j) * b.At(i, j)
				d := a.At(i, j) - b.At(i, j)
				sqd[e%4] += d * d
				maxAbs = math.Max(maxAbs, math.Abs(a.At(i, j)))
			}
		}
		total := func(s [4]float64) float64 { return (s[0] + s[1]) + (s[2] + s[3]) }
		require.Equal(t, sum, tensor.Sum(a), "Sum sums in row-major order")
		require.Equal(t, sum, tensor.Sum(as))
		require.Equal(t, total(dot), tensor.Dot(a, b), "Dot sums in four interleaved partial sums %v", shape)
		require.Equal(t, total(dot), tensor.Dot(as, bs), "%v", shape)
		require.Equal(t, total(sqd), tensor.SqDiff(a, b), "%v", shape)
		require.Equal(t, total(sqd), tensor.SqDiff(as, bs), "%v", shape)
		require.Equal(t, tensor.Dot(a, a), tensor.SqNorm(as), "%v", shape)
		require.Equal(t, maxAbs, tensor.MaxAbs(a))
		require.Equal(t, maxAbs, tensor.MaxAbs(as))
		require.InEpsilon(t, math.Sqrt(tensor.Dot(a, a)), tensor.Norm(a), 1e-15)
		require.Equal(t, tensor.Norm(a), tensor.Norm(as))
	}
}

// Dot and SqDiff put term e (row-major) into partial sum e mod 4 whatever
// the layout: on terms spread over 60 binary orders of magnitude, where any
// other grouping changes the rounded result, contiguous and strided
// matrices of every small shape (rows shorter and longer than four) give
// the bits of the reference sum.
func TestDotLanes(t *testing.T) {
	rng := tensor.NewRand(7)
	wide := func(r, c int) *tensor.Dense {
		d := tensor.Uniform(r, c, -1, 1, rng)
		for i := range d.Data {
			d.Data[i] = math.Ldexp(d.Data[i], rng.IntN(61)-30)
		}
		return d
	}
	for r := 1; r <= 9; r++ {
		for c := 1; c <= 9; c++ {
			a, b := wide(r, c), wide(r, c)
			var dot, sqd [4]float64
			for e := range r * c {
				x, y := a.Data[e], b.Data[e]
				dot[e%4] += x * y
				sqd[e%4] += (x - y) * (x - y)
			}
			total := func(s [4]float64) float64 { return (s[0] + s[1]) + (s[2] + s[3]) }
			as, bs := strided(a), strided(b)
			require.Equal(t, total(dot), tensor.Dot(a, b), "%d×%d", r, c)
			require.Equal(t, total(dot), tensor.Dot(as, bs), "%d×%d strided", r, c)
			require.Equal(t, total(sqd), tensor.SqDiff(a, b), "%d×%d", r, c)
			require.Equal(t, total(sqd), tensor.SqDiff(as, bs), "%d×%d strided", r, c)
		}
	}
}
