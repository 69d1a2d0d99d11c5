package ops_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/autograd"
	"github.com/neuralnmf/neuralnmf/gradcheck"
	"github.com/neuralnmf/neuralnmf/ops"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// positive returns an r×c matrix with entries in [lo, hi].
func positive(r, c int, lo, hi float64, seed uint64) *tensor.Dense {
	return tensor.Uniform(r, c, lo, hi, tensor.NewRand(seed))
}

// Every element-wise, reduction and broadcast op passes gradcheck on the
// four shape classes, on inputs inside its domain (positive for Log, Sqrt,
// a fractional Pow and the divisor; away from the kinks of Abs and
// ClampMin, where central differences straddle the kink).
func TestElementwiseGradcheck(t *testing.T) {
	type opCase struct {
		name string
		in   func(r, c int) []*tensor.Dense
		f    gradcheck.Func
	}
	pos := func(r, c int) []*tensor.Dense { return []*tensor.Dense{positive(r, c, 0.5, 2, 7)} }
	signed := func(r, c int) []*tensor.Dense {
		a := positive(r, c, 0.2, 1, 8)
		for i := range a.Data {
			if i%2 == 1 {
				a.Data[i] = -a.Data[i]
			}
		}
		return []*tensor.Dense{a}
	}
	unary := func(f func(*autograd.Var) *autograd.Var, seed uint64) gradcheck.Func {
		return func(t *autograd.Tape, in []*autograd.Var) *autograd.Var { return weighted(t, f(in[0]), seed) }
	}
	cases := []opCase{
		{"Log", pos, unary(ops.Log, 1)},
		{"Exp", signed, unary(ops.Exp, 2)},
		{"Sqrt", pos, unary(ops.Sqrt, 3)},
		{"Abs", signed, unary(ops.Abs, 4)},
		{"Pow 2.5", pos, unary(func(a *autograd.Var) *autograd.Var { return ops.Pow(a, 2.5) }, 5)},
		{"Pow -1", pos, unary(func(a *autograd.Var) *autograd.Var { return ops.Pow(a, -1) }, 6)},
		{"AddScalar", signed, unary(func(a *autograd.Var) *autograd.Var { return ops.AddScalar(a, 3) }, 7)},
		{"ClampMin", signed, unary(func(a *autograd.Var) *autograd.Var { return ops.ClampMin(a, 0) }, 8)},
		{"RowSums", signed, unary(ops.RowSums, 9)},
		{"ColSums", signed, unary(ops.ColSums, 10)},
		{"RowMeans", signed, unary(ops.RowMeans, 11)},
		{"ColMeans", signed, unary(ops.ColMeans, 12)},
		{"BroadcastRow of ColSums", signed, unary(func(a *autograd.Var) *autograd.Var { return ops.BroadcastRow(ops.ColSums(a), 4) }, 13)},
		{"BroadcastCol of RowMeans", signed, unary(func(a *autograd.Var) *autograd.Var { return ops.BroadcastCol(ops.RowMeans(a), 3) }, 14)},
		{"Div", func(r, c int) []*tensor.Dense { return []*tensor.Dense{signed(r, c)[0], positive(r, c, 0.5, 2, 9)} },
			func(t *autograd.Tape, in []*autograd.Var) *autograd.Var {
				return weighted(t, ops.Div(in[0], in[1]), 15)
			}},
		{"KLDivergence", func(r, c int) []*tensor.Dense {
			return []*tensor.Dense{positive(r, c, 0.1, 2, 10), positive(r, c, 0.5, 2, 11)}
		},
			func(t *autograd.Tape, in []*autograd.Var) *autograd.Var { return ops.KLDivergence(in[0], in[1]) }},
		{"ItakuraSaito", func(r, c int) []*tensor.Dense {
			return []*tensor.Dense{positive(r, c, 0.1, 2, 12), positive(r, c, 0.5, 2, 13)}
		},
			func(t *autograd.Tape, in []*autograd.Var) *autograd.Var { return ops.ItakuraSaito(in[0], in[1]) }},
	}
	for _, oc := range cases {
		for _, sh := range shapes {
			t.Run(oc.name+"/"+sh.name, func(t *testing.T) {
				gradcheck.Assert(t, oc.f, oc.in(sh.r, sh.c), nil)
			})
		}
	}
}

