package main

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/matio"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// Issue 50, item 2: what the fit cannot keep is refused before any work.
// Without -quiet, fit prints each phase as it starts: a refusal at the
// start prints no start of a factorisation.
func TestRefusedBeforeTheWork(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	writeLabelledPosts(t, p("posts.jsonl"))
	data, err := os.ReadFile(p("posts.jsonl"))
	require.NoError(t, err)
	// A class name with a tab (JSON's \t), which the model file refuses.
	require.NoError(t, os.WriteFile(p("tab.jsonl"), []byte(strings.Replace(string(data), `"topic":"cars"`, `"topic":"c\tars"`, 1)), 0o644))
	writeData(t, dir)
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"fit", "-text", p("tab.jsonl"), "-field", "body", "-label-field", "topic", "-ranks", "3,2", "-o", p("m.nnmf")}, 1,
			`-label-field topic: document 1's class name "c\tars" holds a control character`},
		{[]string{"fit", "-x", p("x.mtx"), "-ranks", "2", "-labels", p("y.txt"), "-loss", "kl", "-o", p("m.nnmf")}, 2, "-loss kl does not support labels (-labels, -label-field)"},
		{[]string{"fit", "-x", p("x.mtx"), "-ranks", "2", "-labels", p("y.txt"), "-loss", "kl", "-choose=false", "-o", p("m.nnmf")}, 2, "-loss kl does not support labels (-labels, -label-field)"},
	}
	for _, tc := range cases {
		code, out, errOut := cli(t, tc.args...)
		require.Equal(t, tc.code, code, "%v: %s%s", tc.args, out, errOut)
		require.Contains(t, errOut, tc.msg, "%v", tc.args)
		require.NotRegexp(t, `(?m)^start( [0-9]+ of [0-9]+)?: `, errOut, "%v: refused before the start", tc.args)
		_, err := os.Stat(p("m.nnmf"))
		require.ErrorIs(t, err, os.ErrNotExist)
	}
}

// Issue 50, item 5: a KL model transforms documents that use a feature
// (word) absent from its training data, leaving those entries out, and
// says which columns and features, whole or streamed.
func TestKLTransformUnknownFeature(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	var train, next strings.Builder
	for i := 0; i < 8; i++ {
		var a, b []string
		for j := 0; j < 12; j++ {
			v := (i*7+j*3)%5 + (i/4+j)%2
			if i == 7 {
				v = 0 // feature 8 never occurs in training
			}
			a = append(a, strconv.Itoa(v))
			w := v
			if i == 7 && j%3 == 1 {
				w = 2 // columns 2, 5, 8 and 11 of the new data use it
			}
			b = append(b, strconv.Itoa(w))
		}
		train.WriteString(strings.Join(a, ",") + "\n")
		next.WriteString(strings.Join(b, ",") + "\n")
	}
	require.NoError(t, os.WriteFile(p("train.csv"), []byte(train.String()), 0o644))
	require.NoError(t, os.WriteFile(p("new.csv"), []byte(next.String()), 0o644))
	code, _, errOut := cli(t, "fit", "-x", p("train.csv"), "-ranks", "2", "-loss", "kl", "-o", p("m.nnmf"), "-quiet")
	require.Equal(t, 0, code, errOut)
	want := "warning: 4 of 12 columns (2, 5, 8, 11) have entries in 1 feature(s) (rows 8) that were zero in all of the model's training data"
	code, _, errOut = cli(t, "transform", "-model", p("m.nnmf"), "-x", p("new.csv"), "-o", p("s.csv"))
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, want)
	x, err := matio.ReadMatrix(p("new.csv"))
	require.NoError(t, err)
	f, err := os.Create(p("new.mtx"))
	require.NoError(t, err)
	require.NoError(t, matio.WriteMatrixMarket(f, &matio.Matrix{Sparse: tensor.SparseFromDense(x.Dense)}))
	require.NoError(t, f.Close())
	code, _, errOut = cli(t, "transform", "-model", p("m.nnmf"), "-x", p("new.mtx"), "-batch-size", "5", "-o", p("s2.csv"))
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, want)
}

