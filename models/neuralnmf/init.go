package neuralnmf

import (
	"fmt"
	"math"

	"github.com/neuralnmf/neuralnmf/classify"
	"github.com/neuralnmf/neuralnmf/models/ssnmf"
	"github.com/neuralnmf/neuralnmf/nnls"
	"github.com/neuralnmf/neuralnmf/optim"
	"github.com/neuralnmf/neuralnmf/tensor"
)

func (t *trainer) init() error {
	c := t.cfg
	t.xNorm = t.x.norm()
	n, _ := t.x.dims()
	switch {
	case c.Loss.impl().ownStart(c.Init):
		a, err := c.Loss.impl().start(t)
		if err != nil {
			return err
		}
		t.a = a
	case c.Init == HNMFInit || c.Init == NNDSVDInit || c.Init == HNMFBestInit:
		if a := c.Starts.get(c.Init, c.InitRestarts, c.InitIters, t.seed); a != nil {
			t.a = a
			break
		}
		var h *ssnmf.Hierarchy
		var err error
		if c.Init == NNDSVDInit {
			h, err = t.hnmfHALS()
		} else {
			h, err = t.hnmf(&ssnmf.Options{Seed: t.seed, Restarts: c.InitRestarts, MaxIter: c.InitIters})
		}
		if err != nil {
			return err
		}
		if c.Init == HNMFBestInit {
			hals, err := t.hnmf(&ssnmf.Options{Seed: t.seed, Restarts: c.InitRestarts, Solver: ssnmf.HALS, MaxIter: c.InitIters})
			if err != nil {
				return err
			}
			if t.hierarchyErr(hals) < t.hierarchyErr(h) {
				h = hals
			}
		}
		t.a = h.A
		c.Starts.put(c.Init, c.InitRestarts, c.InitIters, t.seed, h.A)
	case c.Init == GivenInit:
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
		if err := t.setLabels(); err != nil {
			return err
		}
		switch {
		case s.Head != nil:
			t.b = s.Head.B0.Clone()
		case s.Classifier == CrossEntropy:
			t.b = tensor.Uniform(s.Classes, c.Ranks[len(c.Ranks)-1], 0, 0.01, t.rng)
		}
	}
	for i, a := range t.a { // the loops over parameters (accept) read them as one run of memory
		if !a.Contiguous() {
			t.a[i] = a.Clone()
		}
	}
	if !c.Algorithm1 {
		t.hist.Collinear += t.resetCollinearTopics()
	}
	// One optimiser per parameter, so Adam's step can be relative to the
	// parameter's initial scale.
	params := t.params()
	for _, p := range params {
		switch c.Optimizer {
		case Adam:
			scale := math.Max(tensor.Sum(p)/float64(p.Len()), 1e-12)
			o := &optim.Adam{LR: c.LR * scale, Decay: c.Decay}
			if p == t.b {
				o = &optim.Adam{LR: c.LR * t.headScale(), Decay: c.Decay, Unconstrained: true}
			}
			t.adams = append(t.adams, o)
			t.steps = append(t.steps, adamStep(o))
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

// adamStep is a trainer.steps entry stepping its parameter with o: one
// pass that saves and steps (accept compares losses for Adam).
func adamStep(o *optim.Adam) func(p, g, prevP, prevG *tensor.Dense) (float64, error) {
	return func(p, g, prevP, prevG *tensor.Dense) (float64, error) {
		return 0, o.StepSaving([]*tensor.Dense{p}, []*tensor.Dense{g}, []*tensor.Dense{prevP}, []*tensor.Dense{prevG})
	}
}

// halsStartTol is the tolerance of the HALS start (NNDSVDInit): each
// layer's coordinate descent stops when an update's violation is at most
// this times the first's (ssnmf.StopViolation), scikit-learn's rule and
// tolerance for its NMF.
const halsStartTol = 1e-4

// klStartTol is the tolerance of the KL start's multiplicative updates:
// they stop when the divergence fell by less than this (relative) over 10
// updates, as Neural NMF's own epochs do by default (DefaultTol), and leave
// the rest to the epochs that follow.
const klStartTol = DefaultTol

// negligible is the share of its row's largest entry below which
// flushNegligible sets an entry of A to 0: 2⁻⁶⁰, below the rounding of any
// (A·S)_ij it enters (2⁻⁵² of the sum) unless its entry of S outweighs the
// row's largest term by 2⁸.
const negligible = 0x1p-60

// flushNegligible sets to 0 the entries of a that are below negligible
// times the largest entry of their row. The multiplicative updates drive
// the entries they zero down geometrically and leave them at 10⁻¹²⁰ and
// below (on the 20 Newsgroups counts, 10 % of A's positive entries); at
// such scales the KL layer's Newton steps, whose weights are x/y², leave
// float64's range and do not converge. Rows keep their largest entry, so
// no row the data needs becomes zero.
func flushNegligible(a *tensor.Dense) {
	for i := 0; i < a.Rows; i++ {
		row := a.Row(i)
		mx := 0.0
		for _, v := range row {
			mx = math.Max(mx, v)
		}
		for c, v := range row {
			if v < negligible*mx {
				row[c] = 0
			}
		}
	}
}

// hnmf is HNMF of the trainer's X (no labels) with opt.
func (t *trainer) hnmf(opt *ssnmf.Options) (*ssnmf.Hierarchy, error) {
	var h *ssnmf.Hierarchy
	var err error
	if t.x.sparse != nil {
		h, err = ssnmf.HNMFSparse(t.x.sparse, t.cfg.Ranks, nil, opt)
	} else {
		h, err = ssnmf.HNMF(t.x.dense, t.cfg.Ranks, nil, opt)
	}
	if err != nil {
		return nil, fmt.Errorf("neuralnmf: HNMF initialisation: %w", err)
	}
	return h, nil
}

// hnmfHALS is NNDSVDInit's start: HNMF by HALS with extrapolation
// (ssnmf.Options.Extrapolate, 2–3 times fewer updates than plain HALS on
// text) from NNDSVDa, each layer run to scikit-learn's convergence test
// (halsStartTol), its topics scaled to unit norm before the next layer
// (ssnmf.Options.UnitTopics); and, with three layers or more where the
// layers after the first are cheap (X's columns × k⁽⁰⁾ × k⁽¹⁾ at most
// deepMUWork), those layers again by multiplicative
// updates from random starts (as HNMFInit makes them, starts sized to
// their input), the hierarchy of the lower error through all layers kept.
//
// Its NNDSVDa starts keep scikit-learn's number of power iterations
// (ssnmf.Options.PowerIters left at 0): fewer were tried and cost the
// fine layer's coherence (docs/benchmarks.md, issue 68).
func (t *trainer) hnmfHALS() (*ssnmf.Hierarchy, error) {
	c := t.cfg
	h, err := t.hnmf(&ssnmf.Options{Seed: t.seed, Solver: ssnmf.HALS, Start: ssnmf.NNDSVDAStart, MaxIter: c.InitIters,
		Stop: ssnmf.StopViolation, Tol: halsStartTol, UnitTopics: true, Extrapolate: true})
	if err != nil || len(c.Ranks) < 3 {
		return h, err
	}
	_, cols := t.x.dims()
	if float64(cols)*float64(c.Ranks[0])*float64(c.Ranks[1]) > deepMUWork {
		return h, nil
	}
	starts := c.InitRestarts
	if starts <= 0 {
		starts, _ = sizedStarts(c.Ranks[0]*cols, c.Ranks[1])
	}
	mu, err := ssnmf.HNMF(h.S[0], c.Ranks[1:], nil, &ssnmf.Options{Seed: t.seed + 1000, Restarts: starts, MaxIter: c.InitIters, UnitTopics: true})
	if err != nil {
		return nil, fmt.Errorf("neuralnmf: HNMF initialisation, layers 2 to %d: %w", len(c.Ranks), err)
	}
	alt := &ssnmf.Hierarchy{A: append([]*tensor.Dense{h.A[0]}, mu.A...), S: append([]*tensor.Dense{h.S[0]}, mu.S...)}
	if t.hierarchyErr(alt) < t.hierarchyErr(h) {
		return alt, nil
	}
	return h, nil
}

// hierarchyErr is ‖X − A⁽⁰⁾⋯A⁽ᴸ⁾S⁽ᴸ⁾‖² of h on the trainer's X.
func (t *trainer) hierarchyErr(h *ssnmf.Hierarchy) float64 {
	last := len(h.A) - 1
	return t.x.sqErr(LayerTopics(h.A)[last], h.S[last])
}

// setLabels sets the training and held-out labels, their count, Y and Z
// for the columns of the trainer's data (t.cols of the supervision in
// mini-batch training).
func (t *trainer) setLabels() error {
	s := t.cfg.Supervision
	labels, known := t.batchLabels()
	if known == nil {
		known = make([]bool, len(labels))
		for i := range known {
			known[i] = true
		}
	}
	t.labels, t.held = classify.SplitLabels(labels, known)
	t.known = 0
	for _, k := range known {
		if k {
			t.known++
		}
	}
	var err error
	if t.y, err = tensor.OneHot(t.labels, s.Classes); err != nil {
		return fmt.Errorf("neuralnmf: %w", err)
	}
	t.z = tensor.ColumnMask(s.Classes, known)
	return nil
}

func (t *trainer) params() []*tensor.Dense {
	ps := append([]*tensor.Dense(nil), t.a...)
	if t.b != nil {
		ps = append(ps, t.b)
	}
	return ps
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

// StartCache keeps the starts (Config.Init's HNMF of X) of the fits of one
// X that share it (Config.Starts), by Init, InitRestarts, InitIters and
// seed: each fit starts where Train alone would, and each start is
// computed once. The zero value is ready. Not for concurrent fits, nor for
// fits of different X.
type StartCache struct {
	a map[startKey][]*tensor.Dense
}

type startKey struct {
	init            Init
	restarts, iters int
	seed            uint64
}

// get returns a copy of the start stored for the key, or nil (also for a
// nil cache).
func (c *StartCache) get(init Init, restarts, iters int, seed uint64) []*tensor.Dense {
	if c == nil {
		return nil
	}
	a, ok := c.a[startKey{init, restarts, iters, seed}]
	if !ok {
		return nil
	}
	out := make([]*tensor.Dense, len(a))
	for i, m := range a {
		out[i] = m.Clone()
	}
	return out
}

// put stores a copy of a for the key (nothing for a nil cache).
func (c *StartCache) put(init Init, restarts, iters int, seed uint64, a []*tensor.Dense) {
	if c == nil {
		return
	}
	if c.a == nil {
		c.a = map[startKey][]*tensor.Dense{}
	}
	kept := make([]*tensor.Dense, len(a))
	for i, m := range a {
		kept[i] = m.Clone()
	}
	c.a[startKey{init, restarts, iters, seed}] = kept
}
