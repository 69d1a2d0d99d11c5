// Package semisup chooses and reports the defaults of semi-supervised
// Neural NMF (fit -labels) on the labelled corpora of experiments/corpora.
//
// The protocol, the same for every corpus: TF-IDF exactly as `fit -text`
// makes it by default, its vocabulary fitted on the training documents;
// ranks 2P, P for P classes; a share (5 %, 30 %, 100 %) of the training
// documents' labels known, stratified by class (corpora.Known); the model
// is trained on all training documents and scored on documents it never
// saw, as `predict` scores them. Defaults are chosen on the validation
// split (train on corpora.Train, score corpora.Validation) and reported on
// the test split (train on Train and Validation, score Test), with other
// seeds.
//
// The logs of its runs, which the comments here and docs/ cite by name,
// are in results/experiments/semisup/.
package semisup

import (
	"fmt"

	"github.com/neuralnmf/neuralnmf/experiments/corpora"
	"github.com/neuralnmf/neuralnmf/tensor"
	"github.com/neuralnmf/neuralnmf/text"
)

// Split is a corpus vectorised for one experiment: training documents
// (columns of XTrain) and the documents scored (columns of XEval).
type Split struct {
	Corpus  string
	Classes []string
	XTrain  *tensor.Sparse // words × training documents
	XEval   *tensor.Sparse // words × scored documents
	YTrain  []int
	YEval   []int
	Vocab   []string
}

// Ranks is the protocol's ranks for p classes: 2p, p.
func (s *Split) Ranks() []int { return []int{2 * len(s.Classes), len(s.Classes)} }

// Prepare vectorises c for choosing defaults (report false: train on
// corpora.Train, score corpora.Validation) or for the report (train on
// Train and Validation, score Test), with `fit -text`'s default TF-IDF.
func Prepare(c *corpora.Corpus, report bool) (*Split, error) {
	names, y := c.Classes()
	sp := &Split{Corpus: c.Name, Classes: names}
	evalPart := corpora.Validation
	if report {
		evalPart = corpora.Test
	}
	var train, eval []string
	for i, d := range c.Docs {
		switch part := corpora.Split(d.ID); {
		case part == evalPart:
			eval = append(eval, d.Text)
			sp.YEval = append(sp.YEval, y[i])
		case part == corpora.Train || report: // the report also trains on Validation
			train = append(train, d.Text)
			sp.YTrain = append(sp.YTrain, y[i])
		}
	}
	v, xt, err := text.Fit(text.Strings(train), text.Options{})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Name, err)
	}
	xe, err := v.Transform(text.Strings(eval))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Name, err)
	}
	sp.XTrain, sp.XEval, sp.Vocab = xt, xe, v.Vocab
	return sp, nil
}