// Issue 50, item 7: what was misleading, late or silently dropped on the
// command line.
func TestMisleadingFlags(t *testing.T) {
	dir := t.TempDir()
	writeData(t, dir)
	p := func(n string) string { return filepath.Join(dir, n) }
	writeLabelledPosts(t, p("posts.jsonl"))
	// Labels with blank lines for unknown ones, as -labels' help says.
	y, err := os.ReadFile(p("y.txt"))
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(y)), "\n")
	lines[3], lines[15] = "", ""
	require.NoError(t, os.WriteFile(p("blank.txt"), []byte(strings.Join(lines, "\n")+"\n\n"), 0o644))
	fit := func(args ...string) []string {
		return append([]string{"fit", "-x", p("x.mtx"), "-ranks", "2", "-o", p("m.nnmf"), "-quiet"}, args...)
	}
	cases := []struct {
		args    []string
		code    int
		msg     string
		notWant string
	}{
		{fit("-alpha-s", "1e307"), 2, "-alpha-s is 1e+307: α times the 12 rows of X is", "nnls: A"},
		{fit("-alpha-a", "1e300"), 2, "-alpha-a is 1e+300", "AlphaA"},
		{fit("-alpha-s", "1e10"), 0, "warning: -alpha-s 1e+10 set the weights of the documents to 0", ""},
		{fit("-alpha-a", "1e100"), 0, "warning: -alpha-a 1e+100: the penalty on the topics", ""},
		{fit("-l1-ratio", "0.5"), 2, "-l1-ratio is the mix of the penalties' ℓ₁ and ℓ₂ parts: give -alpha-s or -alpha-a", ""},
		{fit("-alpha-s", "0.1", "-batch-size", "5"), 2, "-alpha-s and -alpha-a are not supported with -batch-size", "AlphaS"},
		{fit("-labels", p("y.txt"), "-folds", "1000"), 2, "-folds is 1000, above the 10 known labels of the largest class: want 2 to 10", "Folds"},
		{fit("-labels", p("y.txt"), "-batch-size", "5", "-hold-out", "0.3"), 2, "-hold-out and -folds apply to -choose with labels", ""},
		{fit("-labels", p("y.txt"), "-choose=false", "-patience", "3"), 2, "-patience applies to -choose with labels", ""},
		{fit("-labels", p("y.txt"), "-candidates", "words", "-prior", "readout"), 2, "-prior readout is not among -candidates words", ""},
		// Issue 66, item 5: a prior the default candidates lack is refused,
		// not dropped.
		{fit("-labels", p("y.txt"), "-prior", "self-trained"), 2, "-prior self-trained is not among -candidates supervised,supervised-readout,readout,words,topics+words,self-trained-words,spread (the default)", ""},
		{fit("-labels", p("y.txt"), "-candidates", ",,"), 2, `-candidates ",," names no kind of candidate`, ""},
		{fit("-labels", p("y.txt"), "-candidates", "words", "-readout-layer", "1"), 2, "-readout-layer 1 chooses the layer of the read-out candidates", ""},
		{fit("-labels", p("blank.txt"), "-restarts", "2"), 0, "", "start 3 of 2"},
		{[]string{"demo", "-o", p("d1"), "-out", p("d2")}, 2, "-o " + p("d1") + " and -out " + p("d2") + " name two directories", ""},
		{[]string{"vectorize", "-docs", p("posts.jsonl"), "-text", p("x.mtx"), "-o", p("v.mtx")}, 2, "name two inputs", ""},
		{[]string{"vectorize", "-docs", p("posts.jsonl"), "-field", "body", "-o", p("v.mtx")}, 0, "", ""},
		// Issue 66, item 8: crossing bounds in flag terms, not the library's.
		{[]string{"vectorize", "-docs", p("posts.jsonl"), "-field", "body", "-min-df", "3", "-max-df", "0.01", "-o", p("v2.mtx")}, 2, "-max-df is below -min-df for these documents", "MaxDF"},
		{[]string{"vectorize", "-docs", p("posts.jsonl"), "-field", "body", "-min-df", "5", "-max-df", "3", "-o", p("v2.mtx")}, 2, "-max-df 3 is below -min-df 5", "MaxDF"},
	}
	for _, tc := range cases {
		args := tc.args
		if tc.notWant == "start 3 of 2" {
			args = slices.DeleteFunc(slices.Clone(args), func(a string) bool { return a == "-quiet" })
		}
		code, out, errOut := cli(t, args...)
		require.Equal(t, tc.code, code, "%v: %s%s", tc.args, out, errOut)
		require.Contains(t, errOut, tc.msg, "%v", tc.args)
		if tc.notWant != "" {
			require.NotContains(t, errOut, tc.notWant, "%v", tc.args)
		}
		os.Remove(p("m.nnmf"))
	}
	// Every label known: the self-trained prior's stand-in is said.
	code, out, errOut := cli(t, "fit", "-x", p("x.mtx"), "-ranks", "2", "-o", p("m.nnmf"), "-labels", p("y.txt"), "-candidates", "words,self-trained-words", "-prior", "self-trained-words")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "every label is known, so no document is left to self-train: the prior is words")
	require.Regexp(t, `labels: chose logistic regression on the words .*, the prior and the best by its accuracy|\(the prior\)`, out)
	l, err := matio.ReadLabelsFile(p("blank.txt"))
	require.NoError(t, err)
	require.Len(t, l, 20)
	require.Equal(t, -1, l[3])
}
