// Command authors times Neural NMF epochs of this library on the X and the
// initial A's that bench/authors/epoch.py wrote (the authors' net's own
// start), with the same algorithm the authors' code runs: the paper's
// Algorithm 1 (Config.Algorithm1, fixed-step projected GD), reconstruction
// loss, the step lr/(N·M) that corresponds to their lr on the mean-squared
// loss. It prints "ours ms/epoch X": (time of 1+epochs epochs − time of 1)
// / epochs, so set-up and the start cancel. Run by compare_epoch.sh; see
// there.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/neuralnmf/neuralnmf/matio"
	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/tensor"
)

func main() {
	dir := flag.String("dir", "", "directory with X.csv and A0.csv, A1.csv, … from epoch.py")
	epochs := flag.Int("epochs", 5, "epochs timed (beyond the first)")
	lr := flag.Float64("lr", 1e-3, "the authors' step on their mean-squared loss")
	flag.Parse()
	if err := run(*dir, *epochs, *lr); err != nil {
		fmt.Fprintln(os.Stderr, "authors:", err)
		os.Exit(1)
	}
}

func readCSV(path string) (*tensor.Dense, error) {
	m, err := matio.ReadMatrix(path)
	if err != nil {
		return nil, err
	}
	return m.ToDense(), nil
}

func run(dir string, epochs int, lr float64) error {
	if dir == "" || epochs < 1 {
		return fmt.Errorf("-dir is required and -epochs must be at least 1")
	}
	x, err := readCSV(filepath.Join(dir, "X.csv"))
	if err != nil {
		return err
	}
	var a []*tensor.Dense
	var ranks []int
	for l := 0; ; l++ {
		p := filepath.Join(dir, fmt.Sprintf("A%d.csv", l))
		if _, err := os.Stat(p); err != nil {
			break
		}
		al, err := readCSV(p)
		if err != nil {
			return err
		}
		a, ranks = append(a, al), append(ranks, al.Cols)
	}
	if len(a) == 0 {
		return fmt.Errorf("%s: no A0.csv", dir)
	}
	timed := func(n int) (time.Duration, error) {
		cfg := neuralnmf.Config{Ranks: ranks, Init: neuralnmf.GivenInit, InitA: a, Algorithm1: true,
			LR: lr / float64(x.Rows*x.Cols), Epochs: n}
		t0 := time.Now()
		_, err := neuralnmf.Train(x, cfg)
		return time.Since(t0), err
	}
	one, err := timed(1)
	if err != nil {
		return err
	}
	more, err := timed(1 + epochs)
	if err != nil {
		return err
	}
	fmt.Printf("ours ms/epoch %.6g\n", float64(more-one)/float64(epochs)/1e6)
	return nil
}
