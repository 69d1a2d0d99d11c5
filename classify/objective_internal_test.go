package classify

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// serialObjective is the regression's objective as one loop over the
// samples (the code before the objective ran on several goroutines): the
// reference whose every bit the parallel one must give.
func serialObjective(f *Features, y []int, P int, c float64, grad, w []float64) float64 {
	F, n := f.Rows, float64(f.Cols())
	z := make([]float64, P)
	var loss float64
	clear(grad)
	l := &Logistic{Features: F, Classes: P, W: w}
	for j := 0; j < f.Cols(); j++ {
		l.Scores(f, j, z)
		zmax := slices.Max(z)
		var sum float64
		for k := range z {
			z[k] = math.Exp(z[k] - zmax)
			sum += z[k]
		}
		loss += math.Log(sum) - math.Log(z[y[j]])
		for k := range z {
			z[k] /= sum
		}
		z[y[j]]--
		for p := f.ColPtr[j]; p < f.ColPtr[j+1]; p++ {
			v, g := f.Val[p], grad[f.RowIdx[p]*P:f.RowIdx[p]*P+P]
			for k := range z {
				g[k] += v * z[k]
			}
		}
		g := grad[F*P:]
		for k := range z {
			g[k] += z[k]
		}
	}
	var reg float64
	for i, v := range w[:F*P] {
		reg += v * v
		grad[i] += v / c
	}
	for i := range grad {
		grad[i] /= n
	}
	return (loss + reg/(2*c)) / n
}

// randomFeatures returns rows×cols features with about density of them
// nonzero (uniform in (0, 1)), labels in 0..P−1, and weights w of
// normal entries times scale.
func randomFeatures(seed uint64, rows, cols, P int, density, scale float64) (*Features, []int, []float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	f := &Features{Rows: rows, ColPtr: []int{0}}
	y := make([]int, cols)
	for j := range cols {
		y[j] = rng.IntN(P)
		for i := range rows {
			if rng.Float64() < density {
				f.RowIdx, f.Val = append(f.RowIdx, i), append(f.Val, rng.Float64())
			}
		}
		f.ColPtr = append(f.ColPtr, len(f.Val))
	}
	w := make([]float64, (rows+1)*P)
	for i := range w {
		w[i] = scale * rng.NormFloat64()
	}
	return f, y, w
}

// The objective's value and gradient are bit for bit the serial loop's,
// for one worker and for several (shapes of one chunk and of many, in
// both passes; weights large enough that the softmax saturates).
func TestObjectiveIsTheSerialLoop(t *testing.T) {
	cases := []struct {
		rows, cols, P int
		density       float64
		scale         float64
	}{
		{5, 7, 3, 0.5, 1},
		{600, 1100, 4, 0.05, 1},
		{300, 2000, 19, 0.02, 30},
		{1000, 300, 2, 0.3, 0.1},
	}
	for i, tc := range cases {
		f, y, w := randomFeatures(uint64(i), tc.rows, tc.cols, tc.P, tc.density, tc.scale)
		want := make([]float64, len(w))
		wantLoss := serialObjective(f, y, tc.P, 10, want, w)
		for _, workers := range []int{1, 2, 7} {
			got := make([]float64, len(w))
			o := newObjective(f, y, tc.P, 10, workers)
			for range 2 { // a second evaluation reuses the buffers
				loss := o.eval(got, w)
				require.Equal(t, math.Float64bits(wantLoss), math.Float64bits(loss), "case %d, %d workers: loss %v, want %v", i, workers, loss, wantLoss)
				for k := range want {
					require.Equal(t, math.Float64bits(want[k]), math.Float64bits(got[k]), "case %d, %d workers: gradient entry %d", i, workers, k)
				}
			}
		}
	}
}

// BenchmarkObjective evaluates the objective on a javadoc-sized problem
// (10,000 samples, 20,000 features, 40 nonzeros a sample, 19 classes) on
// one goroutine ("1") and on GOMAXPROCS ("all"); the serial loop is the
// baseline of the same run.
func BenchmarkObjective(b *testing.B) {
	f, y, w := randomFeatures(1, 20000, 10000, 19, 0.002, 0.1)
	grad := make([]float64, len(w))
	b.Run("serial-loop", func(b *testing.B) {
		for b.Loop() {
			serialObjective(f, y, 19, 10, grad, w)
		}
	})
	for _, c := range []struct {
		name    string
		workers int
	}{{"1", 1}, {"all", 0}} {
		b.Run(c.name, func(b *testing.B) {
			workers := c.workers
			if workers == 0 {
				workers = runtime.GOMAXPROCS(0)
			}
			o := newObjective(f, y, 19, 10, workers)
			for b.Loop() {
				o.eval(grad, w)
			}
		})
	}
}
