package semisup

import (
	"fmt"
	"strings"

	"github.com/neuralnmf/neuralnmf/classify"
	"github.com/neuralnmf/neuralnmf/internal/unitcol"
	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// SupervisedTopicsWords: the unsupervised fit's topics trained with the
// labels through TopicsWords' regression, which reads them beside the
// words, given to the trainer as a neuralnmf.Head.
var jointKind = kindInfo{
	name:  "supervised-topics+words",
	help:  "the unsupervised first layer's topics trained with the labels through the regression on them and the words",
	needs: []Kind{TopicsWords}, why: "whose regression it starts from",
	supervised: true,
	refit:      (*chooser).refitJoint,
}

// newJointHead returns the joint head that starts from l, a regression on
// the unsupervised model's first-layer topics (c.regressions[TopicsWords])
// and the words with inverse penalty C.
func (c *chooser) newJointHead(l *classify.Logistic, C float64) (*neuralnmf.Head, error) {
	n, m := c.x.dims()
	cand := c.regressions[TopicsWords]
	b0, bx, ic := classifierOf(l, cand, n, c.um.A[0].Cols)
	offset := tensor.New(c.sup.Classes, m)
	unitcol.AddScores(offset, bx, ic, c.x.dense, c.x.sparse)
	return &neuralnmf.Head{Layer: 1, B0: b0, Offset: offset, BX: bx, Intercept: ic,
		Penalty: 1 / (2 * C * cand.scale * cand.scale)}, nil
}

// jointConfig returns the Config of a joint fit on the labels marked, from
// the unsupervised model's A's, with head.
func (c *chooser) jointConfig(mark []bool, head *neuralnmf.Head, patience int) neuralnmf.Config {
	cfg := c.withKnown(mark, c.balances[0], patience)
	cfg.Init, cfg.InitA, cfg.Restarts, cfg.InitRestarts = neuralnmf.GivenInit, c.um.A, 1, 1
	cfg.Supervision.Classifier, cfg.Supervision.Head = neuralnmf.CrossEntropy, head
	return cfg
}

// scoreJoint trains the SupervisedTopicsWords candidate on the labels
// outside the held-out fold and scores it on that fold; target is the
// early stop's (scoreSupervised).
func (c *chooser) scoreJoint(target float64) error {
	var cols, y []int
	for i, j := range c.knownCols {
		if c.fold[i] != 0 {
			cols, y = append(cols, j), append(y, c.knownY[i])
		}
	}
	l, err := classify.FitLogistic(c.featuresOf(TopicsWords).Subset(cols), y, c.sup.Classes, c.tw.c, nil)
	if err != nil {
		return err
	}
	head, err := c.newJointHead(l, c.tw.c)
	if err != nil {
		return err
	}
	name := fmt.Sprintf("layer-1 topics trained with the labels + words, logistic (C %.3g, balance %g)", c.tw.c, c.balances[0])
	vc := c.jointConfig(c.train, head, c.o.Patience)
	vc.Supervision.Target = target
	c.announce("%s: validation fit on the known labels outside the held-out fold", name)
	m, err := c.fit(vc)
	if err != nil {
		return err
	}
	pred := c.unscored()
	p, _, err := c.scores(m)
	if err != nil {
		return err
	}
	c.fromAll(pred, 0, p)
	c.add(Candidate{Name: name, Kind: SupervisedTopicsWords, Balance: c.balances[0], C: c.tw.c, Layer: 1,
		Epochs: len(m.History.Loss), EarlyStop: strings.HasPrefix(m.History.Stopped, "early stop")}, pred)
	return nil
}

// refitJoint refits the SupervisedTopicsWords candidate on all the known
// labels, from the regression refitted on them.
func (c *chooser) refitJoint(best Candidate) (*neuralnmf.Model, error) {
	head, err := c.newJointHead(c.refits[TopicsWords], best.C)
	if err != nil {
		return nil, err
	}
	return c.refitFor(best, c.jointConfig(c.sup.Known, head, 0))
}

// scores returns the classes and scores that m's classifier gives the
// columns of X from m's own S.
func (c *chooser) scores(m *neuralnmf.Model) ([]int, *tensor.Dense, error) {
	if c.x.sparse != nil {
		return m.Scores(c.x.sparse, m.S)
	}
	return m.Scores(c.x.dense, m.S)
}
