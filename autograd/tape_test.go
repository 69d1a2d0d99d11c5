package autograd_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/autograd"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// sum records Σ x as a 1×1 variable; its VJP allocates a fresh gradient.
func sum(t *autograd.Tape, x *autograd.Var) *autograd.Var {
	out := t.Alloc(1, 1)
	out.Data[0] = tensor.Sum(x.Value())
	return t.Record("sum", out, func(g *tensor.Dense, _ []bool) []*tensor.Dense {
		gx := t.Alloc(x.Value().Rows, x.Value().Cols)
		gx.Fill(g.Data[0])
		return []*tensor.Dense{gx}
	}, x)
}

// pair records a + b; its VJP returns one fresh matrix for both inputs.
func pair(t *autograd.Tape, a, b *autograd.Var) *autograd.Var {
	out := t.Alloc(a.Value().Rows, a.Value().Cols)
	tensor.Add(out, a.Value(), b.Value())
	return t.Record("pair", out, func(g *tensor.Dense, _ []bool) []*tensor.Dense {
		shared := t.Alloc(g.Rows, g.Cols)
		shared.Copy(g)
		return []*tensor.Dense{shared, shared}
	}, a, b)
}

// pass records a copy of x; its VJP returns the upstream gradient itself.
func pass(t *autograd.Tape, x *autograd.Var) *autograd.Var {
	out := t.Alloc(x.Value().Rows, x.Value().Cols)
	out.Copy(x.Value())
	return t.Record("pass", out, func(g *tensor.Dense, _ []bool) []*tensor.Dense {
		return []*tensor.Dense{g}
	}, x)
}

// add3 records the sum of three 1×1 variables; its VJP returns the
// upstream gradient three times.
func add3(t *autograd.Tape, x, y, z *autograd.Var) *autograd.Var {
	out := t.Alloc(1, 1)
	out.Data[0] = x.Value().Data[0] + y.Value().Data[0] + z.Value().Data[0]
	return t.Record("add3", out, func(g *tensor.Dense, _ []bool) []*tensor.Dense {
		return []*tensor.Dense{g, g, g}
	}, x, y, z)
}

// Backward keeps a gradient a VJP allocated instead of copying it, but
// never lets two variables share one: here a's first gradient is the
// matrix pair's VJP also returns for b, and a then receives two more
// gradients (pass's upstream matrix and sum's fresh one), which must not
// reach b. Also across two steps on one tape, the recycled arena gives the
// same gradients.
func TestBackwardFreshGradients(t *testing.T) {
	tape := autograd.NewTape()
	for step := range 2 {
		tape.Reset()
		a := tape.Param(tensor.New(2, 3))
		b := tape.Param(tensor.New(2, 3))
		s3 := sum(tape, a)
		s2 := sum(tape, pass(tape, a))
		s1 := sum(tape, pair(tape, a, b))
		g, err := tape.Backward(add3(tape, s1, s2, s3))
		require.NoError(t, err)
		for i := range 6 {
			require.Equal(t, 3.0, g.Of(a).Data[i], "step %d: ∂/∂a", step)
			require.Equal(t, 1.0, g.Of(b).Data[i], "step %d: ∂/∂b", step)
		}
		require.NotSame(t, &g.Of(a).Data[0], &g.Of(b).Data[0])
	}
}

// Reached tells a variable the loss ignores from one it reads, even where
// the gradient of the latter is zero.
func TestGradsReached(t *testing.T) {
	tape := autograd.NewTape()
	a := tape.Param(tensor.New(2, 2))
	b := tape.Param(tensor.New(2, 2))
	zero := tape.Record("times zero", tape.Alloc(2, 2), func(g *tensor.Dense, _ []bool) []*tensor.Dense {
		return []*tensor.Dense{tape.Alloc(2, 2)} // ∂(0·a)/∂a = 0
	}, a)
	g, err := tape.Backward(sum(tape, zero))
	require.NoError(t, err)
	require.True(t, g.Reached(a))
	require.Equal(t, make([]float64, 4), g.Of(a).Data)
	require.False(t, g.Reached(b))
}
