package optim_test

import (
	"fmt"

	"github.com/neuralnmf/neuralnmf/autograd"
	"github.com/neuralnmf/neuralnmf/ops"
	"github.com/neuralnmf/neuralnmf/optim"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// Rank-2 NMF of a small matrix by projected gradient on both factors, every
// gradient from the tape.
func ExampleProjectedGD() {
	rng := tensor.NewRand(7)
	x := tensor.Uniform(8, 6, 0, 1, rng)
	a := tensor.Uniform(8, 2, 0, 1, rng)
	s := tensor.Uniform(2, 6, 0, 1, rng)
	opt := &optim.ProjectedGD{LR: 0.02}
	t := autograd.NewTape()
	var first, last float64
	for step := 0; step < 300; step++ {
		t.Reset()
		av, sv := t.Param(a), t.Param(s)
		loss := ops.FrobeniusLoss(t.Const(x), ops.MatMul(av, sv))
		g, err := t.Backward(loss)
		if err != nil {
			fmt.Println(err)
			return
		}
		if step == 0 {
			first = loss.Value().Data[0]
		}
		last = loss.Value().Data[0]
		if err := opt.Step([]*tensor.Dense{a, s}, []*tensor.Dense{g.Of(av), g.Of(sv)}); err != nil {
			fmt.Println(err)
			return
		}
	}
	fmt.Println(last < first/2)
	// Output: true
}

// StepSaving takes the projected step and, in the same pass, keeps the
// parameter and gradient it started from (to undo or retry the step) and
// returns ⟨g, p before − p after⟩, the decrease an Armijo test weighs.
func ExampleProjectedGD_StepSaving() {
	p := tensor.MustFromRows([][]float64{{1, 2}})
	g := tensor.MustFromRows([][]float64{{4, -1}})
	prevP, prevG := tensor.New(1, 2), tensor.New(1, 2)
	opt := &optim.ProjectedGD{LR: 0.5}
	dec, err := opt.StepSaving([]*tensor.Dense{p}, []*tensor.Dense{g}, []*tensor.Dense{prevP}, []*tensor.Dense{prevG})
	if err != nil {
		panic(err)
	}
	fmt.Println(p.Data, prevP.Data, prevG.Data, dec)
	// Output: [0 2.5] [1 2] [4 -1] 4.5
}

// Adam's StepSaving keeps the parameter and gradient from before the step
// (to undo or retry it) in the same pass as the update, which is Step's.
func ExampleAdam_StepSaving() {
	p := tensor.MustFromRows([][]float64{{1, 2}})
	g := tensor.MustFromRows([][]float64{{4, -1}})
	prevP, prevG := tensor.New(1, 2), tensor.New(1, 2)
	opt := &optim.Adam{LR: 0.5}
	if err := opt.StepSaving([]*tensor.Dense{p}, []*tensor.Dense{g}, []*tensor.Dense{prevP}, []*tensor.Dense{prevG}); err != nil {
		panic(err)
	}
	// Adam's first step moves each entry by about LR against its gradient's sign.
	fmt.Printf("%.4f %v %v\n", p.Data, prevP.Data, prevG.Data)
	// Output: [0.5000 2.5000] [1 2] [4 -1]
}
