package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/matio"
)

// writePosts writes 40 short documents about two subjects as JSON Lines,
// with a label per document.
func writePosts(t *testing.T, dir string) {
	subjects := [][]string{
		{"engine", "wheel", "brake", "motor", "tyre", "gear"},
		{"planet", "orbit", "rocket", "launch", "moon", "star"},
	}
	var docs, labels strings.Builder
	for d := 0; d < 40; d++ {
		s := subjects[d%2]
		words := []string{s[d%6], s[(d+1)%6], s[(d+3)%6], "The", "and", fmt.Sprint(d % 10)}
		b, _ := json.Marshal(map[string]string{"body": strings.Join(words, " ")})
		docs.Write(b)
		docs.WriteByte('\n')
		fmt.Fprintln(&labels, d%2)
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "posts.jsonl"), []byte(docs.String()), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "labels.txt"), []byte(labels.String()), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "stop.txt"), []byte("the\nand\n"), 0o644))
}

func TestVectorizeAndTextWorkflow(t *testing.T) {
	dir := t.TempDir()
	writePosts(t, dir)
	p := func(n string) string { return filepath.Join(dir, n) }

	code, out, errOut := cli(t, "vectorize", "-text", p("posts.jsonl"), "-field", "body", "-stopwords", p("stop.txt"),
		"-o", p("X.mtx.gz"), "-vocab", p("vocab.txt"), "-save", p("vec.json"), "-names", p("names.txt"))
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "40 documents × 12 words")
	vocab, err := os.ReadFile(p("vocab.txt"))
	require.NoError(t, err)
	require.Equal(t, "brake\nengine\ngear\nlaunch\nmoon\nmotor\norbit\nplanet\nrocket\nstar\ntyre\nwheel\n", string(vocab),
		"sorted; stop words and one-character tokens dropped")
	x, err := matio.ReadMatrix(p("X.mtx.gz"))
	require.NoError(t, err)
	r, c := x.Dims()
	require.Equal(t, []int{12, 40}, []int{r, c})
	names, err := os.ReadFile(p("names.txt"))
	require.NoError(t, err)
	require.Equal(t, 40, strings.Count(string(names), "\n"))

	// The saved vectoriser puts the same documents in the same space.
	code, _, errOut = cli(t, "vectorize", "-text", p("posts.jsonl"), "-field", "body", "-vectorizer", p("vec.json"), "-o", p("X2.mtx"))
	require.Equal(t, 0, code, errOut)
	x2, err := matio.ReadMatrix(p("X2.mtx"))
	require.NoError(t, err)
	require.Equal(t, x.Sparse, x2.Sparse)

	// fit -text, then topics, transform and predict without any other file.
	code, _, errOut = cli(t, "fit", "-text", p("posts.jsonl"), "-field", "body", "-stopwords", p("stop.txt"), "-labels", p("labels.txt"),
		"-ranks", "2", "-epochs", "20", "-o", p("m.nnmf"), "-quiet")
	require.Equal(t, 0, code, errOut)
	code, out, errOut = cli(t, "topics", "-model", p("m.nnmf"), "-n", "3")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "Layer 1 (2 topics)")
	code, _, errOut = cli(t, "transform", "-model", p("m.nnmf"), "-text", p("posts.jsonl"), "-field", "body", "-o", p("S.csv"))
	require.Equal(t, 0, code, errOut)
	code, _, errOut = cli(t, "predict", "-model", p("m.nnmf"), "-text", p("posts.jsonl"), "-field", "body", "-o", p("pred.csv"))
	require.Equal(t, 0, code, errOut)
	pred, err := os.ReadFile(p("pred.csv"))
	require.NoError(t, err)
	right := 0
	for i, line := range strings.Split(strings.TrimSpace(string(pred)), "\n")[1:] {
		if strings.Split(line, ",")[1] == fmt.Sprint(i%2) {
			right++
		}
	}
	require.Equal(t, 40, right, "two disjoint vocabularies are separated")
	code, _, errOut = cli(t, "report", "-model", p("m.nnmf"), "-labels", p("labels.txt"), "-o", p("report.html"))
	require.Equal(t, 0, code, errOut)
	page, err := os.ReadFile(p("report.html"))
	require.NoError(t, err)
	require.Contains(t, string(page), "engine", "words come from the model's own vectoriser")
	require.Contains(t, string(page), "Confusion matrix")
	code, _, errOut = cli(t, "report", "-model", p("m.nnmf"), "-o", p("report.txt"))
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "want an .html file")

	require.NoError(t, os.WriteFile(p("allstop.txt"), append(vocab, "the\nand\n"...), 0o644))
	errs := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"vectorize", "-o", p("a.mtx")}, 2, "-text and -o are required"},
		{[]string{"vectorize", "-text", p("posts.jsonl"), "-o", p("a.mtx")}, 1, "no \"text\" member"},
		{[]string{"vectorize", "-text", p("posts.jsonl"), "-o", p("a.mtx"), "-min-df", "1.5"}, 2, "-min-df"},
		{[]string{"vectorize", "-text", p("posts.jsonl"), "-o", p("a.mtx"), "-norm", "l3"}, 2, "-norm"},
		{[]string{"vectorize", "-text", p("posts.jsonl"), "-o", p("posts.jsonl")}, 2, "destroy the input"},
		{[]string{"vectorize", "-text", p("posts.jsonl"), "-vectorizer", p("vec.json"), "-o", p("a.mtx"), "-counts"}, 2, "no effect with -vectorizer"},
		{[]string{"vectorize", "-text", p("posts.jsonl"), "-field", "body", "-o", p("a.mtx"), "-stopwords", p("allstop.txt")}, 1, "empty vocabulary"},
		{[]string{"vectorize", "-text", p("posts.jsonl"), "-field", "body", "-vectorizer", p("labels.txt"), "-o", p("a.mtx")}, 1, "vectorizer"},
		{[]string{"fit", "-x", p("X2.mtx"), "-text", p("posts.jsonl"), "-ranks", "2", "-o", p("b.nnmf")}, 2, "-x and -text were both given"},
		{[]string{"fit", "-x", p("X2.mtx"), "-ranks", "2", "-o", p("b.nnmf"), "-newsgroups"}, 2, "applies to -text"},
	}
	for _, e := range errs {
		code, _, errOut := cli(t, e.args...)
		require.Equal(t, e.code, code, "%v: %s", e.args, errOut)
		require.Contains(t, errOut, e.want, "%v", e.args)
		_, err := os.Stat(p("a.mtx"))
		require.ErrorIs(t, err, os.ErrNotExist, "%v wrote its output", e.args)
	}
	// A model trained on a matrix has no vectoriser.
	code, _, errOut = cli(t, "fit", "-x", p("X2.mtx"), "-ranks", "2", "-epochs", "5", "-o", p("plain.nnmf"), "-quiet")
	require.Equal(t, 0, code, errOut)
	code, _, errOut = cli(t, "transform", "-model", p("plain.nnmf"), "-text", p("posts.jsonl"), "-o", p("S2.csv"))
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "not on text")
	code, _, errOut = cli(t, "topics", "-model", p("plain.nnmf"))
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "-vocab is required")
}
