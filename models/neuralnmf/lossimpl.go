package neuralnmf

import (
	"github.com/neuralnmf/neuralnmf/autograd"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// A built-in loss is a value: its name (on the command line and in the
// model file), what it refuses, how it trains X, its own start, what its
// layers solve, its loss term, what an epoch keeps for the next, what
// Transform solves, and what a model file of it may hold. lsLoss is the
// least-squares losses (Reconstruction, Energy: NNLS layers, the common
// paths); klLoss (loss_kl.go) holds every special case of KL.
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
	// layer solves layer l on the tape; own false leaves it to the NNLS
	// layers of the forward pass.
	layer(t *trainer, f *Forward, l int, av, in *autograd.Var) (s *autograd.Var, own bool)
	// loss is the built-in loss on f and its fit term; own false leaves it
	// to the least-squares terms of builtinLoss.
	loss(t *trainer, f *Forward) (loss, fit *autograd.Var, own bool)
	// epochDone keeps what the next epoch starts from.
	epochDone(t *trainer, f *Forward)
	// solveFirstSparse and solveLayer are Transform's solves; own false
	// leaves them to NNLS.
	solveFirstSparse(m *Model, x *tensor.Sparse) (s *tensor.Dense, own bool, err error)
	solveLayer(m *Model, l int, in *tensor.Dense) (s *tensor.Dense, own bool, err error)
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
func (lsLoss) layer(*trainer, *Forward, int, *autograd.Var, *autograd.Var) (*autograd.Var, bool) {
	return nil, false
}
func (lsLoss) loss(*trainer, *Forward) (*autograd.Var, *autograd.Var, bool) { return nil, nil, false }
func (lsLoss) epochDone(*trainer, *Forward)                                 {}
func (lsLoss) solveFirstSparse(*Model, *tensor.Sparse) (*tensor.Dense, bool, error) {
	return nil, false, nil
}
func (lsLoss) solveLayer(*Model, int, *tensor.Dense) (*tensor.Dense, bool, error) {
	return nil, false, nil
}
func (lsLoss) checkModel(*Model) error { return nil }