// The values are the functions': spot checks against the math package and
// hand sums.
func TestElementwiseValues(t *testing.T) {
	tape := autograd.NewTape()
	a := tape.Const(tensor.MustFromRows([][]float64{{1, 4}, {9, 0.25}}))
	require.Equal(t, []float64{0, math.Log(4), math.Log(9), math.Log(0.25)}, ops.Log(a).Value().Data)
	require.Equal(t, []float64{1, 2, 3, 0.5}, ops.Sqrt(a).Value().Data)
	require.Equal(t, []float64{10, 4.25}, ops.ColSums(a).Value().Data)
	require.Equal(t, []float64{2.5, 4.625}, ops.RowMeans(a).Value().Data)
	require.Equal(t, []float64{1, 16, 81, 0.0625}, ops.Pow(a, 2).Value().Data)
	require.Equal(t, []float64{10, 4.25, 10, 4.25, 10, 4.25}, ops.BroadcastRow(ops.ColSums(a), 3).Value().Data)
	x := tape.Const(tensor.MustFromRows([][]float64{{0, 2}}))
	y := tape.Const(tensor.MustFromRows([][]float64{{3, 1}}))
	// 0 → y = 3; 2·log 2 − 2 + 1.
	require.InDelta(t, 3+2*math.Log(2)-1, ops.KLDivergence(x, y).Value().Data[0], 1e-15)
	require.NoError(t, tape.Err())
}

// Outside a domain or with mismatched shapes, the ops record errors that
// name the op and the entry; nothing panics.
func TestElementwiseErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func(t *autograd.Tape) *autograd.Var
		want string
	}{
		{"log of 0", func(t *autograd.Tape) *autograd.Var { return ops.Log(t.Const(tensor.New(2, 2))) }, "ops.Log: entry (0, 0) is 0, outside the function's domain"},
		// Issue 50, item 9: the way out is named, and a derivative that
		// is not finite where a gradient flows is an error, not -Inf.
		{"log of 0's way out", func(t *autograd.Tape) *autograd.Var { return ops.Log(t.Const(tensor.New(2, 2))) }, "use ops.KLDivergence or ops.SparseKLLoss, which take 0·log 0 as 0"},
		{"sqrt's slope at 0", func(t *autograd.Tape) *autograd.Var {
			return ops.Sqrt(t.Param(tensor.MustFromRows([][]float64{{4, 0}})))
		}, "ops.Sqrt: the derivative at entry (0, 1) = 0 is +Inf, and a gradient flows through it"},
		{"a derivative of -Inf", func(t *autograd.Tape) *autograd.Var {
			return ops.Elementwise("cbrt", t.Param(tensor.MustFromRows([][]float64{{0}})), math.Cbrt, func(float64, float64) float64 { return math.Inf(-1) })
		}, "cbrt: the derivative at entry (0, 0) = 0 is -Inf"},
		{"sqrt of -1", func(t *autograd.Tape) *autograd.Var {
			return ops.Sqrt(t.Const(tensor.MustFromRows([][]float64{{1, -1}})))
		}, "ops.Sqrt: entry (0, 1) is -1"},
		{"division by 0", func(t *autograd.Tape) *autograd.Var {
			return ops.Div(t.Const(tensor.MustFromRows([][]float64{{1, 1}})), t.Const(tensor.MustFromRows([][]float64{{1, 0}})))
		}, "ops.Div: entry (0, 1) of the divisor is 0"},
		{"Div shapes", func(t *autograd.Tape) *autograd.Var {
			return ops.Div(t.Const(tensor.New(2, 2)), t.Const(tensor.New(2, 3)))
		}, "shapes differ"},
		{"broadcast a matrix", func(t *autograd.Tape) *autograd.Var { return ops.BroadcastRow(t.Const(tensor.New(2, 2)), 3) }, "want a row (1×c) vector, got 2×2"},
		{"KL with y = 0 under x > 0", func(t *autograd.Tape) *autograd.Var {
			return ops.KLDivergence(t.Const(tensor.MustFromRows([][]float64{{1}})), t.Const(tensor.New(1, 1)))
		}, "y = 0 where x = 1 > 0"},
		{"IS of 0", func(t *autograd.Tape) *autograd.Var {
			return ops.ItakuraSaito(t.Const(tensor.New(1, 1)), t.Const(tensor.MustFromRows([][]float64{{1}})))
		}, "both must be positive"},
	} {
		tape := autograd.NewTape()
		out := tc.f(tape)
		_, err := tape.Backward(ops.Sum(out))
		require.ErrorContains(t, err, tc.want, tc.name)
	}
}

