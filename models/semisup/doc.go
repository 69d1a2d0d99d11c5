// Package semisup trains a Neural NMF model with partly known labels by
// choosing, for the data in hand and from the known labels alone, what to
// do with them (what `neuralnmf fit -labels` does): TrainChoosing.
//
// It is a client of package neuralnmf: every fit it compares is a
// neuralnmf.Train, sharing one start (neuralnmf.Config.Starts); its
// supervised validation fits stop once they cannot catch up with the
// candidates already scored (neuralnmf.Supervision.Target), and its
// candidate that trains the topics with a regression on the words gives
// the trainer that regression as a neuralnmf.Head. Until issue 67 this
// was neuralnmf.TrainChoosing (a dense and a sparse twin); the one
// function here takes either X.
//
// # Labels that never hurt
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
//
// # A classifier that can read the words
//
// A classifier on a few nonnegative topics is a bottleneck that a linear
// model on the data's own 10⁴ rows (words) does not have: on text corpora
// with many known labels, a logistic regression on TF-IDF beat every
// classifier on topics by 0.04–0.17. TrainChoosing therefore also
// compares multinomial logistic regressions that read the columns of X
// themselves, alone and beside the unsupervised model's first-layer
// topics, with the L2 penalty chosen by cross-validation on the known
// labels (as scikit-learn's LogisticRegressionCV does), on the folds that
// also score the candidates (ChooseOptions.Folds). Such a
// classifier scores a column x with S⁽ˡ⁾ = s as
//
//	B·s + BX·x/‖x‖₂ + Intercept
//
// (Model.Scores): each column of X is scaled to unit Euclidean length, as
// a TF-IDF vectoriser does, so that documents of every length weigh
// alike.
//
// The regression is package classify's (FitLogistic, CrossValidate). The
// topics s are scaled by one number, the reciprocal of their columns' root
// mean square length, so that one penalty suits both parts; B holds the
// weights with that scale folded in.
//
// # Spreading the known labels
//
// With few known labels (a few per class), a classifier fitted on them
// alone misses what the unlabelled columns say about the classes' shape;
// scikit-learn's LabelSpreading, which spreads the labels over a graph of
// nearest neighbours, beat every other method at 5 % known labels on two of
// our corpora. The SpreadWords candidate does the same on the columns of X
// (package classify's Spreading with LabelSpreading's defaults, on the
// columns at unit length). Each column then takes the class of its largest
// spread score, and a logistic regression on the words, fitted to those
// classes of every reached column with the C that cross-validation on the
// known labels chose, makes the spread classes a classifier of new columns.
//
// The candidates and the rule that picks one are in docs/semi-supervised.md,
// with the comparisons that chose the defaults (experiments/semisup).
package semisup
