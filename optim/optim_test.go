package optim_test

import (
	"math"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/optim"
	"github.com/neuralnmf/neuralnmf/tensor"
)

func TestProjectedGDStepAndDecay(t *testing.T) {
	p := tensor.MustFromRows([][]float64{{1, 0.1}})
	g := tensor.MustFromRows([][]float64{{1, 1}})
	o := &optim.ProjectedGD{LR: 0.5, Decay: optim.StepDecay{Every: 2, Factor: 0.1}}
	require.NoError(t, o.Step([]*tensor.Dense{p}, []*tensor.Dense{g}))
	// 1 − 0.5 = 0.5; 0.1 − 0.5 < 0 is projected to 0.
	require.Equal(t, []float64{0.5, 0}, p.Data)
	require.NoError(t, o.Step([]*tensor.Dense{p}, []*tensor.Dense{g}))
	require.Equal(t, []float64{0, 0}, p.Data)
	require.InDelta(t, 0.05, o.CurrentLR(), 1e-16, "third step is in the second decay period")

	u := &optim.ProjectedGD{LR: 1, Unconstrained: true}
	q := tensor.MustFromRows([][]float64{{0.25}})
	require.NoError(t, u.Step([]*tensor.Dense{q}, []*tensor.Dense{tensor.MustFromRows([][]float64{{1}})}))
	require.Equal(t, -0.75, q.Data[0])
}

func TestAdamMinimisesProjectedQuadratic(t *testing.T) {
	// min ½‖p − c‖² over p ≥ 0 has the solution max(c, 0).
	c := tensor.MustFromRows([][]float64{{2, -1, 0.5}})
	p := tensor.New(1, 3)
	g := tensor.New(1, 3)
	o := &optim.Adam{LR: 0.05}
	for i := 0; i < 2000; i++ {
		tensor.Sub(g, p, c)
		require.NoError(t, o.Step([]*tensor.Dense{p}, []*tensor.Dense{g}))
		for _, v := range p.Data {
			require.GreaterOrEqual(t, v, 0.0)
		}
	}
	require.InDelta(t, 2, p.Data[0], 1e-3)
	require.Equal(t, 0.0, p.Data[1])
	require.InDelta(t, 0.5, p.Data[2], 1e-3)
}

func TestAdamFirstStepIsLR(t *testing.T) {
	// Bias correction makes the first step lr·sign(g).
	p := tensor.MustFromRows([][]float64{{1, 1}})
	o := &optim.Adam{LR: 0.1}
	require.NoError(t, o.Step([]*tensor.Dense{p}, []*tensor.Dense{tensor.MustFromRows([][]float64{{3, -0.001}})}))
	require.InDelta(t, 0.9, p.Data[0], 1e-7)
	require.InDelta(t, 1.1, p.Data[1], 1e-4)
}

func TestStepErrors(t *testing.T) {
	p := tensor.New(2, 2)
	cases := []struct {
		name   string
		lr     float64
		params []*tensor.Dense
		grads  []*tensor.Dense
		want   string
	}{
		{"lengths", 1, []*tensor.Dense{p}, nil, "1 parameters but 0 gradients"},
		{"shape", 1, []*tensor.Dense{p}, []*tensor.Dense{tensor.New(2, 3)}, "2×2, its gradient 2×3"},
		{"nan", 1, []*tensor.Dense{p}, []*tensor.Dense{tensor.MustFromRows([][]float64{{0, math.NaN()}, {0, 0}})}, "not finite"},
		{"inf", 1, []*tensor.Dense{p}, []*tensor.Dense{tensor.MustFromRows([][]float64{{0, 1}, {math.Inf(-1), 0}})}, "not finite"},
		{"lr", 0, []*tensor.Dense{p}, []*tensor.Dense{tensor.New(2, 2)}, "learning rate"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := (&optim.ProjectedGD{LR: tc.lr}).Step(tc.params, tc.grads)
			require.ErrorContains(t, err, tc.want)
			err = (&optim.Adam{LR: tc.lr}).Step(tc.params, tc.grads)
			require.ErrorContains(t, err, tc.want)
		})
	}
	o := &optim.Adam{LR: 1}
	require.NoError(t, o.Step([]*tensor.Dense{p}, []*tensor.Dense{tensor.New(2, 2)}))
	require.ErrorContains(t, o.Step([]*tensor.Dense{tensor.New(3, 3)}, []*tensor.Dense{tensor.New(3, 3)}), "was 2×2")
}

