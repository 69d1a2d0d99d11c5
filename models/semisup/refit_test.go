package semisup_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/classify"
	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/models/semisup"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// unitColumns returns the columns cols of x at unit length, as the
// regressions on the words read them.
func unitColumns(x *tensor.Dense, cols []int) *classify.Features {
	f := &classify.Features{Rows: x.Rows, ColPtr: []int{0}}
	for _, j := range cols {
		var ss float64
		for i := 0; i < x.Rows; i++ {
			ss += x.At(i, j) * x.At(i, j)
		}
		for i := 0; i < x.Rows; i++ {
			if v := x.At(i, j); v != 0 {
				f.RowIdx, f.Val = append(f.RowIdx, i), append(f.Val, v/math.Sqrt(ss))
			}
		}
		f.ColPtr = append(f.ColPtr, len(f.Val))
	}
	return f
}

// savedGradient returns the largest entry of the gradient, by central
// differences (step 10⁻⁶; the objective is of order 1, so accurate to
// about 10⁻¹⁰), of the regression's mean objective on the samples of f
// with labels y, inverse penalty c, at the weights model m saves (BX,
// Intercept) for P classes.
func savedGradient(m *neuralnmf.Model, f *classify.Features, y []int, P int, c float64) float64 {
	w := make([]float64, (f.Rows+1)*P)
	for i := 0; i < f.Rows; i++ {
		for p := 0; p < P; p++ {
			w[i*P+p] = m.BX.At(p, i)
		}
	}
	copy(w[f.Rows*P:], m.Intercept.Data)
	return gradientAt(w, f, y, P, c)
}

// gradientAt is the largest entry of the mean objective's gradient at the
// regression weights w (classify.Logistic's layout), by central
// differences.
func gradientAt(w []float64, f *classify.Features, y []int, P int, c float64) float64 {
	w = append([]float64(nil), w...)
	objective := func() float64 {
		l := &classify.Logistic{Features: f.Rows, Classes: P, W: w}
		z := make([]float64, P)
		var sum float64
		for n := range y {
			l.Scores(f, n, z)
			var e float64
			for _, v := range z {
				e += math.Exp(v)
			}
			sum += math.Log(e) - z[y[n]]
		}
		for _, v := range w[:f.Rows*P] {
			sum += v * v / (2 * c)
		}
		return sum / float64(len(y))
	}
	const h = 1e-6
	var worst float64
	for i, v := range w {
		w[i] = v + h
		up := objective()
		w[i] = v - h
		down := objective()
		w[i] = v
		worst = math.Max(worst, math.Abs(up-down)/(2*h))
	}
	return worst
}

// The regression on the words is refitted on the known labels to
// scikit-learn 1.2's stopping rule: at the weights the model saves
// (BX, Intercept), the gradient of the mean objective, by central
// differences, is within twice classify.GradTol/n for the n known labels.
// The cross-validation's fit, which stops at GradTol, is here more than
// five times that bound from the minimum, so the check tells the two
// apart.
func TestWordsRefitStopsAsScikitLearn12(t *testing.T) {
	x, y := markedGroups(3)
	known := make([]bool, len(y))
	var cols, ky []int
	for j := range known {
		if known[j] = j%2 == 0; known[j] {
			cols, ky = append(cols, j), append(ky, y[j])
		}
	}
	cfg := neuralnmf.Config{Ranks: []int{3}, Seed: 1, Supervision: &neuralnmf.Supervision{Labels: y, Classes: 4, Known: known}}
	words := []semisup.Kind{semisup.Words}
	f := unitColumns(x, cols)
	tight := classify.GradTol / float64(len(cols))
	m, ch, err := semisup.TrainChoosing(x, cfg, &semisup.ChooseOptions{Kinds: words})
	require.NoError(t, err)
	c := ch.Candidates[ch.Chosen].C
	require.Less(t, savedGradient(m, f, ky, 4, c), 2*tight, "the refit at C %g", c)
	// The check tells the rules apart: the fit to FitLogistic's rule (the
	// cross-validation's) is more than five times that bound from the
	// minimum.
	mean, err := classify.FitLogistic(f, ky, 4, c, nil)
	require.NoError(t, err)
	require.Greater(t, gradientAt(mean.W, f, ky, 4, c), 5*tight, "FitLogistic's rule")
}

// A chosen self-trained regression on the words keeps the rounds'
// pseudo labels and refits its last fit to scikit-learn 1.2's rule: on
// the given and pseudo labels (those classify.SelfTraining gives on the
// same unit-length columns at the chosen C, n of them) the saved
// weights' gradient is within twice classify.GradTol/n, and the last fit
// to FitLogistic's rule more than five times it.
func TestSelfTrainedRefitStopsAsScikitLearn12(t *testing.T) {
	x, y := markedGroups(3)
	known := make([]bool, len(y))
	labels := make([]int, len(y))
	every := make([]int, len(y))
	for j := range known {
		known[j], labels[j], every[j] = j%4 == 0, -1, j
		if known[j] {
			labels[j] = y[j]
		}
	}
	cfg := neuralnmf.Config{Ranks: []int{3}, Seed: 1, Supervision: &neuralnmf.Supervision{Labels: y, Classes: 4, Known: known}}
	self := []semisup.Kind{semisup.Words, semisup.SelfTrainedWords}
	m, ch, err := semisup.TrainChoosing(x, cfg, &semisup.ChooseOptions{Kinds: self, Prior: semisup.SelfTrainedWords})
	require.NoError(t, err)
	best := ch.Candidates[ch.Chosen]
	require.Equal(t, semisup.SelfTrainedWords, best.Kind)
	st, err := classify.SelfTraining{}.Fit(unitColumns(x, every), labels, 4, best.C)
	require.NoError(t, err)
	var cols, sy []int
	for j, l := range st.Labels {
		if l >= 0 {
			cols, sy = append(cols, j), append(sy, l)
		}
	}
	require.Greater(t, len(cols), 2*len(y)/4, "self-training labelled unknown documents")
	f := unitColumns(x, cols)
	tight := classify.GradTol / float64(len(cols))
	g := savedGradient(m, f, sy, 4, best.C)
	t.Logf("C %g, %d of %d labelled; gradient %.2g, GradTol/n %.2g", best.C, len(cols), len(y), g, tight)
	require.Less(t, g, 2*tight, "the refit's last fit")
	// The check tells the rules apart: the last fit to FitLogistic's rule
	// is more than five times that bound from the minimum.
	require.Greater(t, gradientAt(st.Fit.W, f, sy, 4, best.C), 5*tight, "FitLogistic's rule")
}
