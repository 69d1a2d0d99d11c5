package neuralnmf

import (
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/tensor"
)

// logisticObjective recomputes the regression's mean penalised loss
// directly from its definition, for the checks below.
func logisticObjective(f *features, y []int, P int, c float64, w []float64) float64 {
	l := &logistic{rows: f.rows, classes: P, w: w}
	z := make([]float64, P)
	var loss float64
	for j := 0; j < f.cols(); j++ {
		l.scores(f, j, z)
		var sum float64
		for _, v := range z {
			sum += math.Exp(v)
		}
		loss += math.Log(sum) - z[y[j]]
	}
	var reg float64
	for _, v := range w[:f.rows*P] {
		reg += v * v
	}
	return (loss + reg/(2*c)) / float64(f.cols())
}

// The fitted regression is a minimum of the objective: its gradient, by
// central differences of the objective written out above, is at most a
// few times the L-BFGS tolerance, and moving any weight by ±10⁻³ lowers
// the objective by at most what a gradient within that tolerance allows
// (tolerance × 10⁻³). A fit that stopped early or got the gradient wrong
// fails both.
func TestFitLogisticIsAMinimum(t *testing.T) {
	x, y := func() (*tensor.Dense, []int) {
		rng := tensor.NewRand(9)
		x := tensor.New(8, 60)
		y := make([]int, 60)
		for j := range y {
			y[j] = j % 3
			for i := 0; i < 8; i++ {
				x.Set(i, j, rng.Float64()+float64(boolInt(i%3 == y[j])))
			}
		}
		return x, y
	}()
	s := tensor.New(2, 60)
	for j := 0; j < 60; j++ {
		s.Set(0, j, float64(j%5))
		s.Set(1, j, float64(j%7))
	}
	cols := make([]int, 60)
	for j := range cols {
		cols[j] = j
	}
	for _, c := range []float64{0.01, 1, 100} {
		f := buildFeatures(s, topicScale(s), data{sparse: tensor.SparseFromDense(x)}, cols)
		require.Equal(t, 10, f.rows)
		l := fitLogistic(f, y, 3, c, nil)
		const h = 1e-6
		w := append([]float64(nil), l.w...)
		for i := range w {
			w[i] = l.w[i] + h
			up := logisticObjective(f, y, 3, c, w)
			w[i] = l.w[i] - h
			down := logisticObjective(f, y, 3, c, w)
			w[i] = l.w[i]
			require.Less(t, math.Abs(up-down)/(2*h), 5*logisticGradTol, "C %g: gradient entry %d", c, i)
		}
		at := logisticObjective(f, y, 3, c, l.w)
		for i := range w {
			for _, d := range []float64{-1e-3, 1e-3} {
				w[i] = l.w[i] + d
				require.GreaterOrEqual(t, logisticObjective(f, y, 3, c, w), at-logisticGradTol*1e-3, "C %g: weight %d moved by %g", c, i, d)
				w[i] = l.w[i]
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

// Dense and sparse X give the same features, each column at unit length.
func TestBuildFeaturesUnitColumns(t *testing.T) {
	x := tensor.New(3, 2)
	x.Set(0, 0, 3)
	x.Set(2, 0, 4)
	d := buildFeatures(nil, 1, data{dense: x}, []int{0, 1})
	sp := buildFeatures(nil, 1, data{sparse: tensor.SparseFromDense(x)}, []int{0, 1})
	require.InDeltaSlice(t, []float64{0.6, 0.8}, d.val, 1e-15)
	require.Equal(t, d, sp)
	require.Equal(t, []int{0, 2, 2}, d.colPtr, "the zero column has no entry")
}

// The neighbour graph equals a brute-force one: every column's
// spreadNeighbours most similar others (ties to the lower index), joined
// both ways.
func TestNeighbourGraphBruteForce(t *testing.T) {
	rng := tensor.NewRand(4)
	x := tensor.New(30, 80)
	for i := range x.Data {
		if rng.Float64() < 0.15 {
			x.Data[i] = float64(1 + rng.IntN(3)) // small integers: ties happen
		}
	}
	cols := make([]int, 80)
	for j := range cols {
		cols[j] = j
	}
	f := buildFeatures(nil, 1, data{sparse: tensor.SparseFromDense(x)}, cols)
	got := neighbourGraph(f)
	dense := func(j int) []float64 {
		v := make([]float64, f.rows)
		for p := f.colPtr[j]; p < f.colPtr[j+1]; p++ {
			v[f.rowIdx[p]] = f.val[p]
		}
		return v
	}
	want := make([][]int, 80)
	for j := range 80 {
		vj := dense(j)
		type cand struct {
			i int
			s float64
		}
		var cs []cand
		for i := range 80 {
			if i == j {
				continue
			}
			var s float64
			for r, v := range dense(i) {
				s += v * vj[r]
			}
			if s > 0 {
				cs = append(cs, cand{i, s})
			}
		}
		// Stable by index, then by similarity: ties keep the lower index first.
		for a := 1; a < len(cs); a++ {
			for b := a; b > 0 && cs[b].s > cs[b-1].s+1e-12; b-- {
				cs[b], cs[b-1] = cs[b-1], cs[b]
			}
		}
		for k := 0; k < len(cs) && k < spreadNeighbours; k++ {
			want[j] = append(want[j], cs[k].i)
			want[cs[k].i] = append(want[cs[k].i], j)
		}
	}
	for j := range want {
		w := want[j]
		slices.Sort(w)
		w = slices.Compact(w)
		require.Equal(t, w, got[j], "column %d", j)
	}
}

// Spreading one known label per cluster over two separate chains of
// columns labels every column of each chain with its cluster's class, and
// leaves a column no label reaches at −1.
func TestSpreadLabelsReachesTheCluster(t *testing.T) {
	nb := make([][]int, 21)
	link := func(a, b int) { nb[a] = append(nb[a], b); nb[b] = append(nb[b], a) }
	for j := 0; j < 9; j++ {
		link(j, j+1) // chain 0..9
	}
	for j := 10; j < 19; j++ {
		link(j, j+1) // chain 10..19; column 20 is alone
	}
	labels := make([]int, 21)
	for j := range labels {
		labels[j] = -1
	}
	labels[0], labels[15] = 1, 0
	got := spreadLabels(nb, labels, 2)
	for j := 0; j < 20; j++ {
		want := 1
		if j >= 10 {
			want = 0
		}
		require.Equal(t, want, got[j], "column %d", j)
	}
	require.Equal(t, -1, got[20])
}

// Each column's cross-validated prediction comes from a fit without its
// fold. Every column here has a feature of its own and nothing else, so a
// fit that never saw the column can only predict the most frequent class
// of the others (class 0: 30 of 60), while a fit that saw it could learn
// its label: a prediction that leaked the column would get classes 1 and
// 2 right.
func TestCrossValidateLogisticScoresEachColumnWithoutIt(t *testing.T) {
	const n = 60
	x := tensor.New(n, n)
	y := make([]int, n)
	for j := range n {
		x.Set(j, j, 1)
		switch {
		case j < 30:
			y[j] = 0
		case j < 50:
			y[j] = 1
		default:
			y[j] = 2
		}
	}
	held := make([]bool, n)
	for j := 0; j < n; j += 3 {
		held[j] = true
	}
	cols := make([]int, n)
	for j := range cols {
		cols[j] = j
	}
	fold := cvFolds(cols, y, held, 3, 3, 1)
	f := buildFeatures(nil, 1, data{dense: x}, cols)
	_, c, cv, _ := crossValidateLogistic(f, y, 3, fold, false)
	require.Equal(t, slices.Repeat([]int{0}, n), cv, "only the majority class of the other folds")
	require.Equal(t, logisticCs[0], c, "every C scores alike: the smallest")
	// With every column seen, a large C learns every label: the leak the
	// cross-validated predictions above do not have.
	l := fitLogistic(f, y, 3, logisticCs[len(logisticCs)-1], nil)
	require.Equal(t, y, l.predict(f))
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
