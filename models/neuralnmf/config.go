package neuralnmf

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/neuralnmf/neuralnmf/autograd"
	"github.com/neuralnmf/neuralnmf/optim"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// Loss selects the unsupervised part of the training loss.
type Loss int

const (
	// Reconstruction is ‖X − A⁽⁰⁾A⁽¹⁾⋯A⁽ᴸ⁾S⁽ᴸ⁾‖², the paper's loss: the
	// deeper layers fit X through the first, which makes their topics
	// sharper (more specialised) than HNMF's (docs/quality.md).
	Reconstruction Loss = iota
	// Energy is the layer-wise ‖X − A⁽⁰⁾S⁽⁰⁾‖² + Σ_ℓ ‖S⁽ˡ⁻¹⁾ − A⁽ˡ⁾S⁽ˡ⁾‖²:
	// every layer fits the loadings of the one before, as HNMF's do, and
	// its topics summarise their children more as HNMF's do.
	Energy
	// KL is the generalised Kullback–Leibler divergence
	// D(X ‖ A⁽⁰⁾⋯A⁽ᴸ⁾S⁽ᴸ⁾) = Σ x·log(x/y) − x + y, the usual loss for word
	// counts, with every layer a KL layer (ops.KLLayer):
	// S⁽ˡ⁾ = argmin_{S ≥ 0} D(S⁽ˡ⁻¹⁾ ‖ A⁽ˡ⁾S). One layer is KL-NMF, trained
	// through its layer as Neural NMF trains least-squares layers. The HNMF
	// starts (HNMFInit, NNDSVDInit, HNMFBestInit) are then KL-HNMF by
	// multiplicative updates from NNDSVDa (ssnmf.HNMFKL), and Transform solves
	// KL layers. Not with DataMask, AlphaS, AlphaA, BatchSize, Supervision,
	// CustomLoss or Algorithm1.
	KL
)

// String returns the loss's name, as the command line and the model file
// name it.
func (l Loss) String() string { return l.impl().name() }

// Classifier selects the supervision term.
type Classifier int

const (
	// DefaultClassifier (the zero value) is CrossEntropy, the classifier of
	// the chosen semi-supervised defaults (see Supervision).
	DefaultClassifier Classifier = iota
	// LeastSquares is the paper's λ‖Z∘(Y − B·S⁽ᴸ⁾)‖² with
	// B = (Z∘Y)(S⁽ᴸ⁾)† recomputed inside the graph on every forward pass, so
	// the gradient flows through B into S⁽ᴸ⁾ and on into every A.
	LeastSquares
	// CrossEntropy is λ times the masked softmax cross-entropy of B·S⁽ᴸ⁾
	// against Y, with B (P×k⁽ᴸ⁾) a parameter trained with the A matrices
	// from small random values (U(0, 0.01)) by steps of the absolute size
	// LR, so the classifier grows slowly and the labels shape the topics
	// gently.
	CrossEntropy
)

// resolved returns c with DefaultClassifier replaced by the classifier it
// stands for.
func (c Classifier) resolved() Classifier {
	if c == DefaultClassifier {
		return CrossEntropy
	}
	return c
}

// String returns the name the command line uses for c: "ls" or "ce"
// (DefaultClassifier is named as the classifier it stands for).
func (c Classifier) String() string {
	if c.resolved() == LeastSquares {
		return "ls"
	}
	return "ce"
}

// DefaultBalance is Supervision.Balance's default: the weighted
// supervision term starts at 0.3 times the unsupervised term.
const DefaultBalance = 0.3

