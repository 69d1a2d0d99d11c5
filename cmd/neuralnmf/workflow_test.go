package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestStopwordsEnglish: -stopwords english drops scikit-learn's English
// stop words; a file still works.
func TestStopwordsEnglish(t *testing.T) {
	dir := t.TempDir()
	writePosts(t, dir)
	p := func(n string) string { return filepath.Join(dir, n) }
	code, _, errOut := cli(t, "vectorize", "-docs", p("posts.jsonl"), "-field", "body", "-stopwords", "english", "-o", p("X.mtx"), "-vocab", p("vocab.txt"))
	require.Equal(t, 0, code, errOut)
	vocab, err := os.ReadFile(p("vocab.txt"))
	require.NoError(t, err)
	words := strings.Fields(string(vocab))
	require.Len(t, words, 12)
	require.NotContains(t, words, "the")
	require.NotContains(t, words, "and")
}

// TestVectorizeOutputs: outputs that name one file, or an extension
// vectorize cannot write, are refused before any work.
func TestVectorizeOutputs(t *testing.T) {
	dir := t.TempDir()
	writePosts(t, dir)
	p := func(n string) string { return filepath.Join(dir, n) }
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-o", p("X.mtx"), "-save", p("X.mtx")}, "-o and -save both name"},
		{[]string{"-o", p("X.mtx"), "-vocab", p("v.txt"), "-names", p("v.txt")}, "-vocab and -names both name"},
		{[]string{"-o", p("X.csv")}, "want a Matrix Market file"},
		{[]string{"-o", p("X")}, "want a Matrix Market file"},
	} {
		args := append([]string{"vectorize", "-docs", p("posts.jsonl"), "-field", "body"}, tc.args...)
		code, _, errOut := cli(t, args...)
		require.Equal(t, exitUsage, code, "%v", tc.args)
		require.Contains(t, errOut, tc.want)
		for _, f := range []string{"X.mtx", "X.csv", "X", "v.txt"} {
			_, err := os.Stat(p(f))
			require.ErrorIs(t, err, os.ErrNotExist, "%v wrote %s", tc.args, f)
		}
	}
	code, _, errOut := cli(t, "vectorize", "-docs", p("posts.jsonl"), "-field", "body", "-o", p("X.MTX.GZ"))
	require.Equal(t, 0, code, errOut)
}
