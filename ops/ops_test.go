package ops_test

import (
	"errors"
	"math"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/autograd"
	"github.com/neuralnmf/neuralnmf/gradcheck"
	"github.com/neuralnmf/neuralnmf/ops"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// shapes are the four classes every op is checked on.
var shapes = []struct {
	name string
	r, c int
}{
	{"1x1", 1, 1},
	{"tall", 7, 3},
	{"wide", 3, 6},
	{"square", 5, 5},
}

// weighted turns a matrix-valued output into a scalar with fixed random
// weights, so that every output entry's gradient is exercised with a
// different upstream value.
func weighted(t *autograd.Tape, out *autograd.Var, seed uint64) *autograd.Var {
	r, c := out.Shape()
	w := t.Const(tensor.Uniform(r, c, -1, 1, tensor.NewRand(seed)))
	return ops.Sum(ops.Hadamard(w, out))
}

func randIn(seed uint64, dims ...[2]int) []*tensor.Dense {
	rng := tensor.NewRand(seed)
	var in []*tensor.Dense
	for _, d := range dims {
		in = append(in, tensor.Uniform(d[0], d[1], -1, 1, rng))
	}
	return in
}

func TestOpsGradcheck(t *testing.T) {
	type opCase struct {
		name string
		dims func(r, c int) [][2]int
		f    gradcheck.Func
	}
	cases := []opCase{
		{"MatMul", func(r, c int) [][2]int { return [][2]int{{r, c}, {c, r + 1}} },
			func(t *autograd.Tape, in []*autograd.Var) *autograd.Var {
				return weighted(t, ops.MatMul(in[0], in[1]), 1)
			}},
		{"MatMulTA", func(r, c int) [][2]int { return [][2]int{{r, c}, {r, c + 2}} },
			func(t *autograd.Tape, in []*autograd.Var) *autograd.Var {
				return weighted(t, ops.MatMulTA(in[0], in[1]), 2)
			}},
		{"MatMulTB", func(r, c int) [][2]int { return [][2]int{{r, c}, {r + 2, c}} },
			func(t *autograd.Tape, in []*autograd.Var) *autograd.Var {
				return weighted(t, ops.MatMulTB(in[0], in[1]), 3)
			}},
		{"Add", func(r, c int) [][2]int { return [][2]int{{r, c}, {r, c}} },
			func(t *autograd.Tape, in []*autograd.Var) *autograd.Var { return weighted(t, ops.Add(in[0], in[1]), 4) }},
		{"Sub", func(r, c int) [][2]int { return [][2]int{{r, c}, {r, c}} },
			func(t *autograd.Tape, in []*autograd.Var) *autograd.Var { return weighted(t, ops.Sub(in[0], in[1]), 5) }},
		{"Hadamard", func(r, c int) [][2]int { return [][2]int{{r, c}, {r, c}} },
			func(t *autograd.Tape, in []*autograd.Var) *autograd.Var {
				return weighted(t, ops.Hadamard(in[0], in[1]), 6)
			}},
		{"Scale", func(r, c int) [][2]int { return [][2]int{{r, c}} },
			func(t *autograd.Tape, in []*autograd.Var) *autograd.Var {
				return weighted(t, ops.Scale(in[0], -2.5), 7)
			}},
		{"Transpose", func(r, c int) [][2]int { return [][2]int{{r, c}} },
			func(t *autograd.Tape, in []*autograd.Var) *autograd.Var { return weighted(t, ops.Transpose(in[0]), 8) }},
		{"Sum", func(r, c int) [][2]int { return [][2]int{{r, c}} },
			func(t *autograd.Tape, in []*autograd.Var) *autograd.Var { return ops.Scale(ops.Sum(in[0]), 3) }},
		{"FrobeniusLoss", func(r, c int) [][2]int { return [][2]int{{r, c}, {r, c}} },
			func(t *autograd.Tape, in []*autograd.Var) *autograd.Var { return ops.FrobeniusLoss(in[0], in[1]) }},
		{"MaskedLoss", func(r, c int) [][2]int { return [][2]int{{r, c}, {r, c}, {r, c}} },
			func(t *autograd.Tape, in []*autograd.Var) *autograd.Var { return ops.MaskedLoss(in[0], in[1], in[2]) }},
		{"FactorLoss", func(r, c int) [][2]int { return [][2]int{{r, c}, {r, 2}, {2, c}} },
			func(t *autograd.Tape, in []*autograd.Var) *autograd.Var { return ops.FactorLoss(in[0], in[1], in[2]) }},
		{"Pinv", func(r, c int) [][2]int { return [][2]int{{r, c}} },
			func(t *autograd.Tape, in []*autograd.Var) *autograd.Var { return weighted(t, ops.Pinv(in[0]), 9) }},
		{"SoftmaxCrossEntropy", func(r, c int) [][2]int { return [][2]int{{r, c}} },
			func(t *autograd.Tape, in []*autograd.Var) *autograd.Var {
				r, c := in[0].Shape()
				rng := tensor.NewRand(10)
				y := tensor.Uniform(r, c, 0, 1, rng)
				known := make([]bool, c)
				for m := range known {
					known[m] = m%3 != 1
				}
				return ops.SoftmaxCrossEntropy(in[0], t.Const(y), t.Const(tensor.ColumnMask(r, known)))
			}},
	}
	for _, oc := range cases {
		for _, sh := range shapes {
			t.Run(oc.name+"/"+sh.name, func(t *testing.T) {
				in := randIn(uint64(sh.r*31+sh.c), oc.dims(sh.r, sh.c)...)
				gradcheck.Assert(t, oc.f, in, nil)
			})
		}
	}
}

func TestFanOutAccumulates(t *testing.T) {
	// L = ‖a·a − c‖² uses a twice, and L2 = Sum(a ∘ a) + Sum(a): both paths
	// must add up.
	in := randIn(11, [2]int{4, 4})
	c := tensor.Uniform(4, 4, 0, 1, tensor.NewRand(12))
	gradcheck.Assert(t, func(t *autograd.Tape, v []*autograd.Var) *autograd.Var {
		return ops.FrobeniusLoss(ops.MatMul(v[0], v[0]), t.Const(c))
	}, in, nil)

	tape := autograd.NewTape()
	a := tape.Param(in[0])
	loss := ops.Add(ops.Sum(ops.Hadamard(a, a)), ops.Sum(a))
	g, err := tape.Backward(loss)
	require.NoError(t, err)
	for i, x := range in[0].Data {
		require.InDelta(t, 2*x+1, g.Of(a).Data[i], 1e-15) // exact: 2x + 1
	}
}

func TestTapeReuse(t *testing.T) {
	x := tensor.Uniform(6, 5, 0, 1, tensor.NewRand(13))
	a := tensor.Uniform(6, 2, 0, 1, tensor.NewRand(14))
	s := tensor.Uniform(2, 5, 0, 1, tensor.NewRand(15))
	loss := func(t *autograd.Tape) (*autograd.Var, *autograd.Var, *autograd.Var) {
		av, sv := t.Param(a), t.Param(s)
		return ops.FrobeniusLoss(t.Const(x), ops.MatMul(av, sv)), av, sv
	}
	fresh := func() (*tensor.Dense, *tensor.Dense) {
		tp := autograd.NewTape()
		l, av, sv := loss(tp)
		g, err := tp.Backward(l)
		require.NoError(t, err)
		return g.Of(av).Clone(), g.Of(sv).Clone()
	}
	tape := autograd.NewTape()
	for step := 0; step < 4; step++ {
		wantA, wantS := fresh()
		tape.Reset()
		l, av, sv := loss(tape)
		g, err := tape.Backward(l)
		require.NoError(t, err)
		require.Equal(t, wantA.Data, g.Of(av).Data, "step %d", step)
		require.Equal(t, wantS.Data, g.Of(sv).Data, "step %d", step)
		// A projected gradient step, so each step sees new values.
		tensor.AddScaled(a, -0.01, g.Of(av))
		tensor.ClampZero(a)
	}
}

func TestBackwardNonScalar(t *testing.T) {
	tape := autograd.NewTape()
	a := tape.Param(tensor.New(2, 3))
	_, err := tape.Backward(ops.Scale(a, 2))
	require.ErrorIs(t, err, autograd.ErrNotScalar)
	require.Contains(t, err.Error(), "2×3")
}

func TestShapeMismatchNamesBothShapes(t *testing.T) {
	cases := []struct {
		name string
		f    func(a, b *autograd.Var) *autograd.Var
	}{
		{"MatMul", ops.MatMul},
		{"Add", ops.Add},
		{"FrobeniusLoss", ops.FrobeniusLoss},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tape := autograd.NewTape()
			a := tape.Param(tensor.New(2, 3))
			b := tape.Param(tensor.New(4, 5))
			out := tc.f(a, b)
			// Later ops short-circuit; the first error sticks.
			loss := ops.Sum(out)
			_, err := tape.Backward(loss)
			require.ErrorIs(t, err, tensor.ErrShape)
			require.Contains(t, err.Error(), "2×3")
			require.Contains(t, err.Error(), "4×5")
			require.Contains(t, err.Error(), "ops."+tc.name)
			require.Equal(t, err, tape.Err())
		})
	}
}

