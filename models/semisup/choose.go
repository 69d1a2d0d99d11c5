package semisup

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/neuralnmf/neuralnmf/classify"
	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// chooser is one run of TrainChoosing: the data, the options, the folds
// of the known labels, the candidates scored so far and what the cheap
// candidates share (the unsupervised model, the regressions' features and
// refits, the words' cross-validation running beside the unsupervised
// fit).
type chooser struct {
	cfg      neuralnmf.Config
	o        ChooseOptions
	x        input
	fit      func(neuralnmf.Config) (*neuralnmf.Model, error)
	sup      *neuralnmf.Supervision
	use      map[Kind]bool
	balances []float64

	// The known labels: train and held mark the columns trained on and
	// held out; known are the labels of sup's known columns (−1 else),
	// trainLabels those of train; knownCols and knownY the known columns
	// and their classes, fold each one's fold, colsOf and posOf each
	// fold's columns and their positions in knownCols.
	train, held        []bool
	known, trainLabels []int
	knownCols, knownY  []int
	fold               []int
	colsOf, posOf      [][]int
	ch                 *Choice
	rights             [][]int8 // per candidate and known label: 1 right, 0 wrong, −1 not scored

	um          *neuralnmf.Model // the unsupervised model
	regressions map[Kind]logisticCandidate
	built       map[Kind]*classify.Features
	refits      map[Kind]*classify.Logistic
	words       wordsCV
	tw          struct {
		c      float64
		pred   []int
		scores []float64
	}
}

// wordsCV is the cross-validation of the regression on the words, of it
// self-trained, and of the spread labels, which runs beside the
// unsupervised fit.
type wordsCV struct {
	done               sync.WaitGroup
	err                error
	c                  float64 // Words' C
	pred, self, spread []int
	spreadScores       []float64 // per known label, the spread fit's scores (TopicsWordsSpread)
	graph              [][]int
}

// chooseOptions returns opt with its defaults, the supervised candidates'
// balances and the kinds to compare, or an error for invalid options.
func chooseOptions(cfg neuralnmf.Config, opt *ChooseOptions) (ChooseOptions, []float64, map[Kind]bool, error) {
	var o ChooseOptions
	if opt != nil {
		o = *opt
	}
	fail := func(format string, a ...any) (ChooseOptions, []float64, map[Kind]bool, error) {
		return o, nil, nil, fmt.Errorf("semisup: TrainChoosing: %w: "+format, append([]any{neuralnmf.ErrConfig}, a...)...)
	}
	sup := cfg.Supervision
	o.HoldOut = cmp.Or(o.HoldOut, DefaultHoldOut)
	if !(o.HoldOut > 0 && o.HoldOut < 1) {
		return fail("HoldOut is %v, want a share in (0, 1)", o.HoldOut)
	}
	o.Seed = cmp.Or(o.Seed, cfg.Seed)
	o.Folds = cmp.Or(o.Folds, DefaultFolds)
	if o.Folds < 2 {
		return fail("Folds is %d, want at least 2", o.Folds)
	}
	switch {
	case o.Patience == 0:
		o.Patience = DefaultPatience
	case o.Patience < 0:
		o.Patience = 0
	}
	balances := o.Balances
	if balances == nil {
		balances = []float64{cmp.Or(sup.Balance, neuralnmf.DefaultBalance)}
	}
	for _, b := range balances {
		if !(b > 0) || math.IsInf(b, 0) {
			return fail("a balance of %v, want a positive number", b)
		}
	}
	if sup.Lambda > 0 {
		balances = balances[:1]
	}
	if len(sup.Labels) == 0 || sup.Classes < 1 {
		return fail("Supervision has no labels")
	}
	use := map[Kind]bool{}
	want := o.Kinds
	if want == nil {
		want = defaultKinds
	}
	for _, k := range want {
		if _, ok := table[k]; !ok {
			return fail("Kinds holds %v, not a kind of candidate", k)
		}
		use[k] = true
	}
	if len(use) == 0 {
		return fail("Kinds is empty: name at least one kind of candidate (nil: all)")
	}
	if o.Layer < 0 || o.Layer > len(cfg.Ranks) {
		return fail("Layer is %d, want 0 (each) or 1..%d", o.Layer, len(cfg.Ranks))
	}
	if o.Prior != 0 && o.Prior != NoPrior && o.Prior != CrossValidated && !use[o.Prior] {
		return fail("Prior %v is not among the kinds of candidate compared (%v): it could not be kept; add it to Kinds, or give another prior", o.Prior, kindList(want))
	}
	for _, k := range kinds {
		var missing []string
		for _, n := range table[k].needs {
			if !use[n] {
				missing = append(missing, n.String())
			}
		}
		if use[k] && missing != nil {
			return fail("Kinds holds %v without %s, %s", k, strings.Join(missing, " and "), table[k].why)
		}
	}
	return o, balances, use, nil
}

