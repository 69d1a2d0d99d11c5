package neuralnmf

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"time"

	"github.com/neuralnmf/neuralnmf/autograd"
	"github.com/neuralnmf/neuralnmf/classify"
	"github.com/neuralnmf/neuralnmf/ops"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// Mini-batch defaults, chosen in experiments/minibatch (docs/minibatch.md;
// see Config.BatchSize).
const (
	// DefaultBatchSize is the batch size of Train on Columns when Config.BatchSize is 0.
	DefaultBatchSize = 250
	// DefaultBatchEpochs caps a mini-batch run at this many passes when
	// Config.Epochs is 0.
	DefaultBatchEpochs = 20
	// StartColumns is the least number of columns with an entry that the
	// start of mini-batch training factorises (the first batches).
	StartColumns = 1000
	// DefaultBatchTol and DefaultBatchWindow are Config.Tol and Window of
	// mini-batch training, on the loss summed over each pass.
	DefaultBatchTol    = 1e-4
	DefaultBatchWindow = 1
	// DefaultBatchLR is Config.LR of mini-batch training (Adam's relative
	// rate), multiplied by DefaultBatchDecay after every pass.
	DefaultBatchLR    = 0.1
	DefaultBatchDecay = 0.5
	// DefaultForget is Config.Forget when it is 0: the Statistics update's
	// running sums are multiplied by it over each pass.
	DefaultForget = 0.3
	// DefaultBatchInit is the start of mini-batch training when
	// Config.Init is DefaultInit.
	DefaultBatchInit = HNMFBestInit
)

// validateBatches checks what mini-batch training does not support.
func (c *Config) validateBatches(cols int) error {
	switch {
	case c.BatchSize < 0:
		return fmt.Errorf("neuralnmf: %w: BatchSize is %d, want 0 (full batch) or more", ErrConfig, c.BatchSize)
	case c.Algorithm1:
		return fmt.Errorf("neuralnmf: %w: Algorithm1 is full-batch gradient descent; it does not take a BatchSize", ErrConfig)
	case c.Restarts > 1:
		return fmt.Errorf("neuralnmf: %w: Restarts is %d; mini-batch training (BatchSize) trains one start", ErrConfig, c.Restarts)
	case c.DataMask != nil:
		return fmt.Errorf("neuralnmf: %w: DataMask is not supported with BatchSize", ErrConfig)
	case c.BatchUpdate < DefaultBatchUpdate || c.BatchUpdate > Statistics:
		return fmt.Errorf("neuralnmf: %w: BatchUpdate is %d, want DefaultBatchUpdate, Gradient or Statistics", ErrConfig, int(c.BatchUpdate))
	case c.BatchUpdate == Statistics && c.CustomLoss != nil:
		return fmt.Errorf("neuralnmf: %w: BatchUpdate Statistics needs the built-in loss (its term on X); with a CustomLoss use Gradient", ErrConfig)
	case !(c.Forget >= 0 && c.Forget <= 1):
		return fmt.Errorf("neuralnmf: %w: Forget is %v, want a factor in (0, 1], or 0 for DefaultForget", ErrConfig, c.Forget)
	}
	if first := min(max(c.BatchSize, StartColumns), cols); c.Init.factorises() && c.Ranks[0] > first {
		return fmt.Errorf("neuralnmf: %w: rank %d of layer 1 is above the %d columns of the first batches, which the %s start factorises; want BatchSize ≥ %d, or RandomInit or GivenInit", ErrConfig, c.Ranks[0], first, c.withDefaults().Init, c.Ranks[0])
	}
	return nil
}