// Supervision is the label information of the last layer.
//
// The defaults (the zero Classifier, Lambda and Balance: cross-entropy,
// λ set so that the supervision term starts at DefaultBalance times the
// unsupervised term) were chosen on validation splits by
// experiments/semisup (docs/semi-supervised.md).
type Supervision struct {
	// Labels holds the class of each column of X, 0..Classes−1. Only the
	// columns marked in Known are used for training.
	Labels  []int
	Classes int
	// Known marks the labelled columns; nil means all (fully supervised).
	Known []bool
	// Lambda weights the supervision term. A positive value is used as
	// given (the paper's λ, on the unnormalised terms). The default (0)
	// sets it where training starts so that λ·(supervision term) is
	// Balance times the unsupervised term, whatever the scale of X or the
	// number of labels (History.Lambda reports the value).
	Lambda float64
	// Balance is the ratio of the weighted supervision term to the
	// unsupervised term at the start, when Lambda is 0; 0 means
	// DefaultBalance.
	Balance    float64
	Classifier Classifier
	// Patience, if positive, stops training (early stopping) when the
	// classifier's accuracy on the held-out labels (the labelled columns
	// not Known) has not risen above its best for Patience epochs;
	// History.Stopped says so. It has no effect without held-out labels.
	// Package semisup sets it for its validation fits.
	Patience int
	// Target, if positive (with Patience), also stops training early
	// once the best held-out accuracy so far, rising at its rate over the
	// last Patience epochs until the epoch cap, would stay below Target:
	// a caller comparing fits (package semisup) gives the best accuracy
	// another candidate reached, which this fit then cannot beat.
	Target float64
	// Head, if not nil, is the classifier trained in place of
	// Classifier's (which must then be CrossEntropy or the default).
	Head *Head
}

// Head is a classifier a supervised fit trains in place of
// Supervision.Classifier's: class scores B·S⁽Layer⁾ + Offset, with B
// (P × k⁽Layer⁾) starting at B0 and trained by the softmax cross-entropy
// on the known labels plus Penalty·‖B‖², and Offset (P × M, a column per
// column of X) held fixed. The model keeps BX and Intercept, the part of
// Offset that new columns get (BX·x/‖x‖ + Intercept; either may be nil),
// and reads layer Layer (Model.ClassifierLayer). Package semisup builds
// one from a logistic regression on topics and words.
type Head struct {
	Layer         int
	B0, Offset    *tensor.Dense
	BX, Intercept *tensor.Dense
	Penalty       float64
}

// Optimizer selects the update rule.
type Optimizer int

const (
	// DefaultOptimizer (the zero value) is Adam, the optimiser of the
	// chosen defaults (see Config).
	DefaultOptimizer Optimizer = iota
	// GD is projected gradient descent, the paper's Algorithm 1.
	GD
	// Adam is Adam followed by the same projection onto A ≥ 0.
	Adam
)

// Init selects the initial A matrices.
type Init int

const (
	// DefaultInit (the zero value) is HNMFInit, the start of the chosen
	// defaults (see Config).
	DefaultInit Init = iota
	// RandomInit draws every A⁽ˡ⁾ uniformly from [0, 1) with Config.Seed.
	RandomInit
	// HNMFInit starts from the A matrices of HNMF (ssnmf.HNMF with
	// Config.Seed), so training refines HNMF.
	HNMFInit
	// GivenInit starts from Config.InitA.
	GivenInit
	// NNDSVDInit starts from HNMF computed by HALS with extrapolation
	// (ssnmf.Options.Extrapolate) from NNDSVDa starts (ssnmf.NNDSVDA), each
	// layer's topics scaled to unit norm before the next: deterministic,
	// and the default on large X and for one layer of a sparse X
	// (docs/defaults.md).
	NNDSVDInit
	// HNMFBestInit computes HNMF from the same random starts as HNMFInit by
	// multiplicative updates and by HALS, and starts from the one of lower
	// error through the hierarchy: mini-batch training's start.
	HNMFBestInit
)

// resolved is i with DefaultInit replaced by the init it stands for in
// full-batch training.
func (i Init) resolved() Init {
	if i == DefaultInit {
		return HNMFInit
	}
	return i
}

// factorises reports whether the start is HNMF of X (of the first
// batches, in mini-batch training).
func (i Init) factorises() bool {
	switch i {
	case DefaultInit, HNMFInit, NNDSVDInit, HNMFBestInit:
		return true
	}
	return false
}

