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

func ExampleSolve_rankDeficient() {
	// Column 2 is the sum of columns 0 and 1, so x = a0 + a1 = a2 has many
	// minimisers. Solve returns one whose support columns are independent,
	// as Lawson–Hanson does, so the backward pass stays defined on it.
	a := tensor.MustFromRows([][]float64{
		{1, 0, 1},
		{0, 1, 1},
		{0, 0, 0},
	})
	x := tensor.MustFromRows([][]float64{{1}, {1}, {0}})
	res, err := nnls.Solve(a, x, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("S = %.4g, support size %d, Lawson–Hanson columns %d\n", res.S.Data, res.Support.Count(0), res.Stats.Fallbacks)
	// Output: S = [0 0 1], support size 1, Lawson–Hanson columns 1
}

func ExampleSolve_signed() {
	// Signed data: the best fit of x with nonnegative weights on a0 = (1, 0)
	// and a1 = (−1, 1) is x itself when x = 2·a0 + 1·a1 = (1, 1); for
	// x = (−1, 0) the unconstrained fit is −1·a0, so the constraint binds
	// and the solution is 0.5·a1, the point of the cone nearest to x.
	a := tensor.MustFromRows([][]float64{{1, -1}, {0, 1}})
	x := tensor.MustFromRows([][]float64{{1, -1}, {1, 0}})
	res, err := nnls.Solve(a, x, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("S = %.4g\n", res.S.Data)
	// Output: S = [2 0 1 0.5]
}

// Every factorisation holds the cosines between A's columns; Neural NMF
// reads them to find topics that a step made collinear.
func ExampleFactor_Cosine() {
	a := tensor.MustFromRows([][]float64{{1, 1, 2}, {0, 1, 0}, {0, 0, 0}})
	f, err := nnls.NewFactor(a)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%.4f %.4f\n", f.Cosine(0, 1), f.Cosine(0, 2))
	// Output: 0.7071 1.0000
}

// The nonnegative lasso: Options.L1 adds L1·Σs to each column's objective.
// By hand for the first sample, S = (AᵀA)⁻¹(Aᵀx − 1) = (5/3, 2/3); the
// second keeps only topic 2, at (4 − 1)/2.
func ExampleSolve_l1() {
	a := tensor.MustFromRows([][]float64{{1, 0}, {0, 1}, {1, 1}})
	x := tensor.MustFromRows([][]float64{{2, 0}, {1, 3}, {3, 1}})
	res, err := nnls.Solve(a, x, &nnls.Options{L1: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("S = %.4g\n", res.S.Data)
	// Output: S = [1.667 0 0.6667 1.5]
}
