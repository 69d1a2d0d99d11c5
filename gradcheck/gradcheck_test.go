package gradcheck_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/autograd"
	"github.com/neuralnmf/neuralnmf/gradcheck"
	"github.com/neuralnmf/neuralnmf/ops"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// square is x∘x with a VJP scaled by factor: factor 2 is right.
func square(factor float64) gradcheck.Func {
	return func(t *autograd.Tape, in []*autograd.Var) *autograd.Var {
		x := in[0].Value()
		out := t.Alloc(x.Rows, x.Cols)
		tensor.Mul(out, x, x)
		v := t.Record("square", out, func(g *tensor.Dense, need []bool) []*tensor.Dense {
			gx := t.Alloc(x.Rows, x.Cols)
			tensor.Mul(gx, g, x)
			tensor.Scale(gx, factor, gx)
			return []*tensor.Dense{gx}
		}, in[0])
		return ops.Sum(v)
	}
}

// absMarked is Σ|x| with each entry's sign marked as a piece.
func absMarked(t *autograd.Tape, in []*autograd.Var) *autograd.Var {
	x := in[0].Value()
	out := t.Alloc(x.Rows, x.Cols)
	for i, v := range x.Data {
		out.Data[i] = math.Abs(v)
		if v < 0 {
			t.MarkPiece(uint64(i) + 1)
		}
	}
	v := t.Record("abs", out, func(g *tensor.Dense, need []bool) []*tensor.Dense {
		gx := t.Alloc(x.Rows, x.Cols)
		for i, v := range x.Data {
			gx.Data[i] = g.Data[i] * math.Copysign(1, v)
		}
		return []*tensor.Dense{gx}
	}, in[0])
	return ops.Sum(v)
}

func TestCheckPassesCorrectGradient(t *testing.T) {
	x := tensor.Uniform(3, 4, -2, 2, tensor.NewRand(1))
	for _, mode := range []gradcheck.Mode{gradcheck.Full, gradcheck.Random} {
		rep, err := gradcheck.Check(square(2), []*tensor.Dense{x}, &gradcheck.Options{Mode: mode, Seed: 3})
		require.NoError(t, err)
		require.True(t, rep.Passed, rep.String())
		want := 12
		if mode == gradcheck.Random {
			want = 8
		}
		require.Equal(t, want, rep.Checked)
		require.Less(t, rep.Worst.Ratio, 0.1, "a correct gradient should be far inside tolerance")
	}
}

func TestCheckCatchesWrongGradient(t *testing.T) {
	x := tensor.Uniform(3, 4, -2, 2, tensor.NewRand(1))
	for _, mode := range []gradcheck.Mode{gradcheck.Full, gradcheck.Random} {
		// 1 % off: the checker must see it.
		rep, err := gradcheck.Check(square(2.02), []*tensor.Dense{x}, &gradcheck.Options{Mode: mode})
		require.NoError(t, err)
		require.False(t, rep.Passed, rep.String())
		require.Greater(t, rep.Failed, 0)
		require.InEpsilon(t, 1.01, rep.Worst.Analytic/rep.Worst.Numeric, 1e-6, rep.String())
	}
}

func TestCheckSkipsKinks(t *testing.T) {
	// Entry 0 sits within a step of the kink at 0; the others are far away.
	x := tensor.MustFromRows([][]float64{{1e-8, 0.5, -0.7, 1.5}})
	rep, err := gradcheck.Check(absMarked, []*tensor.Dense{x}, nil)
	require.NoError(t, err)
	require.True(t, rep.Passed, rep.String())
	require.Equal(t, 1, rep.SkippedPiece)
	require.Equal(t, 3, rep.Checked)

	// Without the piece test the kink's difference is wrong and fails.
	rep, err = gradcheck.Check(absMarked, []*tensor.Dense{x}, &gradcheck.Options{IgnorePieces: true})
	require.NoError(t, err)
	require.False(t, rep.Passed, rep.String())
	require.Equal(t, 0, rep.Worst.Col)
}

func TestAssertFailsWhenMostChecksAreSkipped(t *testing.T) {
	x := tensor.MustFromRows([][]float64{{1e-9, -1e-9, 2}})
	ft := &fakeTB{TB: t}
	gradcheck.Assert(ft, absMarked, []*tensor.Dense{x}, &gradcheck.Options{MaxSkipFraction: 0.5})
	require.True(t, ft.failed, "2 of 3 skipped must fail at MaxSkipFraction 0.5")
}

func TestCheckDomainFailuresAreCounted(t *testing.T) {
	// Sqrt-like op that refuses negative input, evaluated at 0.
	f := func(t *autograd.Tape, in []*autograd.Var) *autograd.Var {
		x := in[0].Value()
		if err := tensor.CheckNonnegative("x", x); err != nil {
			return t.Fail(err)
		}
		return ops.Sum(in[0])
	}
	rep, err := gradcheck.Check(f, []*tensor.Dense{tensor.MustFromRows([][]float64{{0, 1}})}, nil)
	require.NoError(t, err)
	require.Equal(t, 1, rep.SkippedDomain)
	require.Equal(t, 1, rep.Checked)
}

func TestCheckErrors(t *testing.T) {
	_, err := gradcheck.Check(square(2), nil, nil)
	require.Error(t, err)
	_, err = gradcheck.Check(square(2), []*tensor.Dense{tensor.New(0, 3)}, nil)
	require.ErrorIs(t, err, tensor.ErrEmpty)
	_, err = gradcheck.Check(square(2), []*tensor.Dense{tensor.MustFromRows([][]float64{{math.NaN()}})}, nil)
	require.ErrorIs(t, err, tensor.ErrNotFinite)
	nonScalar := func(t *autograd.Tape, in []*autograd.Var) *autograd.Var { return in[0] }
	_, err = gradcheck.Check(nonScalar, []*tensor.Dense{tensor.New(2, 2)}, nil)
	require.ErrorContains(t, err, "want 1×1")
}

type fakeTB struct {
	testing.TB
	failed bool
}

func (f *fakeTB) Helper()               {}
func (f *fakeTB) Error(args ...any)     { f.failed = true }
func (f *fakeTB) Errorf(string, ...any) { f.failed = true }
func (f *fakeTB) Fatal(args ...any)     { f.failed = true }
func (f *fakeTB) Fatalf(string, ...any) { f.failed = true }