// String returns the name the command line uses for i ("hnmf", "nndsvd",
// "hnmf-best", "random", "given"; "default" for DefaultInit).
func (i Init) String() string {
	switch i {
	case RandomInit:
		return "random"
	case HNMFInit:
		return "hnmf"
	case GivenInit:
		return "given"
	case NNDSVDInit:
		return "nndsvd"
	case HNMFBestInit:
		return "hnmf-best"
	}
	return "default"
}

// String returns the name the command line uses for o ("gd", "adam").
func (o Optimizer) String() string {
	if o == GD {
		return "gd"
	}
	return "adam"
}

// BatchUpdate selects how a mini-batch step (Config.BatchSize) updates
// A⁽⁰⁾, the N×k⁽⁰⁾ matrix of word loadings. The other A's (small) and a
// CrossEntropy B always take an Adam step from the batch's gradient.
type BatchUpdate int

const (
	// DefaultBatchUpdate (the zero value) is Statistics, chosen in
	// experiments/minibatch.
	DefaultBatchUpdate BatchUpdate = iota
	// Gradient takes one Adam step on A⁽⁰⁾ from the batch's gradient,
	// with the learning rate Config.LR and its schedule Config.Decay.
	Gradient
	// Statistics keeps a running quadratic model of the loss in A⁽⁰⁾, as
	// online NMF does (Mairal et al., 2010; docs/minibatch.md): sums over
	// the batches seen, weighted down by Config.Forget per pass, and one
	// HALS sweep over them a step. Not for a CustomLoss.
	Statistics
)

// String returns the name the command line uses for u ("gradient",
// "statistics"; "default").
func (u BatchUpdate) String() string {
	switch u {
	case Gradient:
		return "gradient"
	case Statistics:
		return "statistics"
	}
	return "default"
}

// Epoch reports one training epoch to Config.Progress.
type Epoch struct {
	Epoch, Epochs int
	// Loss is the training loss; RelError is ‖X − A⁽⁰⁾⋯A⁽ᴸ⁾S⁽ᴸ⁾‖/‖X‖;
	// Accuracy and HeldOutAccuracy are the training and held-out accuracies
	// of History (NaN without supervision, or without held-out labels).
	Loss, RelError, Accuracy, HeldOutAccuracy float64
	// Decrease is what the stopping rule compares with Config.Tol: the
	// relative decrease of the loss over the last Config.Window epochs of
	// this start, NaN before Window+1 epochs.
	Decrease float64
	Elapsed  time.Duration
}

