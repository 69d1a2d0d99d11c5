package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/matio"
)

// newsDocs returns 20 Newsgroups' training posts as JSON lines, or
// generated documents where the data is not available (a user's clone).
func newsDocs(t *testing.T) (lines []string, flags []string) {
	f, err := os.Open("../../../../shared/data/20news/raw/train_10groups.jsonl.gz")
	if err == nil {
		defer f.Close()
		z, err := gzip.NewReader(f)
		require.NoError(t, err)
		b, err := io.ReadAll(z)
		require.NoError(t, err)
		return strings.Split(strings.TrimRight(string(b), "\n"), "\n"), []string{"-newsgroups", "-stopwords", "english", "-min-df", "5", "-max-df", "0.5"}
	}
	t.Logf("20 Newsgroups not available (%v): generated documents", err)
	r := rand.New(rand.NewPCG(4, 4))
	z := rand.NewZipf(r, 1.2, 2, 3000)
	for range 2000 {
		var b strings.Builder
		for range 5 + r.IntN(60) {
			fmt.Fprintf(&b, "w%d ", z.Uint64())
		}
		lines = append(lines, fmt.Sprintf(`{"text": %q}`, b.String()))
	}
	return lines, []string{"-min-df", "3", "-max-df", "0.5"}
}

// neuralnmf-beam vectorize of 4 JSON Lines shards on in-process Prism
// writes the matrix neuralnmf vectorize makes of the whole file, column for
// column, the same floats, and a model trained on the shards with
// -vectorizer shows its topics' words.
func TestVectorizeCommand(t *testing.T) {
	self, _ := binaries(t)
	dir := t.TempDir()
	lines, flags := newsDocs(t)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "all.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "in"), 0o755))
	for i := range 4 {
		part := lines[i*len(lines)/4 : (i+1)*len(lines)/4]
		require.NoError(t, os.WriteFile(filepath.Join(dir, "in", fmt.Sprintf("part-%d.jsonl", i)), []byte(strings.Join(part, "\n")+"\n"), 0o644))
	}
	out := filepath.Join(dir, "out")
	log := runOK(t, dir, self, append([]string{"vectorize", "-docs", filepath.Join(dir, "in", "part-*.jsonl"), "-o", out}, flags...)...)
	require.Contains(t, log, fmt.Sprintf("%d documents × ", len(lines)))
	runOK(t, dir, built.neuralnmf, append([]string{"vectorize", "-text", filepath.Join(dir, "all.jsonl"), "-o", filepath.Join(dir, "all.mtx"), "-vocab", filepath.Join(dir, "vocab.txt")}, flags...)...)

	want, err := matio.ReadMatrix(filepath.Join(dir, "all.mtx"))
	require.NoError(t, err)
	vocab, err := os.ReadFile(filepath.Join(dir, "vocab.txt"))
	require.NoError(t, err)
	got, err := os.ReadFile(filepath.Join(out, "vocab.txt"))
	require.NoError(t, err)
	require.Equal(t, string(vocab), string(got))
	col := 0
	for i := range 4 {
		m, err := matio.ReadMatrix(filepath.Join(out, fmt.Sprintf("docs-%05d.mtx.gz", i)))
		require.NoError(t, err)
		require.Equal(t, want.Sparse.Rows, m.Sparse.Rows)
		for j := 0; j < m.Sparse.Cols; j, col = j+1, col+1 {
			wr, wv := want.Sparse.Column(col)
			gr, gv := m.Sparse.Column(j)
			require.Equal(t, wr, gr, "document %d: rows", col)
			require.Equal(t, wv, gv, "document %d: values", col)
		}
	}
	require.Equal(t, len(lines), col)
	entries, err := os.ReadDir(out)
	require.NoError(t, err)
	require.Len(t, entries, 6, "4 shards, vocab.txt and vectorizer.json")

	// The same command again refuses the directory it filled.
	cmd := exec.Command(self, append([]string{"vectorize", "-docs", filepath.Join(dir, "in", "part-*.jsonl"), "-o", out}, flags...)...)
	b, err := cmd.CombinedOutput()
	require.Error(t, err)
	require.Equal(t, 2, cmd.ProcessState.ExitCode(), "%s", b)
	require.Contains(t, string(b), "holds files")

	model := filepath.Join(dir, "m.nnmf")
	runOK(t, dir, self, "train", "-local", "-shards", filepath.Join(out, "docs-*.mtx.gz"), "-vectorizer", filepath.Join(out, "vectorizer.json"),
		"-ranks", "6,3", "-epochs", "1", "-work", filepath.Join(dir, "w"), "-o", model)
	// topics reads the words from the model (without -vectorizer it asks
	// for -vocab): every word it lists is a word of the vocabulary.
	topics := runOK(t, dir, built.neuralnmf, "topics", "-model", model)
	words := map[string]bool{}
	for _, w := range strings.Split(string(vocab), "\n") {
		words[w] = true
	}
	listed := 0
	for _, line := range strings.Split(topics, "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || f[0] != "topic" {
			continue
		}
		for _, w := range strings.Split(strings.Join(f[2:], " "), ", ") {
			require.True(t, words[w], "topics lists %q, not a word of the vocabulary:\n%s", w, topics)
			listed++
		}
	}
	require.GreaterOrEqual(t, listed, 9*5, "%s", topics)

	// A vectoriser of another vocabulary is refused before any pipeline.
	other := filepath.Join(dir, "other.json")
	require.NoError(t, os.WriteFile(other, []byte(`{"options":{"min_df":{},"max_df":{},"norm":0},"vocab":["a","b"],"idf":[1,1],"docs":2}`), 0o644))
	cmd = exec.Command(self, "train", "-local", "-shards", filepath.Join(out, "docs-*.mtx.gz"), "-vectorizer", other,
		"-ranks", "6,3", "-work", filepath.Join(dir, "w2"), "-o", filepath.Join(dir, "m2.nnmf"))
	b, err = cmd.CombinedOutput()
	require.Error(t, err)
	require.Contains(t, string(b), "has 2 words")

	// Issue 66, item 2: another corpus's vectoriser of the same size (here
	// the shards' own with two words swapped) is refused too, before any
	// work, for its fingerprint.
	raw, err := os.ReadFile(filepath.Join(out, "vectorizer.json"))
	require.NoError(t, err)
	var v map[string]any
	require.NoError(t, json.Unmarshal(raw, &v))
	vs := v["vocab"].([]any)
	vs[0], vs[1] = vs[1], vs[0]
	raw, err = json.Marshal(v)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(other, raw, 0o644))
	cmd = exec.Command(self, "train", "-local", "-shards", filepath.Join(out, "docs-*.mtx.gz"), "-vectorizer", other,
		"-ranks", "6,3", "-work", filepath.Join(dir, "w2"), "-o", filepath.Join(dir, "m2.nnmf"))
	b, err = cmd.CombinedOutput()
	require.Error(t, err)
	require.Equal(t, 1, cmd.ProcessState.ExitCode(), "%s", b)
	require.Contains(t, string(b), "did not make the shards")
	_, err = os.Stat(filepath.Join(dir, "w2"))
	require.ErrorIs(t, err, os.ErrNotExist, "refused before the work directory")
}