// SparseKLLoss equals KLDivergence(X, W·H) with X dense, in value and in
// both gradients, and passes gradcheck itself.
func TestSparseKLLoss(t *testing.T) {
	rng := tensor.NewRand(21)
	x := tensor.New(9, 12)
	for i := range x.Data {
		if rng.Float64() < 0.3 {
			x.Data[i] = rng.Float64() * 3
		}
	}
	xs := tensor.SparseFromDense(x)
	w, h := positive(9, 3, 0.1, 1, 22), positive(3, 12, 0.1, 1, 23)
	fused := func(t *autograd.Tape, in []*autograd.Var) *autograd.Var { return ops.SparseKLLoss(xs, in[0], in[1]) }
	dense := func(t *autograd.Tape, in []*autograd.Var) *autograd.Var {
		return ops.KLDivergence(t.Const(x), ops.MatMul(in[0], in[1]))
	}
	gradcheck.Assert(t, fused, []*tensor.Dense{w, h}, nil)
	vals := [2]float64{}
	grads := [2][]*tensor.Dense{}
	for i, f := range []gradcheck.Func{fused, dense} {
		tape := autograd.NewTape()
		wv, hv := tape.Param(w), tape.Param(h)
		loss := f(tape, []*autograd.Var{wv, hv})
		g, err := tape.Backward(loss)
		require.NoError(t, err)
		vals[i] = loss.Value().Data[0]
		grads[i] = []*tensor.Dense{g.Of(wv).Clone(), g.Of(hv).Clone()}
	}
	require.InDelta(t, vals[1], vals[0], 1e-12*vals[1])
	for k := range 2 {
		require.InDeltaSlice(t, grads[1][k].Data, grads[0][k].Data, 1e-12)
	}
}

