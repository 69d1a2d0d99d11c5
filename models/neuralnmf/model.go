package neuralnmf

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/neuralnmf/neuralnmf/autograd"
	"github.com/neuralnmf/neuralnmf/nnls"
	"github.com/neuralnmf/neuralnmf/optim"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// History records training, one entry per epoch.
type History struct {
	Loss, RelError []float64
	// Accuracy is the training accuracy: the share of the labelled columns
	// used for training (Supervision.Known) that argmax(B·S⁽ᴸ⁾) predicts
	// correctly. HeldOutAccuracy is the same on the columns that have a
	// label ≥ 0 but are not Known (NaN when there are none). Both are NaN
	// without supervision.
	Accuracy, HeldOutAccuracy []float64
	// Resets counts dead topics (all-zero columns of an A) re-initialised.
	Resets int
	// Backtracks counts steps the safeguard rejected and retried with a
	// smaller learning rate; LRScale is the factor by which the learning
	// rate ends below the configured one (1 if no step was rejected).
	Backtracks int
	LRScale    float64
	// Lambda is the supervision weight λ used: Supervision.Lambda, or the
	// default that puts the two terms in the ratio Supervision.Balance at
	// the start (0 without supervision).
	Lambda float64
	// Collinear counts topics re-initialised because a step made them
	// collinear with another topic of the same layer (|cos| ≥ 1 − 10⁻⁹ between
	// the columns), where the NNLS minimiser stops being unique and one of
	// the two topics is wasted.
	Collinear int
	// FinalRelError is ‖X − A⁽⁰⁾⋯A⁽ᴸ⁾S⁽ᴸ⁾‖/‖X‖ of the returned model on
	// all the training columns. In full-batch training it is the last
	// RelError; in mini-batch training RelError[e] sums each batch's error
	// before its step during pass e (the A's change within a pass), and
	// FinalRelError is measured by one more pass with the final A.
	FinalRelError float64
	// Stopped says why training ended, with the numbers: "converged: …",
	// "max epochs: …", "no progress: …", "loss rising: …" (the stopping
	// rule saw the loss rise over its window) or "no step decreases the
	// loss".
	Stopped string
}

// Model is a trained Neural NMF model. All matrices are owned by the model.
type Model struct {
	// A[ℓ] is k⁽ˡ⁻¹⁾×k⁽ˡ⁾ with k⁽⁻¹⁾ = N.
	A []*tensor.Dense
	// S[ℓ] = q(A[ℓ], S[ℓ−1]) for the training data, k⁽ˡ⁾×M; nil for a
	// model trained on Columns, whose S would grow with M.
	S []*tensor.Dense
	// B is the P×k classifier of the S of layer ClassifierLayer (k its
	// rank); nil without supervision.
	B *tensor.Dense
	// ClassifierLayer is the 1-based layer whose S the classifier B reads;
	// 0 means the last layer, where Train's classifier reads. A model
	// chosen by semisup.TrainChoosing may read an earlier layer.
	ClassifierLayer int
	// BX (P×N) and Intercept (P×1), when not nil, are the parts of the
	// classifier that read the columns x of X: a column's scores are
	// B·s + BX·x/‖x‖₂ + Intercept, s its S of layer ClassifierLayer. Set by
	// semisup's regressions and by a Supervision.Head; else nil.
	BX, Intercept *tensor.Dense
	// Supports are the NNLS supports of S, for warm starts.
	Supports []*nnls.Support
	History  History
	// Vectorizer, if not nil, is the JSON of the text vectoriser
	// (text.Vectorizer) whose matrix the model was trained on, so that new
	// documents can be put in the same space and topics named by words. The
	// model file stores it; this package does not read it.
	Vectorizer json.RawMessage
	// ClassNames, if not nil, names the classes of B: ClassNames[p] is
	// class p (one per row of B). The model file stores them; Train leaves
	// them nil.
	ClassNames []string
	// AlphaS and L1Ratio are Config.AlphaS and Config.L1Ratio of the fit:
	// with AlphaS > 0 every layer is the elastic-net NNLS problem, in
	// training and in Transform and Predict alike. The model file stores
	// them.
	AlphaS, L1Ratio float64
	cfg             Config
}

// Data is X as Train takes it, features × columns: a *tensor.Dense, a
// *tensor.Sparse (CSC), or Columns that mini-batch training streams.
type Data interface {
	Dims() (rows, cols int)
}

