package neuralnmf

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/neuralnmf/neuralnmf/tensor"
)

// Labels that never hurt
//
// A semi-supervised fit with one fixed configuration can do worse than
// ignoring the labels: on corpora nobody tuned on, the supervised model's
// classifier on the last layer lost to a least-squares read-out of the
// unsupervised model's first layer. TrainChoosing therefore decides for
// the data in hand, from the known labels alone: it holds out part of
// them, trains every candidate without them, scores each candidate on
// them, and refits the best on all the known labels. The unsupervised
// model with a read-out of each layer is always among the candidates, so
// that labels cannot make the result worse than ignoring them beyond the
// noise of the held-out labels, which the Choice states.

// ChooseOptions configures TrainChoosing. The zero value is the default.
type ChooseOptions struct {
	// Balances are the supervised candidates' Supervision.Balance values;
	// nil means the one of the Config's Supervision (DefaultBalance when
	// it is 0). A Config with a positive Lambda has one supervised
	// candidate, with that Lambda.
	Balances []float64
	// HoldOut is the share of each class's known labels held out for
	// validation (rounded down, at least one for a class with two or more
	// known labels); 0 means DefaultHoldOut.
	HoldOut float64
	// Seed draws the held-out labels; 0 means the Config's Seed.
	Seed uint64
	// Kinds are the kinds of candidate compared; nil means all. A
	// single kind pins the choice to it (and Layer pins the layer a
	// read-out reads); leaving out both supervised kinds skips the
	// supervised fits.
	Kinds []Kind
	// Layer, if positive, is the one layer whose S the read-out
	// candidates read; 0 means each layer.
	Layer int
	// Prior is the kind of candidate chosen unless another beats it on
	// the held-out labels by more than two standard errors of the paired
	// difference (see Choice.Prior); 0 means DefaultPrior, NoPrior the
	// highest held-out accuracy whatever the margin. A prior not among
	// Kinds is no prior.
	Prior Kind
	// Patience is the Supervision.Patience of the supervised validation
	// fits: they stop when the held-out accuracy has not risen above its
	// best for Patience epochs, and the chosen one is refitted for as many
	// epochs as its validation fit took. They also stop once the best
	// held-out accuracy so far, rising at its rate over the last Patience
	// epochs until the epoch cap, would stay below the best accuracy of
	// the other candidates (scored first): such a fit cannot be chosen.
	// 0 means DefaultPatience; a negative value, no early stop of either
	// kind (the refit then runs as cfg says).
	Patience int
}

// DefaultPrior is ChooseOptions.Prior by default: no prior (NoPrior), the
// highest held-out accuracy. experiments/semisup compared the spread
// labels as prior: a higher mean accuracy over its validation corpora
// (0.801 against 0.790), but 0.032 below ignoring the labels on man at 5 %
// known labels, where the rule that chooses the defaults wants at most
// 0.01; so the prior is an option (fit -prior spread), not the default.
const (
	NoPrior      = Kind(-1)
	DefaultPrior = NoPrior
)

// DefaultPatience is ChooseOptions.Patience by default.
const DefaultPatience = 50

// DefaultHoldOut is the share of the known labels TrainChoosing holds out
// by default.
const DefaultHoldOut = 1.0 / 3

// Kind is a kind of candidate that TrainChoosing compares.
type Kind int

const (
	// SupervisedFit is the supervised fit with its own classifier.
	SupervisedFit Kind = iota + 1
	// SupervisedReadout is the supervised fit's S of one layer with a
	// least-squares read-out B = Y·S† (the supervised model's topics
	// with another classifier; it costs no fit).
	SupervisedReadout
	// UnsupervisedReadout is the unsupervised fit's S of one layer with
	// a least-squares read-out: ignoring the labels in training.
	UnsupervisedReadout
	// Words is a logistic regression on the columns of X themselves (see
	// "A classifier that can read the words"), with the unsupervised
	// fit's topics.
	Words
	// TopicsWords is a logistic regression on the unsupervised fit's
	// first-layer topics beside the columns of X.
	TopicsWords
	// SpreadWords spreads the known labels to every column over a graph
	// of nearest neighbours on the words (as scikit-learn's
	// LabelSpreading), then fits Words' regression to the spread classes
	// (see "Spreading the known labels").
	SpreadWords
)

// Kinds are every Kind, in the order TrainChoosing lists its candidates.
var kinds = []Kind{SupervisedFit, SupervisedReadout, UnsupervisedReadout, Words, TopicsWords, SpreadWords}