// The elastic-net layer: its S satisfies the penalised problem's KKT
// conditions (Aᵀ(AS − X) + α(ρ + (1−ρ)S) is ≥ 0 where S = 0 and 0 where
// S > 0, to rounding), which the unpenalised S fails; a larger ℓ₁ weight
// makes more zeros; and it passes gradcheck through one, two and three
// stacked layers (three also with the pure ℓ₁ penalty, ρ = 1), on a well-
// and an ill-conditioned A.
func TestNNLSElasticNet(t *testing.T) {
	rng := tensor.NewRand(31)
	a := tensor.Uniform(12, 4, 0, 1, rng)
	x := tensor.Uniform(12, 9, 0, 1, rng)
	solve := func(alpha, rho float64) *tensor.Dense {
		tape := autograd.NewTape()
		s, _ := ops.NNLSElasticNet(tape.Const(a), tape.Const(x), alpha, rho, nil)
		require.NoError(t, tape.Err())
		return s.Value()
	}
	kktOf := func(sv *tensor.Dense, alpha, rho float64) (worst float64, zeros int) {
		r := tensor.MatMul(false, false, a, sv)
		tensor.Sub(r, r, x)
		grad := tensor.MatMul(true, false, a, r) // Aᵀ(AS − X)
		for i := range grad.Data {
			gi := grad.Data[i] + alpha*(rho+(1-rho)*sv.Data[i])
			if sv.Data[i] > 0 {
				worst = math.Max(worst, math.Abs(gi))
			} else {
				zeros++
				worst = math.Max(worst, math.Max(0, -gi))
			}
		}
		return worst, zeros
	}
	kkt := func(alpha, rho float64) (float64, int) { return kktOf(solve(alpha, rho), alpha, rho) }
	for _, rho := range []float64{0.5, 1} { // a wrong support fails the certificate
		sv := solve(0.5, rho)
		for i, v := range sv.Data {
			if v > 0 {
				sv.Data[i] = 0 // drop one entry from the support
				break
			}
		}
		w, _ := kktOf(sv, 0.5, rho)
		require.Greater(t, w, 1e-3, "ρ %g: S with an entry dropped from its support", rho)
	}
	w, z1 := kkt(0.5, 0.5)
	require.Less(t, w, 1e-12, "KKT of the penalised problem")
	w, zl := kkt(0.5, 1) // the pure ℓ₁ penalty (nnls.Options.L1)
	require.Less(t, w, 1e-12, "KKT of the ℓ₁-penalised problem")
	require.GreaterOrEqual(t, zl, z1)
	_, z0 := kkt(0, 0)
	_, z2 := kkt(2, 0.9)
	require.Greater(t, z2, z0, "a heavier ℓ₁ penalty zeroes more of S")
	require.GreaterOrEqual(t, z2, z1)

	// The unpenalised S violates the penalised KKT conditions: the check
	// above is one a wrong solution cannot pass.
	tape := autograd.NewTape()
	s0, _ := ops.NNLS(tape.Const(a), tape.Const(x), nil)
	r := tensor.MatMul(false, false, a, s0.Value())
	tensor.Sub(r, r, x)
	grad := tensor.MatMul(true, false, a, r)
	bad := 0.0
	for i, v := range s0.Value().Data {
		if v > 0 {
			bad = math.Max(bad, math.Abs(grad.Data[i]+0.5*(0.5+0.5*v)))
		}
	}
	require.Greater(t, bad, 1e-3)

	ill := a.Clone()
	for i := 0; i < ill.Rows; i++ {
		ill.Set(i, 3, ill.At(i, 2)*(1+1e-6*float64(i))) // nearly dependent columns
	}
	for _, av := range []*tensor.Dense{a, ill} {
		one := func(t *autograd.Tape, in []*autograd.Var) *autograd.Var {
			s, _ := ops.NNLSElasticNet(in[0], in[1], 0.3, 0.5, nil)
			return weighted(t, s, 41)
		}
		gradcheck.Assert(t, one, []*tensor.Dense{av, x}, nil)
		a2 := tensor.Uniform(4, 2, 0.1, 1, tensor.NewRand(5))
		two := func(t *autograd.Tape, in []*autograd.Var) *autograd.Var {
			s1, _ := ops.NNLSElasticNet(in[0], t.Const(x), 0.3, 0.5, nil)
			s2, _ := ops.NNLSElasticNet(in[1], s1, 0.1, 0.2, nil)
			return weighted(t, s2, 42)
		}
		gradcheck.Assert(t, two, []*tensor.Dense{av, a2}, nil)
		three := func(t *autograd.Tape, in []*autograd.Var) *autograd.Var { // pure ℓ₁, three layers
			s1, _ := ops.NNLSElasticNet(in[0], t.Const(x), 0.05, 1, nil)
			s2, _ := ops.NNLSElasticNet(in[1], s1, 0.02, 1, nil)
			s3, _ := ops.NNLSElasticNet(in[2], s2, 0.01, 1, nil)
			return weighted(t, s3, 43)
		}
		gradcheck.Assert(t, three, []*tensor.Dense{av, a2, tensor.Uniform(2, 1, 0.1, 1, tensor.NewRand(6))}, nil)
		threeMixed := func(t *autograd.Tape, in []*autograd.Var) *autograd.Var { // ρ = 0.5, three layers
			s1, _ := ops.NNLSElasticNet(in[0], t.Const(x), 0.3, 0.5, nil)
			s2, _ := ops.NNLSElasticNet(in[1], s1, 0.1, 0.5, nil)
			s3, _ := ops.NNLSElasticNet(in[2], s2, 0.05, 0.5, nil)
			return weighted(t, s3, 44)
		}
		gradcheck.Assert(t, threeMixed, []*tensor.Dense{av, a2, tensor.Uniform(2, 1, 0.1, 1, tensor.NewRand(6))}, nil)
	}

	for _, bad := range [][2]float64{{-1, 0.5}, {1, 1.5}, {1, -0.1}, {math.NaN(), 0}} {
		tape := autograd.NewTape()
		s, _ := ops.NNLSElasticNet(tape.Const(a), tape.Const(x), bad[0], bad[1], nil)
		_, err := tape.Backward(ops.Sum(s))
		require.Error(t, err, "%v", bad)
	}
}