// trainBatches is mini-batch training on the batches of src; keepS keeps
// every column's S (X is in memory, so S is no larger).
func trainBatches(src batchSource, cfg Config, keepS bool) (*Model, error) {
	rows, cols := src.dims()
	if err := cfg.validate(rows, cols); err != nil {
		return nil, err
	}
	if err := cfg.validateBatches(cols); err != nil {
		return nil, err
	}
	c := cfg.withDefaults()
	// Decay counts passes here; the optimisers count steps.
	c.Decay.Every *= (cols + c.BatchSize - 1) / c.BatchSize
	if c.Phase != nil {
		c.Phase(Stage{Name: "start", Run: c, Restart: 1})
	}
	if err := src.rewind(0); err != nil {
		return nil, fmt.Errorf("neuralnmf: %w", err)
	}
	// The start factorises the columns with an entry of the first batches,
	// StartColumns of them or more: a stream that begins with empty columns
	// (documents without a word) must not start from an all-zero sample.
	var pending []batch
	for n := 0; n < max(c.BatchSize, StartColumns); {
		b, err := src.next(c.BatchSize)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("neuralnmf: %w", err)
		}
		pending = append(pending, b)
		n += b.x.nonEmptyColumns()
	}
	if len(pending) == 0 {
		return nil, fmt.Errorf("neuralnmf: X has no columns")
	}
	all := joinBatches(pending)
	first := all.withEntries()
	if len(first.cols) == 0 {
		return nil, fmt.Errorf("neuralnmf: X is all zero: none of its %d columns has an entry; there is nothing to factorise", cols)
	}
	if mx := maxEntry(first.x); mx > MaxScale {
		return nil, fmt.Errorf("%w (column %d)", checkScale(mx), first.cols[first.x.columnOf(mx)]+1)
	} else if err := checkScale(mx); err != nil && cols == len(all.cols) {
		return nil, err // the start holds all of X: it is out of range
	}
	if c.Init.factorises() && c.Ranks[0] > len(first.cols) {
		return nil, fmt.Errorf("neuralnmf: %w: rank %d of layer 1 is above the %d columns with an entry that the start could read (all of X's %d columns); give a smaller rank", ErrConfig, c.Ranks[0], len(first.cols), cols)
	}
	t, _, err := startBatches(c, rows, cols, first)
	if err != nil {
		return nil, err
	}
	if c.Phase != nil {
		c.Phase(Stage{Name: "training", Run: c, Restart: 1})
	}
	t.start = time.Now()
	for epoch := 1; epoch <= c.Epochs; epoch++ {
		if epoch > 1 {
			if err := src.rewind(epoch - 1); err != nil {
				return nil, fmt.Errorf("neuralnmf: %w", err)
			}
		}
		p := passSums{measureX: epoch == 1}
		for {
			var b batch
			var err error
			if len(pending) > 0 {
				b, pending = pending[0], pending[1:]
			} else if b, err = src.next(c.BatchSize); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				return nil, fmt.Errorf("neuralnmf: pass %d: %w", epoch, err)
			}
			if p.measureX {
				// A huge entry would overflow the loss before the pass's
				// scale check: refuse it where it is.
				mx := maxEntry(b.x)
				if mx > MaxScale {
					return nil, fmt.Errorf("%w (column %d)", checkScale(mx), b.cols[b.x.columnOf(mx)]+1)
				}
				p.xmax = math.Max(p.xmax, mx)
			}
			if err := t.setBatch(b); err != nil {
				return nil, err
			}
			if err := t.batchStep(&p); err != nil {
				return nil, fmt.Errorf("neuralnmf: pass %d, columns from %d: %w", epoch, b.cols[0]+1, err)
			}
		}
		if done, err := t.endPass(&p, epoch); err != nil {
			return nil, err
		} else if done {
			break
		}
	}
	return t.evaluate(src, keepS)
}

