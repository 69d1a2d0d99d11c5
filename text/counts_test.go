package text_test

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/text"
)

// genDocs makes n documents of words drawn from a Zipf-like vocabulary
// with capitals, digits and non-ASCII letters, some documents empty.
func genDocs(n int, seed uint64) []string {
	r := rand.New(rand.NewPCG(seed, 7))
	z := rand.NewZipf(r, 1.3, 2, 3000)
	docs := make([]string, n)
	for i := range docs {
		var b strings.Builder
		for range r.IntN(40) {
			w := z.Uint64()
			switch w % 7 {
			case 0:
				fmt.Fprintf(&b, "Wörd%d ", w)
			case 1:
				fmt.Fprintf(&b, "the ")
			case 2:
				fmt.Fprintf(&b, "x%d, ", w)
			default:
				fmt.Fprintf(&b, "w%dλ ", w)
			}
		}
		docs[i] = b.String()
	}
	return docs
}

// Counts added over any split of a corpus fit the vectoriser Fit fits to
// the whole, and each part's Transform gives Fit's columns: the same
// vocabulary, the same IDF floats and the same matrix entries, bit for
// bit (the "column for column").
func TestCountsOverShards(t *testing.T) {
	docs := genDocs(700, 1)
	cases := []struct {
		name string
		o    text.Options
	}{
		{"defaults", text.Options{}},
		{"stop words and fractions", text.Options{StopWords: []string{"the"}, MinDF: text.Share(0.01), MaxDF: text.Share(0.5)}},
		{"counts of documents", text.Options{MinDF: text.Docs(2), MaxDF: text.Docs(300), MaxFeatures: 150}},
		{"max features alone", text.Options{MaxFeatures: 40, SublinearTF: true, Norm: text.L1}},
		{"raw counts", text.Options{Counts: true, KeepCase: true}},
		{"no smooth idf", text.Options{NoSmoothIDF: true, MinDF: text.Docs(3)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			checkShards(t, docs, c.o, []int{0, 1, 250, 250, 699, 700})
		})
	}
	t.Run("20 Newsgroups, the paper's cleaning", func(t *testing.T) {
		var posts []string
		for d, err := range (text.Source{Path: filepath.Join(news20Dir, "raw", "train_10groups.jsonl.gz")}).Texts() {
			if err != nil {
				t.Skipf("20 Newsgroups data not available: %v", err)
			}
			posts = append(posts, d)
		}
		checkShards(t, posts, text.Options{Newsgroups: true, StopWords: text.EnglishStopWords(), MinDF: text.Docs(5), MaxDF: text.Share(0.5)},
			[]int{0, 1404, 2808, 4212, len(posts)})
	})
}

// checkShards splits docs at cuts (ascending, from 0 to len(docs)), adds
// the parts' counts in reverse order and compares with Fit.
func checkShards(t *testing.T, docs []string, o text.Options, cuts []int) {
	t.Helper()
	want, x, err := text.Fit(text.Strings(docs), o)
	require.NoError(t, err)
	total := &text.Counts{}
	var parts [][]string
	for i := len(cuts) - 2; i >= 0; i-- {
		part := docs[cuts[i]:cuts[i+1]]
		parts = append(parts, part)
		c, err := text.Count(text.Strings(part), o)
		require.NoError(t, err)
		require.NoError(t, c.Check())
		require.Equal(t, len(part), c.Docs)
		total.Add(c)
		require.NoError(t, total.Check())
	}
	slices.Reverse(parts)
	got, err := text.FitCounts(total, o)
	require.NoError(t, err)
	require.Equal(t, want.Docs, got.Docs)
	require.Equal(t, want.Vocab, got.Vocab)
	require.Equal(t, want.IDF, got.IDF) // exact: the same document frequencies
	col := 0
	for _, part := range parts {
		xp, err := got.Transform(text.Strings(part))
		require.NoError(t, err)
		require.Equal(t, x.Rows, xp.Rows)
		for j := 0; j < xp.Cols; j, col = j+1, col+1 {
			wr, wv := x.Column(col)
			gr, gv := xp.Column(j)
			require.Equal(t, wr, gr, "document %d: rows", col)
			require.Equal(t, wv, gv, "document %d: values", col)
		}
	}
	require.Equal(t, x.Cols, col)
}

func TestCountsErrors(t *testing.T) {
	_, err := text.FitCounts(&text.Counts{}, text.Options{})
	require.ErrorIs(t, err, text.ErrNoDocuments)
	_, err = text.FitCounts(&text.Counts{Docs: 3}, text.Options{})
	require.ErrorIs(t, err, text.ErrNoWords)
	for _, c := range []*text.Counts{
		{Docs: 2, Words: []string{"b", "a"}, DF: []int{1, 1}, TF: []int64{1, 1}},
		{Docs: 2, Words: []string{"a", "a"}, DF: []int{1, 1}, TF: []int64{1, 1}},
		{Docs: 2, Words: []string{"a"}, DF: []int{3}, TF: []int64{3}},
		{Docs: 2, Words: []string{"a"}, DF: []int{2}, TF: []int64{1}},
		{Docs: 2, Words: []string{"a"}, DF: []int{1}},
	} {
		_, err := text.FitCounts(c, text.Options{})
		require.Error(t, err, "%+v", c)
	}
	c, err := text.Count(text.Strings(nil), text.Options{})
	require.NoError(t, err)
	require.Equal(t, 0, c.Docs)
	_, err = text.Count(text.Strings(nil), text.Options{MaxFeatures: -1})
	require.Error(t, err)
}
