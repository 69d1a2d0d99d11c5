package neuralnmf

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/neuralnmf/neuralnmf/autograd"
	"github.com/neuralnmf/neuralnmf/classify"
	"github.com/neuralnmf/neuralnmf/nnls"
	"github.com/neuralnmf/neuralnmf/optim"
	"github.com/neuralnmf/neuralnmf/tensor"
)

type trainer struct {
	x data
	// prep is x prepared for every epoch's first solve (nnls.NewData):
	// checked and scanned once; setBatch, which changes x, drops it.
	prep *nnls.Data
	// klWarm holds, with Loss KL, every layer's S of the last accepted
	// epoch: the start of the next epoch's KL layers.
	klWarm []*tensor.Dense
	cols   []int // the columns of X that x holds (mini-batch training); nil: all
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
	// bestHeld and bestEpoch are the best held-out accuracy so far and
	// its epoch, for Supervision.Patience.
	bestHeld  float64
	bestEpoch int
	xNorm     float64
	warm      []*nnls.Support
	// last and lastRes are the forward pass of the last recorded epoch of
	// a least-squares loss while the parameters are still the ones it
	// ran at (cleared by a step, a restore and the next epoch's tape
	// reset): model returns its S rather than solve them again, which a
	// fit whose start is the fit (one epoch) would otherwise do twice.
	last    *Forward
	lastRes []*nnls.Result
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
	// online is the running model of the Statistics mini-batch update.
	online *onlineStats
	// xAug is [X; shift·1], the first layer's input under Config.AlphaS
	// (elasticNet), formed once; zero without a penalty.
	xAug data
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
		t.last = nil
		f, res := t.forward(t.tape)
		if !c.Algorithm1 { // Algorithm 1 as written resets nothing
			if n := t.resetCollinearFrom(res); n > 0 {
				// The step made topics collinear: re-initialise them and run
				// this epoch's forward pass again.
				h.Collinear += n
				t.decreaseStale = true
				continue
			}
		}
		loss, fit, err := t.loss(f)
		if err != nil {
			return fmt.Errorf("neuralnmf: epoch %d: %w", epoch, err)
		}
		// The last epoch takes no step: its gradient is needed only to
		// check that a CustomLoss reaches the A's.
		var g autograd.Grads
		if epoch < c.Epochs || c.CustomLoss != nil {
			g, err = t.tape.Backward(loss)
		} else {
			err = t.tape.Err()
		}
		lv := math.NaN()
		if err == nil {
			lv = loss.Value().Data[0]
		}
		if c.Algorithm1 && (err != nil || math.IsNaN(lv) || math.IsInf(lv, 0)) {
			if err == nil {
				err = fmt.Errorf("%w: loss is %v: the paper's Algorithm 1 takes the fixed step %g with no safeguard; take a smaller step", ErrDiverged, lv, c.LR)
			}
			return fmt.Errorf("neuralnmf: epoch %d: %w", epoch, err)
		}
		if t.stepped && !c.Algorithm1 && !t.accept(err, lv) {
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
		if c.CustomLoss != nil && len(h.Loss) == 0 && !slices.ContainsFunc(f.A, g.Reached) {
			return fmt.Errorf("neuralnmf: %w: CustomLoss: the loss depends on no A (no path from f.A or f.S to it), so training cannot move them", ErrConfig)
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
			pred := t.predictTrain(f)
			acc, held = classify.Accuracy(pred, t.labels), classify.Accuracy(pred, t.held)
		}
		h.Loss = append(h.Loss, lv)
		h.RelError = append(h.RelError, rel)
		h.Accuracy = append(h.Accuracy, acc)
		h.HeldOutAccuracy = append(h.HeldOutAccuracy, held)
		dec := t.windowDecrease()
		if c.Progress != nil {
			c.Progress(Epoch{Epoch: epoch, Epochs: c.Epochs, Loss: lv, RelError: rel, Accuracy: acc, HeldOutAccuracy: held,
				Decrease: dec, Elapsed: time.Since(t.start)})
		}
		c.Loss.impl().epochDone(t, f)
		t.warm = t.warm[:0]
		for _, r := range res {
			var sup *nnls.Support // nil: a KL layer, which starts cold
			if r != nil {
				sup = r.Support
			}
			t.warm = append(t.warm, sup)
		}
		if c.Loss.impl().leastSquares() {
			t.last, t.lastRes = f, res
		}
		watched := c.Tol > 0 && len(h.Loss) > c.Window
		if watched && !(dec > c.Tol) { // a NaN decrease (a zero loss) stops too
			h.Stopped = fmt.Sprintf("converged: relative decrease %.2g over %d epochs ≤ tol %.3g", dec, c.Window, c.Tol)
			if dec < 0 {
				h.Stopped = risingLoss(-dec, c.Window, "epochs", c.Tol)
			}
			if math.Abs(h.Loss[0]-lv) <= c.Tol*math.Abs(h.Loss[0]) {
				h.Stopped = fmt.Sprintf("no progress: the loss fell by less than tol %.3g (relative) in %d epochs from the start, which is already near a stationary point (usual after an HNMF start), or the learning rate is too small to move it", c.Tol, len(h.Loss)-1)
			}
			t.done = true
			break
		}
		if p := t.patience(); p > 0 && !math.IsNaN(held) {
			if held > t.bestHeld || t.bestEpoch == 0 {
				t.bestHeld, t.bestEpoch = held, epoch
			} else if epoch-t.bestEpoch >= p {
				h.Stopped = fmt.Sprintf("early stop: the held-out accuracy %.3f has not risen above its best %.3f (epoch %d) in %d epochs", held, t.bestHeld, t.bestEpoch, p)
				t.done = true
				break
			}
		}
		if msg := t.behind(epoch); msg != "" {
			h.Stopped = msg
			t.done = true
			break
		}
		if epoch == c.Epochs {
			h.Stopped = fmt.Sprintf("max epochs: stopped at the cap of %d epochs", c.Epochs)
			if watched {
				h.Stopped += fmt.Sprintf(" while the loss still fell %.2g (relative) over %d epochs > tol %.3g", dec, c.Window, c.Tol)
			}
			break // keep A consistent with the recorded S
		}
		if err := t.step(t.gradients(g, f)); err != nil {
			return fmt.Errorf("neuralnmf: epoch %d: %w", epoch, err)
		}
		epoch++
	}
	return nil
}

