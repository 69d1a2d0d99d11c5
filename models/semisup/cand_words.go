package semisup

import (
	"fmt"

	"github.com/neuralnmf/neuralnmf/classify"
	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
)

// Words: a logistic regression on the columns of X themselves, its C and
// predictions cross-validated beside the unsupervised fit (startWords),
// refitted on all the known labels to scikit-learn 1.2's rule.
var wordsKind = kindInfo{
	name:  "words",
	help:  "a logistic regression on the documents' words: the rows of X, each column at unit length",
	score: (*chooser).scoreWords,
	refit: func(c *chooser, _ Candidate) (*neuralnmf.Model, error) { return c.refitRegression(Words) },
}

// startWords cross-validates the regression on the words, and the spread
// labels, in a goroutine (c.words.done).
func (c *chooser) startWords() {
	words := c.featuresOf(Words)
	P := c.sup.Classes
	w := &c.words
	w.done.Go(func() {
		cv, err := classify.CrossValidate(words.Subset(c.knownCols), c.knownY, P, c.fold, false)
		if err != nil {
			w.err = err
			return
		}
		w.c, w.pred, c.refits[Words] = cv.C, cv.Pred, cv.Fit
		if c.use[SelfTrainedWords] {
			if w.self, w.err = c.crossValidateSelfTrained(Words, w.c); w.err != nil {
				return
			}
		}
		if !c.use[SpreadWords] {
			return
		}
		if w.graph, w.err = (classify.Spreading{}).Graph(words); w.err != nil {
			return
		}
		w.spread = c.unscored()
		if c.use[TopicsWordsSpread] {
			w.spreadScores = make([]float64, len(c.knownCols)*P)
		}
		w.err = c.eachFold(func(k int) error {
			l, err := fitSpread(w.graph, words, c.without(k), P, w.c)
			if err != nil {
				return err
			}
			sc := l.AllScores(words.Subset(c.colsOf[k]))
			for n, i := range c.posOf[k] {
				w.spread[i] = classify.Argmax(sc[n*P : (n+1)*P])
				if w.spreadScores != nil {
					copy(w.spreadScores[i*P:(i+1)*P], sc[n*P:(n+1)*P])
				}
			}
			return nil
		})
	})
}

func (c *chooser) scoreWords() error {
	c.add(Candidate{Name: fmt.Sprintf("logistic regression on the words (C %.3g)", c.words.c), Kind: Words, C: c.words.c}, c.words.pred)
	return nil
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
