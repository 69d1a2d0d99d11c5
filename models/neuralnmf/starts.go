package neuralnmf

// Starts sized to the data
//
// A start (HNMF from random starts, per layer) costs milliseconds on a
// small dense X and most of the fit on a large corpus, and on small dense
// hierarchies one start lands in a worse local minimum about half the time,
// which training does not leave. So when Config.InitRestarts and
// Config.Restarts are 0, Train sizes them to X (sizedStarts): many starts
// where they are cheap, one where a start is most of the fit.

// startBudget and maxSizedStarts are the rule of sizedStarts, chosen in
// experiments/defaults on generated hierarchies: the starts per layer are
// startBudget / (entries · k⁽⁰⁾), the multiply-adds of one multiplicative
// update of the first layer, between 1 and maxSizedStarts; at
// maxSizedStarts, where a start is cheapest, two initialisations are
// trained (Restarts 2) too.
const (
	startBudget    = 5e5
	maxSizedStarts = 10
)

// halsWork is the size of X, in stored entries times the first layer's
// rank (the multiply-adds of one update of the start), from which the
// default start (DefaultInit) is NNDSVDInit, HNMF by HALS from NNDSVDa,
// instead of HNMFInit's multiplicative updates from random starts: on
// large data one start is all a fit can afford, and HALS from NNDSVDa
// reaches a lower error in a fraction of the multiplicative updates' time
// (chosen in experiments/scale on generated corpora and corpora of prose,
// select.log; docs/defaults.md).
const halsWork = 1e6

// tolWork is the size of X (entries times the first rank, as halsWork)
// above which the default stopping tolerance grows with X (sizedTol): an
// epoch's cost grows with X, and on large corpora the epochs after an HNMF
// start each bought a few millionths of the error (0.766881 after the first
// of 55 epochs, 0.766540 after the last, on 10⁵ generated documents at
// ranks 20,10), where DefaultTol asked for 55 of them (chosen with
// halsWork).
const tolWork = 3e5

// sizedTol is the stopping tolerance unsupervised full-batch Train uses
// when Config.Tol is 0, for an X of the given work (entries times the
// first rank, a dense entry counting denseWorkShare): DefaultTol, times
// work / tolWork where that is above 1.
func sizedTol(work float64) float64 { return DefaultTol * max(1, work/tolWork) }

// deepMUWork bounds the size, X's columns × k⁽⁰⁾ × k⁽¹⁾ (the multiply-adds
// of one update of the second layer), up to which NNDSVDInit also starts
// the layers after the first of a hierarchy of three or more by
// multiplicative updates from random starts and keeps the lower error: the
// layers below the first factor small dense inputs, where HALS from NNDSVDa
// landed in worse local minima than the multiplicative updates (on 10⁴
// generated documents at ranks 50,20,10, relative errors 0.767, 0.867 and
// 0.859 against 0.758, 0.845 and 0.847; experiments/scale, select-1.log),
// and where they cost little. With two layers HALS's second layer beat
// scikit-learn's HNMF on every validation corpus, and the multiplicative
// updates cost a third of a small run (select-2.log).
const deepMUWork = 1e7

// sizedStarts returns the HNMF starts per layer (Config.InitRestarts) and
// the initialisations (Config.Restarts) that full-batch Train uses when the
// Config leaves them 0, for an X with the given stored entries (the
// non-zeros of a sparse X, N·M of a dense one) and first-layer rank k.
// Mini-batch training keeps one of each.
func sizedStarts(entries, k int) (initRestarts, restarts int) {
	return startsForBudget(startBudget, entries, k)
}

// startsForBudget is sizedStarts with another budget in place of
// startBudget (experiments/defaults compares budgets with it).
func startsForBudget(budget float64, entries, k int) (initRestarts, restarts int) {
	work := float64(max(entries, 1)) * float64(max(k, 1))
	n := int(min(budget/work, maxSizedStarts))
	n = max(n, 1)
	if n == maxSizedStarts {
		return n, 2
	}
	return n, 1
}

// entries is the number of stored entries of x: its non-zeros if sparse,
// N·M if dense.
func (d data) entries() int {
	if d.sparse != nil {
		return len(d.sparse.Val)
	}
	return d.dense.Rows * d.dense.Cols
}

// resolvedFor is withDefaults for a sparse X with the given stored
// entries (its non-zeros): it also fills what Train sizes to X (the
// starts, sizedStarts; the start on large X, halsWork; the tolerance,
// sizedTol). For a dense X use resolvedForData.
func (c Config) resolvedFor(entries int) Config { return c.resolvedForData(entries, false) }

// resolvedForData is resolvedFor for an X with the given stored entries,
// dense (N·M of them) or not.
func (c Config) resolvedForData(entries int, dense bool) Config {
	c.sizeStarts(entries, dense)
	return c.withDefaults()
}

// denseWorkShare is what an entry of a dense X counts for in the work that
// halsWork and tolWork measure, against a non-zero of a sparse one: dense
// products run on the GEMM (70–110 GFLOP/s on two cores, docs/benchmarks.md),
// sparse ones gather rows of their factor for each non-zero (about 14), so
// an epoch on N·M dense entries costs what one on an eighth as many
// non-zeros does.
const denseWorkShare = 1.0 / 8

// work is the size of X the scale rules measure: its stored entries times
// the first rank, a dense entry counting denseWorkShare.
func work(entries int, dense bool, k int) float64 {
	w := float64(entries) * float64(k)
	if dense {
		w *= denseWorkShare
	}
	return w
}

// sizeStarts fills InitRestarts and Restarts where they are 0 in
// full-batch training (see sizedStarts), and the start and the tolerance
// on large X; withDefaults does the rest.
func (c *Config) sizeStarts(entries int, dense bool) {
	if c.BatchSize > 0 {
		return
	}
	work := work(entries, dense, c.Ranks[0])
	// The start and the tolerance sized to X were chosen on unsupervised
	// fits (experiments/scale); a supervised fit keeps the defaults
	// experiments/semisup chose with.
	unsupervised := c.Supervision == nil
	if c.Init == DefaultInit && !c.Loss.impl().ownStart(NNDSVDInit) && unsupervised && work >= halsWork {
		c.Init = NNDSVDInit
	}
	if c.Tol == 0 && !c.Algorithm1 && unsupervised {
		c.Tol = sizedTol(work)
	}
	if c.InitRestarts > 0 && c.Restarts > 0 {
		return
	}
	n, r := sizedStarts(entries, c.Ranks[0])
	if c.InitRestarts <= 0 && c.Init != NNDSVDInit { // NNDSVDInit's are sized to its second layer's input
		c.InitRestarts = n
	}
	if c.Restarts <= 0 {
		c.Restarts = r
		if c.Algorithm1 || c.Loss.impl().ownStart(c.Init) {
			c.Restarts = 1 // one start as the paper's; the KL start is deterministic
		}
	}
}
