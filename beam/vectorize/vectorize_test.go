package vectorize_test

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/beam/vectorize"
	"github.com/neuralnmf/neuralnmf/matio"
	"github.com/neuralnmf/neuralnmf/text"
)

func TestMain(m *testing.M) {
	beam.Init()
	// Beam's loopback environment leaves a file in the temporary directory
	// of every job: keep them out of /tmp, whose files score's tests count.
	tmp, err := os.MkdirTemp("", "vectorize-test-")
	if err != nil {
		panic(err)
	}
	os.Setenv("TMPDIR", tmp)
	code := m.Run()
	os.RemoveAll(tmp)
	os.Exit(code)
}

func prismRun(ctx context.Context, p *beam.Pipeline) error {
	_, err := prism.Execute(ctx, p)
	return err
}

// genDocs makes n short documents over a Zipf-like vocabulary.
func genDocs(n int, seed uint64) []string {
	r := rand.New(rand.NewPCG(seed, 3))
	z := rand.NewZipf(r, 1.2, 2, 2000)
	docs := make([]string, n)
	for i := range docs {
		var b strings.Builder
		for range r.IntN(30) {
			fmt.Fprintf(&b, "w%dé ", z.Uint64())
		}
		docs[i] = b.String()
	}
	return docs
}

// writeJSONL writes docs as a JSON Lines file (gzipped if path ends in .gz).
func writeJSONL(t *testing.T, path string, docs []string) {
	f, err := os.Create(path)
	require.NoError(t, err)
	var w interface {
		Write([]byte) (int, error)
	} = f
	var z *gzip.Writer
	if strings.HasSuffix(path, ".gz") {
		z = gzip.NewWriter(f)
		w = z
	}
	enc := json.NewEncoder(w)
	for _, d := range docs {
		require.NoError(t, enc.Encode(map[string]string{"body": d}))
	}
	if z != nil {
		require.NoError(t, z.Close())
	}
	require.NoError(t, f.Close())
}

// check runs the Beam vectoriser over shards and compares with text.Fit of
// all documents: the vocabulary, the IDF, and every shard's matrix column
// for column, the same floats.
func check(t *testing.T, shards [][]string, paths []string, field string, o text.Options) {
	t.Helper()
	ctx := context.Background()
	var all []string
	for _, s := range shards {
		all = append(all, s...)
	}
	want, x, err := text.Fit(text.Strings(all), o)
	require.NoError(t, err)

	out := filepath.Join(t.TempDir(), "out")
	opt := vectorize.Options{Docs: paths, Field: field, Text: o, Out: out}
	require.NoError(t, vectorize.Check(ctx, opt))
	v, err := vectorize.Run(ctx, opt, prismRun)
	require.NoError(t, err)
	require.Equal(t, want.Vocab, v.Vocab)
	require.Equal(t, want.IDF, v.IDF)
	require.Equal(t, want.Docs, v.Docs)

	raw, err := os.ReadFile(filepath.Join(out, vectorize.VectorizerName))
	require.NoError(t, err)
	var saved text.Vectorizer
	require.NoError(t, json.Unmarshal(raw, &saved))
	require.Equal(t, want.Vocab, saved.Vocab)
	vocab, err := os.ReadFile(filepath.Join(out, vectorize.VocabName))
	require.NoError(t, err)
	require.Equal(t, strings.Join(want.Vocab, "\n")+"\n", string(vocab))

	col := 0
	for i, s := range shards {
		m, err := matio.ReadMatrix(filepath.Join(out, vectorize.ShardName(i, len(shards))))
		require.NoError(t, err)
		require.NotNil(t, m.Sparse, "shard %d", i)
		require.Equal(t, x.Rows, m.Sparse.Rows)
		require.Equal(t, len(s), m.Sparse.Cols)
		for j := 0; j < m.Sparse.Cols; j, col = j+1, col+1 {
			wr, wv := x.Column(col)
			gr, gv := m.Sparse.Column(j)
			require.Equal(t, wr, gr, "document %d: rows", col)
			require.Equal(t, wv, gv, "document %d: values", col)
		}
	}
	require.Equal(t, x.Cols, col)
	entries, err := os.ReadDir(out)
	require.NoError(t, err)
	require.Len(t, entries, len(shards)+2, "only the shards, the vocabulary and the vectoriser are left")
}

func TestVectorizeShards(t *testing.T) {
	docs := genDocs(500, 1)
	dir := t.TempDir()
	cuts := []int{0, 120, 121, 300, 499, 500} // an empty document file is refused (TestVectorizeRefusals)
	var shards [][]string
	var paths []string
	for i := 0; i+1 < len(cuts); i++ {
		p := filepath.Join(dir, fmt.Sprintf("part-%d.jsonl", i))
		if i == 2 {
			p += ".gz"
		}
		writeJSONL(t, p, docs[cuts[i]:cuts[i+1]])
		shards, paths = append(shards, docs[cuts[i]:cuts[i+1]]), append(paths, p)
	}
	check(t, shards, paths, "body", text.Options{MinDF: text.Docs(2), MaxDF: text.Share(0.5), StopWords: []string{"w2é"}})
}

// The case: 20 Newsgroups' training posts in 4 JSON Lines shards.
func TestVectorize20Newsgroups(t *testing.T) {
	var posts []string
	for d, err := range (text.Source{Path: "../../../shared/data/20news/raw/train_10groups.jsonl.gz"}).Texts() {
		if err != nil {
			t.Skipf("20 Newsgroups data not available: %v", err)
		}
		posts = append(posts, d)
	}
	dir := t.TempDir()
	var shards [][]string
	var paths []string
	for i := range 4 {
		s := posts[i*len(posts)/4 : (i+1)*len(posts)/4]
		p := filepath.Join(dir, fmt.Sprintf("train-%d.jsonl", i))
		writeJSONL(t, p, s)
		shards, paths = append(shards, s), append(paths, p)
	}
	check(t, shards, paths, "body", text.Options{Newsgroups: true, StopWords: text.EnglishStopWords(), MinDF: text.Docs(5), MaxDF: text.Share(0.5)})
}

func TestCheckRefuses(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	docs := filepath.Join(dir, "d.jsonl")
	writeJSONL(t, docs, []string{"a b", "c d"})
	require.Error(t, vectorize.Check(ctx, vectorize.Options{Out: dir}))
	require.ErrorContains(t, vectorize.Check(ctx, vectorize.Options{Docs: []string{filepath.Join(dir, "d.txt")}, Out: filepath.Join(dir, "o")}), "JSON Lines")
	require.ErrorContains(t, vectorize.Check(ctx, vectorize.Options{Docs: []string{docs}, Out: dir}), "holds files")
	require.NoError(t, vectorize.Check(ctx, vectorize.Options{Docs: []string{docs}, Out: filepath.Join(dir, "new")}))
}
