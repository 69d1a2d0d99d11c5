package ops_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/autograd"
	"github.com/neuralnmf/neuralnmf/gradcheck"
	"github.com/neuralnmf/neuralnmf/nnls"
	"github.com/neuralnmf/neuralnmf/ops"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// maxSkip is the largest share of finite differences allowed to cross a
// support change. At random points with steps of 1e-6 crossings are rare;
// the tests log the real share.
const maxSkip = 0.05

func TestNNLSGradcheck(t *testing.T) {
	for _, sh := range []struct{ n, k, m int }{{1, 1, 1}, {12, 5, 7}, {6, 6, 9}, {20, 3, 2}} {
		t.Run(fmt.Sprintf("%dx%dx%d", sh.n, sh.k, sh.m), func(t *testing.T) {
			rng := tensor.NewRand(uint64(sh.n*100 + sh.k*10 + sh.m))
			a := tensor.Uniform(sh.n, sh.k, 0.1, 1, rng)
			x := tensor.Uniform(sh.n, sh.m, 0.1, 1, rng)
			if sh.k > 1 {
				requirePartialSupport(t, a, x)
			}
			f := func(t *autograd.Tape, in []*autograd.Var) *autograd.Var {
				s, _ := ops.NNLS(in[0], in[1], nil)
				return weighted(t, s, 21)
			}
			rep := gradcheck.Assert(t, f, []*tensor.Dense{a, x}, &gradcheck.Options{MaxSkipFraction: maxSkip})
			t.Log(rep)
		})
	}
}

// layers builds S⁽⁰⁾ = q(A⁽⁰⁾, X), S⁽ˡ⁾ = q(A⁽ˡ⁾, S⁽ˡ⁻¹⁾) from in = X, A⁽⁰⁾, …
func layers(in []*autograd.Var) []*autograd.Var {
	var s []*autograd.Var
	prev := in[0]
	for _, a := range in[1:] {
		next, _ := ops.NNLS(a, prev, nil)
		s = append(s, next)
		prev = next
	}
	return s
}

// The paper's backpropagation theorem (full_backprop), checked against finite
// differences through 1, 2 and 3 stacked NNLS layers, with the loss on the
// last layer only and on every layer.
func TestStackedNNLSGradcheck(t *testing.T) {
	ranks := [][]int{{6}, {6, 4}, {6, 4, 2}}
	const n, m = 15, 12
	for _, rk := range ranks {
		for _, loss := range []string{"last", "every"} {
			t.Run(fmt.Sprintf("layers=%d/loss=%s", len(rk), loss), func(t *testing.T) {
				rng := tensor.NewRand(uint64(len(rk)*7 + len(loss)))
				in := []*tensor.Dense{tensor.Uniform(n, m, 0.1, 1, rng)}
				prev := n
				for _, k := range rk {
					in = append(in, tensor.Uniform(prev, k, 0.1, 1, rng))
					prev = k
				}
				prevS := in[0]
				for _, a := range in[1:] { // every layer's support must be partial
					prevS = requirePartialSupport(t, a, prevS)
				}
				f := func(t *autograd.Tape, v []*autograd.Var) *autograd.Var {
					s := layers(v)
					x, as := v[0], v[1:]
					if loss == "last" { // ‖X − A⁽⁰⁾⋯A⁽ᴸ⁾S⁽ᴸ⁾‖²
						rec := s[len(s)-1]
						for l := len(as) - 1; l >= 0; l-- {
							rec = ops.MatMul(as[l], rec)
						}
						return ops.FrobeniusLoss(x, rec)
					}
					// ‖X − A⁽⁰⁾S⁽⁰⁾‖² + Σ ‖S⁽ˡ⁻¹⁾ − A⁽ˡ⁾S⁽ˡ⁾‖²
					total := ops.FrobeniusLoss(x, ops.MatMul(as[0], s[0]))
					for l := 1; l < len(as); l++ {
						total = ops.Add(total, ops.FrobeniusLoss(s[l-1], ops.MatMul(as[l], s[l])))
					}
					return total
				}
				rep := gradcheck.Assert(t, f, in, &gradcheck.Options{MaxSkipFraction: maxSkip})
				t.Log(rep)
			})
		}
	}
}

func TestNNLSOpErrors(t *testing.T) {
	tape := autograd.NewTape()
	a := tape.Param(tensor.MustFromRows([][]float64{{1, 0}, {0, math.Inf(1)}, {1, 1}}))
	x := tape.Const(tensor.Uniform(3, 4, 0, 1, tensor.NewRand(1)))
	s, res := ops.NNLS(a, x, nil)
	require.Nil(t, res)
	_, err := tape.Backward(ops.Sum(s))
	require.ErrorIs(t, err, tensor.ErrNotFinite)
	require.Contains(t, err.Error(), "ops.NNLS: nnls: A: not finite: entry (1, 1)")
}

