package gradcheck_test

import (
	"fmt"

	"github.com/neuralnmf/neuralnmf/autograd"
	"github.com/neuralnmf/neuralnmf/gradcheck"
	"github.com/neuralnmf/neuralnmf/ops"
	"github.com/neuralnmf/neuralnmf/tensor"
)

func ExampleCheck() {
	rng := tensor.NewRand(1)
	x := tensor.Uniform(6, 5, 0, 1, rng)
	// L(A, S) = ‖X − AS‖², checked in A and S; X is held constant.
	loss := func(t *autograd.Tape, in []*autograd.Var) *autograd.Var {
		return ops.FrobeniusLoss(t.Const(x), ops.MatMul(in[0], in[1]))
	}
	a := tensor.Uniform(6, 2, 0, 1, rng)
	s := tensor.Uniform(2, 5, 0, 1, rng)
	rep, err := gradcheck.Check(loss, []*tensor.Dense{a, s}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rep.Passed, rep.Checked, rep.Skipped())
	// Output: true 22 0
}
