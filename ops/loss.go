package ops

import (
	"fmt"
	"math"

	"github.com/neuralnmf/neuralnmf/autograd"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// FrobeniusLoss returns the 1×1 squared Frobenius distance ‖x − y‖²_F. x and
// y must have the same shape. Its gradients are 2(x − y) and −2(x − y).
func FrobeniusLoss(x, y *autograd.Var) *autograd.Var {
	const op = "ops.FrobeniusLoss"
	t, ok := elementwise2(op, x, y)
	if !ok {
		return t.Failed()
	}
	diff := t.Alloc(x.Shape())
	tensor.Sub(diff, x.Value(), y.Value())
	out := t.Alloc(1, 1)
	out.Data[0] = tensor.SqNorm(diff)
	return t.Record(op, out, func(g *tensor.Dense, need []bool) []*tensor.Dense {
		s := 2 * g.Data[0]
		var gx, gy *tensor.Dense
		if need[0] {
			gx = t.Alloc(diff.Rows, diff.Cols)
			tensor.Scale(gx, s, diff)
		}
		if need[1] {
			gy = t.Alloc(diff.Rows, diff.Cols)
			tensor.Scale(gy, -s, diff)
		}
		return []*tensor.Dense{gx, gy}
	}, x, y)
}

// factorLossSmall is the number of entries of x (256 KB) up to which
// FactorLoss forms the residual matrix.
const factorLossSmall = 1 << 15

// FactorLoss returns the 1×1 loss ‖x − w·h‖²_F for x (N×M), w (N×k) and
// h (k×M): FrobeniusLoss(x, MatMul(w, h)) without its N×M intermediates. The
// value is tensor.SqDist (W·H formed a block of rows at a time, so it is as
// accurate as the direct form); the gradients are
//
//	∂/∂w = 2(w·(h·hᵀ) − x·hᵀ),  ∂/∂h = 2((wᵀ·w)·h − wᵀ·x),
//
// products whose rounding is that of the direct 2(w·h − x)·hᵀ and
// 2·wᵀ(w·h − x). So when x needs no gradient (data) the op allocates only
// k×k, N×k and k×M matrices, and reads x three times instead of writing and
// reading several N×M ones. If x requires a gradient, ∂/∂x = 2(x − w·h) is
// formed. Below factorLossSmall entries of x the op forms the residual
// w·h − x once instead (one N×M matrix that fits in cache, three products):
// the same values to rounding, fewer calls. Shapes must agree; otherwise the
// tape records an error.
func FactorLoss(x, w, h *autograd.Var) *autograd.Var {
	const op = "ops.FactorLoss"
	t := autograd.TapeOf(op, x, w, h)
	if t.Err() != nil {
		return t.Failed()
	}
	xv, wv, hv := x.Value(), w.Value(), h.Value()
	if wv.Rows != xv.Rows || hv.Cols != xv.Cols || wv.Cols != hv.Rows {
		return t.Fail(fmt.Errorf("%s: %w: x is %d×%d, w is %d×%d, h is %d×%d", op, tensor.ErrShape, xv.Rows, xv.Cols, wv.Rows, wv.Cols, hv.Rows, hv.Cols))
	}
	n, k, m := xv.Rows, wv.Cols, xv.Cols
	out := t.Alloc(1, 1)
	if n*m <= factorLossSmall {
		// Small: one residual matrix R = w·h − x is cheaper than the six
		// products and the blocked distance below.
		r := t.Alloc(n, m)
		r.Copy(xv)
		gemm(false, false, 1, wv, hv, -1, r)
		out.Data[0] = tensor.SqNorm(r)
		return t.Record(op, out, func(g *tensor.Dense, need []bool) []*tensor.Dense {
			s := 2 * g.Data[0]
			var gx, gw, gh *tensor.Dense
			if need[0] {
				gx = t.Alloc(n, m)
				tensor.Scale(gx, -s, r)
			}
			if need[1] {
				gw = t.Alloc(n, k)
				gemm(false, true, s, r, hv, 0, gw)
			}
			if need[2] {
				gh = t.Alloc(k, m)
				gemm(true, false, s, wv, r, 0, gh)
			}
			return []*tensor.Dense{gx, gw, gh}
		}, x, w, h)
	}
	out.Data[0] = tensor.SqDist(xv, wv, hv)
	return t.Record(op, out, func(g *tensor.Dense, need []bool) []*tensor.Dense {
		s := 2 * g.Data[0]
		var gx, gw, gh *tensor.Dense
		if need[0] { // 2(x − w·h)
			gx = t.Alloc(n, m)
			gx.Copy(xv)
			gemm(false, false, -1, wv, hv, 1, gx)
			tensor.Scale(gx, s, gx)
		}
		if need[1] { // 2(w·(h·hᵀ) − x·hᵀ)
			hht := t.Alloc(k, k)
			gemm(false, true, 1, hv, hv, 0, hht)
			gw = t.Alloc(n, k)
			gemm(false, false, s, wv, hht, 0, gw)
			gemm(false, true, -s, xv, hv, 1, gw)
		}
		if need[2] { // 2((wᵀ·w)·h − wᵀ·x)
			wtw := t.Alloc(k, k)
			gemm(true, false, 1, wv, wv, 0, wtw)
			gh = t.Alloc(k, m)
			gemm(false, false, s, wtw, hv, 0, gh)
			gemm(true, false, -s, wv, xv, 1, gh)
		}
		return []*tensor.Dense{gx, gw, gh}
	}, x, w, h)
}

// MaskedLoss returns the 1×1 masked squared distance ‖w ∘ (x − y)‖²_F, the
// form of both terms of the SSNMF objective (w = W for the data, w = Z for the
// labels). w, x and y must have one shape. w is usually a constant 0/1 mask,
// but it is differentiable too: ∂/∂w = 2 w ∘ (x − y)∘(x − y).
func MaskedLoss(w, x, y *autograd.Var) *autograd.Var {
	const op = "ops.MaskedLoss"
	t := autograd.TapeOf(op, w, x, y)
	if t.Err() != nil {
		return t.Failed()
	}
	if !w.Value().SameShape(x.Value()) {
		return t.Fail(shapeErr(op, "mask and x differ", w, x))
	}
	if !x.Value().SameShape(y.Value()) {
		return t.Fail(shapeErr(op, "x and y differ", x, y))
	}
	wv := w.Value()
	diff := t.Alloc(x.Shape())
	tensor.Sub(diff, x.Value(), y.Value())
	wd := t.Alloc(x.Shape()) // w ∘ (x − y)
	tensor.Mul(wd, wv, diff)
	out := t.Alloc(1, 1)
	out.Data[0] = tensor.SqNorm(wd)
	return t.Record(op, out, func(g *tensor.Dense, need []bool) []*tensor.Dense {
		s := 2 * g.Data[0]
		var gw, gx, gy *tensor.Dense
		if need[0] {
			gw = t.Alloc(wd.Rows, wd.Cols)
			tensor.Mul(gw, wd, diff)
			tensor.Scale(gw, s, gw)
		}
		if need[1] || need[2] {
			gx = t.Alloc(wd.Rows, wd.Cols)
			tensor.Mul(gx, wd, wv)
			tensor.Scale(gx, s, gx)
		}
		if need[2] {
			gy = t.Alloc(wd.Rows, wd.Cols)
			tensor.Scale(gy, -1, gx)
		}
		if !need[1] {
			gx = nil
		}
		return []*tensor.Dense{gw, gx, gy}
	}, w, x, y)
}

// SoftmaxCrossEntropy returns the 1×1 masked cross-entropy of column-wise
// softmax probabilities against targets:
//
//	L = −Σ_m Σ_p mask_pm · y_pm · log softmax(logits_:m)_p
//
// logits, y and mask are P×M: P classes, M samples as columns. y holds one-hot
// or soft targets; mask is the paper's label mask Z (a column of ones for a
// labelled sample, zeros for an unlabelled one), so unlabelled columns
// contribute nothing. The sum is not averaged; scale the result to average.
// Only logits receive a gradient: for column m with w = mask∘y,
// ∂L/∂logits_qm = softmax_q·Σ_p w_p − w_q. y and mask must be nonnegative and
// finite; otherwise the tape records an error.
func SoftmaxCrossEntropy(logits, y, mask *autograd.Var) *autograd.Var {
	const op = "ops.SoftmaxCrossEntropy"
	t := autograd.TapeOf(op, logits, y, mask)
	if t.Err() != nil {
		return t.Failed()
	}
	if !logits.Value().SameShape(y.Value()) {
		return t.Fail(shapeErr(op, "logits and y differ", logits, y))
	}
	if !y.Value().SameShape(mask.Value()) {
		return t.Fail(shapeErr(op, "y and mask differ", y, mask))
	}
	if err := tensor.CheckNonnegative("y", y.Value()); err != nil {
		return t.Fail(fmt.Errorf("%s: %w", op, err))
	}
	if err := tensor.CheckNonnegative("mask", mask.Value()); err != nil {
		return t.Fail(fmt.Errorf("%s: %w", op, err))
	}
	lv, yv, zv := logits.Value(), y.Value(), mask.Value()
	P, M := lv.Rows, lv.Cols
	prob := t.Alloc(P, M) // softmax, column-wise
	var loss float64
	for m := 0; m < M; m++ {
		mx := math.Inf(-1)
		for p := 0; p < P; p++ {
			mx = math.Max(mx, lv.Data[p*lv.Stride+m])
		}
		var z float64
		for p := 0; p < P; p++ {
			e := math.Exp(lv.Data[p*lv.Stride+m] - mx)
			prob.Data[p*prob.Stride+m] = e
			z += e
		}
		logZ := math.Log(z) + mx
		for p := 0; p < P; p++ {
			prob.Data[p*prob.Stride+m] /= z
			if w := zv.Data[p*zv.Stride+m] * yv.Data[p*yv.Stride+m]; w != 0 {
				loss -= w * (lv.Data[p*lv.Stride+m] - logZ)
			}
		}
	}
	out := t.Alloc(1, 1)
	out.Data[0] = loss
	return t.Record(op, out, func(g *tensor.Dense, need []bool) []*tensor.Dense {
		if !need[0] {
			return []*tensor.Dense{nil, nil, nil}
		}
		gl := t.Alloc(P, M)
		s := g.Data[0]
		for m := 0; m < M; m++ {
			var wsum float64
			for p := 0; p < P; p++ {
				wsum += zv.Data[p*zv.Stride+m] * yv.Data[p*yv.Stride+m]
			}
			for p := 0; p < P; p++ {
				w := zv.Data[p*zv.Stride+m] * yv.Data[p*yv.Stride+m]
				gl.Data[p*gl.Stride+m] = s * (prob.Data[p*prob.Stride+m]*wsum - w)
			}
		}
		return []*tensor.Dense{gl, nil, nil}
	}, logits, y, mask)
}
