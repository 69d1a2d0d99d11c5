package neuralnmf

import (
	"fmt"
	"math"

	"github.com/neuralnmf/neuralnmf/autograd"
	"github.com/neuralnmf/neuralnmf/models/ssnmf"
	"github.com/neuralnmf/neuralnmf/nnkl"
	"github.com/neuralnmf/neuralnmf/nnls"
	"github.com/neuralnmf/neuralnmf/ops"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// klLoss is the KL loss (Config.Loss KL): every layer a KL layer, its own
// start (KL-HNMF), X scaled to a mean non-zero of 1 for the fit, and KL
// layers in Transform. Every special case of KL is here.
type klLoss struct{}

func (klLoss) name() string       { return "kl" }
func (klLoss) leastSquares() bool { return false }

// ownStart: the factorising starts are KL-HNMF by multiplicative updates
// from NNDSVDa (deterministic, so one restart).
func (klLoss) ownStart(init Init) bool { return init.factorises() }

// layer solves layer l as a KL layer, from the S of the last accepted
// epoch (klStart).
func (klLoss) layer(t *trainer, f *Forward, l int, av, in *autograd.Var, _ *nnls.Options) (*autograd.Var, *nnls.Result) {
	if l == 0 && f.XSparse != nil {
		return ops.KLLayerSparseFrom(av, f.XSparse, t.klStart(l)), nil
	}
	return ops.KLLayerFrom(av, in, t.klStart(l)), nil
}

// loss is D(X ‖ A⁽⁰⁾⋯S⁽ᴸ⁾); the relative error is measured apart
// (relError), so fit is nil.
func (klLoss) loss(t *trainer, f *Forward) (loss, fit *autograd.Var) {
	n, mcols := t.x.dims()
	below := belowFirst(f)
	if f.XSparse != nil {
		return t.per(ops.SparseKLLoss(f.XSparse, f.A[0], below), n*mcols), nil
	}
	return t.per(ops.KLDivergence(f.X, ops.MatMul(f.A[0], below)), n*mcols), nil
}

// epochDone keeps the KL layers' S (fresh memory each epoch) to start the
// next epoch's.
func (klLoss) epochDone(t *trainer, f *Forward) {
	t.klWarm = t.klWarm[:0]
	for _, sv := range f.S {
		t.klWarm = append(t.klWarm, sv.Value())
	}
}

// solveFirstSparse solves Transform's first layer for a sparse x.
func (klLoss) solveFirstSparse(m *Model, x *tensor.Sparse, _ *nnls.Options) (*tensor.Dense, error) {
	return solvedKL(nnkl.SolveSparse(m.A[0], knownRowsSparse(m.A[0], x), nil))
}

// solveLayer solves Transform's layer l for the dense input in.
func (klLoss) solveLayer(m *Model, l int, in *tensor.Dense, _ *nnls.Options) (*tensor.Dense, error) {
	a := m.A[l]
	return solvedKL(nnkl.Solve(a, knownRows(a, in), nil))
}

// checkModel refuses a KL model with what its training refuses.
func (klLoss) checkModel(m *Model) error {
	if m.B != nil || m.AlphaS != 0 {
		return fmt.Errorf("a model of the KL loss has no classifier and no penalty (its training refuses both), and this one has a %s", map[bool]string{true: "classifier B", false: "penalty AlphaS"}[m.B != nil])
	}
	return nil
}

// check refuses what the KL loss does not support.
func (klLoss) check(c *Config) error {
	for _, o := range []struct {
		name string
		set  bool
	}{{"DataMask", c.DataMask != nil}, {"AlphaS", c.AlphaS != 0}, {"AlphaA", c.AlphaA != 0}, {"BatchSize", c.BatchSize != 0},
		{"Supervision", c.Supervision != nil}, {"CustomLoss", c.CustomLoss != nil}, {"Algorithm1", c.Algorithm1}} {
		if o.set {
			return fmt.Errorf("neuralnmf: %w: Loss KL does not support %s", ErrConfig, o.name)
		}
	}
	return nil
}

// train trains the KL loss on X/s, for s the mean of X's non-zero
// entries, and returns that model with every S and loss multiplied by s
// (A does not change). D(cX ‖ cY) = c·D(X ‖ Y), so this is the same
// problem; whatever X's scale, the start (whose NNDSVDa floor, as
// scikit-learn's, is an absolute 1e-6), the solvers and Adam see X with a
// mean entry of 1, so the fit of c·X is the fit of X with every S times c:
// to the rounding of c·X and of the division, and bit for bit when c is a
// power of two.
func (klLoss) train(x data, cfg Config) (*Model, error) {
	s := klScale(x)
	if s == 1 {
		return trainAt(x, cfg)
	}
	var xs data
	if sp := x.sparse; sp != nil {
		val := make([]float64, len(sp.Val))
		for i, v := range sp.Val {
			val[i] = v / s
		}
		xs.sparse = (&tensor.Sparse{Rows: sp.Rows, Cols: sp.Cols, ColPtr: sp.ColPtr, RowIdx: sp.RowIdx, Val: val}).WithRows()
	} else {
		xs.dense = tensor.New(x.dense.Rows, x.dense.Cols)
		for i := 0; i < x.dense.Rows; i++ {
			dst := xs.dense.Row(i)
			for j, v := range x.dense.Row(i) {
				dst[j] = v / s
			}
		}
	}
	c := cfg
	if cfg.Progress != nil {
		c.Progress = func(e Epoch) {
			e.Loss *= s
			cfg.Progress(e)
		}
	}
	m, err := trainAt(xs, c)
	if err != nil {
		return nil, err
	}
	m.cfg = cfg
	m.cfg.Starts = nil
	for _, sl := range m.S {
		tensor.Scale(sl, s, sl)
	}
	for i := range m.History.Loss {
		m.History.Loss[i] *= s
	}
	return m, nil
}

// klScale returns the mean of X's non-zero entries (1 for an X without
// any).
func klScale(x data) float64 {
	var sum float64
	n := 0
	if x.sparse != nil {
		for _, v := range x.sparse.Val {
			if v != 0 {
				sum += v
				n++
			}
		}
	} else {
		for i := 0; i < x.dense.Rows; i++ {
			for _, v := range x.dense.Row(i) {
				if v != 0 {
					sum += v
					n++
				}
			}
		}
	}
	if n == 0 || math.IsInf(sum, 0) {
		return 1
	}
	return sum / float64(n)
}

// start is the KL start: KL-HNMF of the trainer's X by multiplicative
// updates from NNDSVDa (ssnmf.HNMFKL), at most InitIters updates a layer.
func (klLoss) start(t *trainer) ([]*tensor.Dense, error) {
	opt := &ssnmf.Options{Seed: t.seed, MaxIter: t.cfg.InitIters, Tol: klStartTol}
	var h *ssnmf.Hierarchy
	var err error
	if t.x.sparse != nil {
		h, err = ssnmf.HNMFKLSparse(t.x.sparse, t.cfg.Ranks, opt)
	} else {
		h, err = ssnmf.HNMFKL(t.x.dense, t.cfg.Ranks, opt)
	}
	if err != nil {
		return nil, fmt.Errorf("neuralnmf: KL-HNMF initialisation: %w", err)
	}
	for _, a := range h.A {
		flushNegligible(a)
	}
	return h.A, nil
}

// klStart is layer l's S of the last accepted epoch, where its KL layer's
// Newton iterations start (ops.KLLayerFrom), or nil before the first.
func (t *trainer) klStart(l int) *tensor.Dense {
	if l < len(t.klWarm) {
		return t.klWarm[l]
	}
	return nil
}
