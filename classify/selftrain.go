package classify

import (
	"fmt"
	"math"
	"slices"
)

// SelfTraining configures self-training around the logistic regression,
// as scikit-learn's SelfTrainingClassifier with its default criterion
// ("threshold"): the regression is fitted on the labelled samples, every
// unlabelled sample whose largest predicted probability exceeds
// Threshold takes its predicted class as a label, and the fit is repeated
// until a round labels no sample, none is left unlabelled, or MaxIter
// rounds have run; the last fit is on every label given so far. The zero
// value gives scikit-learn's defaults.
type SelfTraining struct {
	// Threshold is the probability a prediction must exceed to become a
	// label: default 0.75, in (0, 1].
	Threshold float64
	// MaxIter is the most rounds of pseudo-labelling: default 10.
	MaxIter int
	// FinalSumRule, if true, refits the last fit (on every label given so
	// far, n of them), from its weights, to scikit-learn 1.2's stopping
	// rule (FitLogisticTol's GradTol/n) or MaxIter L-BFGS iterations;
	// the rounds keep FitLogistic's rule, so they label the same samples.
	// scikit-learn 1.2 fits every round to its rule, which costs 59–136
	// iterations a round on a corpus of 2,000 documents where ours takes
	// 2–40.
	FinalSumRule bool
}

// SelfTrained is what SelfTraining.Fit found.
type SelfTrained struct {
	// Fit is the regression on the given and pseudo labels.
	Fit *Logistic
	// Labels are each sample's label: the given one, a pseudo label, or
	// −1 for a sample never labelled (scikit-learn's transduction_).
	Labels []int
	// Round is the round in which each sample was labelled: 0 for a
	// given label, −1 for none (scikit-learn's labeled_iter_).
	Round []int
	// Rounds is the number of rounds of pseudo-labelling run
	// (scikit-learn's n_iter_).
	Rounds int
}

func (s SelfTraining) withDefaults() SelfTraining {
	if s.Threshold == 0 {
		s.Threshold = 0.75
	}
	if s.MaxIter == 0 {
		s.MaxIter = 10
	}
	return s
}

// Fit self-trains the regression with inverse penalty c on the samples of
// f, whose labels are given (each in 0..classes−1, −1 for an unlabelled
// sample; at least one given). Each round's fit starts from the last
// one's weights. It returns an error for invalid input.
func (s SelfTraining) Fit(f *Features, labels []int, classes int, c float64) (*SelfTrained, error) {
	o := s.withDefaults()
	if err := checkLabels(f, labels, classes, true); err != nil {
		return nil, err
	}
	if !(c > 0) || math.IsInf(c, 0) {
		return nil, fmt.Errorf("classify: C is %v, want a positive inverse penalty", c)
	}
	if !(o.Threshold > 0 && o.Threshold <= 1) {
		return nil, fmt.Errorf("classify: SelfTraining.Threshold is %v, want a probability in (0, 1]", o.Threshold)
	}
	if o.MaxIter < 0 {
		return nil, fmt.Errorf("classify: SelfTraining.MaxIter is %d, want 0 (10) or more", o.MaxIter)
	}
	out := &SelfTrained{Labels: slices.Clone(labels), Round: make([]int, len(labels))}
	var cols, y, rest []int
	for j, l := range labels {
		if l >= 0 {
			cols, y = append(cols, j), append(y, l)
		} else {
			out.Round[j] = -1
			rest = append(rest, j)
		}
	}
	if len(cols) == 0 {
		return nil, fmt.Errorf("classify: self-training needs at least one given label, got none of %d samples", len(labels))
	}
	var w []float64
	fit := func(tol float64) {
		l := fitLogistic(f.Subset(cols), y, classes, c, w, tol)
		w, out.Fit = l.W, l
	}
	z := make([]float64, classes)
	fitted := false // whether out.Fit is the fit on every label so far
	for len(rest) > 0 && out.Rounds < o.MaxIter {
		out.Rounds++
		fit(GradTol)
		fitted = true
		var still []int
		for _, j := range rest {
			out.Fit.Scores(f, j, z)
			k := Argmax(z)
			if softmaxAt(z, k) > o.Threshold {
				out.Labels[j], out.Round[j] = k, out.Rounds
				cols, y = append(cols, j), append(y, k)
			} else {
				still = append(still, j)
			}
		}
		if len(still) == len(rest) {
			break
		}
		rest, fitted = still, false
	}
	if !fitted {
		fit(GradTol)
	}
	if o.FinalSumRule {
		fit(GradTol / float64(len(cols)))
	}
	return out, nil
}

// softmaxAt returns the softmax of scores z at class k.
func softmaxAt(z []float64, k int) float64 {
	zmax := slices.Max(z)
	var sum float64
	for _, v := range z {
		sum += math.Exp(v - zmax)
	}
	return math.Exp(z[k]-zmax) / sum
}