// Config configures Train. Ranks is required; everything else has a default.
//
// The defaults (HNMFInit, Adam with LR 0.01, the reconstruction loss,
// DefaultTol over DefaultWindow epochs, at most 1000 epochs; on large X
// the start, the starts and the tolerance sized to it) were chosen on
// generated data by experiments/defaults and experiments/scale
// (docs/defaults.md); Config.Phase reports what a fit resolved them to.
type Config struct {
	// ## Model: the layers, the loss and its terms.
	//
	// Ranks are k⁽⁰⁾ > k⁽¹⁾ > … > k⁽ᴸ⁾, one per layer.
	Ranks []int
	Loss  Loss
	// Normalize divides every squared term of the built-in loss by its
	// number of entries, as the authors' code does (torch's MSELoss); GD's
	// learning rates must then be larger by about that factor.
	Normalize bool
	// Supervision, if not nil, adds the classification term.
	Supervision *Supervision
	// DataMask, if not nil, is an N×M 0/1 (or weight) mask W of the known
	// entries of a dense X: the loss's term on X becomes ‖W∘(X − ·)‖². The
	// NNLS layers still see X as given, so unknown entries should hold a
	// neutral value (0, or an imputation). Not supported with a sparse X.
	DataMask *tensor.Dense
	// CustomLoss, if not nil, replaces the built-in loss: it must return a
	// 1×1 variable built from f with ops. With Supervision it must add the
	// label term with f.AddSupervision (Train returns an error otherwise).
	CustomLoss func(t *autograd.Tape, f *Forward) *autograd.Var
	// AlphaS, AlphaA and L1Ratio are scikit-learn's elastic-net penalties
	// (its NMF's alpha_W, alpha_H and l1_ratio; docs/losses.md): AlphaS > 0
	// makes every layer the elastic-net NNLS problem with α = AlphaS × the
	// rows of the layer's input (ops.NNLSElasticNet; Transform solves the
	// same, Model.AlphaS), and AlphaA > 0 adds 2·AlphaA·M·(ρ·ΣA +
	// ½(1−ρ)‖A‖²) for every A to the built-in loss; ρ = L1Ratio in [0, 1].
	// All 0 (the default): no penalty. Not with BatchSize.
	AlphaS, AlphaA, L1Ratio float64

	// ## Start: the initial A matrices.
	//
	Init Init
	// InitA holds the initial A matrices for GivenInit (copied; shapes
	// k⁽ˡ⁻¹⁾×k⁽ˡ⁾, nonnegative).
	InitA []*tensor.Dense
	// InitRestarts is the number of random starts per layer of the HNMF
	// initialisation (ssnmf.Options.Restarts; the best is kept), and with
	// NNDSVDInit of the multiplicative updates of the deeper layers. 0
	// sizes it to X (docs/defaults.md): up to 10 where a start is cheap, 1
	// on large data and with BatchSize.
	InitRestarts int
	// InitIters, if positive, bounds the updates per layer
	// (ssnmf.Options.MaxIter) of each HNMF start, which also stops earlier
	// at ssnmf's tolerance; 0 means ssnmf's default, 1000 (not sized to X:
	// experiments/starts).
	InitIters int
	// Restarts is the number of initialisations (seeds Seed+1000r) trained
	// for BurnIn epochs each; the one with the lowest loss is trained on, the
	// others are dropped. Default 1.
	Restarts int
	// BurnIn is the number of epochs each restart gets. Default 50.
	BurnIn int
	Seed   uint64
	// Starts, if not nil, keeps the starts computed for this X and gives
	// them to later fits of the same X that share it (StartCache).
	Starts *StartCache

	// ## Training and stopping.
	//
	Optimizer Optimizer
	// LR is the learning rate. Default 0.01 for Adam (relative to the mean
	// entry of each A), 1e-3 for GD; DefaultBatchLR with BatchSize. Decay
	// multiplies it on a schedule counted in epochs (passes with BatchSize,
	// where the default is DefaultBatchDecay after every pass). No value
	// makes full-batch training diverge: see the safeguard in the package
	// doc.
	LR    float64
	Decay optim.StepDecay
	// Epochs is the maximum number of epochs. Default 1000.
	Epochs int
	// Tol and Window are the stopping rule: training stops when the loss
	// fell by less than Tol relative over the last Window epochs,
	// (L[t−Window] − L[t]) ≤ Tol·L[t−Window]. Defaults: see
	// DefaultTol and DefaultWindow; a negative Tol disables the rule.
	// History.Stopped says which rule ended training, with the numbers.
	Tol    float64
	Window int
	// Algorithm1 runs the paper's Algorithm 1 as written: projected
	// gradient descent A ← max(0, A − η∇A) with the fixed step LR (decayed
	// by Decay), with no safeguard (a step that raises the loss is kept; a
	// non-finite loss is an error), no re-initialisation of dead or
	// collinear topics, one start (Restarts 1) and, unless Tol is set, no
	// early stop. Optimizer must be GD or the default.
	Algorithm1 bool

	// ## Mini-batches (docs/minibatch.md).
	//
	// BatchSize, if positive, trains by mini-batches of that many columns
	// (docs/minibatch.md): each step solves the NNLS layers exactly for
	// one batch and updates A⁽⁰⁾ as BatchUpdate says, the others by one
	// Adam step. Train of a matrix draws the batches in a new random
	// order each pass; of Columns, takes the stream's. The start factorises
	// the first StartColumns columns, so Ranks[0] ≤ max(BatchSize,
	// StartColumns) unless Init is RandomInit or GivenInit. Epochs counts
	// passes (the Batch defaults apply). Not with Algorithm1, Restarts > 1
	// or DataMask. 0 trains on all columns at once.
	BatchSize int
	// BatchUpdate is how a mini-batch step updates A⁽⁰⁾ (see BatchUpdate);
	// the zero value is DefaultBatchUpdate. Forget is the factor by which
	// the Statistics update's running sums are multiplied over one pass
	// (spread evenly over its batches; 1 keeps every batch at full weight;
	// 0 means DefaultForget).
	BatchUpdate BatchUpdate
	Forget      float64

	// ## Reporting and resources.
	//
	// Phase, if not nil, is called when training enters a phase, with
	// what it is about to run (Stage): the library reports the
	// configuration it resolved for this X, so that a caller never
	// predicts it.
	Phase func(Stage)
	// Progress, if not nil, is called after every epoch, including the
	// burn-in epochs of every restart (Epoch.Epoch counts from 1 for each).
	Progress func(Epoch)
	// Workers bounds the NNLS goroutines; 0 means GOMAXPROCS. Training is
	// deterministic given Seed: the result is bit-for-bit the same for any
	// Workers and any GOMAXPROCS.
	Workers int
}

