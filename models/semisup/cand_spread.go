package semisup

import (
	"fmt"

	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
)

// SpreadWords: the known labels spread over a graph of nearest neighbours
// on the words (classify.Spreading), then Words' regression fitted to the
// spread classes.
var spreadKind = kindInfo{
	name:  "spread",
	help:  "the known labels spread to every document over a graph of 7 nearest neighbours on the words, as scikit-learn's LabelSpreading, then a regression on the words fitted to them",
	score: (*chooser).scoreSpread,
	refit: func(c *chooser, _ Candidate) (*neuralnmf.Model, error) { return c.refitRegression(SpreadWords) },
}

func (c *chooser) scoreSpread() error {
	c.add(Candidate{Name: fmt.Sprintf("labels spread by 7 nearest neighbours, then logistic on the words (C %.3g)", c.words.c),
		Kind: SpreadWords, C: c.words.c}, c.words.spread)
	return nil
}
