// Package optim updates parameters in place from their gradients: projected
// gradient descent, the update of the paper's Algorithm 1, and Adam with the
// same projection onto the nonnegative orthant.
//
// Both take parallel slices of parameters and gradients (for example the
// values given to autograd.Tape.Param and Grads.Of of each) and update the
// parameters in place. Adam's moment estimates are its only state, allocated
// at its first step. Parameters of more than 2¹⁴ entries are updated by all
// cores in chunks fixed by their size (Adam's Step, and both StepSaving
// methods), which costs a few small allocations per step; smaller ones are
// updated on the calling goroutine without allocating. Results do not
// depend on the number of cores.
package optim

import (
	"fmt"
	"math"
	"runtime"

	"github.com/neuralnmf/neuralnmf/internal/parallel"
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

// StepSaving is Step that also keeps, in the same pass over the data, what
// a caller needs to undo the step or judge it: it copies every parameter
// and gradient, as they were before the step, into prevParams[i] and
// prevGrads[i] (which must have their shapes and be distinct from
// params[i] and from each other; prevGrads[i] may be grads[i]), and returns
// Σ_i ⟨grads[i], params[i] before − params[i] after⟩, the decrease an
// Armijo test weighs. Large parameters are shared among goroutines in
// chunks fixed by their size, and the chunks' sums added in order, so the
// result does not depend on GOMAXPROCS. It returns the errors of Step,
// and one for a saved matrix of the wrong shape; on error the parameters
// are unchanged (the saved matrices may not be).
func (o *ProjectedGD) StepSaving(params, grads, prevParams, prevGrads []*tensor.Dense) (float64, error) {
	const op = "optim.ProjectedGD"
	if err := checkShapes(op, o.LR, params, grads); err != nil {
		return 0, err
	}
	if err := checkSaved(op, params, prevParams, prevGrads); err != nil {
		return 0, err
	}
	lr := o.CurrentLR()
	var decrease float64
	for i, p := range params {
		d, ok := saveStep(p, grads[i], prevParams[i], prevGrads[i], -lr, !o.Unconstrained)
		if !ok {
			for j := 0; j <= i; j++ {
				params[j].Copy(prevParams[j])
			}
			return 0, fmt.Errorf("%s: %w", op, tensor.CheckFinite(fmt.Sprintf("gradient %d", i), grads[i]))
		}
		decrease += d
	}
	o.step++
	return decrease, nil
}

// checkSaved checks the saved matrices of a StepSaving: one pair per
// parameter, of its shape, distinct from it and from each other.
func checkSaved(op string, params, prevParams, prevGrads []*tensor.Dense) error {
	if len(prevParams) != len(params) || len(prevGrads) != len(params) {
		return fmt.Errorf("%s: %d parameters but %d and %d saved matrices", op, len(params), len(prevParams), len(prevGrads))
	}
	for i, p := range params {
		if prevParams[i] == nil || prevGrads[i] == nil || !p.SameShape(prevParams[i]) || !p.SameShape(prevGrads[i]) {
			return fmt.Errorf("%s: %w: saved matrices for parameter %d must be %d×%d", op, tensor.ErrShape, i, p.Rows, p.Cols)
		}
		if prevParams[i] == p || prevGrads[i] == p || prevParams[i] == prevGrads[i] {
			return fmt.Errorf("%s: parameter %d: the parameter and the two saved matrices must be distinct", op, i)
		}
	}
	return nil
}

// saveChunk is the number of elements per chunk of saveStep and of Adam's
// update: 2¹⁴ (128 KiB per matrix), so that chunks are shared among
// goroutines only for large parameters and a small one is one chunk,
// summed in one sequence, while a large one's chunks balance over the
// cores (at 2¹⁶, the 20 Newsgroups A, 455,340 entries, was 7 chunks: 4 and
// 3 on 2 cores).
const saveChunk = 1 << 14

// saveStep does StepSaving's work for one parameter p with gradient g and
// step s (= −lr): prevP, prevG = p, g; p = max(0, p + s·g) (or p + s·g
// unless project); it returns ⟨g, prevP − p⟩ and whether every entry of g
// was finite. Matrices that are not contiguous are walked row by row on
// one goroutine.
func saveStep(p, g, prevP, prevG *tensor.Dense, s float64, project bool) (float64, bool) {
	if !(p.Contiguous() && g.Contiguous() && prevP.Contiguous() && prevG.Contiguous()) {
		var dec float64
		ok := true
		for r := range p.Rows {
			d, f := saveStepRun(p.Row(r), g.Row(r), prevP.Row(r), prevG.Row(r), s, project)
			dec, ok = dec+d, ok && f
		}
		return dec, ok
	}
	n := p.Len()
	nc := (n + saveChunk - 1) / saveChunk
	if nc <= 1 {
		return saveStepRun(p.Data[:n], g.Data[:n], prevP.Data[:n], prevG.Data[:n], s, project)
	}
	decs := make([]float64, nc)
	oks := make([]bool, nc)
	parallel.ForChunks(nc, 1, runtime.GOMAXPROCS(0), func(_, c0, c1 int) {
		for c := c0; c < c1; c++ {
			lo, hi := c*saveChunk, min(n, (c+1)*saveChunk)
			decs[c], oks[c] = saveStepRun(p.Data[lo:hi], g.Data[lo:hi], prevP.Data[lo:hi], prevG.Data[lo:hi], s, project)
		}
	})
	var dec float64
	ok := true
	for c := range nc {
		dec, ok = dec+decs[c], ok && oks[c]
	}
	return dec, ok
}

// saveStepRun is saveStep on one run of memory: rp the parameter, rg the
// gradient, sp and sg their saved copies (all of rp's length).
func saveStepRun(rp, rg, sp, sg []float64, s float64, project bool) (float64, bool) {
	rg, sp, sg = rg[:len(rp)], sp[:len(rp)], sg[:len(rp)]
	var dec, z float64 // z stays 0 while every g is finite
	for j, v := range rp {
		w := rg[j]
		sp[j], sg[j] = v, w
		z += w - w
		n := v + s*w
		if project {
			n = max(n, 0) // no branch on the sign: see adamEntry
		}
		rp[j] = n
		dec += w * (v - n)
	}
	return dec, z == 0
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
			rp[j] = max(v+s*rg[j], 0)
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

// AdamState is what an Adam optimiser carries from one step to the next
// besides its settings: the step count and the first and second moment
// estimates of each parameter (nil before the first step). It is what a
// checkpoint saves so that training resumes with the same steps.
type AdamState struct {
	Step int
	M, V []*tensor.Dense
}

// State returns copies of o's step count and moment estimates.
func (o *Adam) State() AdamState {
	s := AdamState{Step: o.step}
	for i := range o.m {
		s.M = append(s.M, o.m[i].Clone())
		s.V = append(s.V, o.v[i].Clone())
	}
	return s
}

// SetState restores a state from State: the next Step continues from it
// as o would have. The moments are copied. It returns an error for a
// negative step count, moments of different counts or shapes, moments
// without a step or a step without moments, or a non-finite or (V)
// negative entry.
func (o *Adam) SetState(s AdamState) error {
	switch {
	case s.Step < 0:
		return fmt.Errorf("optim.Adam.SetState: Step is %d, want ≥ 0", s.Step)
	case len(s.M) != len(s.V):
		return fmt.Errorf("optim.Adam.SetState: %d first moments and %d second moments", len(s.M), len(s.V))
	case (s.Step == 0) != (len(s.M) == 0):
		return fmt.Errorf("optim.Adam.SetState: Step %d with %d moments; want both zero or both positive", s.Step, len(s.M))
	}
	for i := range s.M {
		m, v := s.M[i], s.V[i]
		if m == nil || v == nil || !m.SameShape(v) {
			return fmt.Errorf("optim.Adam.SetState: %w: the moments of parameter %d are missing or differ in shape", tensor.ErrShape, i)
		}
		if err := tensor.CheckFinite(fmt.Sprintf("M[%d]", i), m); err != nil {
			return fmt.Errorf("optim.Adam.SetState: %w", err)
		}
		if err := tensor.CheckNonnegative(fmt.Sprintf("V[%d]", i), v); err != nil {
			return fmt.Errorf("optim.Adam.SetState: %w", err)
		}
	}
	o.step, o.m, o.v = s.Step, nil, nil
	for i := range s.M {
		o.m = append(o.m, s.M[i].Clone())
		o.v = append(o.v, s.V[i].Clone())
	}
	return nil
}

// Step updates every params[i] in place from grads[i]; errors as for
// ProjectedGD.Step, plus a parameter whose shape changed since the first step.
// Large parameters are updated by all cores in chunks; every entry is
// updated by the same arithmetic whatever the chunk, so the result does not
// depend on GOMAXPROCS.
func (o *Adam) Step(params, grads []*tensor.Dense) error {
	return o.step2("optim.Adam", params, grads, nil, nil)
}

// StepSaving is Step for a caller that may undo the step: in the same pass
// over the data as the update it copies every parameter and gradient, as
// they were before the step, into prevParams[i] and prevGrads[i] (which
// must have their shapes and be distinct from params[i] and from each
// other; prevGrads[i] may be grads[i]). The update is Step's, bit for bit.
// It returns Step's errors and one for a saved matrix of the wrong shape;
// on error the parameters and moment estimates are unchanged (the saved
// matrices may not be).
func (o *Adam) StepSaving(params, grads, prevParams, prevGrads []*tensor.Dense) error {
	const op = "optim.Adam"
	if err := checkSaved(op, params, prevParams, prevGrads); err != nil {
		return err
	}
	return o.step2(op, params, grads, prevParams, prevGrads)
}

// step2 is Step, and StepSaving when prevParams is not nil.
func (o *Adam) step2(op string, params, grads, prevParams, prevGrads []*tensor.Dense) error {
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
	c := adamCoef{b1: o.Beta1, b2: o.Beta2, eps: o.Eps, project: !o.Unconstrained}
	if c.b1 == 0 {
		c.b1 = 0.9
	}
	if c.b2 == 0 {
		c.b2 = 0.999
	}
	if c.eps == 0 {
		c.eps = 1e-8
	}
	o.step++
	c.lr = o.LR * o.Decay.scale(o.step-1)
	c.c1 = 1 - math.Pow(c.b1, float64(o.step))
	c.c2 = 1 - math.Pow(c.b2, float64(o.step))
	for i, p := range params {
		var sp, sg *tensor.Dense
		if prevParams != nil {
			sp, sg = prevParams[i], prevGrads[i]
		}
		adamUpdate(p, grads[i], o.m[i], o.v[i], sp, sg, c)
	}
	return nil
}

// adamCoef holds one Adam step's constants: the moment decays, ε, the
// learning rate, the bias corrections 1 − β₁ᵗ and 1 − β₂ᵗ, and whether to
// project onto the nonnegative orthant.
type adamCoef struct {
	b1, b2, eps, lr, c1, c2 float64
	project                 bool
}

// adamUpdate applies one Adam step to parameter p with gradient g and
// moments m and v (contiguous: Adam allocates them), saving p and g into
// sp and sg first unless sp is nil. Contiguous matrices are updated in
// chunks of saveChunk on all cores; others row by row on one goroutine.
func adamUpdate(p, g, m, v, sp, sg *tensor.Dense, c adamCoef) {
	save := sp != nil
	if !(p.Contiguous() && g.Contiguous() && (!save || sp.Contiguous() && sg.Contiguous())) {
		for r := range p.Rows {
			var rsp, rsg []float64
			if save {
				rsp, rsg = sp.Row(r), sg.Row(r)
			}
			adamRun(p.Row(r), g.Row(r), m.Row(r), v.Row(r), rsp, rsg, c)
		}
		return
	}
	n := p.Len()
	if n <= saveChunk { // one chunk: no goroutines, nothing allocated
		adamChunk(p, g, m, v, sp, sg, c, 0, n)
		return
	}
	nc := (n + saveChunk - 1) / saveChunk
	parallel.ForChunks(nc, 1, runtime.GOMAXPROCS(0), func(_, c0, c1 int) {
		for ch := c0; ch < c1; ch++ {
			adamChunk(p, g, m, v, sp, sg, c, ch*saveChunk, min(n, (ch+1)*saveChunk))
		}
	})
}

// adamChunk is adamRun on entries lo:hi of contiguous matrices.
func adamChunk(p, g, m, v, sp, sg *tensor.Dense, c adamCoef, lo, hi int) {
	var rsp, rsg []float64
	if sp != nil {
		rsp, rsg = sp.Data[lo:hi], sg.Data[lo:hi]
	}
	adamRun(p.Data[lo:hi], g.Data[lo:hi], m.Data[lo:hi], v.Data[lo:hi], rsp, rsg, c)
}

// adamRun is adamUpdate on one run of memory: rp the parameter, rg the
// gradient, rm and rv the moments, and sp and sg (nil, or of rp's length)
// the saved copies of rp and rg.
func adamRun(rp, rg, rm, rv, sp, sg []float64, c adamCoef) {
	rg, rm, rv = rg[:len(rp)], rm[:len(rp)], rv[:len(rp)]
	if sp != nil {
		sp, sg = sp[:len(rp)], sg[:len(rp)]
		for j, gj := range rg { // sg may be rg itself
			sp[j], sg[j] = rp[j], gj
			rp[j] = adamEntry(rp[j], gj, &rm[j], &rv[j], &c)
		}
		return
	}
	for j, gj := range rg {
		rp[j] = adamEntry(rp[j], gj, &rm[j], &rv[j], &c)
	}
}

// adamEntry updates the moments m and v of one entry p with gradient g and
// returns p's new value.
//
// The projection is max(x, 0), which Go compiles without a branch (NaN
// stays NaN, −0 becomes +0). A branch on x < 0 is mispredicted whenever
// the entries held at 0 by the projection and the positive ones are mixed,
// as in every NMF factor: with half of 455,340 entries held at 0 at
// random, Adam's step took 8.1 ms with the branch and 2.8 ms without
// (one core). The projected gradient steps do the same.
func adamEntry(p, g float64, m, v *float64, c *adamCoef) float64 {
	mj := c.b1**m + (1-c.b1)*g
	vj := c.b2**v + (1-c.b2)*g*g
	*m, *v = mj, vj
	x := p - c.lr*(mj/c.c1)/(math.Sqrt(vj/c.c2)+c.eps)
	if c.project {
		x = max(x, 0)
	}
	return x
}

func checkStep(op string, lr float64, params, grads []*tensor.Dense) error {
	if err := checkShapes(op, lr, params, grads); err != nil {
		return err
	}
	for i, g := range grads {
		if !finite(g) {
			return fmt.Errorf("%s: %w", op, tensor.CheckFinite(fmt.Sprintf("gradient %d", i), g))
		}
	}
	return nil
}

// checkShapes is checkStep without the check that gradients are finite.
func checkShapes(op string, lr float64, params, grads []*tensor.Dense) error {
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