// MaxPenalty bounds AlphaS times the rows of X and AlphaA times its
// columns (the scaled α of the penalties): beyond it the penalised NNLS
// problem's entries (√α, α²) overflow float64.
const MaxPenalty = 1e150

// Stage is what Config.Phase is told when a fit enters a phase.
type Stage struct {
	// Name is "start" (the initialisation of one restart, which for
	// HNMFInit or NNDSVDInit is itself a factorisation) or "training"
	// (its first epoch follows).
	Name string
	// Run is the configuration this fit runs: the Config as given with
	// every default Train applied for this X (the start, the starts and
	// the tolerance sized to X; see docs/defaults.md).
	Run Config
	// Restart counts this fit's restarts from 1 to Run.Restarts (1 in
	// mini-batch training).
	Restart int
	// StartOnly says that the fit takes no training step after its
	// start: one layer of the squared error from a converged HALS start,
	// a stationary point that training cannot improve, and Epochs left 0.
	// Train measures the start in one epoch and stops.
	StartOnly bool
}

// ErrConfig is wrapped by errors about an invalid Config.
var ErrConfig = errors.New("invalid configuration")

// ConfigError is the error of a Config field that X cannot take (a rank
// above X's rows, ...): Field names the field ("Ranks"), Layer the layer
// from 1 (0 when the error is not a layer's), Msg what is wrong. It wraps
// ErrConfig, so that a caller can name its own flag for Field without
// restating the rule.
type ConfigError struct {
	Field string
	Layer int
	Msg   string
}

func (e *ConfigError) Error() string {
	return "neuralnmf: " + ErrConfig.Error() + ": " + e.Field + ": " + e.Msg
}

// Unwrap returns ErrConfig.
func (e *ConfigError) Unwrap() error { return ErrConfig }

// ErrDiverged is wrapped by the error of an Algorithm1 run whose loss
// became NaN or infinite: its fixed step LR was too large.
var ErrDiverged = errors.New("training diverged")

// Validate returns the configuration error Train would return for c and
// an X of rows × cols before any work (wrapping ErrConfig, and naming the
// field, such as a rank above the rows), or nil. It reads no data: errors
// of X itself (negative or non-finite entries) are Train's.
func (c Config) Validate(rows, cols int) error { return c.validate(rows, cols) }