// Train fits a Neural NMF model to X (N×M, nonnegative, columns are
// samples) as configured by cfg. X is a *tensor.Dense, a *tensor.Sparse
// (no dense N×M matrix is formed: the first NNLS layer, the loss term on X
// and the start work on the non-zeros, and the fit holds X's transpose,
// 16 more bytes per non-zero; the same model as dense up to rounding), or
// Columns, trained by mini-batches (Config.BatchSize, 0 meaning
// DefaultBatchSize) without ever holding more than one batch: that model
// has no S, Supervision indexes the whole stream, and FinalRelError is
// measured by one more pass. It returns an error for invalid data or
// configuration (naming the field), and if an NNLS layer or the backward
// pass fails during training (naming the epoch).
func Train(x Data, cfg Config) (*Model, error) {
	switch x := x.(type) {
	case *tensor.Dense:
		return trainDense(x, cfg)
	case *tensor.Sparse:
		return trainSparse(x, cfg)
	case Columns:
		return trainColumns(x, cfg)
	case nil:
		return nil, fmt.Errorf("neuralnmf: X is nil")
	}
	return nil, fmt.Errorf("neuralnmf: X is a %T: want a *tensor.Dense, a *tensor.Sparse or Columns", x)
}

// trainDense is Train for a dense X.
func trainDense(x *tensor.Dense, cfg Config) (*Model, error) {
	if err := tensor.CheckData("X", x); err != nil {
		return nil, fmt.Errorf("neuralnmf: %w", err)
	}
	var mx float64 // X is finite (CheckData): a plain comparison suffices
	for i := 0; i < x.Rows; i++ {
		for _, v := range x.Row(i) {
			if v > mx {
				mx = v
			}
		}
	}
	if err := checkScale(mx); err != nil {
		return nil, err
	}
	if cfg.BatchSize != 0 {
		return trainBatches(&memSource{x: data{dense: x}, seed: cfg.Seed}, cfg, true)
	}
	return train(data{dense: x}, cfg)
}

// MinScale and MaxScale bound the largest entry of X that Train accepts:
// beyond them the squared norms in the losses overflow or lose all their
// digits to underflow. Divide (or multiply) X by a constant to bring it into
// range; S scales by the same constant and A does not change.
const (
	MinScale = 1e-100
	MaxScale = 1e100
)

// checkScale rejects X whose largest entry mx is zero or outside
// [MinScale, MaxScale], saying what to do.
func checkScale(mx float64) error {
	switch {
	case mx == 0:
		return fmt.Errorf("neuralnmf: X is all zero: there is nothing to factorise")
	case mx > MaxScale:
		return fmt.Errorf("neuralnmf: X's largest entry is %.3g, above %g: squared errors would overflow; divide X by a constant such as %.3g (S scales by it, A does not)", mx, MaxScale, mx)
	case mx < MinScale:
		return fmt.Errorf("neuralnmf: X's largest entry is %.3g, below %g: squared errors would underflow; multiply X by a constant such as %.3g (S scales by it, A does not)", mx, MinScale, 1/mx)
	}
	return nil
}

// trainSparse is Train for a sparse X.
func trainSparse(x *tensor.Sparse, cfg Config) (*Model, error) {
	if err := tensor.CheckSparseData("X", x); err != nil {
		return nil, fmt.Errorf("neuralnmf: %w", err)
	}
	var mx float64 // finite, as above
	for _, v := range x.Val {
		if v > mx {
			mx = v
		}
	}
	if err := checkScale(mx); err != nil {
		return nil, err
	}
	if cfg.DataMask != nil {
		return nil, fmt.Errorf("neuralnmf: %w: DataMask is not supported with a sparse X", ErrConfig)
	}
	if cfg.BatchSize != 0 {
		return trainBatches(&memSource{x: data{sparse: x}, seed: cfg.Seed}, cfg, true)
	}
	// Every epoch forms X·Uᵀ (the NNLS backward pass, the loss's gradient):
	// from X's transpose, held for the fit, it needs no search per column.
	return train(data{sparse: x.WithRows()}, cfg)
}

// data is X, dense or sparse.
type data struct {
	dense  *tensor.Dense
	sparse *tensor.Sparse
}

func (d data) dims() (int, int) {
	if d.sparse != nil {
		return d.sparse.Rows, d.sparse.Cols
	}
	return d.dense.Rows, d.dense.Cols
}

func (d data) norm() float64 {
	if d.sparse != nil {
		return math.Sqrt(d.sparse.SqNorm())
	}
	return tensor.Norm(d.dense)
}

