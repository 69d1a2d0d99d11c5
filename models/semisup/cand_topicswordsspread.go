package semisup

import (
	"fmt"

	"github.com/neuralnmf/neuralnmf/classify"
	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
)

// TopicsWordsSpread: the scores of TopicsWords' and SpreadWords'
// regressions summed, one linear classifier on the topics and the words.
var topicsWordsSpreadKind = kindInfo{
	name:  "topics+words+spread",
	help:  "the scores of topics+words and spread summed",
	needs: []Kind{TopicsWords, SpreadWords}, why: "whose sum it is",
	score: (*chooser).scoreTopicsWordsSpread,
	refit: func(c *chooser, _ Candidate) (*neuralnmf.Model, error) { return c.refitTopicsWordsSpread() },
}

// scoreTopicsWordsSpread scores the sum of the two regressions'
// cross-validated scores.
func (c *chooser) scoreTopicsWordsSpread() error {
	P := c.sup.Classes
	pred := c.unscored()
	z := make([]float64, P)
	for i := range pred {
		if c.tw.pred[i] < 0 { // its fold could not be fitted
			continue
		}
		for k := range z {
			z[k] = c.tw.scores[i*P+k] + c.words.spreadScores[i*P+k]
		}
		pred[i] = classify.Argmax(z)
	}
	c.add(Candidate{Name: fmt.Sprintf("topics + words (C %.3g) and spread labels (C %.3g), their scores summed", c.tw.c, c.words.c),
		Kind: TopicsWordsSpread, C: c.tw.c, Layer: 1}, pred)
	return nil
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
