package semisup

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
	// TopicsWordsSpread, SupervisedTopicsWords and SelfTrainedTopicsWords. A
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
	// Fitting, if not nil, is called before each Neural NMF fit that
	// TrainChoosing runs, with what the fit is in words ("the unsupervised
	// fit, ...", "supervised (...): validation fit ...", "...: refit ..."),
	// so that a caller's progress can say which fit its epochs belong to
	// (Config.Phase reports the configuration each fit runs).
	Fitting func(run string)
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
	// PriorStandIn is the kind that stood in for ChooseOptions.Prior, a
	// self-trained kind, when every label was known (see
	// SelfTrainedWords); 0 otherwise.
	PriorStandIn Kind
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
