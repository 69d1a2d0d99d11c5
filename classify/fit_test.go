package classify_test

import (
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/classify"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// featuresOf returns the columns of x as Features.
func featuresOf(x *tensor.Dense) *classify.Features {
	f := &classify.Features{Rows: x.Rows, ColPtr: []int{0}}
	for j := 0; j < x.Cols; j++ {
		for i := 0; i < x.Rows; i++ {
			if v := x.At(i, j); v != 0 {
				f.RowIdx = append(f.RowIdx, i)
				f.Val = append(f.Val, v)
			}
		}
		f.ColPtr = append(f.ColPtr, len(f.Val))
	}
	return f
}

// unitFeaturesOf returns the columns of x, each at unit length.
func unitFeaturesOf(x *tensor.Dense) *classify.Features {
	f := featuresOf(x)
	for j := 0; j < f.Cols(); j++ {
		var ss float64
		for _, v := range f.Val[f.ColPtr[j]:f.ColPtr[j+1]] {
			ss += v * v
		}
		for p := f.ColPtr[j]; p < f.ColPtr[j+1]; p++ {
			f.Val[p] /= math.Sqrt(ss)
		}
	}
	return f
}

// logisticObjective recomputes the regression's mean penalised loss
// directly from its definition, for the checks below.
func logisticObjective(f *classify.Features, y []int, P int, c float64, w []float64) float64 {
	l := &classify.Logistic{Features: f.Rows, Classes: P, W: w}
	z := make([]float64, P)
	var loss float64
	for j := 0; j < f.Cols(); j++ {
		l.Scores(f, j, z)
		var sum float64
		for _, v := range z {
			sum += math.Exp(v)
		}
		loss += math.Log(sum) - z[y[j]]
	}
	var reg float64
	for _, v := range w[:f.Rows*P] {
		reg += v * v
	}
	return (loss + reg/(2*c)) / float64(f.Cols())
}

// The fitted regression is a minimum of the objective: its gradient, by
// central differences of the objective written out above, is at most a
// few times the L-BFGS tolerance, and moving any weight by ±10⁻³ lowers
// the objective by at most what a gradient within that tolerance allows
// (tolerance × 10⁻³). A fit that stopped early or got the gradient wrong
// fails both.
func TestFitLogisticIsAMinimum(t *testing.T) {
	x, y := threeClasses(9, 8, 60, 1)
	// Two integer-valued features on top of the eight: a fit whose
	// features differ in scale.
	for j := 0; j < 60; j++ {
		x.Set(0, j, float64(j%5))
		x.Set(1, j, float64(j%7))
	}
	f := featuresOf(x)
	for _, c := range []float64{0.01, 1, 100} {
		l, err := classify.FitLogistic(f, y, 3, c, nil)
		require.NoError(t, err)
		require.Less(t, maxGradient(f, y, 3, c, l.W), 5*classify.GradTol, "C %g", c)
		w := slices.Clone(l.W)
		at := logisticObjective(f, y, 3, c, l.W)
		for i := range w {
			for _, d := range []float64{-1e-3, 1e-3} {
				w[i] = l.W[i] + d
				require.GreaterOrEqual(t, logisticObjective(f, y, 3, c, w), at-classify.GradTol*1e-3, "C %g: weight %d moved by %g", c, i, d)
				w[i] = l.W[i]
			}
		}
	}
}

// FitLogisticTol with GradTol/n (scikit-learn 1.2's rule) stops n times
// closer to the minimum: at C = 10⁴, where the objective is nearly flat,
// its gradient is within twice GradTol/n, and FitLogistic's is more than
// five times it, so the check tells the two apart. A tol that is not
// positive and finite is an error.
func TestFitLogisticTolStopsTighter(t *testing.T) {
	x, y := threeClasses(4, 6, 45, 0.5)
	f := featuresOf(x)
	const c = 1e4
	tight := classify.GradTol / float64(f.Cols())
	l, err := classify.FitLogisticTol(f, y, 3, c, nil, tight)
	require.NoError(t, err)
	require.Less(t, maxGradient(f, y, 3, c, l.W), 2*tight, "FitLogisticTol(GradTol/n)")
	loose, err := classify.FitLogistic(f, y, 3, c, nil)
	require.NoError(t, err)
	require.Greater(t, maxGradient(f, y, 3, c, loose.W), 5*tight, "FitLogistic stops at GradTol, not GradTol/n")
	for _, bad := range []float64{0, -1, math.Inf(1), math.NaN()} {
		_, err := classify.FitLogisticTol(f, y, 3, c, nil, bad)
		require.ErrorContains(t, err, "tol", "tol %v", bad)
	}
}

// maxGradient returns the largest entry of the gradient of
// logisticObjective at w, by central differences (step 10⁻⁶: on these
// objectives of order 1, accurate to about 10⁻¹⁰).
func maxGradient(f *classify.Features, y []int, P int, c float64, w []float64) float64 {
	const h = 1e-6
	w = slices.Clone(w)
	var worst float64
	for i, v := range w {
		w[i] = v + h
		up := logisticObjective(f, y, P, c, w)
		w[i] = v - h
		down := logisticObjective(f, y, P, c, w)
		w[i] = v
		worst = math.Max(worst, math.Abs(up-down)/(2*h))
	}
	return worst
}

// threeClasses returns rows×cols features of three classes (column j is
// of class j mod 3): uniform noise, plus shift on the rows i with i mod 3
// equal to the class.
func threeClasses(seed uint64, rows, cols int, shift float64) (*tensor.Dense, []int) {
	rng := tensor.NewRand(seed)
	x := tensor.New(rows, cols)
	y := make([]int, cols)
	for j := range y {
		y[j] = j % 3
		for i := 0; i < rows; i++ {
			x.Set(i, j, rng.Float64()+shift*float64(boolInt(i%3 == y[j])))
		}
	}
	return x, y
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// The neighbour graph equals a brute-force one: every column's
// 7 most similar others (ties to the lower index), joined
// both ways.
func TestNeighbourGraphBruteForce(t *testing.T) {
	rng := tensor.NewRand(4)
	x := tensor.New(30, 80)
	for i := range x.Data {
		if rng.Float64() < 0.15 {
			x.Data[i] = float64(1 + rng.IntN(3)) // small integers: ties happen
		}
	}
	f := unitFeaturesOf(x)
	got, err := classify.Spreading{}.Graph(f)
	require.NoError(t, err)
	dense := func(j int) []float64 {
		v := make([]float64, f.Rows)
		for p := f.ColPtr[j]; p < f.ColPtr[j+1]; p++ {
			v[f.RowIdx[p]] = f.Val[p]
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
		for k := 0; k < len(cs) && k < classify.DefaultNeighbours; k++ {
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
	got, err := classify.Spreading{}.Spread(nb, labels, 2)
	require.NoError(t, err)
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
func TestCrossValidateScoresEachColumnWithoutIt(t *testing.T) {
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
	fold := make([]int, n) // three folds, each with every class
	for j := range fold {
		fold[j] = j % 3
	}
	f := unitFeaturesOf(x)
	cv, err := classify.CrossValidate(f, y, 3, fold, false)
	require.NoError(t, err)
	require.Equal(t, slices.Repeat([]int{0}, n), cv.Pred, "only the majority class of the other folds")
	cs := classify.Cs()
	require.Equal(t, cs[0], cv.C, "every C scores alike: the smallest")
	// With every column seen, a large C learns every label: the leak the
	// cross-validated predictions above do not have.
	l, err := classify.FitLogistic(f, y, 3, cs[len(cs)-1], nil)
	require.NoError(t, err)
	require.Equal(t, y, l.Predict(f))
}
