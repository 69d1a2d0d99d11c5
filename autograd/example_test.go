package autograd_test

import (
	"fmt"

	"github.com/neuralnmf/neuralnmf/autograd"
	"github.com/neuralnmf/neuralnmf/ops"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// A custom op: element-wise square, with its VJP written beside its forward.
func square(x *autograd.Var) *autograd.Var {
	t := autograd.TapeOf("square", x)
	if t.Err() != nil {
		return t.Failed()
	}
	xv := x.Value()
	out := t.Alloc(xv.Rows, xv.Cols)
	tensor.Mul(out, xv, xv)
	return t.Record("square", out, func(g *tensor.Dense, need []bool) []*tensor.Dense {
		gx := t.Alloc(xv.Rows, xv.Cols)
		tensor.Mul(gx, g, xv)
		tensor.Scale(gx, 2, gx)
		return []*tensor.Dense{gx}
	}, x)
}

func ExampleTape_Record() {
	t := autograd.NewTape()
	x := t.Param(tensor.MustFromRows([][]float64{{1, -2, 3}}))
	loss := ops.Sum(square(x))
	g, err := t.Backward(loss)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(loss.Value().Data[0], g.Of(x).Data)
	// Output: 14 [2 -4 6]
}

func ExampleTape_Backward_errors() {
	t := autograd.NewTape()
	a := t.Param(tensor.New(2, 3))
	b := t.Param(tensor.New(2, 3))
	loss := ops.Sum(ops.MatMul(a, b)) // inner dimensions 3 and 2 differ
	_, err := t.Backward(loss)
	fmt.Println(err)
	// Output: ops.MatMul: shape mismatch: inner dimensions differ (2×3 and 2×3)
}
