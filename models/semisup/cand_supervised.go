package semisup

import (
	"fmt"
	"strings"

	"github.com/neuralnmf/neuralnmf/classify"
	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
)

// SupervisedFit and SupervisedReadout: the supervised fit with its own
// classifier, or with a least-squares read-out of one layer, scored on the
// held-out fold (scoreSupervised, after the cheap candidates) and refitted
// on all the known labels.
var (
	supervisedKind = kindInfo{
		name:       "supervised",
		help:       "the supervised fit's own classifier",
		supervised: true,
		refit:      (*chooser).refitSupervised,
	}
	supervisedReadoutKind = kindInfo{
		name:       "supervised-readout",
		help:       "a least-squares read-out of the supervised fit's topics",
		supervised: true,
		refit:      (*chooser).refitSupervised,
	}
)

// scoreSupervised trains the supervised fits last, each scored on the
// held-out fold: each stops early once its held-out accuracy cannot reach
// the best of the cheap candidates on the same held-out labels
// (Supervision's target), which on a large corpus saves most of their
// epochs.
func (c *chooser) scoreSupervised(cheap []Candidate) error {
	target := 0.0
	if c.o.Patience > 0 {
		for _, cand := range cheap {
			target = max(target, cand.HeldOutAccuracy)
		}
	}
	if c.use[SupervisedTopicsWords] {
		if err := c.scoreJoint(target); err != nil {
			return err
		}
	}
	if !c.use[SupervisedFit] && !c.use[SupervisedReadout] {
		return nil
	}
	sup := c.sup
	for _, b := range c.balances {
		vc := c.withKnown(c.train, b, c.o.Patience)
		vc.Supervision.Target = target
		name := fmt.Sprintf("supervised (%s, balance %g)", sup.Classifier, b)
		if sup.Lambda > 0 {
			name = fmt.Sprintf("supervised (%s, λ %g)", sup.Classifier, sup.Lambda)
		}
		c.announce("%s: validation fit on the known labels outside the held-out fold", name)
		m, err := c.fit(vc)
		if err != nil {
			return err
		}
		cand := Candidate{Name: name, Kind: SupervisedFit, Balance: b,
			Epochs: len(m.History.Loss), EarlyStop: strings.HasPrefix(m.History.Stopped, "early stop")}
		if sup.Lambda > 0 {
			cand.Balance, cand.Lambda = 0, sup.Lambda
		}
		if c.use[SupervisedFit] {
			pred := c.unscored()
			c.fromAll(pred, 0, m.Predict())
			c.add(cand, pred)
		}
		if !c.use[SupervisedReadout] {
			continue
		}
		for _, l := range c.layers(len(m.S)) {
			b, err := classify.FitReadout(m.S[l-1], c.trainLabels, sup.Classes)
			if err != nil {
				return err
			}
			r := cand
			r.Name, r.Kind, r.Layer = fmt.Sprintf("%s + read-out of layer %d", cand.Name, l), SupervisedReadout, l
			pred := c.unscored()
			c.fromAll(pred, 0, classify.Predict(b, m.S[l-1]))
			c.add(r, pred)
		}
	}
	return nil
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
	c.announce("%s: refit on all %d known labels", best.Name, c.ch.Known)
	m, err := c.fit(refit)
	if err != nil {
		return nil, err
	}
	if best.EarlyStop && strings.HasPrefix(m.History.Stopped, "max epochs") {
		m.History.Stopped = fmt.Sprintf("refitted for the %d epochs at which its validation fit stopped early", best.Epochs)
	}
	return m, nil
}