// The theorem holds off the nonnegative orthant and for k > N too (it only
// needs the support columns to be independent, which Solve guarantees), and
// the backward pass must stay accurate when A is ill-conditioned: gradcheck
// on signed data, on k > N, and on A whose unit-scaled columns have
// condition ≈ 10³ (where the Gram path, with refinement, is used) and
// ≈ 10⁷ (where every column goes through Lawson–Hanson on R and the
// backward pass through QR of R_T). There the columns of A differ by 10⁻⁶,
// so a step of the default 10⁻⁶ changes the support in a third of the checks
// (they are skipped as kinks); the step is 10⁻⁹ and the relative tolerance
// 10⁻⁴, since rounding in the differences grows as the step shrinks.
func TestNNLSGradcheckDomain(t *testing.T) {
	gauss := func(r, c int, rng *rand.Rand) *tensor.Dense {
		d := tensor.New(r, c)
		for i := range d.Data {
			d.Data[i] = rng.NormFloat64()
		}
		return d
	}
	nearlyCollinear := func(n, k int, delta float64, rng *rand.Rand) *tensor.Dense {
		w := tensor.Uniform(n, 1, 0.5, 1, rng)
		a := tensor.Uniform(n, k, 0, 1, rng)
		for r := 0; r < n; r++ {
			for j := 0; j < k; j++ {
				a.Set(r, j, w.At(r, 0)+delta*a.At(r, j))
			}
		}
		return a
	}
	cases := []struct {
		name  string
		a, x  func(rng *rand.Rand) *tensor.Dense
		step  float64
		rel   float64
		rcond [2]float64 // the range RCond must fall in
	}{
		{"signed", func(rng *rand.Rand) *tensor.Dense { return gauss(12, 5, rng) }, func(rng *rand.Rand) *tensor.Dense { return gauss(12, 7, rng) }, 0, 0, [2]float64{1e-3, 1}},
		{"k>N", func(rng *rand.Rand) *tensor.Dense { return gauss(4, 6, rng) }, func(rng *rand.Rand) *tensor.Dense { return gauss(4, 5, rng) }, 0, 0, [2]float64{0, 0}},
		{"cond-1e3", func(rng *rand.Rand) *tensor.Dense { return nearlyCollinear(15, 5, 3e-3, rng) }, func(rng *rand.Rand) *tensor.Dense { return tensor.Uniform(15, 8, 0, 1, rng) }, 0, 0, [2]float64{1e-6, 1e-2}},
		{"cond-1e7", func(rng *rand.Rand) *tensor.Dense { return nearlyCollinear(15, 4, 1e-6, rng) }, func(rng *rand.Rand) *tensor.Dense { return tensor.Uniform(15, 8, 0, 1, rng) }, 1e-9, 1e-4, [2]float64{1e-9, 1e-6}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(i), 5))
			a, x := tc.a(rng), tc.x(rng)
			res, err := nnls.Solve(a, x, nil)
			require.NoError(t, err)
			rc := res.Factor.RCond()
			require.True(t, rc >= tc.rcond[0] && rc <= tc.rcond[1], "RCond %.3g outside %v", rc, tc.rcond)
			requirePartialSupport(t, a, x)
			f := func(t *autograd.Tape, in []*autograd.Var) *autograd.Var {
				s, _ := ops.NNLS(in[0], in[1], nil)
				return weighted(t, s, 21)
			}
			rep := gradcheck.Assert(t, f, []*tensor.Dense{a, x}, &gradcheck.Options{MaxSkipFraction: maxSkip, Step: tc.step, RelTol: tc.rel})
			t.Logf("RCond %.2g, %+v; %v", rc, res.Stats, rep)
		})
	}
}

func TestNNLSWarmStartThroughOp(t *testing.T) {
	rng := tensor.NewRand(3)
	a := tensor.Uniform(30, 5, 0, 1, rng)
	x := tensor.Uniform(30, 40, 0, 1, rng)
	tape := autograd.NewTape()
	_, r1 := ops.NNLS(tape.Const(a), tape.Const(x), nil)
	require.NotNil(t, r1)
	tape.Reset()
	_, r2 := ops.NNLS(tape.Const(a), tape.Const(x), &nnls.Options{Warm: r1.Support})
	require.Equal(t, 40, r2.Stats.Iterations)
}

// requirePartialSupport fails unless q(a, x) has both zero and positive
// entries, so that the support restriction of the backward pass is really
// exercised (with a full support q is plain least squares). It returns q(a, x).
func requirePartialSupport(t *testing.T, a, x *tensor.Dense) *tensor.Dense {
	t.Helper()
	res, err := nnls.Solve(a, x, nil)
	require.NoError(t, err)
	zeros := 0
	for _, v := range res.S.Data {
		if v == 0 {
			zeros++
		}
	}
	require.Greater(t, zeros, 0, "test point has a full support")
	require.Less(t, zeros, len(res.S.Data), "test point has an empty support")
	t.Logf("support density %.2f", 1-float64(zeros)/float64(len(res.S.Data)))
	return res.S
}
