package ops_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/autograd"
	"github.com/neuralnmf/neuralnmf/gradcheck"
	"github.com/neuralnmf/neuralnmf/ops"
	"github.com/neuralnmf/neuralnmf/tensor"
)

func klLayer(t *testing.T, a, x *tensor.Dense) *tensor.Dense {
	tape := autograd.NewTape()
	s := ops.KLLayer(tape.Const(a), tape.Const(x))
	require.NoError(t, tape.Err())
	return s.Value()
}

// The backward pass is the implicit-differentiation formula: gradcheck
// through 1, 2 and 3 stacked KL layers, with the loss on the last layer's
// reconstruction (a KL divergence, as KL Neural NMF trains).
func TestStackedKLLayerGradcheck(t *testing.T) {
	for _, rk := range [][]int{{5}, {5, 3}, {5, 3, 2}} {
		t.Run(fmt.Sprintf("layers=%d", len(rk)), func(t *testing.T) {
			rng := tensor.NewRand(uint64(11 + len(rk)))
			const n, m = 14, 10
			in := []*tensor.Dense{tensor.Uniform(n, m, 0.1, 1, rng)}
			prev := n
			for _, k := range rk {
				in = append(in, tensor.Uniform(prev, k, 0.1, 1, rng))
				prev = k
			}
			f := func(t *autograd.Tape, v []*autograd.Var) *autograd.Var {
				x, as := v[0], v[1:]
				s := x
				for _, a := range as {
					s = ops.KLLayer(a, s)
				}
				rec := s
				for l := len(as) - 1; l >= 0; l-- {
					rec = ops.MatMul(as[l], rec)
				}
				return ops.KLDivergence(x, rec)
			}
			rep := gradcheck.Assert(t, f, in, &gradcheck.Options{MaxSkipFraction: 0.5})
			t.Log(rep)
		})
	}
}

func TestKLLayerErrors(t *testing.T) {
	tape := autograd.NewTape()
	a := tensor.MustFromRows([][]float64{{1, 0}, {0, 0}, {1, 1}})
	x := tensor.MustFromRows([][]float64{{1}, {2}, {1}})
	s := ops.KLLayer(tape.Const(a), tape.Const(x))
	_, err := tape.Backward(ops.Sum(s))
	require.ErrorContains(t, err, "positive in row 1, where A is zero")
	tape = autograd.NewTape()
	s = ops.KLLayer(tape.Const(tensor.MustFromRows([][]float64{{-1}})), tape.Const(x.Clone()))
	_, err = tape.Backward(ops.Sum(s))
	require.Error(t, err)
}

// Where the minimiser is not unique (A's two columns agree on the one row
// where x > 0, and their sums are equal) the layer returns a basic one,
// one entry positive, certified, and its backward pass is defined.
func TestKLLayerBasicMinimiser(t *testing.T) {
	a := tensor.MustFromRows([][]float64{{1, 1}, {1, 1}})
	x := tensor.MustFromRows([][]float64{{1}, {0}})
	tape := autograd.NewTape()
	av := tape.Param(a)
	s := ops.KLLayer(av, tape.Const(x))
	g, err := tape.Backward(ops.Sum(s))
	require.NoError(t, err)
	sv := s.Value()
	require.InDelta(t, 0.5, sv.Data[0]+sv.Data[1], 1e-15, "s₁ + s₂ = 1/2 minimises 2(s₁+s₂) − log(s₁+s₂)")
	require.True(t, sv.Data[0] == 0 || sv.Data[1] == 0, "basic: one entry is 0, got %v", sv.Data)
	for _, v := range g.Of(av).Data {
		require.False(t, math.IsNaN(v) || math.IsInf(v, 0))
	}
}