// sqErr is ‖X − W·H‖².
func (d data) sqErr(w, h *tensor.Dense) float64 {
	if d.sparse != nil {
		return d.sparse.SqDist(w, h)
	}
	return tensor.SqDist(d.dense, w, h)
}

func train(x data, cfg Config) (*Model, error) {
	if err := cfg.validate(x.dims()); err != nil {
		return nil, err
	}
	return cfg.Loss.impl().train(x, cfg)
}

func trainAt(x data, cfg Config) (*Model, error) {
	c := cfg.resolvedForX(x)
	if startIsTheFit(cfg, c) {
		// One epoch measures the start; none steps. The caller hears of
		// the fit it asked for, which is the start alone.
		one := withEpochs(cfg, 1)
		if cfg.Phase != nil {
			one.Phase = func(s Stage) {
				s.Run, s.StartOnly = c, true
				cfg.Phase(s)
			}
		}
		m, err := trainAt(x, one)
		if err == nil {
			m.History.Stopped = "the start is the fit: one layer started from a converged NMF (HALS from NNDSVDa), which training cannot improve (it measured the start; give Epochs, -epochs, to train anyway)"
		}
		return m, err
	}
	restart := 1
	phase := func(name string) {
		if c.Phase != nil {
			c.Phase(Stage{Name: name, Run: c, Restart: restart})
		}
	}
	if c.Restarts <= 1 {
		phase("start")
		t, err := newTrainer(x, c, c.Seed)
		if err != nil {
			return nil, err
		}
		phase("training")
		if err := t.train(c.Epochs); err != nil {
			return nil, err
		}
		return t.model()
	}
	var best *trainer
	for r := 0; r < c.Restarts; r++ {
		restart = r + 1
		phase("start")
		t, err := newTrainer(x, c, c.Seed+uint64(1000*r))
		if err != nil {
			return nil, err
		}
		phase("training")
		if err := t.train(min(c.BurnIn, c.Epochs)); err != nil {
			return nil, fmt.Errorf("restart %d: %w", r, err)
		}
		if best == nil || t.lastLoss() < best.lastLoss() {
			best = t
		}
	}
	if err := best.train(c.Epochs); err != nil {
		return nil, err
	}
	return best.model()
}

// withEpochs returns c with Epochs set.
func withEpochs(c Config, epochs int) Config {
	c.Epochs = epochs
	return c
}

// startIsTheFit reports whether training from the resolved configuration
// c (of cfg, as given) would only refine a start that already minimises
// its loss: one layer of the squared error, nothing else in the loss (no
// labels, penalties, mask or loss of the caller's), started from HALS run
// to its convergence test, which is a stationary point of ‖X − A·S‖² in
// A and S, and so of the one-layer Neural NMF loss ‖X − A·q(A, X)‖² in A
// (q(A, X) is S's minimiser). Epochs left at 0 is the default this
// decides; a caller who sets them trains.
func startIsTheFit(cfg, c Config) bool {
	return cfg.Epochs == 0 && c.Init == NNDSVDInit && len(c.Ranks) == 1 && c.Loss.impl().leastSquares() &&
		c.Supervision == nil && c.AlphaA == 0 && c.AlphaS == 0 && c.DataMask == nil && c.CustomLoss == nil &&
		!c.Algorithm1 && c.BatchSize == 0 && c.InitIters == 0
}

func newTrainer(x data, c Config, seed uint64) (*trainer, error) {
	t := &trainer{x: x, cfg: c, seed: seed, rng: tensor.NewRand(seed ^ 0x6e6e6d66), tape: autograd.NewTape(), hist: History{Stopped: "max epochs"}, lrScale: 1}
	if err := t.init(); err != nil {
		return nil, err
	}
	return t, nil
}

func (t *trainer) lastLoss() float64 {
	if len(t.hist.Loss) == 0 {
		return math.Inf(1)
	}
	return t.hist.Loss[len(t.hist.Loss)-1]
}

// DefaultTol and DefaultWindow are Config.Tol and Window by default: stop
// when the loss fell by less than DefaultTol (relative) over the last
// DefaultWindow epochs (on large X the tolerance grows with it).
const (
	DefaultTol    = 1e-4
	DefaultWindow = 10
)

