package ssnmf_test

import (
	"fmt"
	"slices"

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

// NMF by HALS (coordinate descent, as scikit-learn's solver='cd') from the
// deterministic NNDSVDa start (scikit-learn's init='nndsvda'): one start
// instead of several random ones, and the same factors on every run.
func ExampleNMF_hals() {
	x := synthetic.X()
	opt := &ssnmf.Options{Solver: ssnmf.HALS, Start: ssnmf.NNDSVDAStart, Seed: 1}
	f, err := ssnmf.NMF(x, 9, opt)
	if err != nil {
		fmt.Println(err)
		return
	}
	g, _ := ssnmf.NMF(x, 9, opt)
	d := tensor.New(x.Rows, x.Cols)
	tensor.Sub(d, x, tensor.MatMul(false, false, f.A, f.S))
	fmt.Println("error below the paper's one-layer HNMF (0.053):", tensor.Norm(d)/tensor.Norm(x) < 0.053)
	fmt.Println("deterministic:", slices.Equal(f.A.Data, g.A.Data))
	// Output:
	// error below the paper's one-layer HNMF (0.053): true
	// deterministic: true
}

// NNDSVDA is the start itself: nonnegative factors from a (randomized)
// truncated SVD, zeros filled with the mean of X. It is a start, not a fit:
// with X's mean near 1 the filled zeros make A·S far too large here, as in
// scikit-learn, whose _initialize_nmf(X, 9, init='nndsvda') gives the
// relative error 3.647229164239399 on the same X (Python 3.11.2, scikit-learn
// 1.2.1); HALS then fits from it (see ExampleNMF_hals).
func ExampleNNDSVDA() {
	x := synthetic.X()
	a, s, err := ssnmf.NNDSVDA(x, 9, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	d := tensor.New(x.Rows, x.Cols)
	tensor.Sub(d, x, tensor.MatMul(false, false, a, s))
	fmt.Println("shapes:", a.Rows, "×", a.Cols, "and", s.Rows, "×", s.Cols)
	fmt.Println("nonnegative:", tensor.CheckNonnegative("A", a) == nil && tensor.CheckNonnegative("S", s) == nil)
	fmt.Printf("relative error %.6f\n", tensor.Norm(d)/tensor.Norm(x))
	// Output:
	// shapes: 87 × 9 and 9 × 90
	// nonnegative: true
	// relative error 3.647229
}
