package neuralnmf

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"time"

	"github.com/neuralnmf/neuralnmf/autograd"
	"github.com/neuralnmf/neuralnmf/models/ssnmf"
	"github.com/neuralnmf/neuralnmf/nnls"
	"github.com/neuralnmf/neuralnmf/ops"
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
	// default that balances the two terms at the start (0 without
	// supervision).
	Lambda float64
	// Collinear counts topics re-initialised because a step made them
	// collinear with another topic of the same layer (|cos| ≥ 1 − 10⁻⁹ between
	// the columns), where the NNLS minimiser stops being unique and one of
	// the two topics is wasted.
	Collinear int
	// Stopped says why training ended: "converged" or "max epochs".
	Stopped string
}

// Model is a trained Neural NMF model. All matrices are owned by the model.
type Model struct {
	// A[ℓ] is k⁽ˡ⁻¹⁾×k⁽ˡ⁾ with k⁽⁻¹⁾ = N.
	A []*tensor.Dense
	// S[ℓ] = q(A[ℓ], S[ℓ−1]) for the training data, k⁽ˡ⁾×M.
	S []*tensor.Dense
	// B is the P×k⁽ᴸ⁾ classifier; nil without supervision.
	B *tensor.Dense
	// Supports are the NNLS supports of S, for warm starts.
	Supports []*nnls.Support
	History  History
	// Vectorizer, if not nil, is the JSON of the text vectoriser
	// (text.Vectorizer) whose matrix the model was trained on, so that new
	// documents can be put in the same space and topics named by words. The
	// model file stores it; this package does not read it.
	Vectorizer json.RawMessage
	cfg        Config
}