func (c *Config) validate(rows, cols int) error {
	x := struct{ Rows, Cols int }{rows, cols}
	if len(c.Ranks) == 0 {
		return fmt.Errorf("neuralnmf: %w: Ranks is empty", ErrConfig)
	}
	hnmf := c.Init.factorises()
	for l, k := range c.Ranks {
		rank := func(format string, a ...any) error {
			return &ConfigError{Field: "Ranks", Layer: l + 1, Msg: fmt.Sprintf(format, a...)}
		}
		switch {
		case k < 1:
			return rank("layer %d's rank is %d; want at least 1", l+1, k)
		case hnmf && l == 0 && k > x.Cols && x.Cols < x.Rows:
			return rank("layer 1's rank %d is above the %d columns (samples) of X, which Init %s factorises; want at most %d, or give Init RandomInit (then at most %d, the rows)", k, x.Cols, c.Init.resolved(), x.Cols, x.Rows)
		case k > x.Rows:
			return rank("layer %d's rank %d is above the %d rows (features) of X; want at most %d", l+1, k, x.Rows, x.Rows)
		case l > 0 && k >= c.Ranks[l-1]:
			return rank("ranks must decrease, but layer %d's %d follows %d", l+1, k, c.Ranks[l-1])
		}
	}
	if err := c.checkPenalties(); err != nil {
		return err
	}
	for _, f := range []struct {
		name  string
		alpha float64
		times int
		of    string
	}{{"AlphaS", c.AlphaS, x.Rows, "rows"}, {"AlphaA", c.AlphaA, x.Cols, "columns"}} {
		if a := f.alpha * float64(f.times); a > MaxPenalty {
			return fmt.Errorf("neuralnmf: %w: %s is %g: α times the %d %s of X is %g, above %g, where the penalised problem overflows float64; a penalty that large zeroes every weight long before: want a smaller %s", ErrConfig, f.name, f.alpha, f.times, f.of, a, MaxPenalty, f.name)
		}
	}
	if c.Loss < Reconstruction || c.Loss > KL {
		return fmt.Errorf("neuralnmf: %w: Loss is %d, want Reconstruction, Energy or KL", ErrConfig, int(c.Loss))
	}
	if err := c.Loss.impl().check(c); err != nil {
		return err
	}
	if c.InitIters < 0 {
		return fmt.Errorf("neuralnmf: %w: InitIters is %d, want 0 (the default, 1000) or a number of updates", ErrConfig, c.InitIters)
	}
	if c.DataMask != nil {
		if err := tensor.CheckShape("DataMask", c.DataMask, rows, cols); err != nil {
			return fmt.Errorf("neuralnmf: %w", err)
		}
		if err := tensor.CheckNonnegative("DataMask", c.DataMask); err != nil {
			return fmt.Errorf("neuralnmf: %w", err)
		}
	}
	if c.Init == GivenInit {
		if len(c.InitA) != len(c.Ranks) {
			return fmt.Errorf("neuralnmf: %w: InitA has %d matrices for %d layers", ErrConfig, len(c.InitA), len(c.Ranks))
		}
		r := x.Rows
		for l, a := range c.InitA {
			if err := tensor.CheckShape(fmt.Sprintf("InitA[%d]", l), a, r, c.Ranks[l]); err != nil {
				return fmt.Errorf("neuralnmf: %w", err)
			}
			if err := tensor.CheckNonnegative(fmt.Sprintf("InitA[%d]", l), a); err != nil {
				return fmt.Errorf("neuralnmf: %w", err)
			}
			r = c.Ranks[l]
		}
	}
	if c.Algorithm1 && c.Optimizer == Adam {
		return fmt.Errorf("neuralnmf: %w: Algorithm1 is projected gradient descent; Optimizer is Adam", ErrConfig)
	}
	if c.Algorithm1 && c.Restarts > 1 {
		return fmt.Errorf("neuralnmf: %w: Algorithm1 trains one start, as the paper's Algorithm 1 does; Restarts is %d", ErrConfig, c.Restarts)
	}
	if math.IsNaN(c.Tol) {
		return fmt.Errorf("neuralnmf: %w: Tol is NaN", ErrConfig)
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"BatchSize", c.BatchSize}, {"Epochs", c.Epochs}, {"Restarts", c.Restarts}, {"InitRestarts", c.InitRestarts}, {"BurnIn", c.BurnIn}, {"Workers", c.Workers}, {"Window", c.Window}} {
		if f.v < 0 {
			return fmt.Errorf("neuralnmf: %w: %s is %d, want 0 (the default) or more", ErrConfig, f.name, f.v)
		}
	}
	if c.LR < 0 || math.IsNaN(c.LR) || math.IsInf(c.LR, 0) {
		return fmt.Errorf("neuralnmf: %w: LR is %v", ErrConfig, c.LR)
	}
	if s := c.Supervision; s != nil {
		if err := s.validate(c.Ranks, x.Cols); err != nil {
			return err
		}
	}
	return nil
}

