package ops_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/autograd"
	"github.com/neuralnmf/neuralnmf/datasets/synthetic"
	"github.com/neuralnmf/neuralnmf/gradcheck"
	"github.com/neuralnmf/neuralnmf/models/ssnmf"
	"github.com/neuralnmf/neuralnmf/ops"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// klResidual is the KL layer's optimality residual, recomputed here from
// the definition: g = Aᵀ(1 − x/y) over all rows (x/y = 0 where x = 0);
// |g| where s > 0, max(0, −g) where s = 0; relative to max Aᵀ1.
func klResidual(a, x, s *tensor.Dense) float64 {
	y := tensor.MatMul(false, false, a, s)
	q := tensor.New(x.Rows, x.Cols)
	for i := range q.Data {
		if x.Data[i] > 0 {
			q.Data[i] = x.Data[i] / y.Data[i]
		}
	}
	ones := tensor.New(x.Rows, x.Cols)
	ones.Fill(1)
	g := tensor.MatMul(true, false, a, ones)
	tensor.AddScaled(g, -1, tensor.MatMul(true, false, a, q))
	scale := 0.0
	for i := range a.Cols {
		sum := 0.0
		for r := range a.Rows {
			sum += a.At(r, i)
		}
		scale = math.Max(scale, sum)
	}
	worst := 0.0
	for i, v := range s.Data {
		if v > 0 {
			worst = math.Max(worst, math.Abs(g.Data[i]))
		} else {
			worst = math.Max(worst, -g.Data[i])
		}
	}
	return worst / scale
}

func klLayer(t *testing.T, a, x *tensor.Dense) *tensor.Dense {
	tape := autograd.NewTape()
	s := ops.KLLayer(tape.Const(a), tape.Const(x))
	require.NoError(t, tape.Err())
	return s.Value()
}

// The KL layer's S satisfies the optimality conditions of min D(X‖A·S)
// over S ≥ 0 to 1e-10, on data with zeros, with a sparse solution, and on
// ill-conditioned A; and the residual check rejects S moved off the optimum
// (one entry scaled by 1 + 1e-4).
func TestKLLayerCertificate(t *testing.T) {
	rng := tensor.NewRand(3)
	for _, tc := range []struct {
		name string
		a, x *tensor.Dense
	}{
		{"dense", tensor.Uniform(30, 5, 0.1, 1, rng), tensor.Uniform(30, 20, 0, 1, rng)},
		{"exact", nil, nil},
		{"ill-conditioned", nil, tensor.Uniform(25, 15, 0, 1, rng)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, x := tc.a, tc.x
			switch tc.name {
			case "exact": // X = A·S₀ with S₀ sparse: S = S₀
				a = tensor.Uniform(30, 5, 0, 1, rng)
				s0 := tensor.Uniform(5, 20, 0, 1, rng)
				for i := range s0.Data {
					if i%3 == 0 {
						s0.Data[i] = 0
					}
				}
				x = tensor.MatMul(false, false, a, s0)
				s := klLayer(t, a, x)
				for i := range s.Data {
					require.InDelta(t, s0.Data[i], s.Data[i], 1e-8)
				}
			case "ill-conditioned": // two columns 1e-4 apart
				a = tensor.Uniform(25, 4, 0.1, 1, rng)
				for i := range a.Rows {
					a.Set(i, 3, a.At(i, 2)*(1+1e-4*float64(i%3)))
				}
			}
			for i := range x.Data {
				if i%7 == 0 {
					x.Data[i] = 0
				}
			}
			s := klLayer(t, a, x)
			require.Less(t, klResidual(a, x, s), 1e-10)
			moved := s.Clone()
			for i, v := range moved.Data {
				if v > 0 {
					moved.Data[i] = v * (1 + 1e-4)
					break
				}
			}
			require.Greater(t, klResidual(a, x, moved), 1e-9, "a scaled entry fails the check")
		})
	}
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
	require.Less(t, klResidual(a, x, sv), 1e-12)
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

