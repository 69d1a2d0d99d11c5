package nnls

import (
	"math"
	"testing"

	"github.com/neuralnmf/neuralnmf/tensor"
)

// TestScanX compares scanX with the definition, entry by entry: extreme if
// some |v| is above xScaleLimit or nonzero below its reciprocal, finite if
// no entry is NaN or ±Inf; one special value at a time, in a small X (one
// pass) and a large one (the parallel pass with more than one worker), with
// one worker and several.
func TestScanX(t *testing.T) {
	specials := []float64{0, 1, -2.5, math.NaN(), math.Inf(1), math.Inf(-1), 0x1p600, -0x1p600, 0x1p-600, -0x1p-600,
		xScaleLimit, 1 / xScaleLimit, math.MaxFloat64, math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, math.Copysign(0, -1)}
	want := func(v float64) (extreme, finite bool) {
		a := math.Abs(v)
		return !(a <= xScaleLimit) || a < 1/xScaleLimit && a != 0, !math.IsNaN(v) && !math.IsInf(v, 0)
	}
	for _, shape := range [][2]int{{7, 5}, {300, 300}} {
		x := tensor.Uniform(shape[0], shape[1], 0.5, 1, tensor.NewRand(1))
		for _, v := range specials {
			for _, pos := range []int{0, len(x.Data) / 2, len(x.Data) - 1} {
				old := x.Data[pos]
				x.Data[pos] = v
				we, wf := want(v)
				for _, workers := range []int{1, 2, 5} {
					if e, f := scanX(x, workers); e != we || f != wf {
						t.Errorf("%v at %d in %d×%d, %d workers: extreme %v finite %v, want %v %v", v, pos, x.Rows, x.Cols, workers, e, f, we, wf)
					}
				}
				x.Data[pos] = old
			}
		}
	}
}

// TestMagnitudes checks magnitudes (the AVX2 pass on amd64 CPUs that have
// it) against magnitudesGo for every length up to 40, with each special
// value at every position (every vector lane and every tail length), over
// data with zeros, and on all-zero input.
func TestMagnitudes(t *testing.T) {
	specials := []float64{0, math.NaN(), math.Inf(-1), 0x1p600, -0x1p-600, math.SmallestNonzeroFloat64, -math.MaxFloat64, 3}
	rng := tensor.NewRand(7)
	for n := 0; n <= 40; n++ {
		x := make([]float64, n)
		for i := range x {
			if rng.IntN(3) > 0 {
				x[i] = rng.NormFloat64()
			}
		}
		if mx, mn := magnitudes(make([]float64, n)); mx != 0 || mn != math.MaxUint64 {
			t.Fatalf("%d zeros: got %#x %#x", n, mx, mn)
		}
		for p := 0; p < n; p++ {
			for _, v := range specials {
				old := x[p]
				x[p] = v
				gx, gn := magnitudes(x)
				wx, wn := magnitudesGo(x)
				if gx != wx || gn != wn {
					t.Fatalf("n=%d, %v at %d: got %#x %#x, want %#x %#x", n, v, p, gx, gn, wx, wn)
				}
				x[p] = old
			}
		}
	}
}
