package neuralnmf

import (
	"github.com/neuralnmf/neuralnmf/autograd"
	"github.com/neuralnmf/neuralnmf/nnls"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// A built-in loss is a value: its name (on the command line and in the
// model file), what it refuses, how it trains X, its own start, what its
// layers solve, its loss term, what an epoch keeps for the next, what
// Transform solves, and what a model file of it may hold. lsLoss is the
// least-squares losses (Reconstruction, Energy: NNLS layers, the common
// paths: nnlsLayer, lsTerms, nnlsSolveLayer); klLoss (loss_kl.go) holds
// every special case of KL.
type lossImpl interface {
	name() string
	// leastSquares reports whether the layers are NNLS (so that a
	// converged HALS start is a stationary point of the loss).
	leastSquares() bool
	// check refuses the Config options the loss does not support.
	check(c *Config) error
	// train trains the resolved X and cfg (trainAt, or around it).
	train(x data, cfg Config) (*Model, error)
	// ownStart reports whether the loss has its own start for init, which
	// start computes.
	ownStart(init Init) bool
	start(t *trainer) ([]*tensor.Dense, error)
	// layer records layer l on f's tape (its A av, its input in) and
	// returns its S and, for an NNLS layer, the solver's result.
	layer(t *trainer, f *Forward, l int, av, in *autograd.Var, opt *nnls.Options) (*autograd.Var, *nnls.Result)
	// loss is the built-in loss on f and its fit term ‖X − A⁽⁰⁾⋯S⁽ᴸ⁾‖²
	// (nil where the relative error is measured apart).
	loss(t *trainer, f *Forward) (loss, fit *autograd.Var)
	// epochDone keeps what the next epoch starts from.
	epochDone(t *trainer, f *Forward)
	// solveFirstSparse and solveLayer are Transform's solves of the
	// first layer for a sparse x and of layer l for a dense input.
	solveFirstSparse(m *Model, x *tensor.Sparse, opt *nnls.Options) (*tensor.Dense, error)
	solveLayer(m *Model, l int, in *tensor.Dense, opt *nnls.Options) (*tensor.Dense, error)
	// checkModel refuses a model (file) that this loss's training cannot
	// make.
	checkModel(m *Model) error
}

// impl returns the loss's value.
func (l Loss) impl() lossImpl {
	switch l {
	case KL:
		return klLoss{}
	case Energy:
		return lsLoss{energy: true}
	}
	return lsLoss{}
}

// lossNamed returns the loss named name ("" is Reconstruction, as in
// model files that predate the name).
func lossNamed(name string) (Loss, bool) {
	if name == "" {
		return Reconstruction, true
	}
	for _, l := range []Loss{Reconstruction, Energy, KL} {
		if l.String() == name {
			return l, true
		}
	}
	return 0, false
}

// lsLoss is the least-squares losses: Reconstruction, and Energy (every
// layer's term). Their layers, loss and solves are the common paths.
type lsLoss struct{ energy bool }

func (l lsLoss) name() string {
	if l.energy {
		return "energy"
	}
	return "reconstruction"
}

func (lsLoss) leastSquares() bool                       { return true }
func (lsLoss) check(*Config) error                      { return nil }
func (lsLoss) train(x data, cfg Config) (*Model, error) { return trainAt(x, cfg) }
func (lsLoss) ownStart(Init) bool                       { return false }
func (lsLoss) start(*trainer) ([]*tensor.Dense, error)  { return nil, nil }
func (lsLoss) layer(t *trainer, f *Forward, l int, av, in *autograd.Var, opt *nnls.Options) (*autograd.Var, *nnls.Result) {
	return t.nnlsLayer(f, l, av, in, opt)
}
func (ls lsLoss) loss(t *trainer, f *Forward) (*autograd.Var, *autograd.Var) {
	return t.lsTerms(f, ls.energy)
}
func (lsLoss) epochDone(*trainer, *Forward) {}
func (lsLoss) solveFirstSparse(m *Model, x *tensor.Sparse, opt *nnls.Options) (*tensor.Dense, error) {
	pen, ok := layerPenalty(m.AlphaS, m.L1Ratio, m.A[0].Rows)
	if ok && !pen.pure {
		return solved(nnls.SolveSparse(pen.augmentA(m.A[0]), pen.augmentSparse(x, m.A[0].Cols), opt))
	}
	return solved(nnls.SolveSparse(m.A[0], x, pen.options(opt)))
}
func (lsLoss) solveLayer(m *Model, l int, in *tensor.Dense, opt *nnls.Options) (*tensor.Dense, error) {
	return m.nnlsSolveLayer(l, in, opt)
}
func (lsLoss) checkModel(*Model) error { return nil }
