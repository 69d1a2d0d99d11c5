package neuralnmf

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

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
// noise of the scored labels, which the Choice states.
//
// At 5 % known labels a third of them is a few labels a class, too few to
// tell candidates 0.03 apart. So the candidates that cost no supervised
// fit (the read-outs of the unsupervised model, the regressions, the
// spread labels) are cross-validated instead: the held-out labels are
// one of ChooseOptions.Folds folds, and each candidate is scored on every
// known label by a fit without its fold, three times the labels of the
// held-out share alone. A regression's C is chosen on the same folds (one
// number per candidate, chosen with the labels that score it, which
// flatters the regressions a little against the read-outs, which have
// none). Only the supervised fits, each a Neural NMF fit, are scored on
// the held-out fold alone, against the others' scores on it.

// ChooseOptions configures TrainChoosing. The zero value is the default.
type ChooseOptions struct {
	// Balances are the supervised candidates' Supervision.Balance values;
	// nil means the one of the Config's Supervision (DefaultBalance when
	// it is 0). A Config with a positive Lambda has one supervised
	// candidate, with that Lambda.
	Balances []float64
	// HoldOut is the share of each class's known labels held out for
	// validation (rounded down, at least one for a class with two or more
	// known labels); 0 means DefaultHoldOut. The supervised fits are
	// trained without them and scored on them.
	HoldOut float64
	// Folds is the number of folds of the known labels on which the
	// candidates that need no supervised fit (read-outs of the
	// unsupervised model, the regressions, the spread labels) are
	// cross-validated: the held-out labels are one fold, the others are
	// dealt to the rest, and each candidate is scored on every known label
	// by a fit without its fold. 0 means DefaultFolds; at least 2.
	Folds int
	// Seed draws the held-out labels; 0 means the Config's Seed.
	Seed uint64
	// Kinds are the kinds of candidate compared; nil means every kind but
	// TopicsWordsSpread. A
	// single kind pins the choice to it (and Layer pins the layer a
	// read-out reads); leaving out both supervised kinds skips the
	// supervised fits.
	Kinds []Kind
	// Layer, if positive, is the one layer whose S the read-out
	// candidates read; 0 means each layer.
	Layer int
	// Prior is the kind of candidate chosen unless another beats it on
	// the labels both were scored on by more than two standard errors of
	// the paired difference (see Choice.Prior); 0 means DefaultPrior,
	// NoPrior the highest accuracy whatever the margin, CrossValidated
	// the best cross-validated candidate (so that a supervised fit,
	// scored on the held-out labels alone, must beat it clearly). A prior
	// not among Kinds is no prior.
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

// NoPrior, as ChooseOptions.Prior, takes the candidate of highest
// accuracy whatever the margin.
const NoPrior = Kind(-1)

// CrossValidated, as ChooseOptions.Prior, makes the best of the
// cross-validated candidates the prior: a supervised fit replaces it only
// when it gets clearly more of the held-out labels right.
const CrossValidated = Kind(-2)

// DefaultPrior is ChooseOptions.Prior by default: CrossValidated.
// experiments/semisup chose it on its validation corpora (godoc, info,
// man; select-merged.log): mean accuracy 0.807, at least 0.041 above
// ignoring the labels everywhere, against 0.793 (+0.000) with no prior,
// where on info a supervised fit that won the held-out third by a label
// or two lost up to 0.08 on the scored documents; the spread labels as
// prior had 0.804 but 0.038 less on man at 5 %.
const DefaultPrior = CrossValidated

// DefaultPatience is ChooseOptions.Patience by default.
const DefaultPatience = 50

// DefaultFolds is ChooseOptions.Folds by default: with DefaultHoldOut,
// three folds of a third of the known labels each.
const DefaultFolds = 3

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
	// TopicsWordsSpread sums the scores of TopicsWords' and SpreadWords'
	// regressions: one linear classifier on the first layer's topics and
	// the words. Not among the default kinds (ChooseOptions.Kinds): it
	// is being weighed in experiments/semisup.
	TopicsWordsSpread
)

