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
