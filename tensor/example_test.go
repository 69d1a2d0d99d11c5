package tensor_test

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/neuralnmf/neuralnmf/tensor"
)

func ExampleDense_Mat() {
	a := tensor.MustFromRows([][]float64{{1, 2}, {3, 4}})
	// The mat view aliases a's storage: no copy in either direction.
	m := a.Mat()
	det := mat.Det(m)
	m.Scale(10, m)
	fmt.Println(det, a.At(1, 1))
	// Output: -2 40
}

func ExampleCheckData() {
	x := tensor.MustFromRows([][]float64{{1, 0}, {-3, 2}})
	fmt.Println(tensor.CheckData("X", x))
	// Output: X: negative entry: entry (1, 0) is -3
}

func ExampleOneHot() {
	y, _ := tensor.OneHot([]int{2, 0, -1}, 3)
	fmt.Println(y)
	// Output:
	// ⎡0  1  0⎤
	// ⎢0  0  0⎥
	// ⎣1  0  0⎦
}

// SqDist measures how well W·H fits X without forming W·H.
func ExampleSqDist() {
	x := tensor.MustFromRows([][]float64{{1, 2}, {3, 4}})
	w := tensor.MustFromRows([][]float64{{1}, {2}})
	h := tensor.MustFromRows([][]float64{{1, 2}})
	// W·H = [[1 2] [2 4]]: only the entry (1, 0) differs, by 1.
	fmt.Println(tensor.SqDist(x, w, h))
	// Output: 1
}

// SqDiff is the squared Frobenius distance of two matrices of one shape,
// summed in the order of Dot.
func ExampleSqDiff() {
	a := tensor.MustFromRows([][]float64{{1, 2, 3}, {4, 5, 6}})
	b := tensor.MustFromRows([][]float64{{1, 0, 3}, {4, 5, 9}})
	// (2 − 0)² + (6 − 9)² = 13.
	fmt.Println(tensor.SqDiff(a, b))
	// Output: 13
}

// T transposes a sparse matrix: its columns are the rows of the original.
func ExampleSparse_T() {
	s, _ := tensor.NewSparse(2, 3, []tensor.Entry{{Row: 0, Col: 2, Val: 5}, {Row: 1, Col: 0, Val: 7}})
	fmt.Println(s.T().Dense().Data)
	// Output: [0 7 0 0 5 0]
}

// MulDenseTRows adds rows of X·Uᵀ straight from the CSC form, so that row
// blocks can be shared among goroutines without transposing X.
func ExampleSparse_MulDenseTRows() {
	x := tensor.SparseFromDense(tensor.MustFromRows([][]float64{{1, 0}, {0, 2}, {3, 4}}))
	u := tensor.MustFromRows([][]float64{{1, 10}}) // k×M = 1×2
	dst := tensor.New(3, 1)
	x.MulDenseTRows(1, u, 0, 2, dst) // rows 0 and 1
	x.MulDenseTRows(1, u, 2, 3, dst) // row 2
	fmt.Println(dst.Data)
	// Output: [1 20 43]
}