// startBatches starts training on part of the columns at a time, one
// machine's mini-batches or sharded steps alike: the trainer of c's start
// computed on first (the start's columns, all with an entry), its random
// source (tensor.NewRand's, kept so that a checkpoint can save it), and
// with the Statistics update the running statistics primed with first.
func startBatches(c Config, rows, cols int, first batch) (*trainer, *rand.PCG, error) {
	pcg := rand.NewPCG(c.Seed^0x6e6e6d66, c.Seed^0x6e6e6d66^0x9e3779b97f4a7c15) // tensor.NewRand(c.Seed ^ 0x6e6e6d66)'s source
	t := &trainer{x: first.x, cols: first.cols, cfg: c, seed: c.Seed, rng: rand.New(pcg), tape: autograd.NewTape(), hist: History{Stopped: "max epochs"}, lrScale: 1, start: time.Now()}
	if err := t.init(); err != nil {
		return nil, nil, err
	}
	if c.BatchUpdate == Statistics {
		if err := t.useStatistics(rows, cols, first); err != nil {
			return nil, nil, err
		}
	}
	return t, pcg, nil
}

// endPass records the pass p that just ended (pass epoch, from 1) in the
// history, reports it to Config.Progress, and applies the stopping rule:
// done is true when training stops (History.Stopped says why). The first
// pass measures X: its norm, and its largest entry, which must be in
// range. It is the end of a pass of one machine's mini-batches and of
// sharded steps alike.
func (t *trainer) endPass(p *passSums, epoch int) (done bool, err error) {
	c, h := t.cfg, &t.hist
	if epoch == 1 {
		t.xNorm = math.Sqrt(p.xsq)
		if err := checkScale(p.xmax); err != nil {
			return false, err
		}
	}
	h.Loss = append(h.Loss, p.loss)
	h.RelError = append(h.RelError, math.Sqrt(p.sq)/t.xNorm)
	h.Accuracy = append(h.Accuracy, ratio(p.right, p.known))
	h.HeldOutAccuracy = append(h.HeldOutAccuracy, ratio(p.heldRight, p.held))
	dec := t.windowDecrease()
	if c.Progress != nil {
		c.Progress(Epoch{Epoch: epoch, Epochs: c.Epochs, Loss: p.loss, RelError: h.RelError[len(h.RelError)-1],
			Accuracy: h.Accuracy[len(h.Accuracy)-1], HeldOutAccuracy: h.HeldOutAccuracy[len(h.HeldOutAccuracy)-1],
			Decrease: dec, Elapsed: time.Since(t.start)})
	}
	switch {
	case c.Tol > 0 && len(h.Loss) > c.Window && !(dec > c.Tol):
		h.Stopped = fmt.Sprintf("converged: the loss summed over a pass fell by %.2g (relative) over %d passes ≤ tol %.3g", dec, c.Window, c.Tol)
		if dec < 0 {
			h.Stopped = risingLoss(-dec, c.Window, "passes", c.Tol)
		}
		return true, nil
	case epoch >= c.Epochs:
		h.Stopped = fmt.Sprintf("max epochs: stopped at the cap of %d passes", c.Epochs)
		return true, nil
	}
	return false, nil
}

// passSums accumulates one pass of mini-batch training: every batch's loss
// and ‖X_b − A⁽⁰⁾⋯S_b‖², measured before its step, the classifier's hits,
// and (when measureX, on the first pass) ‖X‖² and X's largest entry.
type passSums struct {
	loss, sq, xsq, xmax           float64
	right, known, heldRight, held int
	measureX                      bool
}

// setBatch makes b the trainer's data: X, the labels of its columns and no
// warm start (supports belong to columns, which change every batch).
func (t *trainer) setBatch(b batch) error {
	t.x, t.cols, t.warm = b.x, b.cols, nil
	t.prep = nil // a stream may refill the same matrix: prepare each batch afresh
	if t.cfg.Supervision != nil {
		return t.setLabels()
	}
	return nil
}

// batchLabels returns the labels and known marks of the columns t.cols of
// the supervision (all of them for full-batch training).
func (t *trainer) batchLabels() ([]int, []bool) {
	s := t.cfg.Supervision
	if t.cols == nil {
		return s.Labels, s.Known
	}
	labels, known := make([]int, len(t.cols)), make([]bool, len(t.cols))
	for j, c := range t.cols {
		labels[j] = s.Labels[c]
		known[j] = s.Known == nil || s.Known[c]
	}
	return labels, known
}

