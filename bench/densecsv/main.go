// Command densecsv writes the dense matrix BenchmarkEpoch trains on: the
// product of two uniform factors, rows × rank and rank × cols, plus uniform
// noise in [0, 0.1), as CSV (rows are features, columns samples, as `fit -x`
// reads it). bench/epoch_cli.sh times the command-line fit's epoch on it:
//
//	go run ./bench/densecsv -rows 2000 -cols 2000 -rank 50 -o /tmp/x2000.csv
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"

	"github.com/neuralnmf/neuralnmf/matio"
	"github.com/neuralnmf/neuralnmf/tensor"
)

func main() {
	rows := flag.Int("rows", 2000, "rows (features)")
	cols := flag.Int("cols", 2000, "columns (samples)")
	rank := flag.Int("rank", 50, "rank of the product")
	seed := flag.Uint64("seed", 1, "seed")
	out := flag.String("o", "", "output .csv (required)")
	flag.Parse()
	if err := run(*rows, *cols, *rank, *seed, *out); err != nil {
		fmt.Fprintln(os.Stderr, "densecsv:", err)
		os.Exit(1)
	}
}

func run(rows, cols, rank int, seed uint64, out string) error {
	if out == "" {
		return fmt.Errorf("-o is required")
	}
	if rows < 1 || cols < 1 || rank < 1 {
		return fmt.Errorf("-rows, -cols and -rank must be positive")
	}
	rng := tensor.NewRand(seed)
	x := tensor.MatMul(false, false, tensor.Uniform(rows, rank, 0, 1, rng), tensor.Uniform(rank, cols, 0, 1, rng))
	for i, u := range tensor.Uniform(rows, cols, 0, 0.1, rng).Data {
		x.Data[i] += u
	}
	return matio.WriteAtomic(out, func(f *os.File) error {
		w := bufio.NewWriter(f)
		if err := matio.WriteCSV(w, x); err != nil {
			return err
		}
		return w.Flush()
	})
}
