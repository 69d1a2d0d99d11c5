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

// sparseShare is the share of non-zero entries at or below which X is
// sparse for the start of a one-layer fit: such a fit starts by HALS from
// NNDSVDa (NNDSVDInit, which is then the fit) at every size. Below
// halsWork the random starts by multiplicative updates and the epochs
// after them ended at a higher error than HALS on 12 of 13 sparse
// validation cases (the same on the other) and took 1.6–6.7 times as long
// (godoc, info and pydoc of experiments/corpora at ranks 5, 10 and 15, two
// generated corpora of 2,000 documents at ranks 5 and 8; 0.6–2.5 % of
// their entries non-zero), while on small dense matrices (the paper's
// synthetic X and three products of uniform factors plus noise, every
// entry non-zero) they ended lower in 11 of 12 (the same in the other),
// where they stay the start (bench/starts/compare.sh,
// results/bench/starts/onelayer-validation.log). Between the two nothing
// was measured; a tenth is far from both.
const sparseShare = 0.1

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

// resolvedForX is withDefaults for x: it also fills what Train sizes to X
// (the starts, sizedStarts; the start on large X, halsWork, and of one
// layer of a sparse X, sparseShare; the tolerance, sizedTol).
func (c Config) resolvedForX(x data) Config {
	c.sizeStarts(x.entries(), x.dense != nil, x.nonzeroShare())
	return c.withDefaults()
}

// nonzeroShare is the share of x's N·M entries that are non-zero (stored,
// if x is sparse).
func (d data) nonzeroShare() float64 {
	n, m := d.dims()
	if n == 0 || m == 0 {
		return 1
	}
	nz := d.entries()
	if d.dense != nil {
		nz = 0
		for i := 0; i < d.dense.Rows; i++ {
			for _, v := range d.dense.Row(i) {
				if v != 0 {
					nz++
				}
			}
		}
	}
	return float64(nz) / (float64(n) * float64(m))
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
// on large X, and the start of a one-layer fit of a sparse X (at most
// sparseShare of its entries non-zero); withDefaults does the rest.
func (c *Config) sizeStarts(entries int, dense bool, nonzeroShare float64) {
	if c.BatchSize > 0 {
		return
	}
	work := work(entries, dense, c.Ranks[0])
	// The start and the tolerance sized to X were chosen on unsupervised
	// fits (experiments/scale); a supervised fit keeps the defaults
	// experiments/semisup chose with.
	unsupervised := c.Supervision == nil
	oneSparse := len(c.Ranks) == 1 && nonzeroShare <= sparseShare
	if c.Init == DefaultInit && !c.Loss.impl().ownStart(NNDSVDInit) && unsupervised && (work >= halsWork || oneSparse) {
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
