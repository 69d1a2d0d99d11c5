package semisup

import (
	"fmt"
	"strings"
	"time"

	"github.com/neuralnmf/neuralnmf/classify"
	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	choice "github.com/neuralnmf/neuralnmf/models/semisup"
	"github.com/neuralnmf/neuralnmf/models/ssnmf"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// Fractions are the shares of the training documents whose labels are
// known.
var Fractions = []float64{0.05, 0.3, 1}

// ValidationSeeds choose the defaults; TestSeeds report them.
var (
	ValidationSeeds = []uint32{1, 2}
	TestSeeds       = []uint32{101, 102, 103}
)

// Candidate is one way to train semi-supervised Neural NMF.
type Candidate struct {
	Name       string
	Classifier neuralnmf.Classifier
	// Scale is Supervision.Balance: the supervision term starts at Scale
	// times the unsupervised term.
	Scale float64
	// Choose, if not nil, trains with choice.TrainChoosing and
	// these options (Scale unused): the choice on held-out known labels
	// between supervised fits and the unsupervised read-outs.
	Choose *choice.ChooseOptions
}

// Candidates are the semi-supervised configurations compared. The first
// run of this protocol chose the cross-entropy classifier at balance 0.3
// among balances 1, 0.3 and 0.1 (and the paper's least squares, below it
// on info and godoc); that fixed fit is kept as the reference. The second
// compared it with the choice inside fit (choice.TrainChoosing)
// between the supervised fit at balance 0.3 and the unsupervised
// read-outs, holding out 1/3 or 1/5 of the known labels: 1/3 (mean 0.694,
// worst −0.020 against the best unsupervised read-out) over 1/5 (0.693,
// −0.028) and the fixed fit (0.680, −0.116); log select-choose1.log. The
// third added the supervised fit's own read-outs of each layer to the
// choice (log select-choose2.log). The fourth added the logistic
// regressions on the words, alone and beside the unsupervised first
// layer's topics, choosing by held-out accuracy alone (log
// select-choose3.log). The fifth adds the labels spread over a
// neighbour graph and the early stop of the supervised validation fits,
// and compares two rules: the highest held-out accuracy (no prior) and the
// spread labels unless another candidate is better by two standard errors
// of the paired difference (prior spread). Prior spread had the higher
// mean (0.8005 against 0.7895) but fell 0.032 below the unsupervised
// read-out on man at 5 %, so Choose took no prior (log select.log). The
// sixth cross-validated the candidates that need no supervised fit on
// three folds of the known labels, the held-out third one of them, with
// no prior, the spread prior, or the best cross-validated candidate as the
// prior (so that a supervised fit, scored on the held-out third alone,
// must beat it clearly: "prior cv"); prior cv won (select-folds.log,
// select-cv.log, select-merged.log). The seventh dealt the folds apart
// from the held-out third ("(own)" folds) and compared 3, 5 and 10 of
// them, since at 5 % known labels a fit on two thirds of the labels
// flatters the candidates whose accuracy grows least with more labels
// (the read-outs): all three were within 0.002 of the sixth's prior cv and
// below it (select-folds2.log), so that code was dropped. The earlier
// rules, whose code is gone, are EarlierCandidates, and TestSelectFromLogs
// chooses among all of them from the logs. The eighth adds the sum of
// the topics+words and spread regressions' scores as one more candidate
// ("+sum", choice.TopicsWordsSpread): on the validation split at 5 %
// the sum alone beat the choice on info and lost on man (TestEnsembles).
// Among the candidates, cross-validation took it in one run of the 18
// (info, 30 %, seed 2: 0.897 against 0.890), and Choose ranks "+sum" first by 0.0004 (0.8072 against
// 0.8068, select-sum.log and select-merged.log): within the noise of one
// run, so the default is unchanged until a test-split report of it is
// run; TopicsWordsSpread stays an option (fit -candidates). (Several
// supervised balances inside the choice cost a fit each; not compared
// yet.) The ninth adds, each to the default kinds, the topics+words
// regression self-trained on the unknown documents ("+self",
// choice.SelfTrainedTopicsWords) and the topics trained with the labels
// through that regression ("+joint", choice.SupervisedTopicsWords),
// rerunning prior cv beside them (select-self-joint.log): the joint fit
// was chosen in none of the 18 runs, so +joint scores prior cv's 0.8077
// exactly; self-training was chosen in 2 and lost accuracy in both (info
// 5 % seed 2, 0.813 → 0.800; man 30 % seed 1, 0.834 → 0.817), mean
// 0.8060 against 0.8077. Neither becomes a default kind. The tenth adds
// the regression on the words self-trained on the unknown documents
// ("+selfwords", choice.SelfTrainedWords: scikit-learn's
// SelfTrainingClassifier around LogisticRegression, which beat
// LogisticRegressionCV by 0.010–0.020 at 30 % on three test corpora)
// to the default kinds (select-selfwords.log, weighed with
// select-self-joint.log by TestSelectFromLogs): chosen in both godoc runs at
// 30 %, it raised them from 0.774 to 0.812 and changed no other cell's
// mean, 0.8118 against 0.8077, so it became a default kind. The eleventh
// weighs two other priors with the new default kinds (select-priors.log):
// the topics+words regression (0.8087: it lost godoc's gains at 30 % and
// 0.020 at 5 %) and the self-trained one (0.7619: self-training on 5 % of
// the labels fell to 0.425 on info); prior cv stays. The twelfth is no
// new candidate but the regressions' stopping rule: classify.FitLogistic
// stops at 10⁻⁴ on the largest entry of the mean objective's gradient
// (scikit-learn 1.4's lbfgs), where scikit-learn 1.2's (the baselines')
// stops on the sum's, and at C = 10³–10⁴ their predictions differ (on
// info with every label known, 0.939 against 0.953). The default rerun
// with the sum's rule for the regressions on known labels (select-tol.log;
// the spread and self-training's pseudo labels kept the mean's: with the
// sum's, javadoc at 5 % took 273 s instead of 71 s) has mean 0.8106
// against 0.8118. Every 100 % cell gained or held (godoc 0.880 → 0.889,
// info 0.894 → 0.903, man 0.869); at 5 % and 30 % the cells moved both
// ways by up to 0.008, and godoc 30 % fell from 0.812 to 0.786 (its seed
// 2 went to the words' regression instead of the self-trained one). With
// no gain in the mean and 2–3.5 times the time with every label known
// (javadoc 100 %: 319 s against 90 s at stop 61, both inside
// TestReport; not timed beside LogisticRegressionCV), the mean's rule
// stays. The thirteenth gives 1.2's rule to the refit of the chosen
// regression on all the known labels alone, after the cross-validation has
// chosen the candidate and its C ("refit 1.2", the default of
// choice.ChooseOptions since; "+selfwords" is the rule before, whose
// switch was dropped once decided: its runs are read from its logs). With every regression refitted so, the self-trained ones
// included (select-refit-all.log, "+selfwords, refit all 1.2", whose code
// was not kept), the mean was 0.8150: the words' regression gained in 4 of
// its 5 runs (+0.010 a run), the one on the topics and the words lost
// 0.0026 a run (9 runs), and with the self-trained ones so refitted, which
// gained 0.015 on godoc at 30 % (2 runs), fit -labels took 4.4 times
// LogisticRegressionCV's time on javadoc at 5 % known (160.7 s against
// 36.5 s, bench/semisup/compare.sh, one run; pydoc at 30 %, 2.30 times),
// where the bar is 2. So only the words' regression is refitted to 1.2's
// rule (select-refit.log): mean 0.8145 against 0.8118, every 100 % cell
// higher or the same (godoc 0.880 → 0.888, info 0.894 → 0.913), man at
// 30 % seed 2 lower by 0.006. With every label known, javadoc took 112.7 s
// against 91.6 s before, beside LogisticRegressionCV's 153–155 s (one run
// each). The fourteenth refits a chosen self-trained regression's last fit
// alone to 1.2's rule, its rounds kept on ours, so that it pseudo-labels
// as its cross-validation did ("refit 1.2, self final 1.2", the default
// since; "refit 1.2" is the rule before, its switch dropped once decided;
// select-selffinal.log): mean 0.8154 against 0.8145, godoc at 30 % 0.810
// → 0.820 and 0.814 → 0.818, no run lower; the whole fit -labels on
// javadoc at 5 % took 1.86 times LogisticRegressionCV's time (median of
// 3 runs, bench/semisup/compare.log). Its first round's fit, on the known
// labels alone, to 1.2's rule too (select-selffirst.log, "…, self
// first+final 1.2", whose code was not kept) left godoc's seed 1 at 0.820
// and lowered seed 2 to 0.812, no other run changed: not kept.
func Candidates() []Candidate {
	return []Candidate{
		{Name: "choose 3 folds, no prior", Choose: &choice.ChooseOptions{Balances: []float64{0.3}, HoldOut: 1.0 / 3, Folds: 3, Prior: choice.NoPrior}},
		{Name: "choose 3 folds, prior spread", Choose: &choice.ChooseOptions{Balances: []float64{0.3}, HoldOut: 1.0 / 3, Folds: 3, Prior: choice.SpreadWords}},
		{Name: "choose 3 folds, prior cv", Choose: &choice.ChooseOptions{Balances: []float64{0.3}, HoldOut: 1.0 / 3, Folds: 3, Prior: choice.CrossValidated}},
		{Name: "choose 3 folds, prior cv, +sum", Choose: &choice.ChooseOptions{Balances: []float64{0.3}, HoldOut: 1.0 / 3, Folds: 3, Prior: choice.CrossValidated,
			Kinds: []choice.Kind{choice.SupervisedFit, choice.SupervisedReadout, choice.UnsupervisedReadout, choice.Words, choice.TopicsWords, choice.SpreadWords, choice.TopicsWordsSpread}}},
		{Name: "choose 3 folds, prior cv, +self", Choose: &choice.ChooseOptions{Balances: []float64{0.3}, HoldOut: 1.0 / 3, Folds: 3, Prior: choice.CrossValidated,
			Kinds: []choice.Kind{choice.SupervisedFit, choice.SupervisedReadout, choice.UnsupervisedReadout, choice.Words, choice.TopicsWords, choice.SpreadWords, choice.SelfTrainedTopicsWords}}},
		{Name: "choose 3 folds, prior cv, +joint", Choose: &choice.ChooseOptions{Balances: []float64{0.3}, HoldOut: 1.0 / 3, Folds: 3, Prior: choice.CrossValidated,
			Kinds: []choice.Kind{choice.SupervisedFit, choice.SupervisedReadout, choice.UnsupervisedReadout, choice.Words, choice.TopicsWords, choice.SpreadWords, choice.SupervisedTopicsWords}}},
		{Name: "choose 3 folds, prior cv, +selfwords, refit 1.2, self final 1.2", Choose: &choice.ChooseOptions{Balances: []float64{0.3}, HoldOut: 1.0 / 3, Folds: 3, Prior: choice.CrossValidated,
			Kinds: []choice.Kind{choice.SupervisedFit, choice.SupervisedReadout, choice.UnsupervisedReadout, choice.Words, choice.TopicsWords, choice.SpreadWords, choice.SelfTrainedWords}}},
		{Name: "choose 3 folds, prior topics+words", Choose: &choice.ChooseOptions{Balances: []float64{0.3}, HoldOut: 1.0 / 3, Folds: 3, Prior: choice.TopicsWords}},
		{Name: "choose 3 folds, prior self-trained-words", Choose: &choice.ChooseOptions{Balances: []float64{0.3}, HoldOut: 1.0 / 3, Folds: 3, Prior: choice.SelfTrainedWords}},
	}
}

// EarlierCandidates are candidates of earlier comparisons whose runs are
// read from their logs, not run again: the code that ran them is gone (the
// fifth comparison's rules, which scored every candidate on the held-out
// third of the known labels alone, select.log; the seventh's, whose folds
// were dealt apart from the held-out third, select-folds2.log; the
// regressions' refits to FitLogistic's rule, "+selfwords" and "+selfwords,
// refit 1.2", decided against in the thirteenth and fourteenth
// comparisons, select-selfwords.log and select-refit.log).
var EarlierCandidates = []Candidate{{Name: "choose, no prior"}, {Name: "choose, prior spread"},
	{Name: "choose 3 folds, prior cv (own)"}, {Name: "choose 5 folds, prior cv"}, {Name: "choose 10 folds, prior cv"},
	{Name: "choose 3 folds, prior cv, +selfwords"}, {Name: "choose 3 folds, prior cv, +selfwords, refit 1.2"}}

// Default is what `fit -labels` does: the library's zero Supervision
// (neuralnmf.DefaultClassifier, neuralnmf.DefaultBalance), chosen for the
// data by choice.TrainChoosing with its default options.
func Default() Candidate {
	return Candidate{Name: fmt.Sprintf("default fit -labels (choose; %s, balance %g)", neuralnmf.DefaultClassifier, neuralnmf.DefaultBalance),
		Choose: &choice.ChooseOptions{}}
}

// Run is one scored fit.
type Run struct {
	Corpus   string
	Method   string
	Fraction float64
	Seed     uint32
	Accuracy float64
	Epochs   int
	Seconds  float64
}

// Start is the shared HNMF start of every method for one split and seed:
// the A's the default Init (HNMFInit, one start per layer) computes, so
// each method starts where `fit` would.
func Start(sp *Split, seed uint32) ([]*tensor.Dense, error) {
	h, err := ssnmf.HNMFSparse(sp.XTrain, sp.Ranks(), nil, &ssnmf.Options{Seed: uint64(seed), Restarts: 1})
	if err != nil {
		return nil, err
	}
	return h.A, nil
}

func (sp *Split) config(seed uint32, start []*tensor.Dense) neuralnmf.Config {
	return neuralnmf.Config{Ranks: sp.Ranks(), Init: neuralnmf.GivenInit, InitA: start, Seed: uint64(seed)}
}

// Semi trains c on sp with the labels of known and scores the predicted
// classes of the evaluation documents.
func (c Candidate) Semi(sp *Split, known []bool, seed uint32, start []*tensor.Dense) (Run, error) {
	r, _, err := c.SemiChoice(sp, known, seed, start)
	return r, err
}

// SemiChoice is Semi that also returns what a choosing candidate chose
// (nil for one that does not choose).
func (c Candidate) SemiChoice(sp *Split, known []bool, seed uint32, start []*tensor.Dense) (Run, *choice.Choice, error) {
	t0 := time.Now()
	sup := &neuralnmf.Supervision{Labels: sp.YTrain, Classes: len(sp.Classes), Known: known, Classifier: c.Classifier, Balance: c.Scale}
	cfg := sp.config(seed, start)
	cfg.Supervision = sup
	var m *neuralnmf.Model
	var ch *choice.Choice
	var err error
	if c.Choose != nil {
		m, ch, err = choice.TrainChoosing(sp.XTrain, cfg, c.Choose)
	} else {
		m, err = neuralnmf.Train(sp.XTrain, cfg)
	}
	if err != nil {
		return Run{}, nil, err
	}
	pred, _, err := m.Classify(sp.XEval)
	if err != nil {
		return Run{}, nil, err
	}
	return Run{Corpus: sp.Corpus, Method: c.Name, Seed: seed, Accuracy: classify.Accuracy(pred, sp.YEval),
		Epochs: len(m.History.Loss), Seconds: time.Since(t0).Seconds()}, ch, nil
}

// Unsupervised is the baseline of ignoring the labels in training: the
// default unsupervised fit, then the paper's least-squares read-out of
// each layer fitted on the known labels; one Run per layer (the last
// first), named by UnsupervisedLayerName. Summarise adds their best,
// UnsupervisedName.
func Unsupervised(sp *Split, known []bool, seed uint32, start []*tensor.Dense) ([]Run, error) {
	t0 := time.Now()
	m, err := neuralnmf.Train(sp.XTrain, sp.config(seed, start))
	if err != nil {
		return nil, err
	}
	seen, _ := classify.SplitLabels(sp.YTrain, known)
	s, err := m.Transform(sp.XEval)
	if err != nil {
		return nil, err
	}
	secs := time.Since(t0).Seconds()
	var runs []Run
	for l := len(m.S); l >= 1; l-- {
		b, err := classify.FitReadout(m.S[l-1], seen, len(sp.Classes))
		if err != nil {
			return nil, err
		}
		pred := classify.Predict(b, s[l-1])
		runs = append(runs, Run{Corpus: sp.Corpus, Method: UnsupervisedLayerName(l), Seed: seed, Accuracy: classify.Accuracy(pred, sp.YEval),
			Epochs: len(m.History.Loss), Seconds: secs})
	}
	return runs, nil
}

// UnsupervisedLayerName names the Unsupervised baseline's read-out of
// layer l in tables.
func UnsupervisedLayerName(l int) string { return fmt.Sprintf("unsupervised + read-out, layer %d", l) }

// UnsupervisedName names, in a Table, the best of the unsupervised
// read-outs' means over layers (an oracle over layers: the baseline the
// default must reach).
const UnsupervisedName = "unsupervised + read-out, best layer"

// Describe summarises a split: its documents and classes.
func (sp *Split) Describe() string {
	return fmt.Sprintf("%s: %d training and %d scored documents, %d words, %d classes (%s), ranks %v",
		sp.Corpus, sp.XTrain.Cols, sp.XEval.Cols, sp.XTrain.Rows, len(sp.Classes), strings.Join(sp.Classes, ", "), sp.Ranks())
}