// risingLoss is History.Stopped when the stopping rule ended training
// because the loss rose by rise (relative) over window epochs or passes
// (unit): it stopped falling, but did not converge.
func risingLoss(rise float64, window int, unit string, tol float64) string {
	return fmt.Sprintf("loss rising: it rose by %.2g (relative) over the last %d %s, so it no longer falls by tol %.3g; the model is the last one's (a smaller learning rate may reach a lower loss)", rise, window, unit, tol)
}

// windowDecrease is the relative decrease of the loss over the last Window
// epochs, (L[t−Window] − L[t]) / |L[t−Window]|, which the stopping rule
// compares with Tol; NaN until Window+1 epochs are recorded.
func (t *trainer) windowDecrease() float64 {
	l, w := t.hist.Loss, t.cfg.Window
	if len(l) <= w {
		return math.NaN()
	}
	prev := l[len(l)-1-w]
	return (prev - l[len(l)-1]) / math.Abs(prev)
}

// step takes one optimiser step from grads, keeping the parameters and
// gradients it starts from (prevP, prevG) so that it can be undone and
// retried (grads may be prevG itself), and re-initialises dead topics
// (collinear ones are found by the next forward pass).
func (t *trainer) step(grads []*tensor.Dense) error {
	t.last = nil
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
	if t.cfg.Algorithm1 {
		return nil // as written: a dead topic stays dead
	}
	if n := t.resetDeadTopics(); n > 0 {
		t.hist.Resets += n
		t.decreaseStale = true
	}
	return nil
}

// restore puts back the parameters saved before the last step.
func (t *trainer) restore() {
	t.last = nil
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
	t.scaleLR(f)
	// The step cannot fail here: the same gradients passed it before.
	_ = t.step(t.prevG)
}

// scaleLR multiplies every learning rate by f.
func (t *trainer) scaleLR(f float64) {
	t.lrScale *= f
	for _, o := range t.gds {
		o.LR *= f
	}
	for _, o := range t.adams {
		o.LR *= f
	}
}

// loss is the loss of the forward pass f: Config.CustomLoss's (checked to
// keep the labels when there is Supervision) or the built-in one, whose
// term on X is fit.
func (t *trainer) loss(f *Forward) (loss, fit *autograd.Var, err error) {
	if t.cfg.CustomLoss == nil || t.tape.Err() != nil {
		loss, fit = t.builtinLoss(f)
		return loss, fit, nil
	}
	if loss, err = t.customLoss(f); err != nil {
		return nil, nil, err
	}
	if loss == nil {
		return nil, nil, fmt.Errorf("CustomLoss returned nil")
	}
	if t.cfg.Supervision != nil && !f.supervised {
		return nil, nil, fmt.Errorf("%w: Supervision is set but CustomLoss does not add the label term: return f.AddSupervision(yourLoss), or drop Supervision", ErrConfig)
	}
	return loss, nil, nil
}

// gradients returns the gradient g holds for each parameter (params order).
func (t *trainer) gradients(g autograd.Grads, f *Forward) []*tensor.Dense {
	grads := make([]*tensor.Dense, 0, len(f.A)+1)
	for _, a := range f.A {
		grads = append(grads, g.Of(a))
	}
	if t.b != nil {
		grads = append(grads, g.Of(f.B))
	}
	return grads
}

// behind returns the reason to stop at epoch when Supervision.Target is
// out of reach, or "". The best held-out accuracy so far, rising for the
// rest of the epochs at the rate it rose over the last Patience epochs,
// stays below the target: the fit cannot
// be chosen over the candidate that set it. The rate of the running best
// is an optimistic projection for the usual concave learning curve.
func (t *trainer) behind(epoch int) string {
	s := t.cfg.Supervision
	if s == nil || !(s.Target > 0) {
		return ""
	}
	acc, w := t.hist.HeldOutAccuracy, s.Patience // semisup sets a Target with a positive Patience
	if w <= 0 || len(acc) <= w || t.cfg.Epochs <= epoch {
		return ""
	}
	best, before := math.Inf(-1), math.Inf(-1)
	for i, a := range acc {
		if math.IsNaN(a) {
			continue
		}
		if i < len(acc)-w {
			before = max(before, a)
		}
		best = max(best, a)
	}
	rate := (best - before) / float64(w)
	reach := best + rate*float64(t.cfg.Epochs-epoch)
	if !(reach < s.Target) {
		return ""
	}
	return fmt.Sprintf("early stop: the held-out accuracy %.3f, rising %.2g per epoch over the last %d, cannot reach %.3f, another candidate's, by epoch %d", best, rate, w, s.Target, t.cfg.Epochs)
}

// patience returns Supervision.Patience, or 0 without supervision.
func (t *trainer) patience() int {
	if t.cfg.Supervision == nil {
		return 0
	}
	return t.cfg.Supervision.Patience
}