// On an ill-conditioned A (two columns 1e-3 apart) the backward pass still
// matches finite differences, at a step of 1e-8 and a relative tolerance of
// 1e-4: rounding in the differences grows as the conditioning worsens.
func TestKLLayerGradcheckIllConditioned(t *testing.T) {
	rng := tensor.NewRand(21)
	a := tensor.Uniform(16, 4, 0.1, 1, rng)
	for i := range a.Rows {
		a.Set(i, 3, a.At(i, 2)*(1+1e-3*float64(1+i%4)))
	}
	x := tensor.MatMul(false, false, a, tensor.Uniform(4, 9, 0.2, 1, rng))
	tensor.AddScaled(x, 1, tensor.Uniform(16, 9, 0, 0.3, rng)) // off the model, so L > 0
	f := func(t *autograd.Tape, v []*autograd.Var) *autograd.Var {
		s := ops.KLLayer(v[1], v[0])
		return ops.KLDivergence(v[0], ops.MatMul(v[1], s))
	}
	rep := gradcheck.Assert(t, f, []*tensor.Dense{x, a}, &gradcheck.Options{MaxSkipFraction: 0.5, Step: 1e-8, RelTol: 1e-4})
	t.Log(rep)
}

// KLLayerSparse solves the same problems as KLLayer from X's non-zeros,
// and its gradient in A (with the sparse KL loss on top) matches finite
// differences.
func TestKLLayerSparse(t *testing.T) {
	rng := tensor.NewRand(31)
	xd := tensor.Uniform(20, 12, 0, 1, rng)
	for i := range xd.Data {
		if i%3 != 0 {
			xd.Data[i] = 0
		}
	}
	xs := tensor.SparseFromDense(xd)
	a := tensor.Uniform(20, 4, 0.1, 1, rng)
	dense := klLayer(t, a, xd)
	tape := autograd.NewTape()
	sp := ops.KLLayerSparse(tape.Const(a), xs)
	require.NoError(t, tape.Err())
	for i := range dense.Data {
		require.InDelta(t, dense.Data[i], sp.Value().Data[i], 1e-12)
	}
	f := func(t *autograd.Tape, v []*autograd.Var) *autograd.Var {
		return ops.SparseKLLoss(xs, v[0], ops.KLLayerSparse(v[0], xs))
	}
	rep := gradcheck.Assert(t, f, []*tensor.Dense{a}, &gradcheck.Options{MaxSkipFraction: 0.5})
	t.Log(rep)
}

// KLLayerFrom certifies the same minimiser from any start: the cold
// solution itself, a perturbed one, a start of zeros (A·s = 0: the column
// starts cold) and one of the wrong shape (ignored); KLLayerSparseFrom
// likewise; and its backward pass is KLLayer's (gradcheck).
func TestKLLayerFrom(t *testing.T) {
	rng := tensor.NewRand(51)
	x := tensor.Uniform(25, 14, 0, 1, rng)
	for i := range x.Data {
		if i%4 == 1 {
			x.Data[i] = 0
		}
	}
	a := tensor.Uniform(25, 5, 0.1, 1, rng)
	cold := klLayer(t, a, x)
	moved := cold.Clone()
	for i := range moved.Data {
		moved.Data[i] *= 1 + 0.3*rng.Float64()
	}
	for name, start := range map[string]*tensor.Dense{
		"the solution": cold, "perturbed": moved, "zeros": tensor.New(5, 14), "wrong shape": tensor.New(3, 3),
	} {
		tape := autograd.NewTape()
		s := ops.KLLayerFrom(tape.Const(a), tape.Const(x), start)
		require.NoError(t, tape.Err(), name)
		for i, v := range cold.Data {
			require.InDelta(t, v, s.Value().Data[i], 1e-9*(1+v), "%s: entry %d", name, i)
		}
		sp := ops.KLLayerSparseFrom(tape.Const(a), tensor.SparseFromDense(x), start)
		require.NoError(t, tape.Err(), name)
		for i, v := range cold.Data {
			require.InDelta(t, v, sp.Value().Data[i], 1e-9*(1+v), "%s, sparse: entry %d", name, i)
		}
	}
	f := func(t *autograd.Tape, v []*autograd.Var) *autograd.Var {
		return ops.KLDivergence(t.Const(x), ops.MatMul(v[0], ops.KLLayerFrom(v[0], t.Const(x), moved)))
	}
	rep := gradcheck.Assert(t, f, []*tensor.Dense{a}, &gradcheck.Options{MaxSkipFraction: maxSkip})
	t.Log(rep)
}