// batchStep runs the forward and backward pass on the trainer's batch, adds
// its numbers to p and steps. There is no trial step: a batch's loss is not
// comparable with another's. Only a blow-up is caught: if the pass fails or
// its loss is not finite after a step, the step is undone and the learning
// rate cut tenfold (History.Backtracks).
func (t *trainer) batchStep(p *passSums) error {
	for tries := 0; ; tries++ {
		t.tape.Reset()
		f, res := t.forward(t.tape)
		if n := t.resetCollinearFrom(res); n > 0 && tries < maxBacktracks {
			t.hist.Collinear += n
			continue
		}
		loss, fit, err := t.loss(f)
		if err != nil {
			return err
		}
		g, err := t.tape.Backward(loss)
		lv := math.NaN()
		if err == nil {
			lv = loss.Value().Data[0]
		}
		if err != nil || math.IsNaN(lv) || math.IsInf(lv, 0) {
			if !t.stepped || tries >= maxBacktracks {
				if err == nil {
					err = fmt.Errorf("loss is %v", lv)
				}
				return err
			}
			t.restore()
			t.scaleLR(shrinkBlowUp)
			t.hist.Backtracks++
			continue
		}
		t.stepped = false
		p.loss += lv
		if fit != nil {
			p.sq += math.Max(fit.Value().Data[0], 0)
		} else {
			p.sq += t.x.sqErr(f.A[0].Value(), belowFirst(f).Value())
		}
		if p.measureX {
			xn := t.x.norm()
			p.xsq += xn * xn
		}
		if f.B != nil {
			pred := classify.Predict(f.B.Value(), f.S[len(f.S)-1].Value())
			for j, l := range t.labels {
				if l >= 0 {
					p.known++
					if pred[j] == l {
						p.right++
					}
				}
				if h := t.held[j]; h >= 0 {
					p.held++
					if pred[j] == h {
						p.heldRight++
					}
				}
			}
		}
		grads := t.gradients(g, f)
		if t.online != nil {
			t.addStatistics(f, grads[0])
		}
		return t.step(grads)
	}
}

// useStatistics makes A⁽⁰⁾'s step a HALS sweep over the running model of
// the Statistics batch update instead of Adam's, and, unless the start is
// random, primes the model with the columns the start factorised, as if
// the start were its minimiser: C = PPᵀ and E = A⁽⁰⁾C over them. Without
// that prior the first batches' steps fit A⁽⁰⁾ to a few hundred columns
// and can undo a good start (on a low-noise 2-layer hierarchy the error
// after the first pass rose from 0.036 to 0.087; primed, to 0.039).
func (t *trainer) useStatistics(rows, cols int, first batch) error {
	t.online = newOnlineStats(rows, t.a[0].Cols, cols, t.cfg.Forget)
	t.steps[0] = t.sweepStep
	if t.cfg.Init == RandomInit {
		return nil // no prior: random A's are not a fit to anything
	}
	if err := t.setBatch(first); err != nil {
		return err
	}
	t.tape.Reset()
	f, _ := t.forward(t.tape)
	if err := t.tape.Err(); err != nil {
		return fmt.Errorf("neuralnmf: the start's columns: %w", err)
	}
	t.online.prime(t.a[0], t.batchP(f))
	return nil
}

// sweepStep is A⁽⁰⁾'s step under the Statistics update (a trainer.steps
// entry): one HALS sweep over the running model, after saving p and g.
func (t *trainer) sweepStep(p, g, prevP, prevG *tensor.Dense) (float64, error) {
	prevP.Copy(p)
	prevG.Copy(g)
	t.online.sweep(p, t.cfg.Workers)
	return 0, nil
}

