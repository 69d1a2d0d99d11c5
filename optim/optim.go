// Package optim updates parameters in place from their gradients: projected
// gradient descent, the update of the paper's Algorithm 1, and Adam with the
// same projection onto the nonnegative orthant.
//
// Both take parallel slices of parameters and gradients (for example the
// values given to autograd.Tape.Param and Grads.Of of each) and update the
// parameters in place. Neither allocates after its first step: Adam's moment
// estimates are its only state.
package optim

import (
	"fmt"
	"math"

	"github.com/neuralnmf/neuralnmf/tensor"
)

// StepDecay multiplies the learning rate by Factor every Every steps:
// lr(t) = LR·Factor^⌊t/Every⌋, with t counted from 0. The zero value keeps the
// rate constant.
type StepDecay struct {
	Every  int
	Factor float64
}

func (d StepDecay) scale(step int) float64 {
	if d.Every <= 0 || d.Factor <= 0 {
		return 1
	}
	return math.Pow(d.Factor, float64(step/d.Every))
}

// ProjectedGD is projected gradient descent, the paper's Algorithm 1:
//
//	P ← max(0, P − lr(t)·∂L/∂P)
//
// Set Unconstrained to skip the projection (the authors' code does so for
// unsupervised runs; the paper does not).
type ProjectedGD struct {
	LR            float64
	Decay         StepDecay
	Unconstrained bool
	step          int
}

// Steps returns how many updates have been made.
func (o *ProjectedGD) Steps() int { return o.step }

// CurrentLR returns the learning rate the next Step will use.
func (o *ProjectedGD) CurrentLR() float64 { return o.LR * o.Decay.scale(o.step) }

// Step updates every params[i] in place from grads[i]. It returns an error,
// and changes nothing, if the slices differ in length, a gradient's shape
// differs from its parameter's, a gradient is not finite, or LR is not
// positive and finite.
func (o *ProjectedGD) Step(params, grads []*tensor.Dense) error {
	if err := checkStep("optim.ProjectedGD", o.LR, params, grads); err != nil {
		return err
	}
	lr := o.CurrentLR()
	for i, p := range params {
		if o.Unconstrained {
			tensor.AddScaled(p, -lr, grads[i])
		} else {
			projectedAxpy(p, -lr, grads[i])
		}
	}
	o.step++
	return nil
}

// projectedAxpy sets p = max(0, p + s·g) in one pass: the same bits as
// tensor.AddScaled then tensor.ClampZero (NaN stays NaN), half the memory
// traffic.
func projectedAxpy(p *tensor.Dense, s float64, g *tensor.Dense) {
	n, l := p.Rows, p.Cols
	if p.Contiguous() && g.Contiguous() {
		n, l = 1, p.Len()
	}
	for i := range n {
		rp, rg := p.Data[i*p.Stride:i*p.Stride+l], g.Data[i*g.Stride:i*g.Stride+l]
		rg = rg[:len(rp)]
		for j, v := range rp {
			v += s * rg[j]
			if v < 0 {
				v = 0
			}
			rp[j] = v
		}
	}
}

// Adam is the Adam optimiser (Kingma & Ba 2015) followed by the projection
// max(0, ·) unless Unconstrained is set. Zero Beta1, Beta2 and Eps take the
// usual defaults 0.9, 0.999 and 1e-8. The moment estimates are allocated at
// the first Step; later calls must pass parameters of the same shapes.
type Adam struct {
	LR                float64
	Beta1, Beta2, Eps float64
	Decay             StepDecay
	Unconstrained     bool
	step              int
	m, v              []*tensor.Dense
}

// Steps returns how many updates have been made.
func (o *Adam) Steps() int { return o.step }

// Reset forgets the moment estimates and the step count.
func (o *Adam) Reset() { o.step, o.m, o.v = 0, nil, nil }

