package ops_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/autograd"
	"github.com/neuralnmf/neuralnmf/gradcheck"
	"github.com/neuralnmf/neuralnmf/ops"
	"github.com/neuralnmf/neuralnmf/tensor"
)

func sparseX(seed uint64, n, m int, density float64) (*tensor.Dense, *tensor.Sparse) {
	rng := tensor.NewRand(seed)
	x := tensor.Uniform(n, m, 0.1, 1, rng)
	for i := range x.Data {
		if rng.Float64() > density {
			x.Data[i] = 0
		}
	}
	return x, tensor.SparseFromDense(x)
}

// SparseFrobeniusLoss has the dense loss's value and gradients, on a small
// X (one goroutine) and on one large enough for its sparse products to be
// shared among goroutines; gradcheck confirms the small one.
func TestSparseFrobeniusLoss(t *testing.T) {
	for _, c := range []struct {
		n, m, k int
		density float64
	}{{9, 11, 3, 0.3}, {3000, 200, 4, 0.2}} {
		x, xs := sparseX(41, c.n, c.m, c.density)
		rng := tensor.NewRand(42)
		w := tensor.Uniform(c.n, c.k, 0, 1, rng)
		h := tensor.Uniform(c.k, c.m, 0, 1, rng)
		dense := func(t *autograd.Tape, in []*autograd.Var) *autograd.Var {
			return ops.FrobeniusLoss(t.Const(x), ops.MatMul(in[0], in[1]))
		}
		sparse := func(t *autograd.Tape, in []*autograd.Var) *autograd.Var {
			return ops.SparseFrobeniusLoss(xs, in[0], in[1])
		}
		var vals [2]float64
		var grads [2][2]*tensor.Dense
		for i, f := range []gradcheck.Func{dense, sparse} {
			tape := autograd.NewTape()
			in := []*autograd.Var{tape.Param(w), tape.Param(h)}
			l := f(tape, in)
			g, err := tape.Backward(l)
			require.NoError(t, err)
			vals[i] = l.Value().Data[0]
			grads[i] = [2]*tensor.Dense{g.Of(in[0]).Clone(), g.Of(in[1]).Clone()}
		}
		require.InEpsilon(t, vals[0], vals[1], 1e-12)
		for p := 0; p < 2; p++ {
			scale := tensor.MaxAbs(grads[0][p])
			for i := range grads[0][p].Data {
				require.InDelta(t, grads[0][p].Data[i], grads[1][p].Data[i], 1e-12*scale, "%d×%d: gradient %d", c.n, c.m, p)
			}
		}
		if c.n < 100 {
			gradcheck.Assert(t, sparse, []*tensor.Dense{w, h}, nil)
		}
	}
}

func TestNNLSSparseGradcheck(t *testing.T) {
	x, xs := sparseX(43, 30, 20, 0.5)
	a0 := tensor.Uniform(30, 5, 0.1, 1, tensor.NewRand(44))
	a1 := tensor.Uniform(5, 3, 0.1, 1, tensor.NewRand(45))
	requirePartialSupport(t, a0, x)
	// Two layers on a sparse X with the sparse reconstruction loss.
	f := func(t *autograd.Tape, in []*autograd.Var) *autograd.Var {
		s0, _ := ops.NNLSSparse(in[0], xs, nil)
		s1, _ := ops.NNLS(in[1], s0, nil)
		return ops.SparseFrobeniusLoss(xs, in[0], ops.MatMul(in[1], s1))
	}
	rep := gradcheck.Assert(t, f, []*tensor.Dense{a0, a1}, &gradcheck.Options{MaxSkipFraction: maxSkip})
	t.Log(rep)
}