// batchP is what A⁽⁰⁾ multiplies in the loss's term on X, on the forward
// pass f: A⁽¹⁾⋯A⁽ᴸ⁾S⁽ᴸ⁾ for the reconstruction loss, S⁽⁰⁾ for the energy
// loss.
func (t *trainer) batchP(f *Forward) *tensor.Dense {
	if t.cfg.Loss == Energy {
		return f.S[0].Value()
	}
	return belowFirst(f).Value() // recorded by the loss already
}

// addStatistics folds the batch of the forward pass f, whose gradient in
// A⁽⁰⁾ is g, into the running model of the Statistics update.
func (t *trainer) addStatistics(f *Forward, g *tensor.Dense) {
	n, b := t.x.dims()
	p := t.batchP(f)
	coef := 2.0 // the term on X is ‖X − A⁽⁰⁾P‖², or that over N·B
	if t.cfg.Normalize {
		coef /= float64(n * b)
	}
	t.online.add(t.a[0], p, g, coef, b)
}

// evaluate runs one more pass with the final A: History.FinalRelError, B
// for the least-squares classifier (from the pass's sufficient statistics
// (Z∘Y)Sᵀ and SSᵀ: B = (Z∘Y)S† = (Z∘Y)Sᵀ(SSᵀ)†), and S when keepS.
func (t *trainer) evaluate(src batchSource, keepS bool) (*Model, error) {
	h := t.hist
	h.LRScale = t.lrScale
	m := &Model{cfg: t.cfg}
	for _, a := range t.a {
		m.A = append(m.A, a.Clone())
	}
	_, cols := src.dims()
	if keepS {
		for _, a := range t.a {
			m.S = append(m.S, tensor.New(a.Cols, cols))
		}
	}
	ls := t.cfg.Supervision != nil && t.cfg.Supervision.Classifier == LeastSquares
	var zyS, sS *tensor.Dense
	if ls {
		k := t.a[len(t.a)-1].Cols
		zyS, sS = tensor.New(t.cfg.Supervision.Classes, k), tensor.New(k, k)
	}
	if err := src.rewind(len(h.Loss)); err != nil {
		return nil, fmt.Errorf("neuralnmf: final pass: %w", err)
	}
	var sq float64
	tape := autograd.NewTape()
	for {
		b, err := src.next(t.cfg.BatchSize)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("neuralnmf: final pass: %w", err)
		}
		if err := t.setBatch(b); err != nil {
			return nil, err
		}
		tape.Reset()
		f, _ := t.forward(tape)
		if err := tape.Err(); err != nil {
			return nil, fmt.Errorf("neuralnmf: final pass, columns from %d: %w", b.cols[0]+1, err)
		}
		sq += t.x.sqErr(t.a[0], belowFirst(f).Value())
		sTop := f.S[len(f.S)-1].Value()
		if ls {
			// Y is zero in the columns that are not Known (SplitLabels): Z∘Y = Y.
			tensor.Gemm(false, true, 1, t.y, sTop, 1, zyS)
			tensor.Gemm(false, true, 1, sTop, sTop, 1, sS)
		}
		if keepS {
			for l, s := range f.S {
				v := s.Value()
				for i := 0; i < v.Rows; i++ {
					src, dst := v.Row(i), m.S[l].Row(i)
					for j, c := range b.cols {
						dst[c] = src[j]
					}
				}
			}
		}
	}
	h.FinalRelError = math.Sqrt(sq) / t.xNorm
	m.History = h
	switch {
	case ls:
		pinv := ops.Pinv(tape.Const(sS))
		if err := tape.Err(); err != nil {
			return nil, fmt.Errorf("neuralnmf: final pass: the classifier: %w", err)
		}
		m.B = tensor.MatMul(false, false, zyS, pinv.Value())
	case t.b != nil:
		m.B = t.b.Clone()
	}
	return m, nil
}