// Step updates every params[i] in place from grads[i]; errors as for
// ProjectedGD.Step, plus a parameter whose shape changed since the first step.
func (o *Adam) Step(params, grads []*tensor.Dense) error {
	const op = "optim.Adam"
	if err := checkStep(op, o.LR, params, grads); err != nil {
		return err
	}
	if o.m == nil {
		o.m = make([]*tensor.Dense, len(params))
		o.v = make([]*tensor.Dense, len(params))
		for i, p := range params {
			o.m[i] = tensor.New(p.Rows, p.Cols)
			o.v[i] = tensor.New(p.Rows, p.Cols)
		}
	}
	if len(o.m) != len(params) {
		return fmt.Errorf("%s: %d parameters, first step had %d", op, len(params), len(o.m))
	}
	for i, p := range params {
		if !p.SameShape(o.m[i]) {
			return fmt.Errorf("%s: %w: parameter %d is %d×%d, was %d×%d at the first step",
				op, tensor.ErrShape, i, p.Rows, p.Cols, o.m[i].Rows, o.m[i].Cols)
		}
	}
	b1, b2, eps := o.Beta1, o.Beta2, o.Eps
	if b1 == 0 {
		b1 = 0.9
	}
	if b2 == 0 {
		b2 = 0.999
	}
	if eps == 0 {
		eps = 1e-8
	}
	o.step++
	lr := o.LR * o.Decay.scale(o.step-1)
	c1 := 1 - math.Pow(b1, float64(o.step))
	c2 := 1 - math.Pow(b2, float64(o.step))
	for i, p := range params {
		g, m, v := grads[i], o.m[i], o.v[i]
		for r := 0; r < p.Rows; r++ {
			pr, gr, mr, vr := p.Row(r), g.Row(r), m.Row(r), v.Row(r)
			for j, gj := range gr {
				mr[j] = b1*mr[j] + (1-b1)*gj
				vr[j] = b2*vr[j] + (1-b2)*gj*gj
				x := pr[j] - lr*(mr[j]/c1)/(math.Sqrt(vr[j]/c2)+eps)
				if x < 0 && !o.Unconstrained {
					x = 0
				}
				pr[j] = x
			}
		}
	}
	return nil
}

func checkStep(op string, lr float64, params, grads []*tensor.Dense) error {
	if !(lr > 0) || math.IsInf(lr, 0) {
		return fmt.Errorf("%s: learning rate %v is not positive and finite", op, lr)
	}
	if len(params) != len(grads) {
		return fmt.Errorf("%s: %d parameters but %d gradients", op, len(params), len(grads))
	}
	for i, p := range params {
		g := grads[i]
		if p == nil || g == nil {
			return fmt.Errorf("%s: parameter or gradient %d is nil", op, i)
		}
		if !p.SameShape(g) {
			return fmt.Errorf("%s: %w: parameter %d is %d×%d, its gradient %d×%d", op, tensor.ErrShape, i, p.Rows, p.Cols, g.Rows, g.Cols)
		}
		if !finite(g) {
			return fmt.Errorf("%s: %w", op, tensor.CheckFinite(fmt.Sprintf("gradient %d", i), g))
		}
	}
	return nil
}

// finite reports whether every element of d is finite, without allocating.
func finite(d *tensor.Dense) bool {
	n, l := d.Rows, d.Cols
	if d.Contiguous() {
		n, l = 1, d.Len()
	}
	for r := range n {
		// Each z stays 0 while every v − v is 0, and is NaN after a NaN or
		// ±Inf; four sums, so that the additions do not wait on each other.
		row := d.Data[r*d.Stride : r*d.Stride+l]
		var z0, z1, z2, z3 float64
		for len(row) >= 4 {
			z0 += row[0] - row[0]
			z1 += row[1] - row[1]
			z2 += row[2] - row[2]
			z3 += row[3] - row[3]
			row = row[4:]
		}
		for _, v := range row {
			z0 += v - v
		}
		if z0+z1+z2+z3 != 0 {
			return false
		}
	}
	return true
}