// Kinds are every Kind, in the order TrainChoosing lists its candidates.
var kinds = []Kind{SupervisedFit, SupervisedReadout, UnsupervisedReadout, Words, TopicsWords, SpreadWords, TopicsWordsSpread}

// defaultKinds are the kinds compared when ChooseOptions.Kinds is nil.
var defaultKinds = kinds[:len(kinds)-1]

var kindNames = map[Kind]string{SupervisedFit: "supervised", SupervisedReadout: "supervised-readout",
	UnsupervisedReadout: "readout", Words: "words", TopicsWords: "topics+words", SpreadWords: "spread", TopicsWordsSpread: "topics+words+spread",
	NoPrior: "none", CrossValidated: "cross-validated"}

// String returns the kind's name, as ParseKind reads it.
func (k Kind) String() string {
	if n, ok := kindNames[k]; ok {
		return n
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// ParseKind returns the Kind named name: supervised, supervised-readout,
// readout, words, topics+words, spread or topics+words+spread.
func ParseKind(name string) (Kind, error) {
	for _, k := range kinds {
		if kindNames[k] == name {
			return k, nil
		}
	}
	return 0, fmt.Errorf("unknown kind of candidate %q: want supervised, supervised-readout, readout, words, topics+words, spread or topics+words+spread", name)
}

// ParsePrior returns the ChooseOptions.Prior named name: a kind that
// ParseKind reads, none (NoPrior) or cross-validated (CrossValidated).
func ParsePrior(name string) (Kind, error) {
	switch name {
	case "none":
		return NoPrior, nil
	case "cross-validated":
		return CrossValidated, nil
	}
	k, err := ParseKind(name)
	if err != nil {
		return 0, fmt.Errorf("unknown prior %q: want a kind (supervised, supervised-readout, readout, words, topics+words, spread or topics+words+spread), none or cross-validated", name)
	}
	return k, nil
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
	// Accuracy is the share of the known labels it was scored on
	// (Scored of them) that it predicted right, each by a fit without it:
	// every known label for a cross-validated candidate, the held-out
	// ones for a supervised one. HeldOutAccuracy is the share of the
	// held-out labels (Choice.HeldOut) alone.
	Accuracy, HeldOutAccuracy float64
	Scored                    int
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
	// HeldOut is the number of known labels held out (the fold on which
	// the supervised fits are scored); Known the number known in all, on
	// which the other candidates are cross-validated in Folds folds.
	HeldOut, Known, Folds int
	// Best indexes the best candidate: of the cross-validated ones, the
	// one of highest Accuracy; a supervised one instead if its held-out
	// accuracy is at least that one's on the same held-out labels.
	// Prior indexes the candidate of ChooseOptions.Prior's kind (−1: no
	// prior). It is chosen unless Best gets more labels right than it, of
	// those scored for both, by more than two standard errors of the
	// paired difference: b − c > 2√(b+c), b and c the labels that only
	// Best and only the prior get right. On a few dozen labels nearly
	// every difference is noise, and the prior is the kind that did best
	// on the validation corpora; a kind clearly better on this data still
	// wins.
	Prior, Best int
	// Margin is the accuracy of the chosen candidate minus that of the
	// best other (on the held-out labels where either is a supervised
	// fit), and StdErr the standard error of an accuracy at the chosen
	// one's level on as many labels as it was scored on, √(p(1−p)/n): a
	// margin within two standard errors is a choice the known labels
	// cannot tell from chance.
	Margin, StdErr float64
}

// Trusted reports whether the choice's margin exceeds two standard errors
// of the chosen candidate's accuracy (see Choice.Margin).
func (c *Choice) Trusted() bool { return c.Chosen >= 0 && c.Margin > 2*c.StdErr }

// TrainChoosing trains a semi-supervised model as Train does, choosing
// for X what to do with the labels (see "Labels that never hurt"):
// cfg.Supervision must give the labels; opt may be nil. The candidates are
// the supervised fit at each of opt.Balances with its own classifier and
// read-outs, the unsupervised fit with a least-squares read-out of each
// layer (Model.ClassifierLayer says which layer the chosen model's B
// reads), and the regressions on the words (Kind); Choice.Best and
// Choice.Prior say how one is chosen. Every fit uses cfg otherwise,
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
	// Refuse what the supervised fit would refuse (KL with labels, bad
	// labels, ...) now, not after the unsupervised fits have run.
	if err := cfg.validate(x.dims()); err != nil {
		return nil, nil, err
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
	if o.Folds == 0 {
		o.Folds = DefaultFolds
	}
	if o.Folds < 2 {
		return nil, nil, fmt.Errorf("neuralnmf: TrainChoosing: %w: Folds is %d, want at least 2", ErrConfig, o.Folds)
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
		want = defaultKinds
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
	ch := &Choice{Chosen: -1, HeldOut: nHeld, Known: nKnown, Folds: o.Folds}
	if nHeld == 0 {
		m, err := fit(cfg)
		return m, ch, err
	}
	// The known labels only: a validation fit must not see (even as
	// held-out accuracy for its early stop) labels the caller did not
	// mark known.
	known, _ := SplitLabels(sup.Labels, sup.Known)
	withKnown := func(mark []bool, balance float64, patience int) Config {
		c, s := cfg, *sup
		s.Known, s.Balance, s.Patience = mark, balance, patience
		if patience > 0 {
			s.Labels = known
		}
		c.Supervision = &s
		return c
	}
	trainLabels, _ := SplitLabels(sup.Labels, train)
	// Each known label's fold: the held-out ones are fold 0, the rest
	// are dealt to folds 1..Folds−1. The cheap candidates are scored on
	// every fold, each by a fit without it; the supervised fits, too
	// costly to repeat, on fold 0 alone.
	knownCols, knownY := labelled(known)
	if opt != nil && opt.Folds > 0 {
		// As scikit-learn's StratifiedKFold: more folds than the largest
		// class has labels would leave every fold without some class.
		count := make([]int, sup.Classes)
		for _, y := range knownY {
			count[y]++
		}
		if most := slices.Max(count); o.Folds > most {
			return nil, nil, fmt.Errorf("neuralnmf: TrainChoosing: %w: Folds is %d, above the %d known labels of the largest class: want 2 to %d", ErrConfig, o.Folds, most, most)
		}
	}
	fold := cvFolds(knownCols, knownY, held, sup.Classes, o.Folds, o.Seed)
	without := func(k int) []int { // the known labels outside fold k
		l := slices.Clone(known)
		for i, j := range knownCols {
			if fold[i] == k {
				l[j] = -1
			}
		}
		return l
	}
	colsOf := make([][]int, o.Folds) // each fold's columns, and their positions in knownCols
	posOf := make([][]int, o.Folds)
	for i, j := range knownCols {
		colsOf[fold[i]] = append(colsOf[fold[i]], j)
		posOf[fold[i]] = append(posOf[fold[i]], i)
	}
	// add appends a candidate that predicted class pred[i] for the known
	// label i (−1: not scored).
	var rights [][]int8 // per candidate and known label: 1 right, 0 wrong, −1 not scored
	add := func(c Candidate, pred []int) {
		r := make([]int8, len(knownCols))
		var n, right, n0, right0 int
		for i := range r {
			r[i] = -1
			if pred[i] < 0 {
				continue
			}
			r[i] = 0
			if pred[i] == knownY[i] {
				r[i] = 1
			}
			n, right = n+1, right+int(r[i])
			if fold[i] == 0 {
				n0, right0 = n0+1, right0+int(r[i])
			}
		}
		c.Scored = n
		c.Accuracy = float64(right) / float64(n)
		c.HeldOutAccuracy = float64(right0) / float64(n0)
		ch.Candidates = append(ch.Candidates, c)
		rights = append(rights, r)
	}
	unscored := func() []int {
		p := make([]int, len(knownCols))
		for i := range p {
			p[i] = -1
		}
		return p
	}
	// fromAll scores, on fold k, predictions p of every column.
	fromAll := func(pred []int, k int, p []int) {
		for _, i := range posOf[k] {
			pred[i] = p[knownCols[i]]
		}
	}
	// The regressions on the words read X alone, not the topics: the one
	// on the words and the spread labels are fitted beside the
	// unsupervised fit (below), which leaves part of the cores idle. The
	// features of every column are built once (featuresOf) and subsets of
	// them fitted. A regression's C is chosen by cross-validation on the
	// same folds, which also scores it; its fit with that C on all the
	// known labels is the refit.
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
	refits := map[Kind]*logistic{}
	var (
		wordsC                float64 // Words' C
		wordsPred, spreadPred []int
		spreadScores          []float64 // per known label, the spread fit's scores (TopicsWordsSpread)
		graph                 [][]int
		wordsDone             sync.WaitGroup
	)
	if use[TopicsWordsSpread] && !(use[TopicsWords] && use[SpreadWords]) {
		return nil, nil, fmt.Errorf("neuralnmf: TrainChoosing: %w: Kinds holds topics+words+spread without topics+words and spread, whose sum it is", ErrConfig)
	}
	P := sup.Classes
	if use[Words] || use[SpreadWords] {
		words := featuresOf(Words)
		defer wordsDone.Wait() // on an early return too: no fit outlives the call
		wordsDone.Go(func() {
			var l *logistic
			l, wordsC, wordsPred, _ = crossValidateLogistic(words.subset(knownCols), knownY, P, fold, false)
			refits[Words] = l
			if !use[SpreadWords] {
				return
			}
			graph = neighbourGraph(words)
			// The folds' fits are independent: one goroutine each, as
			// the regressions' cross-validation runs its folds.
			spreadPred = unscored()
			if use[TopicsWordsSpread] {
				spreadScores = make([]float64, len(knownCols)*P)
			}
			var wg sync.WaitGroup
			for k := range o.Folds {
				wg.Go(func() {
					l := fitSpread(graph, words, without(k), P, wordsC)
					sc := l.allScores(words.subset(colsOf[k]))
					for n, i := range posOf[k] {
						spreadPred[i] = argmax(sc[n*P : (n+1)*P])
						if spreadScores != nil {
							copy(spreadScores[i*P:(i+1)*P], sc[n*P:(n+1)*P])
						}
					}
				})
			}
			wg.Wait()
		})
	}
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
			pred := unscored()
			for k := range o.Folds {
				b, err := FitReadout(um.S[l-1], without(k), sup.Classes)
				if err != nil {
					return nil, nil, err
				}
				fromAll(pred, k, Predict(b, um.S[l-1]))
			}
			add(Candidate{Name: fmt.Sprintf("unsupervised + read-out of layer %d", l), Kind: UnsupervisedReadout, Layer: l}, pred)
		}
	}
	wordsDone.Wait()
	if use[Words] {
		add(Candidate{Name: fmt.Sprintf("logistic regression on the words (C %.3g)", wordsC), Kind: Words, C: wordsC}, wordsPred)
	}
	// The regression on the words beside the first layer's topics (the
	// widest).
	if um != nil {
		regressions = map[Kind]logisticCandidate{Words: {}, TopicsWords: {topics: um.S[0], scale: topicScale(um.S[0])}}
	}
	var (
		twC      float64
		twPred   []int
		twScores []float64
	)
	if use[TopicsWords] {
		var l *logistic
		l, twC, twPred, twScores = crossValidateLogistic(featuresOf(TopicsWords).subset(knownCols), knownY, P, fold, use[TopicsWordsSpread])
		refits[TopicsWords] = l
		add(Candidate{Name: fmt.Sprintf("unsupervised layer-1 topics + words, logistic (C %.3g)", twC), Kind: TopicsWords, C: twC, Layer: 1}, twPred)
	}
	if use[SpreadWords] {
		add(Candidate{Name: fmt.Sprintf("labels spread by 7 nearest neighbours, then logistic on the words (C %.3g)", wordsC),
			Kind: SpreadWords, C: wordsC}, spreadPred)
	}
	if use[TopicsWordsSpread] {
		// The sum of the two regressions' cross-validated scores.
		pred := unscored()
		z := make([]float64, P)
		for i := range pred {
			if twPred[i] < 0 { // its fold could not be fitted
				continue
			}
			for c := range z {
				z[c] = twScores[i*P+c] + spreadScores[i*P+c]
			}
			pred[i] = argmax(z)
		}
		add(Candidate{Name: fmt.Sprintf("topics + words (C %.3g) and spread labels (C %.3g), their scores summed", twC, wordsC),
			Kind: TopicsWordsSpread, C: twC, Layer: 1}, pred)
	}
	// The supervised fits last, listed first: each stops early once its
	// held-out accuracy cannot reach the best of the candidates above
	// on the same held-out labels (Supervision's target), which on a
	// large corpus saves most of their epochs.
	cheap, cheapRights := ch.Candidates, rights
	ch.Candidates, rights = nil, nil
	target := 0.0
	if o.Patience > 0 {
		for _, c := range cheap {
			target = max(target, c.HeldOutAccuracy)
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
				pred := unscored()
				fromAll(pred, 0, m.Predict())
				add(c, pred)
			}
			if use[SupervisedReadout] {
				for _, l := range layers(len(m.S)) {
					b, err := FitReadout(m.S[l-1], trainLabels, sup.Classes)
					if err != nil {
						return nil, nil, err
					}
					r := c
					r.Name, r.Kind, r.Layer = fmt.Sprintf("%s + read-out of layer %d", c.Name, l), SupervisedReadout, l
					pred := unscored()
					fromAll(pred, 0, Predict(b, m.S[l-1]))
					add(r, pred)
				}
			}
		}
	}
	nSup := len(ch.Candidates)
	ch.Candidates, rights = append(ch.Candidates, cheap...), append(rights, cheapRights...)
	ch.choose(nSup, rights, cmp.Or(o.Prior, DefaultPrior), fold)
	best := ch.Candidates[ch.Chosen]

	// Refit on all the known labels: those of sup.
	readout := func(m *Model, layer int) (*Model, *Choice, error) {
		b, err := FitReadout(m.S[layer-1], known, sup.Classes)
		if err != nil {
			return nil, nil, err
		}
		m.B, m.ClassifierLayer = b, layer
		return m, ch, nil
	}
	switch best.Kind {
	case TopicsWordsSpread:
		n, _ := x.dims()
		spread := fitSpread(graph, featuresOf(Words), known, sup.Classes, wordsC)
		b, bx, ic := classifierOf(refits[TopicsWords], regressions[TopicsWords], n, um.A[0].Cols)
		_, bx2, ic2 := classifierOf(spread, regressions[Words], n, um.A[0].Cols)
		for i, v := range bx2.Data {
			bx.Data[i] += v
		}
		for i, v := range ic2.Data {
			ic.Data[i] += v
		}
		um.B, um.BX, um.Intercept, um.ClassifierLayer = b, bx, ic, 1
		return um, ch, nil
	case Words, TopicsWords, SpreadWords:
		k := best.Kind
		if k == SpreadWords {
			k = Words // the regression on the words, fitted to spread labels
		}
		l := refits[k]
		if best.Kind == SpreadWords {
			l = fitSpread(graph, featuresOf(Words), known, sup.Classes, wordsC)
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

// choose sets the Choice's Best, Chosen, Prior, Margin and StdErr from
// its Candidates, of which the first nSup are supervised (scored on fold
// 0 alone) and the rest cross-validated on every fold; rights[c][i] says
// whether candidate c got the known label i right (−1: not scored).
//
// The best cross-validated candidate is the one of highest Accuracy (ties
// to the earlier). A supervised candidate is best instead when its
// held-out accuracy is at least that one's on the same held-out labels
// (ties to the supervised, the earlier in the list). With a prior kind,
// the prior's candidate is chosen unless Best gets more labels right,
// among those scored for both, by more than two standard errors of the
// paired difference.
func (ch *Choice) choose(nSup int, rights [][]int8, prior Kind, fold []int) {
	cs := ch.Candidates
	ch.Best = nSup
	for i := nSup; i < len(cs); i++ {
		if cs[i].Accuracy > cs[ch.Best].Accuracy {
			ch.Best = i
		}
	}
	if ch.Best == len(cs) { // no cross-validated candidate
		ch.Best = 0
	}
	for i := range nSup {
		if ch.Best >= nSup && cs[i].HeldOutAccuracy >= cs[ch.Best].HeldOutAccuracy ||
			ch.Best < nSup && cs[i].HeldOutAccuracy > cs[ch.Best].HeldOutAccuracy {
			ch.Best = i
		}
	}
	bestCV := ch.Best
	if ch.Best < nSup {
		bestCV = -1
		for i := nSup; i < len(cs); i++ {
			if bestCV < 0 || cs[i].Accuracy > cs[bestCV].Accuracy {
				bestCV = i
			}
		}
	}
	ch.Chosen, ch.Prior = ch.Best, -1
	for i, c := range cs {
		if c.Kind == prior {
			ch.Prior = i
			break
		}
	}
	if prior == CrossValidated {
		ch.Prior = bestCV
	}
	if ch.Prior >= 0 {
		onlyBest, onlyPrior := 0, 0
		for i := range fold {
			b, p := rights[ch.Best][i], rights[ch.Prior][i]
			switch {
			case b < 0 || p < 0:
			case b == 1 && p == 0:
				onlyBest++
			case p == 1 && b == 0:
				onlyPrior++
			}
		}
		if !(float64(onlyBest-onlyPrior) > 2*math.Sqrt(float64(onlyBest+onlyPrior))) {
			ch.Chosen = ch.Prior
		}
	}
	// The margin over the others, each on the labels both were scored on.
	chosen := cs[ch.Chosen]
	ch.Margin = math.Inf(1)
	for i, c := range cs {
		if i == ch.Chosen {
			continue
		}
		if i < nSup || ch.Chosen < nSup {
			ch.Margin = min(ch.Margin, chosen.HeldOutAccuracy-c.HeldOutAccuracy)
		} else {
			ch.Margin = min(ch.Margin, chosen.Accuracy-c.Accuracy)
		}
	}
	ch.StdErr = math.Sqrt(chosen.Accuracy * (1 - chosen.Accuracy) / float64(chosen.Scored))
}

// cvFolds deals the known labels (columns cols, classes y) to folds:
// those held out are fold 0, the others, per class in a seeded random
// order, to folds 1..folds−1 in turn (continuing across classes, so that
// the folds are of equal size within one). It returns each label's fold.
func cvFolds(cols, y []int, held []bool, classes, folds int, seed uint64) []int {
	fold := make([]int, len(cols))
	byClass := make([][]int, classes)
	for i, j := range cols {
		if !held[j] {
			byClass[y[i]] = append(byClass[y[i]], i)
		}
	}
	rng := tensor.NewRand(seed ^ 0x666f6c64)
	next := 0
	for _, idx := range byClass {
		rng.Shuffle(len(idx), func(a, b int) { idx[a], idx[b] = idx[b], idx[a] })
		for _, i := range idx {
			fold[i] = 1 + next%(folds-1)
			next++
		}
	}
	return fold
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
