package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/internal/lookalike"
)

// Every command, run to success or to a failure, leaves every file beside
// its outputs as it was, however much it looks like a temporary file of
// this tool, and leaves no file of its own but its outputs.
func TestCommandsTouchOnlyTheirOutputs(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	writeData(t, dir)
	writeLabelledPosts(t, p("posts.jsonl"))
	require.NoError(t, os.Rename(p("x.mtx"), p("small.mtx")))
	require.NoError(t, os.Rename(p("y.txt"), p("small-y.txt")))
	writeCorpus(t, dir, 600)
	require.NoError(t, os.Mkdir(p("demo"), 0o755))
	outputs := []string{"X.mtx", "v.txt", "vec.json", "m.nnmf", "ms.nnmf", "mt.nnmf", "sorted.mtx.gz",
		"s.csv", "s.mtx", "s2.csv", "pred.csv", "pred2.csv", "a1.png", "a2.csv", "r.html", "bad.csv"}
	check := lookalike.Plant(t, dir, outputs...)
	checkDemo := lookalike.Plant(t, p("demo"), "fig2.png", "fig3.png", "results.csv")
	before, _ := os.ReadDir(dir)
	for _, tc := range []struct {
		args string
		ok   bool
	}{
		{"vectorize -text posts.jsonl -field body -o X.mtx -vocab v.txt -save vec.json", true},
		{"fit -x small.mtx -ranks 4,2 -labels small-y.txt -quiet -o m.nnmf", true},
		{"fit -text posts.jsonl -field body -label-field topic -ranks 3,2 -quiet -o mt.nnmf", true},
		{"convert -x rev.mtx -o sorted.mtx.gz -memory 1", true},
		{"fit -x sorted.mtx.gz -ranks 4,2 -batch-size 100 -quiet -o ms.nnmf", true},
		{"transform -model m.nnmf -x small.mtx -o s.csv", true},
		{"transform -model m.nnmf -x small.mtx -o s.mtx", true},
		{"transform -model ms.nnmf -x x.mtx -batch-size 64 -o s2.csv", true},
		{"predict -model m.nnmf -x small.mtx -o pred.csv", true},
		{"predict -model mt.nnmf -text posts.jsonl -field body -id-field id -o pred2.csv", true},
		{"topics -model mt.nnmf", true},
		{"heatmap -model m.nnmf -matrix A1 -o a1.png", true},
		{"export -model m.nnmf -matrix A2 -o a2.csv", true},
		{"report -model m.nnmf -o r.html", true},
		{"demo -trials 1 -epochs 20 -quiet -o demo", true},
		// Failures write nothing.
		{"predict -model m.nnmf -x small.mtx -labels missing.txt -o bad.csv", false},
		{"transform -model m.nnmf -x missing.mtx -o bad.csv", false},
		{"export -model m.nnmf -matrix A9 -o bad.csv", false},
	} {
		args := strings.Fields(tc.args)
		for i, a := range args {
			if i > 0 && !strings.HasPrefix(a, "-") && strings.HasPrefix(args[i-1], "-") && args[i-1] != "-ranks" && strings.Contains(a, ".") || a == "demo" && i > 0 {
				args[i] = p(a)
			}
		}
		code, _, errOut := cli(t, args...)
		if tc.ok {
			require.Equal(t, 0, code, "%s: %s", tc.args, errOut)
		} else {
			require.NotEqual(t, 0, code, tc.args)
		}
		check(tc.args)
	}
	checkDemo("demo")
	_, err := os.Stat(p("bad.csv"))
	require.ErrorIs(t, err, os.ErrNotExist, "a failed command wrote its output")
	had := map[string]bool{}
	for _, e := range before {
		had[e.Name()] = true
	}
	var made []string
	after, _ := os.ReadDir(dir)
	for _, e := range after {
		if !had[e.Name()] {
			made = append(made, e.Name())
		}
	}
	require.ElementsMatch(t, outputs[:len(outputs)-1], made, "new files: only the outputs (all but bad.csv)")
}