func TestBadVJPShapeIsReported(t *testing.T) {
	tape := autograd.NewTape()
	a := tape.Param(tensor.New(2, 3))
	out := tape.Record("broken", tensor.New(1, 1), func(g *tensor.Dense, need []bool) []*tensor.Dense {
		return []*tensor.Dense{tensor.New(3, 2)}
	}, a)
	_, err := tape.Backward(out)
	require.ErrorIs(t, err, tensor.ErrShape)
	require.Contains(t, err.Error(), `"broken"`)
	require.Contains(t, err.Error(), "3×2")
	require.Contains(t, err.Error(), "2×3")
}

func TestNoWorkForConstants(t *testing.T) {
	tape := autograd.NewTape()
	calls := 0
	c := tape.Const(tensor.New(2, 2))
	p := tape.Param(tensor.New(2, 2))
	spy := func(in *autograd.Var) *autograd.Var {
		return tape.Record("spy", in.Value(), func(g *tensor.Dense, need []bool) []*tensor.Dense {
			calls++
			return []*tensor.Dense{g}
		}, in)
	}
	loss := ops.Add(ops.Sum(spy(c)), ops.Sum(spy(p)))
	_, err := tape.Backward(loss)
	require.NoError(t, err)
	require.Equal(t, 1, calls, "the VJP of an op on constants must not run")
	require.False(t, spy(c).RequiresGrad())
}

