package semisup

import (
	"fmt"

	"github.com/neuralnmf/neuralnmf/classify"
	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
)

// UnsupervisedReadout: the unsupervised fit's topics with a least-squares
// read-out of one layer, cross-validated on every fold.
var readoutKind = kindInfo{
	name:  "readout",
	help:  "a least-squares read-out of the unsupervised fit's topics",
	score: (*chooser).scoreReadouts,
	refit: func(c *chooser, best Candidate) (*neuralnmf.Model, error) { return c.readout(c.um, best.Layer) },
}

// scoreReadouts scores a least-squares read-out of each layer of the
// unsupervised model, fitted without each fold.
func (c *chooser) scoreReadouts() error {
	for _, l := range c.layers(len(c.um.S)) {
		pred := c.unscored()
		for k := range c.o.Folds {
			b, err := classify.FitReadout(c.um.S[l-1], c.without(k), c.sup.Classes)
			if err != nil {
				return err
			}
			c.fromAll(pred, k, classify.Predict(b, c.um.S[l-1]))
		}
		c.add(Candidate{Name: fmt.Sprintf("unsupervised + read-out of layer %d", l), Kind: UnsupervisedReadout, Layer: l}, pred)
	}
	return nil
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