// TrainChoosing trains a semi-supervised model as neuralnmf.Train does,
// choosing for X (a *tensor.Dense or a *tensor.Sparse) what to do with
// the labels (see the package doc): cfg.Supervision must give the
// labels; opt may be nil. The candidates are the supervised fit at each
// of opt.Balances with its own classifier and read-outs, the unsupervised
// fit with a least-squares read-out of each layer (Model.ClassifierLayer
// says which layer the chosen model's B reads), and the regressions on
// the words (Kind); Choice.Best and Choice.Prior say how one is chosen.
// Every fit uses cfg otherwise, from cfg's start, which is computed once
// and shared (Config.Starts). The supervised fits are trained last, so
// that each can stop once it cannot catch up with the others (see
// ChooseOptions.Patience). Not for mini-batch training (BatchSize) or
// Algorithm1.
func TrainChoosing(x neuralnmf.Data, cfg neuralnmf.Config, opt *ChooseOptions) (*neuralnmf.Model, *Choice, error) {
	var in input
	switch x := x.(type) {
	case *tensor.Dense:
		in.dense = x
	case *tensor.Sparse:
		in.sparse = x
	default:
		return nil, nil, fmt.Errorf("semisup: TrainChoosing: X is a %T: want a *tensor.Dense or a *tensor.Sparse", x)
	}
	return trainChoosing(cfg, opt, in, func(c neuralnmf.Config) (*neuralnmf.Model, error) { return neuralnmf.Train(x, c) })
}

func trainChoosing(cfg neuralnmf.Config, opt *ChooseOptions, x input, fit func(neuralnmf.Config) (*neuralnmf.Model, error)) (*neuralnmf.Model, *Choice, error) {
	sup := cfg.Supervision
	switch {
	case sup == nil:
		return nil, nil, fmt.Errorf("semisup: TrainChoosing: %w: Supervision is nil: there are no labels to choose with", neuralnmf.ErrConfig)
	case cfg.BatchSize > 0 || cfg.Algorithm1:
		return nil, nil, fmt.Errorf("semisup: TrainChoosing: %w: not for mini-batch training or Algorithm1; use Train", neuralnmf.ErrConfig)
	}
	// Refuse what the supervised fit would refuse (KL with labels, bad
	// labels, ...) now, not after the unsupervised fits have run.
	if err := cfg.Validate(x.dims()); err != nil {
		return nil, nil, err
	}
	o, balances, use, err := chooseOptions(cfg, opt)
	if err != nil {
		return nil, nil, err
	}
	train, held, nHeld, nKnown := holdOut(sup, o.HoldOut, o.Seed)
	prior := o.Prior
	if nKnown == len(sup.Labels) {
		withoutSelfTraining(&o, use)
	}
	// Every fit below starts from cfg's start: compute it once.
	cfg.Starts = &neuralnmf.StartCache{}
	c := &chooser{cfg: cfg, o: o, x: x, fit: fit, sup: sup, use: use, balances: balances,
		built: map[Kind]*classify.Features{}, refits: map[Kind]*classify.Logistic{}, train: train, held: held}
	c.ch = &Choice{Chosen: -1, HeldOut: nHeld, Known: nKnown, Folds: o.Folds}
	if o.Prior != prior {
		c.ch.PriorStandIn = o.Prior
	}
	if nHeld == 0 {
		c.announce("the supervised fit as configured on all %d known labels (too few to hold any out)", nKnown)
		m, err := fit(cfg)
		return m, c.ch, err
	}
	if err := c.makeFolds(opt != nil && opt.Folds > 0); err != nil {
		return nil, nil, err
	}
	defer c.words.done.Wait() // on an early return too: no fit outlives the call
	if err := c.scoreCheap(); err != nil {
		return nil, nil, err
	}
	cheap, cheapRights := c.ch.Candidates, c.rights
	c.ch.Candidates, c.rights = nil, nil
	if err := c.scoreSupervised(cheap); err != nil {
		return nil, nil, err
	}
	nSup := len(c.ch.Candidates)
	c.ch.Candidates, c.rights = append(c.ch.Candidates, cheap...), append(c.rights, cheapRights...)
	c.ch.choose(nSup, c.rights, cmp.Or(o.Prior, DefaultPrior), c.fold)
	m, err := c.refit()
	if err != nil {
		return nil, nil, err
	}
	return m, c.ch, nil
}

// withoutSelfTraining drops the self-trained kinds from use, for data
// whose every label is known: a self-trained regression's refit would be
// the regression it self-trains, and its cross-validated score (each
// fold's documents left unknown) would describe a fit it is not. So the
// regression stands in for it, as a candidate and as o's prior.
func withoutSelfTraining(o *ChooseOptions, use map[Kind]bool) {
	for _, k := range [...]struct{ self, base Kind }{{SelfTrainedTopicsWords, TopicsWords}, {SelfTrainedWords, Words}} {
		delete(use, k.self)
		if o.Prior == k.self {
			o.Prior = k.base
		}
	}
}