func TestPinvMatchesDefinition(t *testing.T) {
	type tc struct {
		name string
		a    *tensor.Dense
	}
	var cases []tc
	for _, sh := range shapes {
		cases = append(cases, tc{sh.name, tensor.Uniform(sh.r, sh.c, -1, 1, tensor.NewRand(16))})
	}
	// Long shapes (the classifier's S⁽ᴸ⁾ is k×M) and rank-deficient ones,
	// where singular values at rounding level must be dropped.
	cases = append(cases, tc{"wide-long", tensor.Uniform(4, 300, 0, 1, tensor.NewRand(18))},
		tc{"tall-long", tensor.Uniform(300, 4, 0, 1, tensor.NewRand(19))})
	for _, name := range []string{"rank-2-of-4-wide", "rank-2-of-4-tall"} {
		w, h := tensor.Uniform(4, 2, 0, 1, tensor.NewRand(20)), tensor.Uniform(2, 50, 0, 1, tensor.NewRand(21))
		a := tensor.MatMul(false, false, w, h)
		if name == "rank-2-of-4-tall" {
			a = a.T()
		}
		cases = append(cases, tc{name, a})
	}
	for _, c := range cases {
		a := c.a
		r, cols := a.Rows, a.Cols
		tape := autograd.NewTape()
		x := ops.Pinv(tape.Const(a)).Value()
		require.NoError(t, tape.Err())
		require.Equal(t, [2]int{cols, r}, [2]int{x.Rows, x.Cols}, c.name)
		// The four Penrose conditions: a x a = a, x a x = x, and a x and
		// x a symmetric.
		ax, xa := tensor.MatMul(false, false, a, x), tensor.MatMul(false, false, x, a)
		axa, xax := tensor.MatMul(false, false, ax, a), tensor.MatMul(false, false, xa, x)
		for i := range a.Data {
			require.InDelta(t, a.Data[i], axa.Data[i], 1e-12, c.name)
		}
		for i := range x.Data {
			require.InDelta(t, x.Data[i], xax.Data[i], 1e-10, c.name)
		}
		for _, p := range []*tensor.Dense{ax, xa} {
			for i := 0; i < p.Rows; i++ {
				for j := 0; j < i; j++ {
					require.InDelta(t, p.At(i, j), p.At(j, i), 1e-12, "%s: a·x or x·a not symmetric", c.name)
				}
			}
		}
	}
}

func TestSoftmaxCrossEntropyRejectsNegativeTargets(t *testing.T) {
	tape := autograd.NewTape()
	l := tape.Param(tensor.New(2, 2))
	y := tape.Const(tensor.MustFromRows([][]float64{{1, 0}, {-1, 1}}))
	ops.SoftmaxCrossEntropy(l, y, tape.Const(tensor.New(2, 2)))
	require.True(t, errors.Is(tape.Err(), tensor.ErrNegative), "%v", tape.Err())
}

