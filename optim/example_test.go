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