func TestStepDoesNotAllocate(t *testing.T) {
	ps := []*tensor.Dense{tensor.New(20, 5), tensor.New(5, 3)}
	gs := []*tensor.Dense{tensor.New(20, 5), tensor.New(5, 3)}
	gd := &optim.ProjectedGD{LR: 0.1}
	ad := &optim.Adam{LR: 0.1}
	require.NoError(t, ad.Step(ps, gs))
	require.Zero(t, testing.AllocsPerRun(10, func() { _ = gd.Step(ps, gs) }))
	require.Zero(t, testing.AllocsPerRun(10, func() { _ = ad.Step(ps, gs) }))
	// StepSaving too, for parameters of one chunk (2¹⁶ entries or fewer).
	sp := []*tensor.Dense{tensor.New(20, 5), tensor.New(5, 3)}
	sg := []*tensor.Dense{tensor.New(20, 5), tensor.New(5, 3)}
	require.Zero(t, testing.AllocsPerRun(10, func() { _, _ = gd.StepSaving(ps, gs, sp, sg) }))
	require.Zero(t, testing.AllocsPerRun(10, func() { _ = ad.StepSaving(ps, gs, sp, sg) }))
}

// A non-finite gradient entry is found wherever it is: in the part of a
// row read four entries at a time and in its remainder.
func TestStepFindsNonFiniteAnywhere(t *testing.T) {
	for _, n := range []int{1, 4, 5, 7, 9} {
		for i := range n {
			for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
				p, g := tensor.New(1, n), tensor.New(1, n)
				g.Data[i] = bad
				require.ErrorContains(t, (&optim.ProjectedGD{LR: 1}).Step([]*tensor.Dense{p}, []*tensor.Dense{g}), "not finite", "n=%d i=%d", n, i)
			}
		}
	}
}

// StepSaving takes Step's step, saves what was there before, and returns
// ⟨g, p before − p after⟩: on a small and a large (chunked, parallel)
// parameter, projected and not, with the gradient saved into itself (as a
// retried step does); the same bits on one goroutine as on several. A
// non-finite gradient leaves the parameters as they were.
func TestStepSaving(t *testing.T) {
	for _, c := range []struct {
		rows, cols    int
		unconstrained bool
		aliasG        bool
	}{{3, 4, false, false}, {3, 4, true, true}, {45534, 10, false, false}, {70000, 3, false, true}} {
		rng := tensor.NewRand(uint64(c.rows))
		p0 := tensor.Uniform(c.rows, c.cols, 0, 1, rng)
		g := tensor.Uniform(c.rows, c.cols, -1, 1, rng)
		want := p0.Clone()
		require.NoError(t, (&optim.ProjectedGD{LR: 0.5, Unconstrained: c.unconstrained}).Step([]*tensor.Dense{want}, []*tensor.Dense{g}))
		var wantDec float64
		for i := range g.Data {
			wantDec += g.Data[i] * (p0.Data[i] - want.Data[i])
		}
		var first float64
		for _, procs := range []int{1, 2, 3} {
			prev := runtime.GOMAXPROCS(procs)
			p, prevP, prevG := p0.Clone(), tensor.New(c.rows, c.cols), tensor.New(c.rows, c.cols)
			grad := g
			if c.aliasG {
				prevG.Copy(g)
				grad = prevG
			}
			o := &optim.ProjectedGD{LR: 0.5, Unconstrained: c.unconstrained}
			dec, err := o.StepSaving([]*tensor.Dense{p}, []*tensor.Dense{grad}, []*tensor.Dense{prevP}, []*tensor.Dense{prevG})
			runtime.GOMAXPROCS(prev)
			require.NoError(t, err)
			require.Equal(t, want.Data, p.Data, "the step")
			require.Equal(t, p0.Data, prevP.Data, "the saved parameter")
			require.Equal(t, g.Data, prevG.Data, "the saved gradient")
			require.InDelta(t, wantDec, dec, 1e-12*float64(len(g.Data)))
			require.Equal(t, 1, o.Steps())
			if procs == 1 {
				first = dec
			}
			require.Equal(t, first, dec, "%d goroutines", procs)
		}
	}
	p := tensor.Uniform(300, 300, 0, 1, tensor.NewRand(3))
	g := tensor.New(300, 300)
	g.Data[70001] = math.NaN()
	before := p.Clone()
	o := &optim.ProjectedGD{LR: 0.5}
	_, err := o.StepSaving([]*tensor.Dense{p}, []*tensor.Dense{g}, []*tensor.Dense{tensor.New(300, 300)}, []*tensor.Dense{tensor.New(300, 300)})
	require.ErrorContains(t, err, "not finite")
	require.Equal(t, before.Data, p.Data, "unchanged after an error")
	require.Zero(t, o.Steps())
	for _, saved := range [][2]*tensor.Dense{{p, g}, {tensor.New(300, 300), p}, {g, g}} {
		_, err = o.StepSaving([]*tensor.Dense{p}, []*tensor.Dense{g}, []*tensor.Dense{saved[0]}, []*tensor.Dense{saved[1]})
		require.ErrorContains(t, err, "must be distinct")
	}
	_, err = o.StepSaving([]*tensor.Dense{p}, []*tensor.Dense{g}, []*tensor.Dense{tensor.New(2, 2)}, []*tensor.Dense{g})
	require.ErrorIs(t, err, tensor.ErrShape)
}

