package semisup

import (
	"fmt"
	"slices"
	"strings"

	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
)

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
	// "A classifier that can read the words").
	Words
	// TopicsWords is a logistic regression on the unsupervised fit's
	// first-layer topics beside the columns of X.
	TopicsWords
	// SpreadWords spreads the known labels to every column over a graph
	// of nearest neighbours on the words (as scikit-learn's
	// LabelSpreading), then fits Words' regression to the spread classes.
	SpreadWords
	// TopicsWordsSpread sums the scores of TopicsWords' and SpreadWords'
	// regressions: one linear classifier on the first layer's topics and
	// the words. Undecided: not a default kind.
	TopicsWordsSpread
	// SupervisedTopicsWords trains the unsupervised fit's topics with
	// the labels through TopicsWords' regression, which reads them beside
	// the words (a neuralnmf.Head): a supervised fit scored, as
	// SupervisedFit, on the held-out fold. Undecided: not a default kind.
	SupervisedTopicsWords
	// SelfTrainedTopicsWords is TopicsWords' regression self-trained on
	// the documents whose labels are unknown (classify.SelfTraining, as
	// scikit-learn's SelfTrainingClassifier: the documents it predicts
	// with probability above 0.75 take that class, for up to 10 rounds),
	// with TopicsWords' C. It is cross-validated as the regressions are,
	// each fold's labels left unknown. Undecided: not a default kind. When
	// every column's label is known, neither self-trained kind is a
	// candidate: the regression it would self-train stands in for it (as
	// the prior too, Choice.PriorStandIn).
	SelfTrainedTopicsWords
	// SelfTrainedWords is Words' regression self-trained on the documents
	// whose labels are unknown, as SelfTrainedTopicsWords is TopicsWords',
	// with Words' C: scikit-learn's SelfTrainingClassifier around the
	// regression on the words; it needs unknown labels (as
	// SelfTrainedTopicsWords).
	SelfTrainedWords
)

// kinds are every Kind, in the order TrainChoosing lists its candidates.
var kinds = []Kind{SupervisedFit, SupervisedReadout, SupervisedTopicsWords, UnsupervisedReadout, Words, TopicsWords, SelfTrainedTopicsWords, SelfTrainedWords, SpreadWords, TopicsWordsSpread}

// defaultKinds are the kinds compared when ChooseOptions.Kinds is nil.
var defaultKinds = []Kind{SupervisedFit, SupervisedReadout, UnsupervisedReadout, Words, TopicsWords, SelfTrainedWords, SpreadWords}

// DefaultKinds returns the kinds compared when ChooseOptions.Kinds is nil,
// in a new slice.
func DefaultKinds() []Kind { return slices.Clone(defaultKinds) }

// kindInfo is what the choice knows of a kind of candidate: its name (as
// ParseKind reads it), one line of help, the kinds it needs compared too
// (and why), how it is scored (score, for the cheap candidates,
// cross-validated on every fold; supervised ones are scored by
// scoreSupervised on the held-out fold) and how the chosen one is refitted.
// Each kind's value is in its cand_*.go file.
type kindInfo struct {
	name, help string
	needs      []Kind
	why        string
	supervised bool
	score      func(*chooser) error
	refit      func(*chooser, Candidate) (*neuralnmf.Model, error)
}

// table holds every kind's kindInfo.
var table = map[Kind]*kindInfo{
	SupervisedFit: &supervisedKind, SupervisedReadout: &supervisedReadoutKind, SupervisedTopicsWords: &jointKind,
	UnsupervisedReadout: &readoutKind, Words: &wordsKind, TopicsWords: &topicsWordsKind,
	SelfTrainedTopicsWords: &selfTrainedKind, SelfTrainedWords: &selfTrainedWordsKind,
	SpreadWords: &spreadKind, TopicsWordsSpread: &topicsWordsSpreadKind,
}

// Kinds returns every Kind, in the order TrainChoosing lists its
// candidates, in a new slice.
func Kinds() []Kind { return slices.Clone(kinds) }

// String returns the kind's name, as ParseKind reads it.
func (k Kind) String() string {
	switch k {
	case NoPrior:
		return "none"
	case CrossValidated:
		return "cross-validated"
	}
	if in, ok := table[k]; ok {
		return in.name
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Help says in one line what a candidate of kind k is.
func (k Kind) Help() string {
	if in, ok := table[k]; ok {
		return in.help
	}
	return ""
}

// Needs returns the kinds that must be compared with k (ChooseOptions.Kinds
// holding k without them is an error).
func (k Kind) Needs() []Kind {
	if in, ok := table[k]; ok {
		return slices.Clone(in.needs)
	}
	return nil
}

// kindNames names every kind, "a, b or c".
func kindNames() string {
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = k.String()
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// ParseKind returns the Kind named name (Kind.String; Kinds lists them).
func ParseKind(name string) (Kind, error) {
	for _, k := range kinds {
		if k.String() == name {
			return k, nil
		}
	}
	return 0, fmt.Errorf("unknown kind of candidate %q: want %s", name, kindNames())
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
		return 0, fmt.Errorf("unknown prior %q: want a kind (%s), none or cross-validated", name, kindNames())
	}
	return k, nil
}