// makeFolds deals the known labels to folds: the held-out ones are fold
// 0, the rest are dealt to folds 1..Folds−1. The cheap candidates are
// scored on every fold, each by a fit without it; the supervised fits,
// too costly to repeat, on fold 0 alone. With given (Folds given by the
// caller), more folds than the largest class has known labels is an error,
// as in scikit-learn's StratifiedKFold: every fold would lack some class.
func (c *chooser) makeFolds(given bool) error {
	sup := c.sup
	// The known labels only: a validation fit must not see (even as
	// held-out accuracy for its early stop) labels the caller did not
	// mark known.
	c.known, _ = classify.SplitLabels(sup.Labels, sup.Known)
	c.trainLabels, _ = classify.SplitLabels(sup.Labels, c.train)
	c.knownCols, c.knownY = labelled(c.known)
	if given {
		count := make([]int, sup.Classes)
		for _, y := range c.knownY {
			count[y]++
		}
		if most := slices.Max(count); c.o.Folds > most {
			return fmt.Errorf("semisup: TrainChoosing: %w: Folds is %d, above the %d known labels of the largest class: want 2 to %d", neuralnmf.ErrConfig, c.o.Folds, most, most)
		}
	}
	c.fold = cvFolds(c.knownCols, c.knownY, c.held, sup.Classes, c.o.Folds, c.o.Seed)
	c.colsOf, c.posOf = make([][]int, c.o.Folds), make([][]int, c.o.Folds)
	for i, j := range c.knownCols {
		c.colsOf[c.fold[i]] = append(c.colsOf[c.fold[i]], j)
		c.posOf[c.fold[i]] = append(c.posOf[c.fold[i]], i)
	}
	return nil
}

// without returns the known labels outside fold k (−1 else).
func (c *chooser) without(k int) []int {
	l := slices.Clone(c.known)
	for i, j := range c.knownCols {
		if c.fold[i] == k {
			l[j] = -1
		}
	}
	return l
}

// announce tells the caller (ChooseOptions.Fitting) what the next fit is.
func (c *chooser) announce(format string, a ...any) {
	if c.o.Fitting != nil {
		c.o.Fitting(fmt.Sprintf(format, a...))
	}
}

// withKnown returns the Config of a supervised fit on the labels marked,
// at balance, with patience (0: no early stop).
func (c *chooser) withKnown(mark []bool, balance float64, patience int) neuralnmf.Config {
	cfg, s := c.cfg, *c.sup
	s.Known, s.Balance, s.Patience = mark, balance, patience
	if patience > 0 {
		s.Labels = c.known
	}
	cfg.Supervision = &s
	return cfg
}

// add appends a candidate that predicted class pred[i] for the known
// label i (−1: not scored).
func (c *chooser) add(cand Candidate, pred []int) {
	r := make([]int8, len(c.knownCols))
	var n, right, n0, right0 int
	for i := range r {
		r[i] = -1
		if pred[i] < 0 {
			continue
		}
		r[i] = 0
		if pred[i] == c.knownY[i] {
			r[i] = 1
		}
		n, right = n+1, right+int(r[i])
		if c.fold[i] == 0 {
			n0, right0 = n0+1, right0+int(r[i])
		}
	}
	cand.Scored = n
	cand.Accuracy = float64(right) / float64(n)
	cand.HeldOutAccuracy = float64(right0) / float64(n0)
	c.ch.Candidates = append(c.ch.Candidates, cand)
	c.rights = append(c.rights, r)
}

// unscored returns a prediction of −1 for every known label.
func (c *chooser) unscored() []int {
	p := make([]int, len(c.knownCols))
	for i := range p {
		p[i] = -1
	}
	return p
}

// fromAll scores, on fold k, predictions p of every column.
func (c *chooser) fromAll(pred []int, k int, p []int) {
	for _, i := range c.posOf[k] {
		pred[i] = p[c.knownCols[i]]
	}
}

// layers returns the layers a read-out reads, the last first.
func (c *chooser) layers(L int) []int {
	if c.o.Layer > 0 {
		return []int{c.o.Layer}
	}
	var ls []int
	for l := L; l >= 1; l-- {
		ls = append(ls, l)
	}
	return ls
}

// featuresOf returns the features of every column that kind k's
// regression reads, built once.
func (c *chooser) featuresOf(k Kind) *classify.Features {
	if f, ok := c.built[k]; ok {
		return f
	}
	every := make([]int, len(c.sup.Labels))
	for j := range every {
		every[j] = j
	}
	r := c.regressions[k]
	c.built[k] = buildFeatures(r.topics, r.scale, c.x, every)
	return c.built[k]
}

// kindList names kinds, separated by commas.
func kindList(ks []Kind) string {
	names := make([]string, len(ks))
	for i, k := range ks {
		names[i] = k.String()
	}
	return strings.Join(names, ", ")
}

// refit refits the chosen candidate on all the known labels, as its kind
// says (kindInfo.refit).
func (c *chooser) refit() (*neuralnmf.Model, error) {
	best := c.ch.Candidates[c.ch.Chosen]
	return table[best.Kind].refit(c, best)
}