// adamReference is Adam's update written out entry by entry (Kingma & Ba,
// with the defaults β₁ = 0.9, β₂ = 0.999, ε = 1e-8 and the projection),
// for t steps from zero moments with the gradients gs[0..t−1].
func adamReference(p *tensor.Dense, gs []*tensor.Dense, lr float64, project bool) *tensor.Dense {
	p = p.Clone()
	m, v := make([]float64, p.Len()), make([]float64, p.Len())
	// Variables, not constants: 1 − β is then rounded as at run time
	// (a constant expression 1 − 0.9 would be exact before rounding).
	b1, b2, eps := 0.9, 0.999, 1e-8
	for t, g := range gs {
		c1, c2 := 1-math.Pow(b1, float64(t+1)), 1-math.Pow(b2, float64(t+1))
		for i := range p.Rows {
			for j := range p.Cols {
				e, gj := i*p.Cols+j, g.At(i, j)
				m[e] = b1*m[e] + (1-b1)*gj
				v[e] = b2*v[e] + (1-b2)*gj*gj
				x := p.At(i, j) - lr*(m[e]/c1)/(math.Sqrt(v[e]/c2)+eps)
				if x < 0 && project {
					x = 0
				}
				p.Set(i, j, x)
			}
		}
	}
	return p
}

// Adam's Step and StepSaving give the written-out update bit for bit over
// three steps, for small and chunked (more than 2¹⁶ entries) parameters,
// contiguous or strided, on 1, 2 and 3 goroutines; StepSaving keeps the
// parameter and gradient from before each step, also when the gradient is
// its own saved copy. A non-finite gradient, a shape mismatch or aliased
// saved matrices change nothing: not the parameter, not the moments.
func TestAdamStepSaving(t *testing.T) {
	for _, c := range []struct {
		rows, cols    int
		unconstrained bool
		strided       bool
		aliasG        bool
	}{{3, 4, false, false, false}, {3, 4, true, true, true}, {45534, 10, false, false, false}, {70000, 3, true, false, true}, {400, 300, false, true, false}} {
		rng := tensor.NewRand(uint64(c.rows * c.cols))
		p0 := tensor.Uniform(c.rows, c.cols, 0, 1, rng)
		var gs []*tensor.Dense
		for range 3 {
			gs = append(gs, tensor.Uniform(c.rows, c.cols, -1, 1, rng))
		}
		want := adamReference(p0, gs, 0.05, !c.unconstrained)
		layout := func(d *tensor.Dense) *tensor.Dense {
			if !c.strided {
				return d.Clone()
			}
			s := &tensor.Dense{Rows: d.Rows, Cols: d.Cols, Stride: d.Cols + 2, Data: make([]float64, d.Rows*(d.Cols+2))}
			s.Copy(d)
			return s
		}
		for _, procs := range []int{1, 2, 3} {
			prev := runtime.GOMAXPROCS(procs)
			step, saving := &optim.Adam{LR: 0.05, Unconstrained: c.unconstrained}, &optim.Adam{LR: 0.05, Unconstrained: c.unconstrained}
			p, ps := layout(p0), layout(p0)
			prevP, prevG := layout(tensor.New(c.rows, c.cols)), layout(tensor.New(c.rows, c.cols))
			for _, g := range gs {
				require.NoError(t, step.Step([]*tensor.Dense{p}, []*tensor.Dense{layout(g)}))
				before, grad := ps.Clone(), layout(g)
				if c.aliasG {
					prevG.Copy(g)
					grad = prevG
				}
				require.NoError(t, saving.StepSaving([]*tensor.Dense{ps}, []*tensor.Dense{grad}, []*tensor.Dense{prevP}, []*tensor.Dense{prevG}))
				require.True(t, equalValues(before, prevP), "the saved parameter")
				require.True(t, equalValues(g, prevG), "the saved gradient")
			}
			runtime.GOMAXPROCS(prev)
			require.True(t, equalValues(want, p), "Step, %v on %d goroutines", c, procs)
			require.True(t, equalValues(want, ps), "StepSaving, %v on %d goroutines", c, procs)
			require.Equal(t, 3, saving.Steps())
		}
	}
	// Errors leave the parameter and the moments as they were: the step
	// after them is the second step of the reference.
	rng := tensor.NewRand(9)
	p0 := tensor.Uniform(300, 300, 0, 1, rng)
	g1, g2 := tensor.Uniform(300, 300, -1, 1, rng), tensor.Uniform(300, 300, -1, 1, rng)
	p, sp, sg := p0.Clone(), tensor.New(300, 300), tensor.New(300, 300)
	o := &optim.Adam{LR: 0.05}
	require.NoError(t, o.StepSaving([]*tensor.Dense{p}, []*tensor.Dense{g1}, []*tensor.Dense{sp}, []*tensor.Dense{sg}))
	bad := g2.Clone()
	bad.Data[70001] = math.Inf(-1)
	after1 := p.Clone()
	require.ErrorContains(t, o.StepSaving([]*tensor.Dense{p}, []*tensor.Dense{bad}, []*tensor.Dense{sp}, []*tensor.Dense{sg}), "not finite")
	for _, saved := range [][2]*tensor.Dense{{p, sg}, {sp, p}, {sg, sg}} {
		require.ErrorContains(t, o.StepSaving([]*tensor.Dense{p}, []*tensor.Dense{g2}, []*tensor.Dense{saved[0]}, []*tensor.Dense{saved[1]}), "must be distinct")
	}
	require.ErrorIs(t, o.StepSaving([]*tensor.Dense{p}, []*tensor.Dense{g2}, []*tensor.Dense{tensor.New(2, 2)}, []*tensor.Dense{sg}), tensor.ErrShape)
	require.Equal(t, after1.Data, p.Data, "unchanged after the errors")
	require.Equal(t, 1, o.Steps())
	require.NoError(t, o.StepSaving([]*tensor.Dense{p}, []*tensor.Dense{g2}, []*tensor.Dense{sp}, []*tensor.Dense{sg}))
	require.Equal(t, adamReference(p0, []*tensor.Dense{g1, g2}, 0.05, true).Data, p.Data, "moments unchanged by the errors")
}

