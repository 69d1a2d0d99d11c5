package ssnmf

import "github.com/neuralnmf/neuralnmf/tensor"

// floor keeps multiplicative updates away from 0/0.
const floor = 1e-300

// updater holds the fixed inputs of the multiplicative updates and scratch.
type updater struct {
	x, wx, w *tensor.Dense // X, W∘X (or X), W (nil = all ones)
	y, zy, z *tensor.Dense // labels, or nil
	lambda   float64
	ws       *tensor.Dense // N×M: W∘(AS)
	zs       *tensor.Dense // P×M: Z∘(BS)
}

func newUpdater(x *tensor.Dense, lab *Labels, w *tensor.Dense, k int) *updater {
	u := &updater{x: x, wx: x, w: w, ws: tensor.New(x.Rows, x.Cols)}
	if w != nil {
		u.wx = tensor.New(x.Rows, x.Cols)
		tensor.Mul(u.wx, w, x)
	}
	if lab != nil {
		u.y, u.z, u.lambda = lab.Y, lab.Z, lab.Lambda
		u.zy = tensor.New(lab.Y.Rows, lab.Y.Cols)
		tensor.Mul(u.zy, lab.Z, lab.Y)
		u.zs = tensor.New(lab.Y.Rows, lab.Y.Cols)
	}
	return u
}

// model sets u.ws = W∘(AS) and, with labels, u.zs = Z∘(BS).
func (u *updater) model(a, s, b *tensor.Dense) {
	tensor.Gemm(false, false, 1, a, s, 0, u.ws)
	if u.w != nil {
		tensor.Mul(u.ws, u.ws, u.w)
	}
	if b != nil {
		tensor.Gemm(false, false, 1, b, s, 0, u.zs)
		tensor.Mul(u.zs, u.zs, u.z)
	}
}

// step applies one round of updates: A (if updA), B, then S (if updS).
func (u *updater) step(a, s, b *tensor.Dense, updA, updS bool) {
	if updA {
		num := tensor.MatMul(false, true, u.wx, s) // (W∘X)Sᵀ
		var den *tensor.Dense
		if u.w == nil { // A(SSᵀ): cheaper, and the sparse updater's order
			den = tensor.MatMul(false, false, a, tensor.MatMul(false, true, s, s))
		} else {
			u.model(a, s, b)
			den = tensor.MatMul(false, true, u.ws, s) // (W∘AS)Sᵀ
		}
		multiply(a, num, den)
	}
	if b != nil {
		u.model(a, s, b)
		num := tensor.MatMul(false, true, u.zy, s)
		den := tensor.MatMul(false, true, u.zs, s)
		multiply(b, num, den)
	}
	if updS {
		num := tensor.MatMul(true, false, a, u.wx) // Aᵀ(W∘X)
		var den *tensor.Dense
		if u.w == nil { // (AᵀA)S
			den = tensor.MatMul(false, false, tensor.MatMul(true, false, a, a), s)
		} else {
			u.model(a, s, b)
			den = tensor.MatMul(true, false, a, u.ws)
		}
		if b != nil {
			u.model(a, s, b)
			tensor.Gemm(true, false, u.lambda, b, u.zy, 1, num)
			tensor.Gemm(true, false, u.lambda, b, u.zs, 1, den)
		}
		multiply(s, num, den)
	}
}

// objective returns ‖W∘(X − AS)‖² + λ‖Z∘(Y − BS)‖².
func (u *updater) objective(a, s, b *tensor.Dense) float64 {
	u.model(a, s, b)
	var e float64
	for i, v := range u.wx.Data {
		d := v - u.ws.Data[i]
		e += d * d
	}
	if b != nil {
		var c float64
		for i, v := range u.zy.Data {
			d := v - u.zs.Data[i]
			c += d * d
		}
		e += u.lambda * c
	}
	return e
}

// multiply sets m = m ∘ num / den element-wise.
func multiply(m, num, den *tensor.Dense) {
	for i, v := range m.Data {
		m.Data[i] = v * num.Data[i] / max(den.Data[i], floor)
	}
}
