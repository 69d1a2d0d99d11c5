package main

import (
	"fmt"
	"io"
	"math"
	"unicode/utf8"

	"github.com/neuralnmf/neuralnmf/classify"
	"github.com/neuralnmf/neuralnmf/matio"
	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/models/semisup"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// writeChoice says what fit -choose compared on the held-out known labels,
// what it chose, how far the choice can be trusted, and the training
// accuracy of the classifier of m, the model chosen, on sup's known labels
// of the training columns x.
func writeChoice(w io.Writer, c *semisup.Choice, m *neuralnmf.Model, x *matio.Matrix, sup *neuralnmf.Supervision) {
	if c.Chosen < 0 {
		fmt.Fprintf(w, "labels: too few known labels to hold any out (%d, fewer than two in every class): trained the supervised fit as configured, unchecked\n", c.Known)
		return
	}
	best := c.Candidates[c.Chosen]
	how := fmt.Sprintf("on %d known labels, cross-validated in %d folds (a supervised fit on the %d of one fold, held out)", c.Known, c.Folds, c.HeldOut)
	if c.PriorStandIn != 0 {
		fmt.Fprintf(w, "labels: every label is known, so no document is left to self-train: the prior is %v, the regression the self-trained kind would self-train\n", c.PriorStandIn)
	}
	switch {
	case c.Chosen == c.Best && c.Chosen == c.Prior:
		fmt.Fprintf(w, "labels: chose %s, the prior and the best by its accuracy %s:\n", best.Name, how)
	case c.Chosen == c.Best:
		fmt.Fprintf(w, "labels: chose %s by its accuracy %s:\n", best.Name, how)
	default:
		fmt.Fprintf(w, "labels: chose %s, the prior, which the best, %s, does not beat by two standard errors of the paired difference, %s:\n", best.Name, c.Candidates[c.Best].Name, how)
	}
	names := make([]string, len(c.Candidates))
	width := len("candidate")
	for i, cand := range c.Candidates {
		names[i] = cand.Name
		if cand.Kind == semisup.SupervisedFit || cand.Kind == semisup.SupervisedTopicsWords {
			names[i] += fmt.Sprintf(", %d epochs", cand.Epochs)
			if cand.EarlyStop {
				names[i] += ", early stop"
			}
		}
		width = max(width, utf8.RuneCountInString(names[i]))
	}
	fmt.Fprintf(w, "  %-*s %9s %9s\n", width, "candidate", "all known", "held out")
	for i, cand := range c.Candidates {
		mark := ""
		switch {
		case i == c.Chosen:
			mark = "  <- chosen, refitted on all known labels"
		case i == c.Prior:
			mark = "  (the prior)"
		}
		all := fmt.Sprintf("%.3f", cand.Accuracy)
		switch cand.Kind {
		case semisup.SupervisedFit, semisup.SupervisedReadout, semisup.SupervisedTopicsWords:
			all = "-" // scored on the held-out fold alone
		}
		fmt.Fprintf(w, "  %-*s %9s %9.3f%s\n", width, names[i], all, cand.HeldOutAccuracy, mark)
	}
	if !c.Trusted() && c.Chosen == c.Best {
		fmt.Fprintf(w, "  the margin over the next best (%.3f) is within two standard errors (2 × %.3f) of the %d labels it was scored on: they cannot tell these candidates apart, and the next best may be as good; %s\n", c.Margin, c.StdErr, best.Scored, labelsToTell(c.Margin, c.StdErr, best.Scored))
	}
	if best.Kind == semisup.SupervisedFit {
		return
	}
	var pred []int
	var err error
	if x.Sparse != nil {
		pred, _, err = m.Scores(x.Sparse, m.S)
	} else {
		pred, _, err = m.Scores(x.Dense, m.S)
	}
	if err != nil {
		return
	}
	known, _ := classify.SplitLabels(sup.Labels, sup.Known)
	switch {
	case best.Kind == semisup.SupervisedTopicsWords:
		fmt.Fprintf(w, "  the model's classifier reads the words and layer 1's topics, trained with the labels from the unsupervised fit and the regression on both (refitted on all known labels): train accuracy %.3f\n", classify.Accuracy(pred, known))
	case best.Kind == semisup.TopicsWordsSpread:
		fmt.Fprintf(w, "  the model's classifier reads the words and layer 1's topics (the regression on both plus the one on the spread labels, refitted on all known labels): train accuracy %.3f\n", classify.Accuracy(pred, known))
	case best.Kind == semisup.SelfTrainedTopicsWords:
		fmt.Fprintf(w, "  the model's classifier reads the words and layer 1's topics (logistic regression with the C chosen for it, self-trained on the documents whose labels are unknown, its last fit to scikit-learn 1.2's tolerance or the iteration cap): train accuracy %.3f\n", classify.Accuracy(pred, known))
	case best.Kind == semisup.SelfTrainedWords:
		fmt.Fprintf(w, "  the model's classifier reads the words (logistic regression with the C chosen for it, self-trained on the documents whose labels are unknown, its last fit to scikit-learn 1.2's tolerance or the iteration cap): train accuracy %.3f\n", classify.Accuracy(pred, known))
	case best.Kind == semisup.TopicsWords:
		fmt.Fprintf(w, "  the model's classifier reads the words and layer %d's topics (logistic regression, its C chosen by cross-validation on all known labels): train accuracy %.3f\n", best.Layer, classify.Accuracy(pred, known))
	case best.Kind == semisup.SpreadWords:
		fmt.Fprintf(w, "  the model's classifier reads the words (logistic regression on the spread labels, its C chosen by cross-validation on all known labels): train accuracy %.3f\n", classify.Accuracy(pred, known))
	case best.Kind == semisup.Words:
		fmt.Fprintf(w, "  the model's classifier reads the words (logistic regression, its C chosen by cross-validation on all known labels, refitted on them to scikit-learn 1.2's tolerance or the iteration cap): train accuracy %.3f\n", classify.Accuracy(pred, known))
	default:
		fmt.Fprintf(w, "  the model's classifier reads layer %d (B = Y·S%d† on the known labels): train accuracy %.3f\n", best.Layer, best.Layer, classify.Accuracy(pred, known))
	}
}

// labelsToTell says how many scored labels would tell a margin apart
// from chance: n·(2·stdErr/margin)², where the standard error at n labels,
// √(p(1−p)/n), falls below half the margin (if the margin stays as it is).
func labelsToTell(margin, stdErr float64, n int) string {
	if !(margin > 0) {
		return "no number of labels tells apart candidates that score the same"
	}
	need := math.Ceil(float64(n) * (2 * stdErr / margin) * (2 * stdErr / margin) * (1 - 1e-12)) // not one more for rounding
	return fmt.Sprintf("about %.0f scored labels would tell this margin from chance (%.1f times as many)", need, need/float64(n))
}

// warnPenalties warns when a penalty took over the fit: -alpha-s set the
// documents' weights to zero (the reconstruction explains nothing), or -alpha-a's term is far above the
// reconstruction term (Adam moves A by about -lr of its scale an epoch,
// so a huge penalty stops training as "no progress" long before A is
// small: the topics are not the penalised ones).
func warnPenalties(w io.Writer, cfg neuralnmf.Config, m *neuralnmf.Model, x *matio.Matrix) {
	if cfg.AlphaS > 0 && m.History.FinalRelError > 1-1e-6 {
		fmt.Fprintf(w, "warning: -alpha-s %g set the weights of the documents to 0, or nearly (relative error %.6f, the error of no model at all): the penalty outweighs the data; give a smaller -alpha-s\n", cfg.AlphaS, m.History.FinalRelError)
	}
	if cfg.AlphaA == 0 || x == nil {
		return
	}
	var sq float64
	if x.Sparse != nil {
		sq = x.Sparse.SqNorm()
	} else {
		sq = tensor.SqNorm(x.Dense)
	}
	_, cols := x.Dims()
	fit := m.History.FinalRelError * m.History.FinalRelError * sq
	rho := cfg.L1Ratio
	var pen float64
	for _, a := range m.A {
		pen += 2 * cfg.AlphaA * float64(cols) * (rho*tensor.Sum(a) + (1-rho)/2*tensor.SqNorm(a))
	}
	if pen > 100*fit {
		fmt.Fprintf(w, "warning: -alpha-a %g: the penalty on the topics (%.3g) is %.3g times the reconstruction error (%.3g); training moves A by about -lr of its scale an epoch and stopped long before the penalised optimum, so the topics are not shaped by it: give a smaller -alpha-a\n", cfg.AlphaA, pen, pen/fit, fit)
	}
}

// writeFitSummary says how training ended.
func writeFitSummary(w io.Writer, h neuralnmf.History, epochsWord string) {
	n := len(h.Loss)
	fmt.Fprintf(w, "trained %d %s (%s): loss %.6g, relative error %.6f", n, epochsWord, h.Stopped, h.Loss[n-1], h.FinalRelError)
	if !math.IsNaN(h.Accuracy[n-1]) {
		fmt.Fprintf(w, ", train accuracy %.3f (on the labels used)", h.Accuracy[n-1])
	}
	if !math.IsNaN(h.HeldOutAccuracy[n-1]) {
		fmt.Fprintf(w, ", held-out accuracy %.3f (labelled columns not marked known)", h.HeldOutAccuracy[n-1])
	}
	if h.Resets+h.Collinear > 0 {
		fmt.Fprintf(w, "\nre-initialised %d dead and %d collinear topics during training", h.Resets, h.Collinear)
	}
	fmt.Fprintln(w)
}
