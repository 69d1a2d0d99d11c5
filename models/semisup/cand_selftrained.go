package semisup

import (
	"fmt"

	"github.com/neuralnmf/neuralnmf/classify"
	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
)

// SelfTrainedTopicsWords and SelfTrainedWords: TopicsWords' and Words'
// regressions self-trained on the documents whose labels are unknown
// (classify.SelfTraining), cross-validated with each fold's labels left
// unknown; the refit's last fit to scikit-learn 1.2's rule.
var (
	selfTrainedKind = kindInfo{
		name:  "self-trained",
		help:  "the regression on the topics and the words self-trained on the documents whose labels are unknown, as scikit-learn's SelfTrainingClassifier: those it predicts with probability above 0.75 take that class, up to 10 rounds",
		needs: []Kind{TopicsWords}, why: "whose regression and C it self-trains",
		score: (*chooser).scoreSelfTrained,
		refit: func(c *chooser, _ Candidate) (*neuralnmf.Model, error) {
			return c.refitSelfTrained(TopicsWords, c.tw.c)
		},
	}
	selfTrainedWordsKind = kindInfo{
		name:  "self-trained-words",
		help:  "the regression on the words self-trained so",
		needs: []Kind{Words}, why: "whose regression and C it self-trains",
		score: (*chooser).scoreSelfTrainedWords,
		refit: func(c *chooser, _ Candidate) (*neuralnmf.Model, error) { return c.refitSelfTrained(Words, c.words.c) },
	}
)

// scoreSelfTrained cross-validates TopicsWords' regression self-trained
// on the unknown documents.
func (c *chooser) scoreSelfTrained() error {
	pred, err := c.crossValidateSelfTrained(TopicsWords, c.tw.c)
	if err != nil {
		return err
	}
	c.add(Candidate{Name: fmt.Sprintf("unsupervised layer-1 topics + words, logistic (C %.3g), self-trained on the unknown documents", c.tw.c),
		Kind: SelfTrainedTopicsWords, C: c.tw.c, Layer: 1}, pred)
	return nil
}

// scoreSelfTrainedWords adds Words' regression self-trained on the
// unknown documents, cross-validated beside the unsupervised fit
// (startWords).
func (c *chooser) scoreSelfTrainedWords() error {
	c.add(Candidate{Name: fmt.Sprintf("logistic regression on the words (C %.3g), self-trained on the unknown documents", c.words.c),
		Kind: SelfTrainedWords, C: c.words.c}, c.words.self)
	return nil
}

// crossValidateSelfTrained predicts each fold's known documents by the
// regression on the features of kind (Words or TopicsWords), with inverse
// penalty C, self-trained without that fold's labels: its documents are
// unknown too.
func (c *chooser) crossValidateSelfTrained(kind Kind, C float64) ([]int, error) {
	f := c.featuresOf(kind)
	pred := c.unscored()
	err := c.eachFold(func(k int) error {
		st, err := classify.SelfTraining{}.Fit(f, c.without(k), c.sup.Classes, C)
		if err != nil {
			return err
		}
		p := st.Fit.Predict(f.Subset(c.colsOf[k]))
		for n, i := range c.posOf[k] {
			pred[i] = p[n]
		}
		return nil
	})
	return pred, err
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
