package quality_test

import (
	"fmt"

	"github.com/neuralnmf/neuralnmf/quality"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// The coherence of two topics of a hierarchy over five documents.
func ExampleMeasure() {
	// Words 0..3 (rows) in documents 0..4 (columns).
	var e []tensor.Entry
	for doc, words := range [][]int{{0, 1}, {0, 1}, {0, 2}, {2}, {3}} {
		for _, w := range words {
			e = append(e, tensor.Entry{Row: w, Col: doc, Val: 1})
		}
	}
	docs, _ := tensor.NewSparse(4, 5, e)
	a0 := tensor.MustFromRows([][]float64{{1, 0}, {0.5, 0}, {0, 1}, {0, 0.5}}) // two topics
	a1 := tensor.MustFromRows([][]float64{{3}, {1}})                           // one broad topic
	layers, err := quality.Measure(docs, []*tensor.Dense{a0, a1}, &quality.Options{Top: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, l := range layers {
		for _, t := range l.Topics {
			fmt.Printf("layer %d topic %d: words %v, NPMI %.3f, parent share %.2f\n", l.Layer+1, t.Index+1, t.Words, t.NPMI, t.ParentShare)
		}
	}
	// Output:
	// layer 1 topic 1: words [0 1], NPMI 0.557, parent share NaN
	// layer 1 topic 2: words [2 3], NPMI -1.000, parent share NaN
	// layer 2 topic 1: words [0 1], NPMI 0.557, parent share 0.75
}