func (c Config) withDefaults() Config {
	if c.BatchSize > 0 && c.Init == DefaultInit {
		c.Init = DefaultBatchInit
	}
	c.Init = c.Init.resolved()
	if c.BatchSize > 0 {
		if c.Epochs <= 0 {
			c.Epochs = DefaultBatchEpochs
		}
		if c.Window <= 0 {
			c.Window = DefaultBatchWindow
		}
		if c.Tol == 0 {
			c.Tol = DefaultBatchTol
		}
		if c.LR == 0 && c.Optimizer != GD {
			c.LR = DefaultBatchLR
		}
		if c.Decay == (optim.StepDecay{}) {
			c.Decay = optim.StepDecay{Every: 1, Factor: DefaultBatchDecay}
		}
		if c.BatchUpdate == DefaultBatchUpdate {
			c.BatchUpdate = Statistics
			if c.CustomLoss != nil {
				c.BatchUpdate = Gradient
			}
		}
		if c.Forget == 0 {
			c.Forget = DefaultForget
		}
	}
	if c.Optimizer == DefaultOptimizer {
		c.Optimizer = Adam
		if c.Algorithm1 {
			c.Optimizer = GD
		}
	}
	if c.BatchSize > 0 {
		// The mini-batch start factorises a sample; its defaults were
		// chosen with one start (experiments/minibatch).
		c.InitRestarts = max(c.InitRestarts, 1)
		c.Restarts = max(c.Restarts, 1)
	}
	if c.Epochs <= 0 {
		c.Epochs = 1000
	}
	if c.Window <= 0 {
		c.Window = DefaultWindow
	}
	if c.Tol == 0 {
		c.Tol = DefaultTol
		if c.Algorithm1 {
			c.Tol = -1 // Algorithm 1 runs its epochs
		}
	}
	if c.LR == 0 {
		c.LR = 1e-3
		if c.Optimizer == Adam {
			c.LR = 0.01
		}
	}
	if c.Restarts > 1 && c.BurnIn <= 0 {
		c.BurnIn = 50
	}
	if c.Supervision != nil { // a copy: the caller's is not changed
		s := *c.Supervision
		s.Classifier = s.Classifier.resolved()
		if s.Balance == 0 {
			s.Balance = DefaultBalance
		}
		c.Supervision = &s
	}
	return c
}

// model runs a last forward pass, so that S and B match the final A (or
// takes the last epoch's, if it ran at the final A: see trainer.last), and
// packages the result.
func (t *trainer) model() (*Model, error) {
	h := t.hist
	h.LRScale = t.lrScale
	f, res := t.last, t.lastRes
	if f == nil {
		tape := autograd.NewTape()
		f, res = t.forward(tape)
		if err := tape.Err(); err != nil {
			return nil, fmt.Errorf("neuralnmf: final forward pass: %w", err)
		}
	}
	if n := len(h.RelError); n > 0 {
		h.FinalRelError = h.RelError[n-1]
	}
	m := &Model{History: h, cfg: t.cfg, AlphaS: t.cfg.AlphaS, L1Ratio: t.cfg.L1Ratio}
	m.cfg.Starts = nil // the fits', not the model's
	for l, a := range t.a {
		m.A = append(m.A, a.Clone())
		m.S = append(m.S, f.S[l].Value().Clone())
		var sup *nnls.Support // nil for a KL layer
		if res[l] != nil {
			sup = res[l].Support
		}
		m.Supports = append(m.Supports, sup)
	}
	if f.B != nil {
		m.B = f.B.Value().Clone()
	}
	if h := t.cfg.Supervision.headOf(); h != nil {
		m.BX, m.Intercept, m.ClassifierLayer = h.BX, h.Intercept, h.Layer
	}
	return m, nil
}

func relError(x data, xNorm float64, f *Forward) float64 {
	h := f.S[len(f.S)-1].Value()
	for l := len(f.A) - 1; l >= 1; l-- {
		h = tensor.MatMul(false, false, f.A[l].Value(), h)
	}
	return math.Sqrt(x.sqErr(f.A[0].Value(), h)) / xNorm
}

// Reconstruction returns A⁽⁰⁾⋯A⁽ᴸ⁾S⁽ᴸ⁾ for the training data, or nil for
// a model without S (trained on Columns).
func (m *Model) Reconstruction() *tensor.Dense {
	if len(m.S) == 0 {
		return nil
	}
	r := m.S[len(m.S)-1]
	for l := len(m.A) - 1; l >= 0; l-- {
		r = tensor.MatMul(false, false, m.A[l], r)
	}
	return r
}
