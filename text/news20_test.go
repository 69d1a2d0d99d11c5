package text_test

import (
	"bufio"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/matio"
	"github.com/neuralnmf/neuralnmf/text"
)

const news20Dir = "../../shared/data/20news"

func readLines(t *testing.T, path string) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("20 Newsgroups data not available: %v", err)
	}
	return strings.Split(strings.TrimRight(string(b), "\n"), "\n")
}

// The vectoriser reproduces the paper's 20 Newsgroups matrix, which was
// made with scikit-learn 1.2.1: the vocabulary exactly, and every selected
// column to 1e-12 (entries are at most 1; the difference is rounding in a
// different summation order).
func TestReproducesPaperMatrix(t *testing.T) {
	vocab := readLines(t, filepath.Join(news20Dir, "paper_subset", "vocab.txt"))
	stop := readLines(t, filepath.Join(news20Dir, "paper_subset", "stopwords.txt"))
	src := text.Source{Path: filepath.Join(news20Dir, "raw", "train_10groups.jsonl.gz")}
	v, x, err := text.Fit(src.Texts(), text.Options{StopWords: stop, Newsgroups: true})
	require.NoError(t, err)
	require.Equal(t, 5616, v.Docs)
	require.Equal(t, len(vocab), len(v.Vocab))
	for i := range vocab {
		if vocab[i] != v.Vocab[i] {
			t.Fatalf("word %d: %q, want %q", i+1, v.Vocab[i], vocab[i])
		}
	}

	want, err := matio.ReadMatrix(filepath.Join(news20Dir, "paper_subset", "X_tfidf.mtx.gz"))
	require.NoError(t, err)
	f, err := os.Open(filepath.Join(news20Dir, "paper_subset", "docs.tsv"))
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	cols, worst := 0, 0.0
	for sc.Scan() {
		fs := strings.Split(sc.Text(), "\t")
		col, _ := strconv.Atoi(fs[0])
		sk, _ := strconv.Atoi(fs[2])
		wr, wv := want.Sparse.Column(col)
		gr, gv := x.Column(sk)
		require.Equal(t, wr, gr, "column %d (post %d): rows", col, sk)
		for p := range wv {
			worst = math.Max(worst, math.Abs(wv[p]-gv[p]))
		}
		cols++
	}
	require.Equal(t, 1000, cols)
	require.LessOrEqual(t, worst, 1e-12)
	t.Logf("largest entry difference over the 1,000 columns: %.1e", worst)
}
