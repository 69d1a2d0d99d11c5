// Command joint measures the supervised topics+words candidate of
// semisup.TrainChoosing beside the topics+words regression it starts
// from, on one split with known and true labels (see prepare.sh): the
// accuracy of each on the documents whose label was unknown, the held-out
// accuracy of the choice, the joint fit's held-out accuracy by epoch and
// the relative error. Ranks 20,10, seed 1, the choice's defaults otherwise.
//
//	go run ./bench/semisup/joint X.mtx KNOWN.txt TRUE.txt
//
// The logs of its runs, which the comments here and docs/ cite by name,
// are in results/bench/semisup/joint/.
package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/neuralnmf/neuralnmf/matio"
	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/models/semisup"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: joint X.mtx KNOWN.txt TRUE.txt")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2], os.Args[3]); err != nil {
		fmt.Fprintln(os.Stderr, "joint:", err)
		os.Exit(1)
	}
}

func readInts(path string) ([]int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var v []int
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		i, err := strconv.Atoi(strings.TrimSpace(sc.Text()))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		v = append(v, i)
	}
	return v, sc.Err()
}

func run(xPath, knownPath, truePath string) error {
	x, err := matio.ReadMatrix(xPath)
	if err != nil {
		return err
	}
	y, err := readInts(knownPath)
	if err != nil {
		return err
	}
	truth, err := readInts(truePath)
	if err != nil {
		return err
	}
	if len(y) != len(truth) || x.Sparse == nil || x.Sparse.Cols != len(y) {
		return fmt.Errorf("want a sparse X with a column per label (%d known, %d true)", len(y), len(truth))
	}
	known := make([]bool, len(y))
	classes := 0
	for j := range y {
		known[j] = y[j] >= 0
		classes = max(classes, truth[j]+1)
	}
	tw := []semisup.Kind{semisup.TopicsWords}
	joint := []semisup.Kind{semisup.SupervisedTopicsWords, semisup.TopicsWords}
	for _, run := range []struct {
		name    string
		kinds   []semisup.Kind
		prior   semisup.Kind
		balance float64
	}{
		{"topics+words", tw, 0, 0.3},
		{"joint, balance 0.3", joint, semisup.SupervisedTopicsWords, 0.3},
		{"joint, balance 1", joint, semisup.SupervisedTopicsWords, 1},
		{"joint, balance 0.05", joint, semisup.SupervisedTopicsWords, 0.05},
	} {
		cfg := neuralnmf.Config{Ranks: []int{20, 10}, Seed: 1, Supervision: &neuralnmf.Supervision{Labels: y, Known: known, Classes: classes}}
		validating := false
		cfg.Progress = func(e neuralnmf.Epoch) {
			if validating && (e.Epoch <= 2 || e.Epoch%10 == 0) {
				fmt.Printf("  epoch %d: relative error %.6f, train accuracy %.3f, held-out %.3f\n", e.Epoch, e.RelError, e.Accuracy, e.HeldOutAccuracy)
			}
		}
		opt := &semisup.ChooseOptions{Kinds: run.kinds, Prior: run.prior, Balances: []float64{run.balance},
			Fitting: func(what string) { validating = strings.Contains(what, "validation fit") }}
		m, ch, err := semisup.TrainChoosing(x.Sparse, cfg, opt)
		if err != nil {
			return err
		}
		pred, _, err := m.Scores(x.Sparse, m.S)
		if err != nil {
			return err
		}
		right, n := 0, 0
		for j, p := range pred {
			if !known[j] {
				n++
				if p == truth[j] {
					right++
				}
			}
		}
		c := ch.Candidates[ch.Chosen]
		fmt.Printf("%s: chose %s (held-out %.3f); accuracy on the %d unknown %.4f; relative error %.6f\n",
			run.name, c.Name, c.HeldOutAccuracy, n, float64(right)/float64(n), m.History.FinalRelError)
	}
	return nil
}
