package semisup

import (
	"fmt"

	"github.com/neuralnmf/neuralnmf/classify"
	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
)

// TopicsWords: a logistic regression on the unsupervised fit's first-layer
// topics beside the words.
var topicsWordsKind = kindInfo{
	name:  "topics+words",
	help:  "a logistic regression on the unsupervised first layer's topics and the words",
	score: (*chooser).scoreTopicsWords,
	refit: func(c *chooser, _ Candidate) (*neuralnmf.Model, error) { return c.refitRegression(TopicsWords) },
}

// scoreTopicsWords cross-validates the regression on the words beside
// the first layer's topics.
func (c *chooser) scoreTopicsWords() error {
	cv, err := classify.CrossValidate(c.featuresOf(TopicsWords).Subset(c.knownCols), c.knownY, c.sup.Classes, c.fold, c.use[TopicsWordsSpread])
	if err != nil {
		return err
	}
	c.refits[TopicsWords] = cv.Fit
	c.tw.c, c.tw.pred, c.tw.scores = cv.C, cv.Pred, cv.Scores
	c.add(Candidate{Name: fmt.Sprintf("unsupervised layer-1 topics + words, logistic (C %.3g)", cv.C), Kind: TopicsWords, C: cv.C, Layer: 1}, cv.Pred)
	return nil
}
