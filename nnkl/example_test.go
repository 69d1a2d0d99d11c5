package nnkl_test

import (
	"fmt"

	"github.com/neuralnmf/neuralnmf/nnkl"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// Counts that are exactly a nonnegative mix of A's columns are solved
// back to that mix.
func ExampleSolve() {
	a := tensor.MustFromRows([][]float64{{2, 0}, {1, 1}, {0, 3}})
	x := tensor.MustFromRows([][]float64{{4}, {3}, {3}}) // A·(2, 1)
	res, err := nnkl.Solve(a, x, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.6f %.6f\n", res.S.At(0, 0), res.S.At(1, 0))
	// Output: 2.000000 1.000000
}