// equalValues reports whether a and b hold the same bits at every entry,
// whatever their strides.
func equalValues(a, b *tensor.Dense) bool {
	if !a.SameShape(b) {
		return false
	}
	for i := range a.Rows {
		for j := range a.Cols {
			if math.Float64bits(a.At(i, j)) != math.Float64bits(b.At(i, j)) {
				return false
			}
		}
	}
	return true
}

// An Adam restored from State at step 3 takes steps 4 and 5 as the
// uninterrupted optimiser does, bit for bit, and SetState refuses states
// that cannot be an Adam's.
func TestAdamState(t *testing.T) {
	rng := tensor.NewRand(5)
	grads := make([]*tensor.Dense, 5)
	for i := range grads {
		grads[i] = tensor.Uniform(3, 4, -1, 1, rng)
	}
	start := tensor.Uniform(3, 4, 0, 1, rng)
	run := func(o *optim.Adam, p *tensor.Dense, from, to int) {
		for _, g := range grads[from:to] {
			require.NoError(t, o.Step([]*tensor.Dense{p}, []*tensor.Dense{g}))
		}
	}
	decay := optim.StepDecay{Every: 2, Factor: 0.5}
	whole, p := &optim.Adam{LR: 0.1, Decay: decay}, start.Clone()
	run(whole, p, 0, 5)

	first, q := &optim.Adam{LR: 0.1, Decay: decay}, start.Clone()
	run(first, q, 0, 3)
	s := first.State()
	require.Equal(t, 3, s.Step)
	s.M[0].Set(0, 0, 1e300) // a copy: first is unchanged
	s = first.State()
	resumed := &optim.Adam{LR: 0.1, Decay: decay}
	require.NoError(t, resumed.SetState(s))
	run(resumed, q, 3, 5)
	require.Equal(t, p.Data, q.Data)
	require.Equal(t, 5, resumed.Steps())

	bad := []optim.AdamState{
		{Step: -1},
		{Step: 2},
		{Step: 0, M: []*tensor.Dense{tensor.New(1, 1)}, V: []*tensor.Dense{tensor.New(1, 1)}},
		{Step: 1, M: []*tensor.Dense{tensor.New(1, 1)}},
		{Step: 1, M: []*tensor.Dense{tensor.New(1, 1)}, V: []*tensor.Dense{tensor.New(1, 2)}},
		{Step: 1, M: []*tensor.Dense{tensor.MustFromRows([][]float64{{math.NaN()}})}, V: []*tensor.Dense{tensor.New(1, 1)}},
		{Step: 1, M: []*tensor.Dense{tensor.New(1, 1)}, V: []*tensor.Dense{tensor.MustFromRows([][]float64{{-1}})}},
	}
	for i, b := range bad {
		require.Error(t, (&optim.Adam{LR: 0.1}).SetState(b), "state %d", i)
	}
}
