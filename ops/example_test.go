package ops_test

import (
	"fmt"
	"math"

	"github.com/neuralnmf/neuralnmf/autograd"
	"github.com/neuralnmf/neuralnmf/gradcheck"
	"github.com/neuralnmf/neuralnmf/nnls"
	"github.com/neuralnmf/neuralnmf/ops"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// The semi-supervised term of Neural NMF: B = (Z∘Y)S† is computed inside the
// graph, so the gradient with respect to S includes the path through B.
// (Both numbers agree with numpy.linalg.pinv and central differences.)
func ExamplePinv() {
	t := autograd.NewTape()
	s := t.Param(tensor.MustFromRows([][]float64{{1, 0, 2}, {0, 1, 1}}))
	y := t.Const(tensor.MustFromRows([][]float64{{1, 0, 1}, {0, 1, 0}}))
	z := t.Const(tensor.ColumnMask(2, []bool{true, true, false}))
	zy := ops.Hadamard(z, y)
	b := ops.MatMul(zy, ops.Pinv(s))
	loss := ops.MaskedLoss(z, y, ops.MatMul(b, s))
	g, err := t.Backward(loss)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("loss %.4f, ‖∂L/∂S‖ %.4f\n", loss.Value().Data[0], tensor.Norm(g.Of(s)))
	// Output: loss 0.6944, ‖∂L/∂S‖ 0.5072
}

func ExampleFrobeniusLoss() {
	t := autograd.NewTape()
	x := t.Const(tensor.MustFromRows([][]float64{{1, 2}, {3, 4}}))
	a := t.Param(tensor.MustFromRows([][]float64{{1}, {2}}))
	s := t.Param(tensor.MustFromRows([][]float64{{1, 2}}))
	loss := ops.FrobeniusLoss(x, ops.MatMul(a, s)) // ‖X − AS‖²
	g, _ := t.Backward(loss)
	fmt.Println(loss.Value().Data[0], g.Of(a).Data, g.Of(s).Data)
	// Output: 1 [0 -2] [-4 0]
}

// One layer of Neural NMF trained by the paper's Algorithm 1: S = q(A, X) is
// recomputed by NNLS at every step, and A moves along −∂L/∂A, which flows
// through the NNLS op, then is clamped at zero.
func ExampleNNLS() {
	rng := tensor.NewRand(3)
	x := tensor.Uniform(12, 30, 0, 1, rng)
	a := tensor.Uniform(12, 3, 0, 1, rng)
	t := autograd.NewTape()
	var losses []float64
	for step := 0; step < 50; step++ {
		t.Reset()
		av, xv := t.Param(a), t.Const(x)
		s, _ := ops.NNLS(av, xv, nil)
		loss := ops.FrobeniusLoss(xv, ops.MatMul(av, s))
		g, err := t.Backward(loss)
		if err != nil {
			fmt.Println(err)
			return
		}
		losses = append(losses, loss.Value().Data[0])
		tensor.AddScaled(a, -0.01, g.Of(av))
		tensor.ClampZero(a)
	}
	fmt.Println(losses[len(losses)-1] < losses[0])
	// Output: true
}

// FactorLoss is ‖X − W·H‖² as one op: the same value and gradients as
// FrobeniusLoss(x, MatMul(w, h)) above (worked by hand: the residual is
// [[0, 0], [1, 0]]), without forming W·H when X is large.
func ExampleFactorLoss() {
	t := autograd.NewTape()
	x := t.Const(tensor.MustFromRows([][]float64{{1, 2}, {3, 4}}))
	w := t.Param(tensor.MustFromRows([][]float64{{1}, {2}}))
	h := t.Param(tensor.MustFromRows([][]float64{{1, 2}}))
	loss := ops.FactorLoss(x, w, h)
	g, _ := t.Backward(loss)
	fmt.Println(loss.Value().Data[0], g.Of(w).Data, g.Of(h).Data)
	// Output: 1 [0 -2] [-4 0]
}

// A unary op from a function and its derivative: softplus, checked
// against finite differences.
func ExampleElementwise() {
	softplus := func(t *autograd.Tape, in []*autograd.Var) *autograd.Var {
		y := ops.Elementwise("softplus", in[0],
			func(x float64) float64 { return math.Log1p(math.Exp(x)) },
			func(x, _ float64) float64 { return 1 / (1 + math.Exp(-x)) })
		return ops.Sum(y)
	}
	x := tensor.Uniform(3, 4, -2, 2, tensor.NewRand(1))
	_, err := gradcheck.Check(softplus, []*tensor.Dense{x}, nil)
	fmt.Println("gradcheck:", err)
	// Output: gradcheck: <nil>
}

// The generalised Kullback–Leibler divergence of counts X from a
// factorisation W·H, the usual NMF loss for word counts, with its gradient
// from the tape; SparseKLLoss is the same for a sparse X without forming
// W·H.
func ExampleKLDivergence() {
	tape := autograd.NewTape()
	x := tape.Const(tensor.Uniform(4, 5, 0, 3, tensor.NewRand(1)))
	w := tape.Param(tensor.Uniform(4, 2, 0.1, 1, tensor.NewRand(2)))
	h := tape.Param(tensor.Uniform(2, 5, 0.1, 1, tensor.NewRand(3)))
	loss := ops.KLDivergence(x, ops.MatMul(w, h))
	g, err := tape.Backward(loss)
	if err != nil {
		fmt.Println(err)
		return
	}
	r, c := g.Of(w).Dims()
	fmt.Printf("D(X‖WH) > 0: %v; ∂/∂W is %d×%d\n", loss.Value().Data[0] > 0, r, c)
	// Output: D(X‖WH) > 0: true; ∂/∂W is 4×2
}

// The elastic-net layer zeroes more of S as its ℓ₁ weight grows.
func ExampleNNLSElasticNet() {
	a := tensor.Uniform(12, 4, 0, 1, tensor.NewRand(1))
	x := tensor.Uniform(12, 30, 0, 1, tensor.NewRand(2))
	var zeros []int
	for _, alpha := range []float64{0, 0.5, 2} {
		tape := autograd.NewTape()
		s, _ := ops.NNLSElasticNet(tape.Const(a), tape.Const(x), alpha, 0.9, nil)
		n := 0
		for _, v := range s.Value().Data {
			if v == 0 {
				n++
			}
		}
		zeros = append(zeros, n)
	}
	fmt.Println("more zeros as α grows:", zeros[0] < zeros[1] && zeros[1] < zeros[2])
	// Output: more zeros as α grows: true
}

// The KL layer recovers S exactly when X = A·S (here with a zero entry),
// as the least-squares layer does: both divergences are 0 there.
func ExampleKLLayer() {
	a := tensor.MustFromRows([][]float64{{1, 0}, {1, 1}, {0, 2}})
	s0 := tensor.MustFromRows([][]float64{{1, 0.5}, {2, 0}})
	tape := autograd.NewTape()
	s := ops.KLLayer(tape.Const(a), tape.Const(tensor.MatMul(false, false, a, s0)))
	if err := tape.Err(); err != nil {
		fmt.Println(err)
		return
	}
	for i := range 2 {
		fmt.Printf("%.6f %.6f\n", s.Value().At(i, 0), s.Value().At(i, 1))
	}
	// Output:
	// 1.000000 0.500000
	// 2.000000 0.000000
}

// A two-layer network whose first layer and reconstruction loss share
// their products with X: the loss ‖X − A⁽⁰⁾A⁽¹⁾S⁽¹⁾‖² reads AᵀX from the
// first solve, and its gradient's X·Hᵀ joins the layer's own product in
// the backward pass. Values and gradients are those of NNLS and
// FactorLoss.
func ExampleNNLSData() {
	rng := tensor.NewRand(4)
	x := tensor.MatMul(false, false, tensor.Uniform(30, 4, 0, 1, rng), tensor.Uniform(4, 20, 0, 1, rng))
	data, err := nnls.NewData(x) // checked once, for every epoch
	if err != nil {
		fmt.Println(err)
		return
	}
	a0, a1 := tensor.Uniform(30, 4, 0, 1, rng), tensor.Uniform(4, 2, 0, 1, rng)
	loss := func(fused bool) (float64, float64) {
		t := autograd.NewTape()
		p0, p1 := t.Param(a0), t.Param(a1)
		var l *autograd.Var
		if fused {
			first := ops.NNLSData(p0, data, nil)
			s1, _ := ops.NNLS(p1, first.S, nil)
			l = first.Loss(ops.MatMul(p1, s1))
		} else {
			s0, _ := ops.NNLS(p0, t.Const(x), nil)
			s1, _ := ops.NNLS(p1, s0, nil)
			l = ops.FactorLoss(t.Const(x), p0, ops.MatMul(p1, s1))
		}
		g, err := t.Backward(l)
		if err != nil {
			return math.NaN(), math.NaN()
		}
		return l.Value().Data[0], tensor.Norm(g.Of(p0))
	}
	v0, g0 := loss(false)
	v1, g1 := loss(true)
	fmt.Printf("same loss: %v, same ∂L/∂A⁽⁰⁾: %v\n", math.Abs(v1-v0) <= 1e-12*v0, math.Abs(g1-g0) <= 1e-10*g0)
	// Output: same loss: true, same ∂L/∂A⁽⁰⁾: true
}