var kindNames = map[Kind]string{SupervisedFit: "supervised", SupervisedReadout: "supervised-readout",
	UnsupervisedReadout: "readout", Words: "words", TopicsWords: "topics+words", SpreadWords: "spread"}

// String returns the kind's name, as ParseKind reads it.
func (k Kind) String() string {
	if n, ok := kindNames[k]; ok {
		return n
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// ParseKind returns the Kind named name: supervised, supervised-readout,
// readout, words, topics+words or spread.
func ParseKind(name string) (Kind, error) {
	for _, k := range kinds {
		if kindNames[k] == name {
			return k, nil
		}
	}
	return 0, fmt.Errorf("unknown kind of candidate %q: want supervised, supervised-readout, readout, words, topics+words or spread", name)
}

// Candidate is one way to use the labels that TrainChoosing compared.
type Candidate struct {
	// Name says what the candidate is, in words a report can print.
	Name string
	Kind Kind
	// Balance (or Lambda, when positive) is the supervised fit's, for the
	// supervised kinds.
	Balance float64
	Lambda  float64
	// Layer is the 1-based layer whose S the classifier reads: 0 for
	// SupervisedFit (its own classifier reads the last) and Words.
	Layer int
	// C is a logistic regression's inverse L2 penalty (Words,
	// TopicsWords and SpreadWords), chosen by cross-validation on the
	// known labels it was fitted on.
	C float64
	// Accuracy is the share of the held-out labels it predicted right.
	Accuracy float64
	// Epochs is the number of epochs of a supervised candidate's
	// validation fit, and EarlyStop whether its Patience ended it.
	Epochs    int
	EarlyStop bool
}

// Choice says what TrainChoosing compared and chose.
type Choice struct {
	Candidates []Candidate
	// Chosen indexes Candidates; -1 when no label could be held out and
	// the Config's supervised fit was trained as given.
	Chosen int
	// HeldOut is the number of known labels held out; Known the number
	// known in all.
	HeldOut, Known int
	// Prior indexes the candidate of ChooseOptions.Prior's kind (−1: no
	// prior). It is chosen unless the candidate of highest held-out
	// accuracy, Best, gets more held-out labels right than it by more
	// than two standard errors of the paired difference: b − c > 2√(b+c),
	// b and c the held-out labels that only Best and only the prior get
	// right. On a few dozen held-out labels nearly every difference is
	// noise, and the prior is the kind that did best on the validation
	// corpora; a kind clearly better on this data still wins.
	Prior, Best int
	// Margin is the held-out accuracy of the chosen candidate minus that
	// of the best other, and StdErr the standard error of a held-out
	// accuracy at the chosen one's level, √(p(1−p)/HeldOut): a margin
	// within two standard errors is a choice the held-out labels cannot
	// tell from chance.
	Margin, StdErr float64
}

// Trusted reports whether the choice's margin exceeds two standard errors
// of a held-out accuracy (see Choice.Margin).
func (c *Choice) Trusted() bool { return c.Chosen >= 0 && c.Margin > 2*c.StdErr }

// TrainChoosing trains a semi-supervised model as Train does, choosing
// for X what to do with the labels (see "Labels that never hurt"):
// cfg.Supervision must give the labels; opt may be nil. The candidates are
// the supervised fit at each of opt.Balances and the unsupervised fit
// with a least-squares read-out of each layer (Model.ClassifierLayer says
// which layer the chosen model's B reads). Ties go to the earlier
// candidate: the supervised fits first. Every fit uses cfg otherwise,
// from cfg's start, which is computed once and shared. The supervised
// fits are trained last, so that each can stop once it cannot catch up
// with the others (see ChooseOptions.Patience). Not for mini-batch
// training (BatchSize) or Algorithm1.
func TrainChoosing(x *tensor.Dense, cfg Config, opt *ChooseOptions) (*Model, *Choice, error) {
	return trainChoosing(cfg, opt, data{dense: x}, func(c Config) (*Model, error) { return Train(x, c) })
}

// TrainSparseChoosing is TrainChoosing for a sparse X.
func TrainSparseChoosing(x *tensor.Sparse, cfg Config, opt *ChooseOptions) (*Model, *Choice, error) {
	return trainChoosing(cfg, opt, data{sparse: x}, func(c Config) (*Model, error) { return TrainSparse(x, c) })
}

func trainChoosing(cfg Config, opt *ChooseOptions, x data, fit func(Config) (*Model, error)) (*Model, *Choice, error) {
	sup := cfg.Supervision
	switch {
	case sup == nil:
		return nil, nil, fmt.Errorf("neuralnmf: TrainChoosing: %w: Supervision is nil: there are no labels to choose with", ErrConfig)
	case cfg.BatchSize > 0 || cfg.Algorithm1:
		return nil, nil, fmt.Errorf("neuralnmf: TrainChoosing: %w: not for mini-batch training or Algorithm1; use Train", ErrConfig)
	}
	var o ChooseOptions
	if opt != nil {
		o = *opt
	}
	if o.HoldOut == 0 {
		o.HoldOut = DefaultHoldOut
	}
	if !(o.HoldOut > 0 && o.HoldOut < 1) {
		return nil, nil, fmt.Errorf("neuralnmf: TrainChoosing: %w: HoldOut is %v, want a share in (0, 1)", ErrConfig, o.HoldOut)
	}
	if o.Seed == 0 {
		o.Seed = cfg.Seed
	}
	switch {
	case o.Patience == 0:
		o.Patience = DefaultPatience
	case o.Patience < 0:
		o.Patience = 0
	}
	balances := o.Balances
	if balances == nil {
		balances = []float64{cmp.Or(sup.Balance, DefaultBalance)}
	}
	for _, b := range balances {
		if !(b > 0) || math.IsInf(b, 0) {
			return nil, nil, fmt.Errorf("neuralnmf: TrainChoosing: %w: a balance of %v, want a positive number", ErrConfig, b)
		}
	}
	if sup.Lambda > 0 {
		balances = balances[:1]
	}
	if len(sup.Labels) == 0 || sup.Classes < 1 {
		return nil, nil, fmt.Errorf("neuralnmf: TrainChoosing: %w: Supervision has no labels", ErrConfig)
	}
	use := map[Kind]bool{}
	want := o.Kinds
	if want == nil {
		want = kinds
	}
	for _, k := range want {
		if _, ok := kindNames[k]; !ok {
			return nil, nil, fmt.Errorf("neuralnmf: TrainChoosing: %w: Kinds holds %v, not a kind of candidate", ErrConfig, k)
		}
		use[k] = true
	}
	if len(use) == 0 {
		return nil, nil, fmt.Errorf("neuralnmf: TrainChoosing: %w: Kinds is empty: name at least one kind of candidate (nil: all)", ErrConfig)
	}
	if o.Layer < 0 || o.Layer > len(cfg.Ranks) {
		return nil, nil, fmt.Errorf("neuralnmf: TrainChoosing: %w: Layer is %d, want 0 (each) or 1..%d", ErrConfig, o.Layer, len(cfg.Ranks))
	}
	layers := func(L int) []int { // the layers a read-out reads, the last first
		if o.Layer > 0 {
			return []int{o.Layer}
		}
		var ls []int
		for l := L; l >= 1; l-- {
			ls = append(ls, l)
		}
		return ls
	}
	// Every fit below starts from cfg's start: compute it once.
	cfg.starts = &startCache{}
	train, held, nHeld, nKnown := holdOut(sup, o.HoldOut, o.Seed)
	ch := &Choice{Chosen: -1, HeldOut: nHeld, Known: nKnown}
	if nHeld == 0 {
		m, err := fit(cfg)
		return m, ch, err
	}
	withKnown := func(known []bool, balance float64, patience int) Config {
		c, s := cfg, *sup
		s.Known, s.Balance, s.Patience = known, balance, patience
		c.Supervision = &s
		return c
	}
	heldLabels, _ := SplitLabels(sup.Labels, held)
	trainLabels, _ := SplitLabels(sup.Labels, train)
	var trCols, heldCols, trY []int
	for j := range trainLabels {
		if trainLabels[j] >= 0 {
			trCols, trY = append(trCols, j), append(trY, trainLabels[j])
		}
		if heldLabels[j] >= 0 {
			heldCols = append(heldCols, j)
		}
	}
	// add appends a candidate scored on the held-out labels, pred giving
	// its class of held-out column j (i-th of heldCols).
	var rights [][]bool // per candidate, which held-out labels it got right
	add := func(c Candidate, pred func(i, j int) int) {
		r, n := make([]bool, len(heldCols)), 0
		for i, j := range heldCols {
			if r[i] = pred(i, j) == heldLabels[j]; r[i] {
				n++
			}
		}
		c.Accuracy = float64(n) / float64(len(heldCols))
		ch.Candidates = append(ch.Candidates, c)
		rights = append(rights, r)
	}
	all := func(p []int) func(i, j int) int { return func(_, j int) int { return p[j] } }
	inHeld := func(p []int) func(i, j int) int { return func(i, _ int) int { return p[i] } }
	// The unsupervised model: its read-outs, the topics beside the words,
	// and the model the regressions are saved in.
	var um *Model
	if use[UnsupervisedReadout] || use[Words] || use[TopicsWords] || use[SpreadWords] {
		unsupCfg := cfg
		unsupCfg.Supervision = nil
		var err error
		if um, err = fit(unsupCfg); err != nil {
			return nil, nil, err
		}
	}
	if use[UnsupervisedReadout] {
		for _, l := range layers(len(um.S)) {
			b, err := FitReadout(um.S[l-1], trainLabels, sup.Classes)
			if err != nil {
				return nil, nil, err
			}
			add(Candidate{Name: fmt.Sprintf("unsupervised + read-out of layer %d", l), Kind: UnsupervisedReadout, Layer: l}, all(Predict(b, um.S[l-1])))
		}
	}
	// The logistic regressions on the words, alone and beside the first
	// layer's topics (the widest). Each reads the features of every
	// column, built once (featuresOf), and fits subsets of them.
	var regressions map[Kind]logisticCandidate
	built := map[Kind]*features{}
	featuresOf := func(k Kind) *features {
		if f, ok := built[k]; ok {
			return f
		}
		every := make([]int, len(sup.Labels))
		for j := range every {
			every[j] = j
		}
		r := regressions[k]
		built[k] = buildFeatures(r.topics, r.scale, x, every)
		return built[k]
	}
	if um != nil {
		regressions = map[Kind]logisticCandidate{Words: {}, TopicsWords: {topics: um.S[0], scale: topicScale(um.S[0])}}
	}
	var wordsC float64 // Words' C on the training labels
	for _, k := range []Kind{Words, TopicsWords} {
		if !use[k] && !(k == Words && use[SpreadWords]) {
			continue
		}
		f := featuresOf(k)
		l, c := chooseLogistic(f.subset(trCols), trY, sup.Classes, o.Seed)
		if k == Words {
			wordsC = c
			if !use[k] {
				continue
			}
		}
		cand := Candidate{Name: fmt.Sprintf("logistic regression on the words (C %.3g)", c), Kind: k, C: c}
		if k == TopicsWords {
			cand.Name, cand.Layer = fmt.Sprintf("unsupervised layer-1 topics + words, logistic (C %.3g)", c), 1
		}
		add(cand, inHeld(l.predict(f.subset(heldCols))))
	}
	var graph [][]int
	if use[SpreadWords] {
		graph = neighbourGraph(featuresOf(Words))
		l := fitSpread(graph, featuresOf(Words), trainLabels, sup.Classes, wordsC)
		add(Candidate{Name: fmt.Sprintf("labels spread by 7 nearest neighbours, then logistic on the words (C %.3g)", wordsC),
			Kind: SpreadWords, C: wordsC}, inHeld(l.predict(featuresOf(Words).subset(heldCols))))
	}
	// The supervised fits last, listed first: each stops early once its
	// held-out accuracy cannot reach the best of the candidates above
	// (Supervision's target), which on a large corpus saves most of
	// their epochs.
	cheap, cheapRights := ch.Candidates, rights
	ch.Candidates, rights = nil, nil
	target := 0.0
	if o.Patience > 0 {
		for _, c := range cheap {
			target = max(target, c.Accuracy)
		}
	}
	if use[SupervisedFit] || use[SupervisedReadout] {
		for _, b := range balances {
			vc := withKnown(train, b, o.Patience)
			vc.Supervision.target = target
			m, err := fit(vc)
			if err != nil {
				return nil, nil, err
			}
			c := Candidate{Name: fmt.Sprintf("supervised (%s, balance %g)", sup.Classifier.Resolved(), b), Kind: SupervisedFit, Balance: b,
				Epochs: len(m.History.Loss), EarlyStop: strings.HasPrefix(m.History.Stopped, "early stop")}
			if sup.Lambda > 0 {
				c.Name, c.Balance, c.Lambda = fmt.Sprintf("supervised (%s, λ %g)", sup.Classifier.Resolved(), sup.Lambda), 0, sup.Lambda
			}
			if use[SupervisedFit] {
				add(c, all(m.Predict()))
			}
			if use[SupervisedReadout] {
				for _, l := range layers(len(m.S)) {
					b, err := FitReadout(m.S[l-1], trainLabels, sup.Classes)
					if err != nil {
						return nil, nil, err
					}
					r := c
					r.Name, r.Kind, r.Layer = fmt.Sprintf("%s + read-out of layer %d", c.Name, l), SupervisedReadout, l
					add(r, all(Predict(b, m.S[l-1])))
				}
			}
		}
	}
	ch.Candidates, rights = append(ch.Candidates, cheap...), append(rights, cheapRights...)
	ch.Best = 0
	for i, c := range ch.Candidates {
		if c.Accuracy > ch.Candidates[ch.Best].Accuracy {
			ch.Best = i
		}
	}
	ch.Chosen, ch.Prior = ch.Best, -1
	prior := cmp.Or(o.Prior, DefaultPrior)
	for i, c := range ch.Candidates {
		if c.Kind == prior {
			ch.Prior = i
			break
		}
	}
	if ch.Prior >= 0 {
		onlyBest, onlyPrior := 0, 0
		for i := range heldCols {
			switch {
			case rights[ch.Best][i] && !rights[ch.Prior][i]:
				onlyBest++
			case rights[ch.Prior][i] && !rights[ch.Best][i]:
				onlyPrior++
			}
		}
		if !(float64(onlyBest-onlyPrior) > 2*math.Sqrt(float64(onlyBest+onlyPrior))) {
			ch.Chosen = ch.Prior
		}
	}
	best := ch.Candidates[ch.Chosen]
	ch.Margin = math.Inf(1)
	for i, c := range ch.Candidates {
		if i != ch.Chosen {
			ch.Margin = min(ch.Margin, best.Accuracy-c.Accuracy)
		}
	}
	ch.StdErr = math.Sqrt(best.Accuracy * (1 - best.Accuracy) / float64(nHeld))

	// Refit on all the known labels: those of sup.
	known, _ := SplitLabels(sup.Labels, sup.Known)
	readout := func(m *Model, layer int) (*Model, *Choice, error) {
		b, err := FitReadout(m.S[layer-1], known, sup.Classes)
		if err != nil {
			return nil, nil, err
		}
		m.B, m.ClassifierLayer = b, layer
		return m, ch, nil
	}
	switch best.Kind {
	case Words, TopicsWords, SpreadWords:
		k := best.Kind
		if k == SpreadWords {
			k = Words // the regression on the words, fitted to spread labels
		}
		cols, y := labelled(known)
		l, c := chooseLogistic(featuresOf(k).subset(cols), y, sup.Classes, o.Seed)
		if best.Kind == SpreadWords {
			l = fitSpread(graph, featuresOf(Words), known, sup.Classes, c)
		}
		layer := len(um.A) // B reads no topics: zero on the last layer
		if k == TopicsWords {
			layer = 1
		}
		n, _ := x.dims()
		um.B, um.BX, um.Intercept = classifierOf(l, regressions[k], n, um.A[layer-1].Cols)
		um.ClassifierLayer = layer
		return um, ch, nil
	case UnsupervisedReadout:
		return readout(um, best.Layer)
	}
	// The refit starts where the validation fit did (cfg's start): from
	// the validation fit's A's it stopped early, 0.01 lower on 20
	// Newsgroups.
	refit := withKnown(sup.Known, best.Balance, 0)
	if best.EarlyStop {
		// As many epochs as the validation fit took to its early stop.
		refit.Epochs = best.Epochs
	}
	m, err := fit(refit)
	if err != nil {
		return nil, nil, err
	}
	if best.EarlyStop && strings.HasPrefix(m.History.Stopped, "max epochs") {
		m.History.Stopped = fmt.Sprintf("refitted for the %d epochs at which its validation fit stopped early", best.Epochs)
	}
	if best.Kind == SupervisedReadout {
		return readout(m, best.Layer)
	}
	return m, ch, nil
}

// holdOut splits the known labels of sup: per class, a share of them
// (rounded down, at least one of two or more) drawn with seed is held out,
// the rest trained on. It returns the two marks and their counts (held
// out, known in all).
func holdOut(sup *Supervision, share float64, seed uint64) (train, held []bool, nHeld, nKnown int) {
	n := len(sup.Labels)
	train, held = make([]bool, n), make([]bool, n)
	byClass := map[int][]int{}
	for j, l := range sup.Labels {
		if l >= 0 && (sup.Known == nil || sup.Known[j]) {
			byClass[l] = append(byClass[l], j)
			train[j] = true
			nKnown++
		}
	}
	classes := make([]int, 0, len(byClass))
	for c := range byClass {
		classes = append(classes, c)
	}
	slices.Sort(classes)
	rng := tensor.NewRand(seed ^ 0x686f6c64)
	for _, c := range classes {
		idx := byClass[c]
		if len(idx) < 2 {
			continue
		}
		rng.Shuffle(len(idx), func(a, b int) { idx[a], idx[b] = idx[b], idx[a] })
		k := max(1, int(share*float64(len(idx))))
		for _, j := range idx[:k] {
			train[j], held[j] = false, true
			nHeld++
		}
	}
	return train, held, nHeld, nKnown
}
