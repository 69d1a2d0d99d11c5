package report_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/report"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// Write turns a trained model into one HTML page; here the page is checked
// for its sections rather than printed.
func ExampleWrite() {
	x := tensor.New(6, 8)
	for j := 0; j < 8; j++ {
		for i := 0; i < 3; i++ {
			x.Set(i+3*(j%2), j, float64(1+i+j))
		}
	}
	m, err := neuralnmf.Train(x, neuralnmf.Config{Ranks: []int{2, 1}, Epochs: 10})
	if err != nil {
		fmt.Println(err)
		return
	}
	var page bytes.Buffer
	err = report.Write(&page, report.Input{Model: m, Title: "example", Vocab: []string{"a", "b", "c", "d", "e", "f"}})
	fmt.Println(err)
	for _, section := range []string{"Topic hierarchy", "Layer 2 (1 topics)", "Heatmaps", "Training"} {
		fmt.Println(section, strings.Contains(page.String(), section))
	}
	// Output:
	// <nil>
	// Topic hierarchy true
	// Layer 2 (1 topics) true
	// Heatmaps true
	// Training true
}
