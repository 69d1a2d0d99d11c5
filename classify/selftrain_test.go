package classify_test

import (
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/classify"
)

// Self-training with scikit-learn's defaults on the reference's samples,
// 18 of 90 labelled (6 a class), C = 10, labels the same samples in the
// same rounds as SelfTrainingClassifier and gives them the same classes
// (61 pseudo labels over 5 rounds, a sixth that adds none, 11 samples
// never labelled, with scikit-learn 1.2.1), except where a probability
// lies within the two fits' difference (each minimises the same objective
// to its own tolerance, ours GradTol) of the threshold: sample 87's is
// 0.7504 in scikit-learn's third round, and ours labels it in the fourth.
// At most 2 samples may differ so; a wrong rule (another threshold, the
// probability of another class, a fit on the wrong labels) moves many.
func TestSelfTrainingMatchesScikitLearn(t *testing.T) {
	r, f := load(t)
	st := r.SelfTraining
	got, err := classify.SelfTraining{}.Fit(f, r.Spreading.Known, r.Classes, st.C)
	require.NoError(t, err)
	differ := 0
	for j := range got.Labels {
		if got.Labels[j] != st.Labels[j] || got.Round[j] != st.Round[j] {
			differ++
		}
	}
	t.Logf("%d rounds (scikit-learn %d); %d of %d samples differ in label or round", got.Rounds, st.Rounds, differ, len(got.Labels))
	require.LessOrEqual(t, differ, 2)
	require.Equal(t, st.Rounds, got.Rounds)
	for j, l := range r.Spreading.Known {
		if l >= 0 {
			require.Equal(t, l, got.Labels[j], "a given label stays")
			require.Zero(t, got.Round[j])
		}
	}
}

// The contract on its own terms: every pseudo label is the class the
// fit of its round predicted with a probability above the threshold, the
// final fit is FitLogistic's on every label, and a threshold no
// probability exceeds (1) adds none, leaving FitLogistic's fit on the
// given labels.
func TestSelfTrainingContract(t *testing.T) {
	r, f := load(t)
	known := r.Spreading.Known
	got, err := classify.SelfTraining{Threshold: 0.6, MaxIter: 3}.Fit(f, known, r.Classes, 10)
	require.NoError(t, err)
	require.LessOrEqual(t, got.Rounds, 3)
	var cols, y []int
	for j, l := range got.Labels {
		if l >= 0 {
			cols, y = append(cols, j), append(y, l)
		}
		require.LessOrEqual(t, got.Round[j], got.Rounds)
		require.Equal(t, l < 0, got.Round[j] < 0)
	}
	require.Greater(t, len(cols), 18, "some samples were pseudo-labelled")
	// The final fit is a minimum of the objective on every label: the
	// same predictions as a cold FitLogistic on them.
	want, err := classify.FitLogistic(f.Subset(cols), y, r.Classes, 10, nil)
	require.NoError(t, err)
	require.Equal(t, want.Predict(f), got.Fit.Predict(f))
	// Round 1's pseudo labels are the predictions above 0.6 of the fit
	// on the given labels alone.
	var gc, gy []int
	for j, l := range known {
		if l >= 0 {
			gc, gy = append(gc, j), append(gy, l)
		}
	}
	first, err := classify.FitLogistic(f.Subset(gc), gy, r.Classes, 10, nil)
	require.NoError(t, err)
	scores := first.AllScores(f)
	P := r.Classes
	for j, l := range known {
		if l >= 0 {
			continue
		}
		z := scores[j*P : (j+1)*P]
		k := classify.Argmax(z)
		var sum float64
		for _, v := range z {
			sum += math.Exp(v - z[k])
		}
		if p := 1 / sum; math.Abs(p-0.6) > 1e-3 { // not at the threshold
			require.Equal(t, p > 0.6, got.Round[j] == 1, "sample %d, probability %.4f", j, p)
			if p > 0.6 {
				require.Equal(t, k, got.Labels[j])
			}
		}
	}

	none, err := classify.SelfTraining{Threshold: 1}.Fit(f, known, r.Classes, 10)
	require.NoError(t, err)
	require.Equal(t, 1, none.Rounds)
	require.Equal(t, known, none.Labels)
	require.Equal(t, first.Predict(f), none.Fit.Predict(f))
}

func TestSelfTrainingErrors(t *testing.T) {
	r, f := load(t)
	unknown := make([]int, f.Cols())
	for j := range unknown {
		unknown[j] = -1
	}
	for _, tc := range []struct {
		name   string
		s      classify.SelfTraining
		labels []int
		c      float64
		want   string
	}{
		{"no label", classify.SelfTraining{}, unknown, 1, "at least one given label"},
		{"threshold", classify.SelfTraining{Threshold: 1.5}, r.Spreading.Known, 1, "Threshold is 1.5"},
		{"max iter", classify.SelfTraining{MaxIter: -1}, r.Spreading.Known, 1, "MaxIter is -1"},
		{"C", classify.SelfTraining{}, r.Spreading.Known, 0, "C is 0"},
		{"labels", classify.SelfTraining{}, r.Spreading.Known[:5], 1, "5 labels for 90 samples"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.s.Fit(f, tc.labels, r.Classes, tc.c)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// FinalSumRule labels the same samples in the same rounds and refits the
// last fit to scikit-learn 1.2's rule: on every label it was fitted on
// (n of them), its gradient, taken by central differences, is within
// 2·GradTol/n, where the default's last fit, which stops at GradTol, is
// more than 5·GradTol/n away (C = 10⁴, where the objective is flat
// enough for the two rules to differ).
func TestSelfTrainingFinalSumRule(t *testing.T) {
	x, y := threeClasses(5, 6, 60, 0.5)
	f := featuresOf(x)
	known := slices.Clone(y)
	for j := range known {
		if j%4 != 0 {
			known[j] = -1
		}
	}
	const c = 1e4
	loose, err := classify.SelfTraining{}.Fit(f, known, 3, c)
	require.NoError(t, err)
	tight, err := classify.SelfTraining{FinalSumRule: true}.Fit(f, known, 3, c)
	require.NoError(t, err)
	require.Equal(t, loose.Labels, tight.Labels)
	require.Equal(t, loose.Round, tight.Round)
	var cols, ys []int
	for j, l := range tight.Labels {
		if l >= 0 {
			cols, ys = append(cols, j), append(ys, l)
		}
	}
	require.Greater(t, len(cols), 15, "self-training labelled some samples")
	bound := classify.GradTol / float64(len(cols))
	fl := f.Subset(cols)
	gt, gl := maxGradient(fl, ys, 3, c, tight.Fit.W), maxGradient(fl, ys, 3, c, loose.Fit.W)
	t.Logf("%d labels after %d rounds; gradient %.2g (FinalSumRule), %.2g (default); GradTol/n %.2g", len(cols), tight.Rounds, gt, gl, bound)
	require.Less(t, gt, 2*bound, "FinalSumRule")
	require.Greater(t, gl, 5*bound, "the default stops at GradTol")
}