// Text-like data: a tall A (2,000 words), columns with one to a few dozen
// small positive entries, so S's entries are about 1e-4. Every column is
// solved and certified. (With an absolute threshold of 1e-3 for the
// entries held at 0, as a first version had, every entry counted as at 0
// and the solve failed.)
func TestKLLayerSparseTextLike(t *testing.T) {
	rng := tensor.NewRand(41)
	const n, m, k = 2000, 60, 8
	var es []tensor.Entry
	for j := range m {
		for range 1 + j%40 {
			es = append(es, tensor.Entry{Row: rng.IntN(n), Col: j, Val: 0.05 + 0.3*rng.Float64()})
		}
	}
	x, err := tensor.NewSparse(n, m, es)
	require.NoError(t, err)
	a := tensor.Uniform(n, k, 0, 1, rng)
	tape := autograd.NewTape()
	s := ops.KLLayerSparse(tape.Const(a), x)
	require.NoError(t, tape.Err())
	require.Less(t, klResidual(a, x.Dense(), s.Value()), 1e-10)
}

// SolveKL and SolveKLSparse are the layer's forward pass off the tape;
// they refuse bad input with an error naming it.
func TestSolveKL(t *testing.T) {
	rng := tensor.NewRand(51)
	a := tensor.Uniform(15, 3, 0.1, 1, rng)
	x := tensor.Uniform(15, 6, 0, 1, rng)
	s, err := ops.SolveKL(a, x)
	require.NoError(t, err)
	require.Equal(t, klLayer(t, a, x).Data, s.Data)
	sp, err := ops.SolveKLSparse(a, tensor.SparseFromDense(x))
	require.NoError(t, err)
	require.InDeltaSlice(t, s.Data, sp.Data, 1e-12)
	_, err = ops.SolveKL(a, tensor.New(14, 6))
	require.ErrorIs(t, err, tensor.ErrShape)
	bad := x.Clone()
	bad.Set(2, 3, -1)
	_, err = ops.SolveKL(a, bad)
	require.ErrorContains(t, err, "X")
}

// A badly scaled A, as a multiplicative-update start leaves it (entries
// down to 1e-78 on rows where x > 0: here the paper's synthetic matrix and
// an HNMF start of seven restarts), is solved and certified in every column
// of both layers. (On the start a Neural NMF fit computes for this matrix,
// Newton's line search failed in the first layer until the solve fell back
// on multiplicative updates; this start does not reach that fallback.)
func TestKLLayerBadlyScaledA(t *testing.T) {
	x := synthetic.X()
	h, err := ssnmf.HNMF(x, []int{9, 4}, nil, &ssnmf.Options{Seed: 1, Restarts: 7})
	require.NoError(t, err)
	in := x
	for l, a := range h.A {
		s := klLayer(t, a, in)
		require.Less(t, klResidual(a, in, s), 1e-10, "layer %d", l+1)
		in = s
	}
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
		require.Less(t, klResidual(a, x, s.Value()), 1e-10, name)
		for i, v := range cold.Data {
			require.InDelta(t, v, s.Value().Data[i], 1e-9*(1+v), "%s: entry %d", name, i)
		}
		sp := ops.KLLayerSparseFrom(tape.Const(a), tensor.SparseFromDense(x), start)
		require.NoError(t, tape.Err(), name)
		require.Less(t, klResidual(a, x, sp.Value()), 1e-10, name)
	}
	f := func(t *autograd.Tape, v []*autograd.Var) *autograd.Var {
		return ops.KLDivergence(t.Const(x), ops.MatMul(v[0], ops.KLLayerFrom(v[0], t.Const(x), moved)))
	}
	rep := gradcheck.Assert(t, f, []*tensor.Dense{a}, &gradcheck.Options{MaxSkipFraction: maxSkip})
	t.Log(rep)
}
