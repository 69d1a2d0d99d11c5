package semisup

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/neuralnmf/neuralnmf/classify"
)

// The cheap candidates, in the order they are listed: each scores its
// kind on every fold. The regressions on the words read X alone, not the
// topics: the one on the words, it self-trained and the spread labels are
// fitted beside the unsupervised fit (startWords), which leaves part of the
// cores idle. A regression's C is chosen by cross-validation on the same
// folds, which also scores it; its fit with that C on all the known labels
// is the refit.
var cheapCandidates = []struct {
	kind  Kind
	score func(*chooser) error
}{
	{UnsupervisedReadout, (*chooser).scoreReadouts},
	{Words, (*chooser).scoreWords},
	{TopicsWords, (*chooser).scoreTopicsWords},
	{SelfTrainedTopicsWords, (*chooser).scoreSelfTrained},
	{SelfTrainedWords, (*chooser).scoreSelfTrainedWords},
	{SpreadWords, (*chooser).scoreSpread},
	{TopicsWordsSpread, (*chooser).scoreTopicsWordsSpread},
}

// scoreCheap scores the candidates that need no supervised fit.
func (c *chooser) scoreCheap() error {
	if c.use[Words] || c.use[SpreadWords] {
		c.startWords()
	}
	// The unsupervised model: its read-outs, the topics beside the words,
	// and the model the regressions are saved in.
	if c.use[UnsupervisedReadout] || c.use[Words] || c.use[TopicsWords] || c.use[SpreadWords] {
		unsupCfg := c.cfg
		unsupCfg.Supervision = nil
		c.announce(unsupCfg, "the unsupervised fit, labels not used (the topics that the read-outs and regressions on topics read)")
		var err error
		if c.um, err = c.fit(unsupCfg); err != nil {
			return err
		}
	}
	for _, cand := range cheapCandidates {
		if cand.kind == Words { // the first to need the words' results
			c.words.done.Wait()
			if c.words.err != nil {
				return c.words.err
			}
			if c.um != nil { // the regression on the topics reads the first (widest) layer
				c.regressions = map[Kind]logisticCandidate{Words: {}, TopicsWords: {topics: c.um.S[0], scale: topicScale(c.um.S[0])}}
			}
		}
		if c.use[cand.kind] {
			if err := cand.score(c); err != nil {
				return err
			}
		}
	}
	return nil
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

// eachFold runs fit for every fold, one goroutine each (the folds' fits
// are independent, as the regressions' cross-validation runs its folds),
// and returns their errors joined.
func (c *chooser) eachFold(fit func(k int) error) error {
	var wg sync.WaitGroup
	errs := make([]error, c.o.Folds)
	for k := range c.o.Folds {
		wg.Go(func() { errs[k] = fit(k) })
	}
	wg.Wait()
	return errors.Join(errs...)
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

func (c *chooser) scoreWords() error {
	c.add(Candidate{Name: fmt.Sprintf("logistic regression on the words (C %.3g)", c.words.c), Kind: Words, C: c.words.c}, c.words.pred)
	return nil
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

func (c *chooser) scoreSpread() error {
	c.add(Candidate{Name: fmt.Sprintf("labels spread by 7 nearest neighbours, then logistic on the words (C %.3g)", c.words.c),
		Kind: SpreadWords, C: c.words.c}, c.words.spread)
	return nil
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
		c.announce(vc, "%s: validation fit on the known labels outside the held-out fold", name)
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
