package semisup

import (
	"errors"
	"sync"
)

// scoreCheap scores the candidates that need no supervised fit: the kinds
// with a score (kindInfo), in the order of kinds, each on every fold. The
// regressions on the words read X alone, not the topics: the one on the
// words, it self-trained and the spread labels are fitted beside the
// unsupervised fit (startWords), which leaves part of the cores idle. A
// regression's C is chosen by cross-validation on the same folds, which
// also scores it; its fit with that C on all the known labels is the
// refit.
func (c *chooser) scoreCheap() error {
	if c.use[Words] || c.use[SpreadWords] {
		c.startWords()
	}
	// The unsupervised model: its read-outs, the topics beside the words,
	// and the model the regressions are saved in.
	if c.use[UnsupervisedReadout] || c.use[Words] || c.use[TopicsWords] || c.use[SpreadWords] {
		unsupCfg := c.cfg
		unsupCfg.Supervision = nil
		c.announce("the unsupervised fit, labels not used (the topics that the read-outs and regressions on topics read)")
		var err error
		if c.um, err = c.fit(unsupCfg); err != nil {
			return err
		}
	}
	for _, k := range kinds {
		score := table[k].score
		if score == nil { // a supervised kind: scoreSupervised
			continue
		}
		if k == Words { // the first to need the words' results
			c.words.done.Wait()
			if c.words.err != nil {
				return c.words.err
			}
			if c.um != nil { // the regression on the topics reads the first (widest) layer
				c.regressions = map[Kind]logisticCandidate{Words: {}, TopicsWords: {topics: c.um.S[0], scale: topicScale(c.um.S[0])}}
			}
		}
		if c.use[k] {
			if err := score(c); err != nil {
				return err
			}
		}
	}
	return nil
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