// Issue 66, item 7: vectorize refuses crossing bounds and a file as -o
// before any work; a run refused for its input (an empty document file,
// bounds that cross only for these documents) leaves no record that would
// block the next run into -o; a killed run leaves nothing in $TMPDIR, and
// the same command then completes.
func TestVectorizeRefusals(t *testing.T) {
	self, _ := binaries(t)
	dir := t.TempDir()
	tmp := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	var docs []string
	for i := range 20 {
		docs = append(docs, fmt.Sprintf(`{"text": "alpha beta w%d gamma w%d"}`, i%4, i%7))
	}
	require.NoError(t, os.WriteFile(p("a.jsonl"), []byte(strings.Join(docs, "\n")+"\n"), 0o644))
	require.NoError(t, os.WriteFile(p("empty.jsonl"), nil, 0o644))
	require.NoError(t, os.WriteFile(p("file"), []byte("the user's"), 0o644))
	for _, tc := range []struct {
		args []string
		out  string
		code int
		msg  string
	}{
		{[]string{"-docs", p("a.jsonl"), "-min-df", "5", "-max-df", "3"}, "out1", 2, "-max-df 3 is below -min-df 5"},
		{[]string{"-docs", p("a.jsonl"), "-min-df", "0.5", "-max-df", "0.2"}, "out1", 2, "-max-df 0.2 is below -min-df 0.5"},
		{[]string{"-docs", p("a.jsonl")}, "file", 2, "is a file"},
		{[]string{"-docs", p("*.jsonl")}, "out2", 1, "empty.jsonl holds no documents"},
		{[]string{"-docs", p("a.jsonl"), "-min-df", "3", "-max-df", "0.01"}, "out3", 2, "-max-df is below -min-df for these documents"},
	} {
		code, out := runCode(t, tmp, self, append([]string{"vectorize", "-o", p(tc.out)}, tc.args...)...)
		require.Equal(t, tc.code, code, "%v: %s", tc.args, out)
		require.Contains(t, out, tc.msg, tc.args)
		if tc.out != "file" {
			_, err := os.Stat(p(tc.out))
			require.ErrorIs(t, err, os.ErrNotExist, "%v: -o is not left behind", tc.args)
		}
		left, err := os.ReadDir(tmp)
		require.NoError(t, err)
		require.Empty(t, left, tc.args)
	}
	b, err := os.ReadFile(p("file"))
	require.NoError(t, err)
	require.Equal(t, "the user's", string(b))
	// The folders of refused runs take the next run.
	code, out := runCode(t, tmp, self, "vectorize", "-docs", p("a.jsonl"), "-o", p("out3"))
	require.Equal(t, 0, code, out)

	// Killed once its record is written: nothing in $TMPDIR; the same
	// command completes and leaves only its outputs.
	args := []string{"vectorize", "-docs", p("a.jsonl"), "-o", p("out4")}
	cmd := exec.Command(self, args...)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	require.NoError(t, cmd.Start())
	waitFor(t, p("out4/.neuralnmf-beam-vectorize.json"), cmd, &log)
	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	left, err := os.ReadDir(tmp)
	require.NoError(t, err)
	require.Empty(t, left, "a killed vectorize leaves nothing in $TMPDIR")
	code, out = runCode(t, tmp, self, args...)
	require.Equal(t, 0, code, out)
	entries, err := os.ReadDir(p("out4"))
	require.NoError(t, err)
	require.Len(t, entries, 3, "the shard, vocab.txt and vectorizer.json alone")
}
