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