// Train fits a Neural NMF model to X (N×M, nonnegative, columns are
// samples) as configured by cfg. It returns an error for invalid data or
// configuration (naming the field) and if an NNLS layer or the backward pass
// fails during training (naming the epoch).
func Train(x *tensor.Dense, cfg Config) (*Model, error) {
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

// TrainSparse is Train for a sparse X (N×M in CSC form). No dense N×M matrix
// is formed: the first NNLS layer, the loss term on X and the HNMF
// initialisation all work on the non-zeros. Given the same data, it trains
// the same model as Train up to rounding.
func TrainSparse(x *tensor.Sparse, cfg Config) (*Model, error) {
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
	return train(data{sparse: x}, cfg)
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
	c := cfg.withDefaults()
	if c.Restarts <= 1 {
		t, err := newTrainer(x, c, c.Seed)
		if err != nil {
			return nil, err
		}
		if err := t.train(c.Epochs); err != nil {
			return nil, err
		}
		return t.model()
	}
	var best *trainer
	for r := 0; r < c.Restarts; r++ {
		t, err := newTrainer(x, c, c.Seed+uint64(1000*r))
		if err != nil {
			return nil, err
		}
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

// Default values of the configuration chosen in experiments/defaults.
const (
	defaultInitRestarts = 10
	defaultRestarts     = 2
)

func (c Config) withDefaults() Config {
	if c.Init == DefaultInit {
		c.Init = HNMFInit
	}
	if c.Optimizer == DefaultOptimizer {
		c.Optimizer = Adam
	}
	if c.InitRestarts <= 0 {
		c.InitRestarts = defaultInitRestarts
	}
	if c.Restarts <= 0 {
		c.Restarts = defaultRestarts
		if c.Init == GivenInit {
			c.Restarts = 1 // every restart would start from the same A
		}
	}
	if c.Epochs <= 0 {
		c.Epochs = 1000
	}
	if c.Tol == 0 {
		c.Tol = 1e-7
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
	return c
}

// defaultLambda is Supervision.Lambda's default for data x: ‖X‖² over the
// number of known labels.
func defaultLambda(x data, s *Supervision) float64 {
	n := 0
	for m := range s.Labels {
		if s.Known == nil || s.Known[m] {
			n++
		}
	}
	xn := x.norm()
	return xn * xn / float64(max(n, 1))
}

type trainer struct {
	x      data
	cfg    Config
	seed   uint64
	tape   *autograd.Tape
	hist   History
	start  time.Time
	done   bool // converged
	rng    *rand.Rand
	a      []*tensor.Dense
	b      *tensor.Dense // CrossEntropy classifier
	y, z   *tensor.Dense
	labels []int // the training labels (−1 where not Known)
	known  int   // the number of Known columns
	held   []int // the held-out labels (−1 where Known or unlabelled)
	xNorm  float64
	warm   []*nnls.Support
	// steps[i] steps parameter i from gradient g, saving p and g into
	// prevP and prevG first, and returns ⟨g, p before − p after⟩ (GD;
	// 0 for Adam).
	steps []func(p, g, prevP, prevG *tensor.Dense) (float64, error)
	gds   []*optim.ProjectedGD
	adams []*optim.Adam
	// Safeguard state: the parameters and gradients before the last step,
	// whether a step is awaiting its trial, ⟨∇L(prev), prev − new⟩ of that
	// step as the optimiser computed it (stale once a topic was reset
	// since), and the learning-rate factor.
	prevP, prevG  []*tensor.Dense
	stepped       bool
	decrease      float64
	decreaseStale bool
	lrScale       float64
}

func (t *trainer) init() error {
	c := t.cfg
	t.xNorm = t.x.norm()
	n, m := t.x.dims()
	switch c.Init {
	case HNMFInit:
		opt := &ssnmf.Options{Seed: t.seed, Restarts: c.InitRestarts}
		var h *ssnmf.Hierarchy
		var err error
		if t.x.sparse != nil {
			h, err = ssnmf.HNMFSparse(t.x.sparse, c.Ranks, nil, opt)
		} else {
			h, err = ssnmf.HNMF(t.x.dense, c.Ranks, nil, opt)
		}
		if err != nil {
			return fmt.Errorf("neuralnmf: HNMF initialisation: %w", err)
		}
		t.a = h.A
	case GivenInit:
		for _, a := range c.InitA {
			t.a = append(t.a, a.Clone())
		}
	default:
		rows := n
		for _, k := range c.Ranks {
			t.a = append(t.a, tensor.Uniform(rows, k, 0, 1, t.rng))
			rows = k
		}
	}
	if s := c.Supervision; s != nil {
		sc := *s // this trainer's copy: λ may be resolved on the first pass
		t.cfg.Supervision = &sc
		known := s.Known
		if known == nil {
			known = make([]bool, m)
			for i := range known {
				known[i] = true
			}
		}
		seen, held := SplitLabels(s.Labels, known)
		t.labels, t.held = seen, held
		for _, k := range known {
			if k {
				t.known++
			}
		}
		var err error
		if t.y, err = tensor.OneHot(seen, s.Classes); err != nil {
			return fmt.Errorf("neuralnmf: %w", err)
		}
		t.z = tensor.ColumnMask(s.Classes, known)
		if s.Classifier == CrossEntropy {
			t.b = tensor.Uniform(s.Classes, c.Ranks[len(c.Ranks)-1], 0, 0.01, t.rng)
		}
	}
	for i, a := range t.a { // the loops over parameters (accept) read them as one run of memory
		if !a.Contiguous() {
			t.a[i] = a.Clone()
		}
	}
	t.hist.Collinear += t.resetCollinearTopics()
	// One optimiser per parameter, so Adam's step can be relative to the
	// parameter's initial scale.
	params := t.params()
	for _, p := range params {
		switch c.Optimizer {
		case Adam:
			scale := math.Max(tensor.Sum(p)/float64(p.Len()), 1e-12)
			o := &optim.Adam{LR: c.LR * scale, Decay: c.Decay}
			if p == t.b {
				o = &optim.Adam{LR: c.LR, Decay: c.Decay, Unconstrained: true}
			}
			t.adams = append(t.adams, o)
			t.steps = append(t.steps, func(p, g, prevP, prevG *tensor.Dense) (float64, error) {
				// One pass: save and step (accept compares losses for Adam).
				return 0, o.StepSaving([]*tensor.Dense{p}, []*tensor.Dense{g}, []*tensor.Dense{prevP}, []*tensor.Dense{prevG})
			})
		default:
			o := &optim.ProjectedGD{LR: c.LR, Decay: c.Decay, Unconstrained: p == t.b}
			t.gds = append(t.gds, o)
			t.steps = append(t.steps, func(p, g, prevP, prevG *tensor.Dense) (float64, error) {
				// One pass: save, step and the decrease accept weighs.
				return o.StepSaving([]*tensor.Dense{p}, []*tensor.Dense{g}, []*tensor.Dense{prevP}, []*tensor.Dense{prevG})
			})
		}
	}
	return nil
}

func (t *trainer) params() []*tensor.Dense {
	ps := append([]*tensor.Dense(nil), t.a...)
	if t.b != nil {
		ps = append(ps, t.b)
	}
	return ps
}

// forward records one forward pass on tape and returns its variables and the
// NNLS results.
func (t *trainer) forward(tape *autograd.Tape) (*Forward, []*nnls.Result) {
	f := &Forward{XSparse: t.x.sparse}
	if t.x.dense != nil {
		f.X = tape.Const(t.x.dense)
	}
	if t.cfg.DataMask != nil {
		f.mask = tape.Const(t.cfg.DataMask)
	}
	in := f.X
	var res []*nnls.Result
	for l, a := range t.a {
		av := tape.Param(a)
		opt := &nnls.Options{Workers: t.cfg.Workers}
		if t.warm != nil {
			opt.Warm = t.warm[l]
		}
		var s *autograd.Var
		var r *nnls.Result
		if l == 0 && f.XSparse != nil {
			s, r = ops.NNLSSparse(av, f.XSparse, opt)
		} else {
			s, r = ops.NNLS(av, in, opt)
		}
		f.A = append(f.A, av)
		f.S = append(f.S, s)
		res = append(res, r)
		in = s
	}
	if t.y != nil {
		f.Y, f.Z = tape.Const(t.y), tape.Const(t.z)
		if t.b != nil {
			f.B = tape.Param(t.b)
		} else {
			f.B = ops.MatMul(ops.Hadamard(f.Z, f.Y), ops.Pinv(f.S[len(f.S)-1]))
		}
	}
	return f, res
}

// builtinLoss is the configured loss on f. fit is its unnormalised term
// ‖X − A⁽⁰⁾⋯S⁽ᴸ⁾‖² (Reconstruction loss, no data mask), from which the
// epoch's relative error is read; nil otherwise.
func (t *trainer) builtinLoss(f *Forward) (loss, fit *autograd.Var) {
	L := len(f.A)
	n, mcols := t.x.dims()
	// per scales a term by 1/entries when the loss is normalised.
	per := func(v *autograd.Var, entries int) *autograd.Var {
		if !t.cfg.Normalize {
			return v
		}
		return ops.Scale(v, 1/float64(max(entries, 1)))
	}
	if t.cfg.Loss == Energy {
		loss = per(fitX(f, f.A[0], f.S[0]), n*mcols)
		for l := 1; l < L; l++ {
			loss = ops.Add(loss, per(ops.FrobeniusLoss(f.S[l-1], ops.MatMul(f.A[l], f.S[l])), t.cfg.Ranks[l-1]*mcols))
		}
	} else {
		fit = fitX(f, f.A[0], belowFirst(f))
		loss = per(fit, n*mcols)
		if t.cfg.DataMask != nil {
			fit = nil // a masked fit is not the error over all of X
		}
	}
	if s := t.cfg.Supervision; s != nil {
		pred := ops.MatMul(f.B, f.S[L-1])
		var sup *autograd.Var
		if s.Classifier == CrossEntropy {
			sup = per(ops.SoftmaxCrossEntropy(pred, f.Y, f.Z), t.known)
		} else {
			sup = per(ops.MaskedLoss(f.Z, f.Y, pred), s.Classes*mcols)
		}
		if s.Lambda == 0 {
			s.Lambda = t.balancedLambda(loss, sup)
			t.hist.Lambda = s.Lambda
		}
		loss = ops.Add(loss, ops.Scale(sup, s.Lambda))
	}
	return loss, fit
}

// customLoss calls Config.CustomLoss, turning a panic in it (user code, for
// example an op on Forward.X, which is nil for a sparse X) into an error.
func (t *trainer) customLoss(f *Forward) (loss *autograd.Var, err error) {
	defer func() {
		if r := recover(); r != nil {
			hint := ""
			if f.X == nil {
				hint = " (Forward.X is nil because X is sparse: use Forward.XSparse with ops.SparseFrobeniusLoss)"
			}
			err = fmt.Errorf("CustomLoss panicked: %v%s", r, hint)
		}
	}()
	return t.cfg.CustomLoss(t.tape, f), nil
}

// balancedLambda is Supervision.Lambda's default, resolved on the first
// forward pass: the ratio of the unsupervised term to the supervision term
// at the starting point, so both start with equal weight whatever the scale
// of X or the number of labels. If either term is zero or not finite there,
// it is ‖X‖² over the number of known labels.
func (t *trainer) balancedLambda(rec, sup *autograd.Var) float64 {
	if rec.Value() != nil && sup.Value() != nil {
		r, s := rec.Value().Data[0], sup.Value().Data[0]
		if l := r / s; r > 0 && s > 0 && !math.IsInf(l, 0) && !math.IsNaN(l) {
			return l
		}
	}
	return defaultLambda(t.x, t.cfg.Supervision)
}

// belowFirst returns A⁽¹⁾⋯A⁽ᴸ⁾S⁽ᴸ⁾ (S⁽⁰⁾ for one layer), multiplied from the
// right so that every product is thin; A⁽⁰⁾ times it reconstructs X.
func belowFirst(f *Forward) *autograd.Var {
	r := f.S[len(f.S)-1]
	for l := len(f.A) - 1; l >= 1; l-- {
		r = ops.MatMul(f.A[l], r)
	}
	return r
}

// fitX is ‖X − W·H‖², in the sparse form when X is sparse, masked when
// there is a data mask, and otherwise by ops.FactorLoss, which forms no N×M
// matrix.
func fitX(f *Forward, w, h *autograd.Var) *autograd.Var {
	if f.XSparse != nil {
		return ops.SparseFrobeniusLoss(f.XSparse, w, h)
	}
	if f.mask != nil {
		return ops.MaskedLoss(f.mask, f.X, ops.MatMul(w, h))
	}
	return ops.FactorLoss(f.X, w, h)
}

// Safeguard constants: a trial step is accepted when its loss is at most the
// largest of the last nonmonotoneWindow accepted losses, minus (for GD)
// armijoSigma times the decrease the step's first-order model predicts; a
// rejected step is retried from the same point with the learning rate times
// shrinkStep (shrinkBlowUp when the loss is not finite or grew tenfold),
// at most maxBacktracks times in a row.
const (
	nonmonotoneWindow = 10
	armijoSigma       = 1e-4
	shrinkStep        = 0.5
	shrinkBlowUp      = 0.1
	maxBacktracks     = 60
)

// train continues training until the history has upTo epochs or the
// stopping rule fires.
//
// Every step is safeguarded: the next forward pass is its trial. If the
// forward or backward pass fails (for example a non-finite A) or the loss is
// not finite or above the largest of the last 10 accepted losses (minus the
// Armijo decrease σ·⟨∇L, A_prev − A⟩ along the projected path, for GD), the
// parameters are restored, the learning rate is shrunk, and the step is
// taken again with the same gradient; History.Backtracks counts these. So no
// learning rate makes the loss grow without bound: every recorded loss is at
// most the first. The nonmonotone window lets large-step regimes (such as
// the authors' semi-supervised notebook) oscillate without diverging.
func (t *trainer) train(upTo int) error {
	c := t.cfg
	if t.start.IsZero() {
		t.start = time.Now()
	}
	h := &t.hist
	backtracks := 0
	for epoch := len(h.Loss) + 1; epoch <= upTo && !t.done; {
		t.tape.Reset()
		f, res := t.forward(t.tape)
		if n := t.resetCollinearFrom(res); n > 0 {
			// The step made topics collinear: re-initialise them and run
			// this epoch's forward pass again.
			h.Collinear += n
			t.decreaseStale = true
			continue
		}
		var loss, fit *autograd.Var
		if c.CustomLoss != nil && t.tape.Err() == nil {
			var err error
			if loss, err = t.customLoss(f); err != nil {
				return fmt.Errorf("neuralnmf: epoch %d: %w", epoch, err)
			}
		} else {
			loss, fit = t.builtinLoss(f)
		}
		if loss == nil {
			return fmt.Errorf("neuralnmf: epoch %d: CustomLoss returned nil", epoch)
		}
		g, err := t.tape.Backward(loss)
		lv := math.NaN()
		if err == nil {
			lv = loss.Value().Data[0]
		}
		if t.stepped && !t.accept(err, lv) {
			if backtracks++; backtracks > maxBacktracks {
				t.restore()
				h.Stopped = "no step decreases the loss"
				t.done = true
				break
			}
			t.backtrack(lv)
			h.Backtracks++
			continue
		}
		backtracks = 0
		t.stepped = false
		if err != nil {
			return fmt.Errorf("neuralnmf: epoch %d: %w", epoch, err)
		}
		if math.IsNaN(lv) || math.IsInf(lv, 0) {
			return fmt.Errorf("neuralnmf: epoch %d: loss is %v at the starting point", epoch, lv)
		}
		var rel float64
		if fit != nil {
			// The loss has the term ‖X − A⁽⁰⁾⋯S⁽ᴸ⁾‖² itself: no second product.
			rel = math.Sqrt(math.Max(fit.Value().Data[0], 0)) / t.xNorm
		} else {
			rel = relError(t.x, t.xNorm, f)
		}
		acc, held := math.NaN(), math.NaN()
		if f.B != nil {
			pred := Predict(f.B.Value(), f.S[len(f.S)-1].Value())
			acc, held = Accuracy(pred, t.labels), Accuracy(pred, t.held)
		}
		h.Loss = append(h.Loss, lv)
		h.RelError = append(h.RelError, rel)
		h.Accuracy = append(h.Accuracy, acc)
		h.HeldOutAccuracy = append(h.HeldOutAccuracy, held)
		if c.Progress != nil {
			c.Progress(Epoch{Epoch: epoch, Epochs: c.Epochs, Loss: lv, RelError: rel, Accuracy: acc, HeldOutAccuracy: held, Elapsed: time.Since(t.start)})
		}
		t.warm = t.warm[:0]
		for _, r := range res {
			t.warm = append(t.warm, r.Support)
		}
		if n := len(h.Loss); c.Tol > 0 && n > 10 && math.Abs(h.Loss[n-11]-lv) <= c.Tol*math.Abs(h.Loss[n-11]) {
			h.Stopped = "converged"
			if math.Abs(h.Loss[0]-lv) <= c.Tol*math.Abs(h.Loss[0]) {
				h.Stopped = "no progress: the loss has not changed since the start (is the learning rate too small?)"
			}
			t.done = true
			break
		}
		if epoch == c.Epochs {
			break // keep A consistent with the recorded S
		}
		grads := make([]*tensor.Dense, 0, len(f.A)+1)
		for i := range t.params() {
			if i < len(f.A) {
				grads = append(grads, g.Of(f.A[i]))
			} else {
				grads = append(grads, g.Of(f.B))
			}
		}
		if err := t.step(grads); err != nil {
			return fmt.Errorf("neuralnmf: epoch %d: %w", epoch, err)
		}
		epoch++
	}
	return nil
}

// step takes one optimiser step from grads, keeping the parameters and
// gradients it starts from (prevP, prevG) so that it can be undone and
// retried (grads may be prevG itself), and re-initialises dead topics
// (collinear ones are found by the next forward pass).
func (t *trainer) step(grads []*tensor.Dense) error {
	ps := t.params()
	if len(t.prevP) != len(ps) {
		t.prevP, t.prevG = make([]*tensor.Dense, len(ps)), make([]*tensor.Dense, len(ps))
		for i, p := range ps {
			t.prevP[i], t.prevG[i] = tensor.New(p.Rows, p.Cols), tensor.New(p.Rows, p.Cols)
		}
	}
	t.decrease, t.decreaseStale = 0, false
	for i, p := range ps {
		d, err := t.steps[i](p, grads[i], t.prevP[i], t.prevG[i])
		if err != nil {
			return err
		}
		t.decrease += d
	}
	t.stepped = true
	if n := t.resetDeadTopics(); n > 0 {
		t.hist.Resets += n
		t.decreaseStale = true
	}
	return nil
}

// restore puts back the parameters saved before the last step.
func (t *trainer) restore() {
	for i, p := range t.params() {
		p.Copy(t.prevP[i])
	}
	t.stepped = false
}

// accept reports whether the step just taken passes the safeguard, given the
// result of the forward and backward pass at the new point.
func (t *trainer) accept(err error, lv float64) bool {
	if err != nil || math.IsNaN(lv) || math.IsInf(lv, 0) {
		return false
	}
	h := t.hist.Loss
	ref := math.Inf(-1)
	for _, v := range h[max(0, len(h)-nonmonotoneWindow):] {
		ref = math.Max(ref, v)
	}
	var decrease float64 // σ·⟨∇L(prev), prev − new⟩ ≥ 0 for a projected step
	if t.cfg.Optimizer == GD {
		decrease = t.decrease // from the step's own pass
		if t.decreaseStale {  // a topic was reset after the step
			decrease = 0
			for i, p := range t.params() {
				// The trainer's own matrices, contiguous (init): one loop.
				pd, qd, gd := p.Data[:p.Len()], t.prevP[i].Data[:p.Len()], t.prevG[i].Data[:p.Len()]
				for j, v := range pd {
					decrease += gd[j] * (qd[j] - v)
				}
			}
		}
		decrease *= armijoSigma
	}
	return lv <= ref-decrease
}

// backtrack undoes the last step, shrinks every learning rate and takes the
// step again with the saved gradients.
func (t *trainer) backtrack(lv float64) {
	t.restore()
	f := shrinkStep
	if ref := t.hist.Loss[len(t.hist.Loss)-1]; math.IsNaN(lv) || math.IsInf(lv, 0) || lv > 10*math.Abs(ref) {
		f = shrinkBlowUp
	}
	t.lrScale *= f
	for _, o := range t.gds {
		o.LR *= f
	}
	for _, o := range t.adams {
		o.LR *= f
	}
	// The step cannot fail here: the same gradients passed it before.
	_ = t.step(t.prevG)
}

// collinearCos is the |cosine| between two topics of a layer at or above
// which the later one is re-initialised: the two columns then differ by an
// angle below 4.5·10⁻⁵ rad.
const collinearCos = 1 - 1e-9

// resetCollinearTopics re-initialises every column of an A that is collinear
// with an earlier one (|cos| ≥ collinearCos) to uniform values on
// [0, mean entry of A), and returns how many it reset. It runs on the
// starting A; after a step, resetCollinearFrom does the same from the
// cosines the next forward pass's factorisations computed anyway.
func (t *trainer) resetCollinearTopics() int {
	n := 0
	for l, a := range t.a {
		g := tensor.MatMul(true, false, a, a)
		n += t.resetCollinear(l, func(i, j int) float64 {
			gij, gii, gjj := g.At(i, j), g.At(i, i), g.At(j, j)
			if gii == 0 || gjj == 0 {
				return 0
			}
			return gij / (math.Sqrt(gii) * math.Sqrt(gjj))
		})
	}
	if n > 0 {
		t.warm = nil
	}
	return n
}

// resetCollinearFrom is resetCollinearTopics with the cosines of each layer's
// A read from the NNLS factorisations of a forward pass (nnls.Factor.Cosine),
// so that no Gram matrix is formed after every step. A nil result (a failed
// op) is skipped: the error is reported later in the epoch.
func (t *trainer) resetCollinearFrom(res []*nnls.Result) int {
	n := 0
	for l, r := range res {
		if r != nil {
			n += t.resetCollinear(l, r.Factor.Cosine)
		}
	}
	if n > 0 {
		t.warm = nil
	}
	return n
}

// resetCollinear re-initialises every column j of layer l's A whose cosine
// (cos(i, j)) with an earlier column i has |cos| ≥ collinearCos, and returns
// how many it reset; cosines are of A as it was before any reset.
func (t *trainer) resetCollinear(l int, cos func(i, j int) float64) int {
	a, n := t.a[l], 0
	scale := math.NaN() // the mean entry of A before any reset, needed only for one
	for j := 1; j < a.Cols; j++ {
		for i := 0; i < j; i++ {
			if math.Abs(cos(i, j)) < collinearCos {
				continue
			}
			if math.IsNaN(scale) {
				scale = tensor.Sum(a) / float64(a.Len())
			}
			for r := 0; r < a.Rows; r++ {
				a.Set(r, j, scale*t.rng.Float64())
			}
			n++
			break
		}
	}
	return n
}

// resetDeadTopics re-initialises every all-zero column of an A (a topic the
// projection killed: NNLS gives it a zero row of S, so it is wasted) to
// small random values, and returns how many it reset.
func (t *trainer) resetDeadTopics() int {
	n := 0
	for _, a := range t.a {
		scale := math.NaN() // the mean entry of A before any reset, needed only for one
		for j := 0; j < a.Cols; j++ {
			dead := true
			for i := 0; i < a.Rows && dead; i++ {
				dead = a.At(i, j) == 0
			}
			if dead {
				if math.IsNaN(scale) {
					scale = tensor.Sum(a) / float64(a.Len())
				}
				for i := 0; i < a.Rows; i++ {
					a.Set(i, j, 0.1*scale*t.rng.Float64())
				}
				n++
			}
		}
	}
	if n > 0 {
		t.warm = nil
	}
	return n
}

// model runs a last forward pass, so that S and B match the final A, and
// packages the result.
func (t *trainer) model() (*Model, error) {
	h := t.hist
	h.LRScale = t.lrScale
	tape := autograd.NewTape()
	f, res := t.forward(tape)
	if err := tape.Err(); err != nil {
		return nil, fmt.Errorf("neuralnmf: final forward pass: %w", err)
	}
	m := &Model{History: h, cfg: t.cfg}
	for l, a := range t.a {
		m.A = append(m.A, a.Clone())
		m.S = append(m.S, f.S[l].Value().Clone())
		m.Supports = append(m.Supports, res[l].Support)
	}
	if f.B != nil {
		m.B = f.B.Value().Clone()
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

// Predict returns argmax_p (B·S)_pm for each column m of s (k⁽ᴸ⁾×M).
func Predict(b, s *tensor.Dense) []int {
	return argmaxColumns(tensor.MatMul(false, false, b, s))
}

// argmaxColumns returns the row of the largest entry of each column.
func argmaxColumns(scores *tensor.Dense) []int {
	pred := make([]int, scores.Cols)
	for m := range pred {
		best := math.Inf(-1)
		for p := 0; p < scores.Rows; p++ {
			if v := scores.At(p, m); v > best {
				best, pred[m] = v, p
			}
		}
	}
	return pred
}

// Accuracy returns the share of the columns with a label ≥ 0 for which pred
// is the label, or NaN if no column has one.
func Accuracy(pred, labels []int) float64 {
	right, n := 0, 0
	for m, l := range labels {
		if l < 0 {
			continue
		}
		n++
		if pred[m] == l {
			right++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return float64(right) / float64(n)
}

// CheckLabels validates class labels for M = len(labels) columns and returns
// the number of classes P = max label + 1. Every label must be −1 (unknown)
// or 0..P−1; P may not exceed M (more classes than columns cannot all be
// labelled), and every class must have at least one label. Errors name the
// 1-based column and say what to fix. It allocates nothing in proportion to
// the label values.
func CheckLabels(labels []int) (int, error) {
	classes := 0
	for m, l := range labels {
		if l < -1 {
			return 0, fmt.Errorf("label %d of column %d: want -1 (unknown) or a class 0..P-1", l, m+1)
		}
		if l >= len(labels) {
			return 0, fmt.Errorf("label %d of column %d: more classes than the %d columns; number the classes 0..P-1", l, m+1, len(labels))
		}
		classes = max(classes, l+1)
	}
	if classes == 0 {
		return 0, fmt.Errorf("no column has a label (all are -1)")
	}
	seen := make([]bool, classes)
	for _, l := range labels {
		if l >= 0 {
			seen[l] = true
		}
	}
	var empty []int
	for c, s := range seen {
		if !s {
			empty = append(empty, c)
		}
	}
	if len(empty) > 0 {
		return 0, fmt.Errorf("class(es) %v of 0..%d have no labelled column; renumber the labels 0..P-1 without gaps", empty, classes-1)
	}
	return classes, nil
}

// SplitLabels returns labels with the columns not known set to −1 (the
// labels training may see), and labels with the known columns set to −1
// (the held-out ones to score). known nil means all known.
func SplitLabels(labels []int, known []bool) (seen, heldOut []int) {
	seen, heldOut = make([]int, len(labels)), make([]int, len(labels))
	for m, l := range labels {
		if known == nil || known[m] {
			seen[m], heldOut[m] = l, -1
		} else {
			seen[m], heldOut[m] = -1, l
		}
	}
	return seen, heldOut
}

// Predict returns the predicted class of each training column,
// argmax_p (B·S⁽ᴸ⁾)_pm. It returns nil for a model trained without
// supervision.
func (m *Model) Predict() []int {
	if m.B == nil {
		return nil
	}
	return Predict(m.B, m.S[len(m.S)-1])
}

// Classify predicts the class of new columns x (N×M′, nonnegative, the
// training data's rows): it runs the forward pass and returns
// argmax_p (B·S⁽ᴸ⁾)_pm for each column, with the scores B·S⁽ᴸ⁾ (P×M′,
// owned by the caller). It returns an error for a model trained without
// supervision (it has no B), and as Transform for bad x.
func (m *Model) Classify(x *tensor.Dense) ([]int, *tensor.Dense, error) {
	return m.classify("Classify", func() ([]*tensor.Dense, error) { return m.Transform(x) })
}

// ClassifySparse is Classify for a sparse x.
func (m *Model) ClassifySparse(x *tensor.Sparse) ([]int, *tensor.Dense, error) {
	return m.classify("ClassifySparse", func() ([]*tensor.Dense, error) { return m.TransformSparse(x) })
}

// classify runs transform and scores its last layer with B.
func (m *Model) classify(name string, transform func() ([]*tensor.Dense, error)) ([]int, *tensor.Dense, error) {
	if m.B == nil {
		return nil, nil, fmt.Errorf("neuralnmf: %s: the model was trained without labels, so it has no classifier B", name)
	}
	s, err := transform()
	if err != nil {
		return nil, nil, err
	}
	scores := tensor.MatMul(false, false, m.B, s[len(s)-1])
	return argmaxColumns(scores), scores, nil
}

// TransformSparse is Transform for a sparse x.
func (m *Model) TransformSparse(x *tensor.Sparse) ([]*tensor.Dense, error) {
	rows := 0
	if x != nil {
		rows = x.Rows
	}
	return m.transform("TransformSparse", rows, func(opt *nnls.Options) (*nnls.Result, error) {
		if err := tensor.CheckSparseData("x", x); err != nil {
			return nil, err
		}
		return nnls.SolveSparse(m.A[0], x, opt)
	})
}

// Transform runs the forward pass on new columns x (N×M′, nonnegative):
// S⁽⁰⁾ = q(A⁽⁰⁾, x), S⁽ˡ⁾ = q(A⁽ˡ⁾, S⁽ˡ⁻¹⁾). It returns every layer's S and
// does not change the model.
func (m *Model) Transform(x *tensor.Dense) ([]*tensor.Dense, error) {
	rows := 0
	if x != nil {
		rows = x.Rows
	}
	return m.transform("Transform", rows, func(opt *nnls.Options) (*nnls.Result, error) {
		if err := tensor.CheckData("x", x); err != nil {
			return nil, err
		}
		return nnls.Solve(m.A[0], x, opt)
	})
}

// transform checks that the input has the model's rows, solves the first
// layer with first, and the other layers densely.
func (m *Model) transform(name string, rows int, first func(*nnls.Options) (*nnls.Result, error)) ([]*tensor.Dense, error) {
	if err := m.validate(); err != nil {
		return nil, fmt.Errorf("neuralnmf: %s: %w", name, err)
	}
	if rows != m.A[0].Rows {
		return nil, fmt.Errorf("neuralnmf: %s: %w: x has %d rows, the model was trained on %d", name, tensor.ErrShape, rows, m.A[0].Rows)
	}
	opt := &nnls.Options{Workers: m.cfg.Workers}
	res, err := first(opt)
	var out []*tensor.Dense
	for l := range m.A {
		if l > 0 {
			res, err = nnls.Solve(m.A[l], out[l-1], opt)
		}
		if err != nil {
			return nil, fmt.Errorf("neuralnmf: %s: layer %d: %w", name, l, err)
		}
		out = append(out, res.S)
	}
	return out, nil
}

// Reconstruction returns A⁽⁰⁾⋯A⁽ᴸ⁾S⁽ᴸ⁾ for the training data.
func (m *Model) Reconstruction() *tensor.Dense {
	r := m.S[len(m.S)-1]
	for l := len(m.A) - 1; l >= 0; l-- {
		r = tensor.MatMul(false, false, m.A[l], r)
	}
	return r
}

// ReadoutAccuracy measures how linearly the classes can be read off a
// representation s (k×M): it fits B = Y·s† by least squares on every column
// with a label ≥ 0 (Y one-hot) and returns the share of those columns for
// which argmax(B·s) is the label. It is the accuracy the authors' code
// reports for every method and supervision level, and the one the demo
// reports for unsupervised runs, which have no classifier of their own.
// It returns NaN for labels outside 0..classes−1 or no labelled column.
func ReadoutAccuracy(s *tensor.Dense, labels []int, classes int) float64 {
	pred, err := Readout(s, labels, classes)
	if err != nil {
		return math.NaN()
	}
	return Accuracy(pred, labels)
}

// Readout fits B = Y·s† by least squares on the columns of s (k×M) with a
// label ≥ 0 (Y one-hot, classes rows; the other columns of Y are zero) and
// returns argmax(B·s) for every column. With the labels of SplitLabels it
// is the paper's accuracy protocol: fit on the known labels, then score the
// held-out columns with Accuracy.
func Readout(s *tensor.Dense, labels []int, classes int) ([]int, error) {
	b, err := FitReadout(s, labels, classes)
	if err != nil {
		return nil, err
	}
	return Predict(b, s), nil
}

// FitReadout returns the classes×k read-out B = Y·s† of Readout, fitted on
// the columns of s (k×M) with a label ≥ 0, so that new columns s′ (the
// same layer of Transform) are classified by Predict(B, s′).
func FitReadout(s *tensor.Dense, labels []int, classes int) (*tensor.Dense, error) {
	y, err := tensor.OneHot(labels, classes)
	if err != nil {
		return nil, fmt.Errorf("neuralnmf: Readout: %w", err)
	}
	tape := autograd.NewTape()
	b := ops.MatMul(tape.Const(y), ops.Pinv(tape.Const(s)))
	if err := tape.Err(); err != nil {
		return nil, fmt.Errorf("neuralnmf: Readout: %w", err)
	}
	return b.Value(), nil
}

// LayerTopics returns, for each layer ℓ of the factors a (A⁽⁰⁾ N×k⁽⁰⁾, A⁽¹⁾,
// …), the topics of that layer in feature space: the N×k⁽ˡ⁾ product
// A⁽⁰⁾⋯A⁽ˡ⁾ (the first is a[0] itself, not a copy).
func LayerTopics(a []*tensor.Dense) []*tensor.Dense {
	out := make([]*tensor.Dense, len(a))
	for l := range a {
		if l == 0 {
			out[l] = a[0]
		} else {
			out[l] = tensor.MatMul(false, false, out[l-1], a[l])
		}
	}
	return out
}

// TopWords returns, for each column of a (features × topics), the names of
// the n features with the largest weights, largest first (ties keep feature
// order). names[i] names row i. For layer ℓ's topics pass LayerTopics(A)[ℓ].
func TopWords(a *tensor.Dense, names []string, n int) [][]string {
	out := make([][]string, a.Cols)
	idx := make([]int, a.Rows)
	for j := 0; j < a.Cols; j++ {
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(p, q int) bool { return a.At(idx[p], j) > a.At(idx[q], j) })
		for _, i := range idx[:min(n, len(idx))] {
			out[j] = append(out[j], names[i])
		}
	}
	return out
}
