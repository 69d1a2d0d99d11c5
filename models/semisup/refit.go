package semisup

import (
	"fmt"
	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"strings"

	"github.com/neuralnmf/neuralnmf/classify"
)

// refit fits the chosen candidate on all the known labels (those of sup).
func (c *chooser) refit(best Candidate) (*neuralnmf.Model, error) {
	switch best.Kind {
	case TopicsWordsSpread:
		return c.refitTopicsWordsSpread()
	case Words, TopicsWords, SpreadWords:
		return c.refitRegression(best.Kind)
	case UnsupervisedReadout:
		return c.readout(c.um, best.Layer)
	case SupervisedTopicsWords:
		return c.refitJoint(best)
	case SelfTrainedTopicsWords:
		return c.refitSelfTrained(TopicsWords, c.tw.c)
	case SelfTrainedWords:
		return c.refitSelfTrained(Words, c.words.c)
	}
	return c.refitSupervised(best)
}

// readout gives m a least-squares read-out of layer on the known labels.
func (c *chooser) readout(m *neuralnmf.Model, layer int) (*neuralnmf.Model, error) {
	b, err := classify.FitReadout(m.S[layer-1], c.known, c.sup.Classes)
	if err != nil {
		return nil, err
	}
	m.B, m.ClassifierLayer = b, layer
	return m, nil
}

// refitTopicsWordsSpread saves the sum of the regression on the topics and
// the words and the one on the spread labels in the unsupervised model.
func (c *chooser) refitTopicsWordsSpread() (*neuralnmf.Model, error) {
	n, _ := c.x.dims()
	spread, err := fitSpread(c.words.graph, c.featuresOf(Words), c.known, c.sup.Classes, c.words.c)
	if err != nil {
		return nil, err
	}
	um := c.um
	b, bx, ic := classifierOf(c.refits[TopicsWords], c.regressions[TopicsWords], n, um.A[0].Cols)
	_, bx2, ic2 := classifierOf(spread, c.regressions[Words], n, um.A[0].Cols)
	for i, v := range bx2.Data {
		bx.Data[i] += v
	}
	for i, v := range ic2.Data {
		ic.Data[i] += v
	}
	um.B, um.BX, um.Intercept, um.ClassifierLayer = b, bx, ic, 1
	return um, nil
}

// refitRegression saves the refitted regression of kind (Words,
// TopicsWords, or SpreadWords: the regression on the words fitted to the
// spread labels) in the unsupervised model. Words' is refitted on the
// known labels to scikit-learn 1.2's stopping rule (unless
// ChooseOptions.MeanRuleRefit), from the cross-validation's fit at its C.
func (c *chooser) refitRegression(kind Kind) (*neuralnmf.Model, error) {
	l, err := c.refits[kind], error(nil)
	switch kind {
	case Words: // refitted to scikit-learn 1.2's stopping rule (docs/semi-supervised.md)
		l, err = classify.FitLogisticTol(c.featuresOf(Words).Subset(c.knownCols), c.knownY, c.sup.Classes, c.words.c, l.W, classify.GradTol/float64(len(c.knownCols)))
	case SpreadWords:
		l, err = fitSpread(c.words.graph, c.featuresOf(Words), c.known, c.sup.Classes, c.words.c)
		kind = Words
	}
	if err != nil {
		return nil, err
	}
	return c.saveRegression(l, kind), nil
}

// saveRegression saves l, a regression on the features of kind k (Words
// or TopicsWords), as the unsupervised model's classifier.
func (c *chooser) saveRegression(l *classify.Logistic, k Kind) *neuralnmf.Model {
	um := c.um
	layer := len(um.A) // B reads no topics: zero on the last layer
	if k == TopicsWords {
		layer = 1
	}
	n, _ := c.x.dims()
	um.B, um.BX, um.Intercept = classifierOf(l, c.regressions[k], n, um.A[layer-1].Cols)
	um.ClassifierLayer = layer
	return um
}

// refitSelfTrained saves the regression on the features of kind (Words
// or TopicsWords), with inverse penalty C, self-trained on every known
// label, in the unsupervised model; its last fit stops at scikit-learn
// 1.2's rule unless ChooseOptions.MeanRuleRefit or
// MeanRuleSelfTrainedRefit.
func (c *chooser) refitSelfTrained(kind Kind, C float64) (*neuralnmf.Model, error) {
	st, err := classify.SelfTraining{FinalSumRule: true}.Fit(c.featuresOf(kind), c.known, c.sup.Classes, C)
	if err != nil {
		return nil, err
	}
	return c.saveRegression(st.Fit, kind), nil
}

// refitSupervised refits a supervised candidate on all the known labels.
// The refit starts where the validation fit did (cfg's start): from the
// validation fit's A's it stopped early, 0.01 lower on 20 Newsgroups.
func (c *chooser) refitSupervised(best Candidate) (*neuralnmf.Model, error) {
	m, err := c.refitFor(best, c.withKnown(c.sup.Known, best.Balance, 0))
	if err != nil {
		return nil, err
	}
	if best.Kind == SupervisedReadout {
		return c.readout(m, best.Layer)
	}
	return m, nil
}

// refitFor runs refit, the Config of a supervised candidate's fit on all
// the known labels, for as many epochs as its validation fit took when
// that one stopped early, and says so in the History.
func (c *chooser) refitFor(best Candidate, refit neuralnmf.Config) (*neuralnmf.Model, error) {
	if best.EarlyStop {
		refit.Epochs = best.Epochs
	}
	c.announce(refit, "%s: refit on all %d known labels", best.Name, c.ch.Known)
	m, err := c.fit(refit)
	if err != nil {
		return nil, err
	}
	if best.EarlyStop && strings.HasPrefix(m.History.Stopped, "max epochs") {
		m.History.Stopped = fmt.Sprintf("refitted for the %d epochs at which its validation fit stopped early", best.Epochs)
	}
	return m, nil
}
