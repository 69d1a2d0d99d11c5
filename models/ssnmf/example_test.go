package ssnmf_test

import (
	"fmt"

	"github.com/neuralnmf/neuralnmf/datasets/synthetic"
	"github.com/neuralnmf/neuralnmf/models/ssnmf"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// Two-layer HNMF of the paper's synthetic data with semi-supervision at the
// top layer (the 40 labelled columns of the paper's setting, 4 classes).
func ExampleHNMF() {
	x := synthetic.X()
	labels, _ := synthetic.Labels(4)
	known, _ := synthetic.Known(40)
	y, _ := tensor.OneHot(labels, 4)
	lab := &ssnmf.Labels{Y: y, Z: tensor.ColumnMask(4, known), Lambda: 1}
	h, err := ssnmf.HNMF(x, []int{9, 4}, lab, &ssnmf.Options{Seed: 1, Restarts: 10})
	if err != nil {
		fmt.Println(err)
		return
	}
	d := tensor.New(x.Rows, x.Cols)
	tensor.Sub(d, x, h.Reconstruction())
	fmt.Println("A shapes:", h.A[0].Rows, "×", h.A[0].Cols, "and", h.A[1].Rows, "×", h.A[1].Cols, "; B:", h.B.Rows, "×", h.B.Cols)
	fmt.Println("error below the paper's HNMF (0.374):", tensor.Norm(d)/tensor.Norm(x) < 0.374)
	// Output:
	// A shapes: 87 × 9 and 9 × 4 ; B: 4 × 4
	// error below the paper's HNMF (0.374): true
}
