// Package synthetic embeds the Neural NMF paper's synthetic hierarchical
// block matrix, so that the demo and tests run without any data files.
//
// The data are the authors' own (experiments/synthetic_noise.mat of
// jvendrow/NeuralNMF, MIT licence, Copyright (c) 2020 Joshua Vendrow; see
// LICENSE in this directory), converted exactly to CSV.
//
// X is 87×90: 87 features (rows) by 90 data points (columns); the paper calls
// it "90 × 87". Every entry is a block base value (0, 1, 2 or 4) plus
// U(0, 0.15) noise — not the U(0, 1) the paper's text states. Columns fall in
// 2, 4 and 9 nested classes.
package synthetic

import (
	_ "embed"
	"encoding/csv"
	"fmt"
	"strconv"
	"strings"

	"github.com/neuralnmf/neuralnmf/tensor"
)

var (
	//go:embed X.csv
	xCSV string
	//go:embed labels.csv
	labelsCSV string
	//go:embed label_masks.csv
	masksCSV string
)

// Rows and Cols are the dimensions of X.
const (
	Rows = 87
	Cols = 90
)

// X returns a new copy of the 87×90 data matrix.
func X() *tensor.Dense {
	recs := mustRead(xCSV)
	x := tensor.New(len(recs), len(recs[0]))
	for i, rec := range recs {
		for j, f := range rec {
			v, err := strconv.ParseFloat(f, 64)
			if err != nil {
				panic(fmt.Sprintf("synthetic: X.csv line %d: %v", i+1, err))
			}
			x.Set(i, j, v)
		}
	}
	return x
}

// Labels returns the class of each of the 90 columns at the given number of
// classes: 9, 4 or 2 (0-based class ids). It returns an error for any other
// count.
func Labels(classes int) ([]int, error) {
	col := map[int]int{9: 1, 4: 2, 2: 3}[classes]
	if col == 0 {
		return nil, fmt.Errorf("synthetic: Labels: classes is %d, want 9, 4 or 2", classes)
	}
	return intColumn(labelsCSV, col), nil
}

// Known returns which of the 90 columns are labelled in the paper's
// semi-supervised setting with the given percentage: 0, 10, …, 90. The paper's
// "40 %" setting is Known(40), which marks 40 of the 90 columns (44 %).
func Known(percent int) ([]bool, error) {
	if percent < 0 || percent > 90 || percent%10 != 0 {
		return nil, fmt.Errorf("synthetic: Known: percent is %d, want one of 0, 10, …, 90", percent)
	}
	vals := intColumn(masksCSV, 1+percent/10)
	known := make([]bool, len(vals))
	for i, v := range vals {
		known[i] = v != 0
	}
	return known, nil
}

func intColumn(src string, col int) []int {
	recs := mustRead(src)[1:] // header
	out := make([]int, len(recs))
	for i, rec := range recs {
		v, err := strconv.Atoi(rec[col])
		if err != nil {
			panic(fmt.Sprintf("synthetic: line %d: %v", i+2, err))
		}
		out[i] = v
	}
	return out
}

func mustRead(src string) [][]string {
	recs, err := csv.NewReader(strings.NewReader(src)).ReadAll()
	if err != nil {
		panic("synthetic: embedded CSV is corrupt: " + err.Error())
	}
	return recs
}
