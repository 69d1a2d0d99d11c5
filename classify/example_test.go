package classify_test

import (
	"fmt"

	"github.com/neuralnmf/neuralnmf/classify"
)

// Two classes of samples, each with its own feature; the regression reads
// them off, and cross-validation over two folds picks the penalty.
func ExampleFitLogistic() {
	// Samples 0, 2, 4 have feature 0; samples 1, 3, 5 feature 1.
	f := &classify.Features{Rows: 2, ColPtr: []int{0, 1, 2, 3, 4, 5, 6},
		RowIdx: []int{0, 1, 0, 1, 0, 1}, Val: []float64{1, 1, 0.9, 0.8, 1, 1}}
	y := []int{0, 1, 0, 1, 0, 1}
	l, err := classify.FitLogistic(f, y, 2, 1, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("predicted:", l.Predict(f))
	cv, err := classify.CrossValidate(f, y, 2, []int{0, 0, 0, 1, 1, 1}, false)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("cross-validated:", cv.Pred)
	// Output:
	// predicted: [0 1 0 1 0 1]
	// cross-validated: [0 1 0 1 0 1]
}

// Two known labels spread over a chain of similar samples.
func ExampleSpreading() {
	// Samples 0–2 share feature 0, samples 3–5 feature 1 (unit length).
	f := &classify.Features{Rows: 2, ColPtr: []int{0, 1, 2, 3, 4, 5, 6},
		RowIdx: []int{0, 0, 0, 1, 1, 1}, Val: []float64{1, 1, 1, 1, 1, 1}}
	s := classify.Spreading{Neighbours: 2}
	nb, err := s.Graph(f)
	if err != nil {
		fmt.Println(err)
		return
	}
	classes, err := s.Spread(nb, []int{0, -1, -1, -1, -1, 1}, 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(classes)
	// Output: [0 0 0 1 1 1]
}
