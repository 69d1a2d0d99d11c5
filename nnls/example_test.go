package nnls_test

import (
	"fmt"

	"github.com/neuralnmf/neuralnmf/nnls"
	"github.com/neuralnmf/neuralnmf/tensor"
)

func ExampleSolve() {
	// Two topics in three features; the second sample needs a negative
	// weight on topic 1 to be fitted exactly, so NNLS sets it to zero.
	a := tensor.MustFromRows([][]float64{
		{1, 0},
		{0, 1},
		{1, 1},
	})
	x := tensor.MustFromRows([][]float64{
		{2, 0},
		{1, 3},
		{3, 1},
	})
	res, err := nnls.Solve(a, x, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("S = %.4g\n", res.S.Data)
	fmt.Println("support of sample 1:", res.Support.Has(0, 1), res.Support.Has(1, 1))
	// Output:
	// S = [2 0 1 2]
	// support of sample 1: false true
}

func ExampleSolve_errors() {
	// Column 1 is twice column 0. QR with column pivoting takes the larger
	// column 1 first, so column 0 is the one reported as dependent.
	a := tensor.MustFromRows([][]float64{{1, 2}, {2, 4}, {0, 0}})
	x := tensor.MustFromRows([][]float64{{1}, {1}, {1}})
	_, err := nnls.Solve(a, x, nil)
	fmt.Println(err)
	// Output: nnls: A: numerically rank deficient (reciprocal condition of AᵀA ≈ 0): column(s) [0] are, to working precision, combinations of the others
}