// Pinv's backward pass keeps every intermediate min(m, n)² in size: for the
// classifier's S⁽ᴸ⁾ (k×M) its memory and time are linear in M. Before, it
// formed two M×M matrices (2·8·M² bytes: 256 MB at M = 4000). The bound here
// is the forward and backward tensors of a k×M problem with a wide margin
// (64 k×M matrices), far below one M×M matrix.
func TestPinvBackwardIsLinearInColumns(t *testing.T) {
	for _, sh := range [][2]int{{4, 4000}, {4000, 4}} {
		a := tensor.Uniform(sh[0], sh[1], 0, 1, tensor.NewRand(17))
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		tape := autograd.NewTape()
		av := tape.Param(a)
		loss := ops.Sum(ops.Pinv(av))
		_, err := tape.Backward(loss)
		require.NoError(t, err)
		runtime.ReadMemStats(&after)
		allocated := after.TotalAlloc - before.TotalAlloc
		require.Less(t, allocated, uint64(64*8*sh[0]*sh[1]), "%v: %d bytes allocated", sh, allocated)
	}
}

// FactorLoss equals FrobeniusLoss(x, MatMul(w, h)) in value and gradients
// (to rounding), and with a constant x it allocates less than half of one
// N×M matrix, where the direct form allocates several.
func TestFactorLossMatchesDirectForm(t *testing.T) {
	const n, k, m = 400, 3, 3000
	rng := tensor.NewRand(21)
	x, w, h := tensor.Uniform(n, m, 0, 1, rng), tensor.Uniform(n, k, 0, 1, rng), tensor.Uniform(k, m, 0, 1, rng)
	run := func(fused bool) (float64, *tensor.Dense, *tensor.Dense, uint64) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		tape := autograd.NewTape()
		xv, wv, hv := tape.Const(x), tape.Param(w), tape.Param(h)
		var loss *autograd.Var
		if fused {
			loss = ops.FactorLoss(xv, wv, hv)
		} else {
			loss = ops.FrobeniusLoss(xv, ops.MatMul(wv, hv))
		}
		g, err := tape.Backward(loss)
		require.NoError(t, err)
		runtime.ReadMemStats(&after)
		return loss.Value().Data[0], g.Of(wv).Clone(), g.Of(hv).Clone(), after.TotalAlloc - before.TotalAlloc
	}
	v0, gw0, gh0, bytes0 := run(false)
	v1, gw1, gh1, bytes1 := run(true)
	require.InEpsilon(t, v0, v1, 1e-12)
	for i := range gw0.Data {
		require.InDelta(t, gw0.Data[i], gw1.Data[i], 1e-10*math.Abs(gw0.Data[i])+1e-9, "∂w %d", i)
	}
	for i := range gh0.Data {
		require.InDelta(t, gh0.Data[i], gh1.Data[i], 1e-10*math.Abs(gh0.Data[i])+1e-9, "∂h %d", i)
	}
	t.Logf("allocated: direct %d bytes, fused %d bytes", bytes0, bytes1)
	require.Less(t, bytes1, uint64(8*n*m/2))
}

// The blocked form of FactorLoss (above its small-size threshold) passes the
// finite-difference check in w and h, and its ∂/∂x is 2(x − w·h).
func TestFactorLossBlockedForm(t *testing.T) {
	const n, m = 200, 200 // 40,000 entries: the blocked form
	rng := tensor.NewRand(22)
	x := tensor.Uniform(n, m, 0, 1, rng)
	w, h := tensor.Uniform(n, 2, 0, 1, rng), tensor.Uniform(2, m, 0, 1, rng)
	gradcheck.Assert(t, func(tape *autograd.Tape, in []*autograd.Var) *autograd.Var {
		return ops.FactorLoss(tape.Const(x), in[0], in[1])
	}, []*tensor.Dense{w, h}, nil)
	tape := autograd.NewTape()
	xv := tape.Param(x)
	g, err := tape.Backward(ops.FactorLoss(xv, tape.Const(w), tape.Const(h)))
	require.NoError(t, err)
	wh := tensor.MatMul(false, false, w, h)
	for i, v := range g.Of(xv).Data {
		require.InDelta(t, 2*(x.Data[i]-wh.Data[i]), v, 1e-13, "∂x %d", i)
	}
}