// validate checks the supervision of a fit of the given ranks on an X of
// cols columns.
func (s *Supervision) validate(ranks []int, cols int) error {
	if s.Classes < 1 || s.Classes > cols {
		return fmt.Errorf("neuralnmf: %w: Supervision.Classes is %d, want 1 to the %d columns of X", ErrConfig, s.Classes, cols)
	}
	if len(s.Labels) != cols {
		return fmt.Errorf("neuralnmf: %w: %d labels for %d columns of X", ErrConfig, len(s.Labels), cols)
	}
	if s.Patience < 0 {
		return fmt.Errorf("neuralnmf: %w: Supervision.Patience is %d, want 0 (no early stop) or a number of epochs", ErrConfig, s.Patience)
	}
	if s.Known != nil && len(s.Known) != cols {
		return fmt.Errorf("neuralnmf: %w: Known has %d entries for %d columns of X", ErrConfig, len(s.Known), cols)
	}
	hasLabel := make([]bool, s.Classes)
	for m, l := range s.Labels {
		known := s.Known == nil || s.Known[m]
		if known && (l < 0 || l >= s.Classes) || l < -1 || l >= s.Classes {
			return fmt.Errorf("neuralnmf: %w: label %d of column %d is not in 0..%d (or -1 for a column that is not Known)", ErrConfig, l, m, s.Classes-1)
		}
		if known {
			hasLabel[l] = true
		}
	}
	for p, h := range hasLabel {
		if !h {
			return fmt.Errorf("neuralnmf: %w: class %d has no Known labelled column; Supervision.Classes must count only classes that occur", ErrConfig, p)
		}
	}
	if s.Lambda < 0 || math.IsNaN(s.Lambda) || math.IsInf(s.Lambda, 0) {
		return fmt.Errorf("neuralnmf: %w: Supervision.Lambda is %v", ErrConfig, s.Lambda)
	}
	if s.Balance < 0 || math.IsNaN(s.Balance) || math.IsInf(s.Balance, 0) {
		return fmt.Errorf("neuralnmf: %w: Supervision.Balance is %v, want a positive ratio (0 for the default %g)", ErrConfig, s.Balance, DefaultBalance)
	}
	if s.Classifier < DefaultClassifier || s.Classifier > CrossEntropy {
		return fmt.Errorf("neuralnmf: %w: Supervision.Classifier is %d, want LeastSquares or CrossEntropy", ErrConfig, int(s.Classifier))
	}
	if !(s.Target >= 0 && s.Target <= 1) {
		return fmt.Errorf("neuralnmf: %w: Supervision.Target is %v, want an accuracy in [0, 1]", ErrConfig, s.Target)
	}
	if s.Head != nil {
		if s.Classifier == LeastSquares {
			return fmt.Errorf("neuralnmf: %w: Supervision.Head is trained by the cross-entropy; Classifier is LeastSquares", ErrConfig)
		}
		if err := s.Head.check(ranks, s.Classes, cols); err != nil {
			return err
		}
	}
	return nil
}
