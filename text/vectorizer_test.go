package text_test

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/tensor"
	"github.com/neuralnmf/neuralnmf/text"
)

var tiny = []string{"the cat sat", "The dog sat down.", "cat, Cat; dog!"}

// col returns column j of x as a word → value map.
func col(v *text.Vectorizer, x *tensor.Sparse, j int) map[string]float64 {
	rows, vals := x.Column(j)
	m := map[string]float64{}
	for p, r := range rows {
		m[v.Vocab[r]] = vals[p]
	}
	return m
}

// Expected values worked by hand from scikit-learn's definitions: n = 3
// documents; df(cat) = df(dog) = df(sat) = df(the) = 2, df(down) = 1.
func TestFitOptions(t *testing.T) {
	i2, i1 := math.Log(4.0/3)+1, math.Log(2)+1
	n1 := math.Sqrt(3*i2*i2 + i1*i1)
	cases := []struct {
		name  string
		o     text.Options
		vocab []string
		doc1  map[string]float64 // the second document
		doc2  map[string]float64 // the third
	}{
		{"defaults", text.Options{}, []string{"cat", "dog", "down", "sat", "the"},
			map[string]float64{"the": i2 / n1, "dog": i2 / n1, "sat": i2 / n1, "down": i1 / n1},
			map[string]float64{"cat": 2 / math.Sqrt(5), "dog": 1 / math.Sqrt(5)}},
		{"stop words", text.Options{StopWords: []string{"the"}}, []string{"cat", "dog", "down", "sat"},
			map[string]float64{"dog": i2 / math.Sqrt(2*i2*i2+i1*i1), "sat": i2 / math.Sqrt(2*i2*i2+i1*i1), "down": i1 / math.Sqrt(2*i2*i2+i1*i1)},
			map[string]float64{"cat": 2 / math.Sqrt(5), "dog": 1 / math.Sqrt(5)}},
		{"keep case", text.Options{KeepCase: true, Counts: true}, []string{"Cat", "The", "cat", "dog", "down", "sat", "the"},
			map[string]float64{"The": 1, "dog": 1, "sat": 1, "down": 1},
			map[string]float64{"cat": 1, "Cat": 1, "dog": 1}},
		{"min_df 2", text.Options{MinDF: text.Docs(2), Counts: true}, []string{"cat", "dog", "sat", "the"},
			map[string]float64{"the": 1, "dog": 1, "sat": 1},
			map[string]float64{"cat": 2, "dog": 1}},
		{"max_df 0.5", text.Options{MaxDF: text.Share(0.5)}, []string{"down"},
			map[string]float64{"down": 1}, map[string]float64{}},
		{"max_features 2", text.Options{MaxFeatures: 2, Counts: true}, []string{"cat", "dog"},
			map[string]float64{"dog": 1}, map[string]float64{"cat": 2, "dog": 1}},
		{"sublinear", text.Options{SublinearTF: true}, nil, nil,
			map[string]float64{"cat": (1 + math.Log(2)) / math.Sqrt(1+(1+math.Log(2))*(1+math.Log(2))), "dog": 1 / math.Sqrt(1+(1+math.Log(2))*(1+math.Log(2)))}},
		{"l1", text.Options{Norm: text.L1}, nil, nil, map[string]float64{"cat": 2.0 / 3, "dog": 1.0 / 3}},
		{"no idf, no norm", text.Options{NoIDF: true, Norm: text.NoNorm}, nil, nil, map[string]float64{"cat": 2, "dog": 1}},
		{"idf without smoothing", text.Options{NoSmoothIDF: true, Norm: text.NoNorm}, nil,
			map[string]float64{"the": math.Log(1.5) + 1, "dog": math.Log(1.5) + 1, "sat": math.Log(1.5) + 1, "down": math.Log(3) + 1},
			map[string]float64{"cat": 2 * (math.Log(1.5) + 1), "dog": math.Log(1.5) + 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, x, err := text.Fit(text.Strings(tiny), c.o)
			require.NoError(t, err)
			if c.vocab != nil {
				require.Equal(t, c.vocab, v.Vocab)
			}
			require.Equal(t, len(v.Vocab), x.Rows)
			require.Equal(t, 3, x.Cols)
			for j, want := range map[int]map[string]float64{1: c.doc1, 2: c.doc2} {
				if want == nil {
					continue
				}
				got := col(v, x, j)
				require.Len(t, got, len(want), "document %d: %v", j, got)
				for w, val := range want {
					require.InDelta(t, val, got[w], 1e-15, "document %d, %q", j, w)
				}
			}
			// Transform of the same documents gives the same matrix.
			y, err := v.Transform(text.Strings(tiny))
			require.NoError(t, err)
			require.Equal(t, x, y)
		})
	}
}

func TestTransformUnseenAndRoundTrip(t *testing.T) {
	v, _, err := text.Fit(text.Strings(tiny), text.Options{StopWords: []string{"the"}})
	require.NoError(t, err)
	b, err := json.Marshal(v)
	require.NoError(t, err)
	var w text.Vectorizer
	require.NoError(t, json.Unmarshal(b, &w))
	require.Equal(t, v.Vocab, w.Vocab)
	x, err := w.Transform(text.Strings([]string{"a zebra and a cat", "", "THE"}))
	require.NoError(t, err)
	require.Equal(t, map[string]float64{"cat": 1}, col(&w, x, 0), "unknown words are ignored, then L2")
	require.Empty(t, col(&w, x, 1))
	require.Empty(t, col(&w, x, 2), "stop words stay removed")
}

func TestFitErrors(t *testing.T) {
	cases := []struct {
		name string
		docs []string
		o    text.Options
		want string
	}{
		{"no documents", nil, text.Options{}, "no documents"},
		{"only stop words", []string{"the the", "a"}, text.Options{StopWords: []string{"the"}}, "empty vocabulary"},
		{"bounds cross", tiny, text.Options{MinDF: text.Docs(3), MaxDF: text.Docs(2)}, "max_df 2 keeps words in at most 2 of the 3 documents, min_df 3 in at least 3"},
		{"bounds remove all", tiny, text.Options{MinDF: text.Docs(3)}, "empty vocabulary"},
		{"fraction above 1", tiny, text.Options{MaxDF: text.Share(1.5)}, "MaxDF"},
		{"fraction NaN", tiny, text.Options{MinDF: text.Share(math.NaN())}, "MinDF"},
		{"negative count", tiny, text.Options{MinDF: text.Docs(-1)}, "MinDF"},
		{"negative max features", tiny, text.Options{MaxFeatures: -1}, "MaxFeatures"},
		{"unknown norm", tiny, text.Options{Norm: 7}, "Norm"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := text.Fit(text.Strings(c.docs), c.o)
			require.ErrorContains(t, err, c.want)
		})
	}
	var bad text.Vectorizer
	require.Error(t, json.Unmarshal([]byte(`{"vocab":["a","a"],"idf":[1,1]}`), &bad), "repeated word")
	require.Error(t, json.Unmarshal([]byte(`{"vocab":["a"],"idf":[0.5]}`), &bad), "IDF below 1")
	require.Error(t, json.Unmarshal([]byte(`{"vocab":["a"]}`), &bad), "missing IDF")
	require.Error(t, json.Unmarshal([]byte(`{"vocab":[]}`), &bad), "no vocabulary")
	_, err := (&text.Vectorizer{}).Transform(text.Strings(tiny))
	require.Error(t, err)
}

func TestSources(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	require.NoError(t, os.WriteFile(p("a.jsonl"), []byte("{\"body\":\"one\",\"id\":1}\n\n{\"body\":\"two\"}\r\n"), 0o644))
	require.NoError(t, os.WriteFile(p("a.csv"), []byte("\ufeffid,body\n1,\"one, with comma\"\n2,\"two\nlines\"\n"), 0o644))
	require.NoError(t, os.MkdirAll(p("txt/sub"), 0o755))
	require.NoError(t, os.WriteFile(p("txt/b.txt"), []byte("bee"), 0o644))
	require.NoError(t, os.WriteFile(p("txt/sub/a.txt"), []byte("ay"), 0o644))
	require.NoError(t, os.WriteFile(p("txt/skip.md"), []byte("no"), 0o644))
	collect := func(s text.Source) ([]text.Document, error) {
		var out []text.Document
		for d, err := range s.Documents() {
			if err != nil {
				return out, err
			}
			out = append(out, d)
		}
		return out, nil
	}
	docs, err := collect(text.Source{Path: p("a.jsonl"), Field: "body"})
	require.NoError(t, err)
	require.Equal(t, []text.Document{{Name: p("a.jsonl") + ":1", Text: "one"}, {Name: p("a.jsonl") + ":3", Text: "two"}}, docs)
	docs, err = collect(text.Source{Path: p("a.csv"), Field: "body"})
	require.NoError(t, err)
	require.Equal(t, []string{"one, with comma", "two\nlines"}, []string{docs[0].Text, docs[1].Text})
	docs, err = collect(text.Source{Path: p("txt")})
	require.NoError(t, err)
	require.Equal(t, []text.Document{{Name: "b.txt", Text: "bee"}, {Name: filepath.Join("sub", "a.txt"), Text: "ay"}}, docs)

	bad := []struct{ name, content, field, want string }{
		{"x.jsonl", "{\"text\": 3}\n", "", "x.jsonl:1: member \"text\" is not a string"},
		{"y.jsonl", "{\"text\": \"a\"}\nnot json\n", "", "y.jsonl:2: not a JSON object"},
		{"z.jsonl", "{\"body\": \"a\"}\n", "", "no \"text\" member"},
		{"u.jsonl", "{\"text\": \"\xff\"}\n", "", "not valid UTF-8"},
		{"c.csv", "a,b\n1,2\n", "text", "no column named \"text\""},
		{"d.csv", "", "text", "reading the header"},
		{"e.txt.bin", "x", "", "unknown document format"},
	}
	for _, c := range bad {
		require.NoError(t, os.WriteFile(p(c.name), []byte(c.content), 0o644))
		_, err := collect(text.Source{Path: p(c.name), Field: c.field})
		require.ErrorContains(t, err, c.want, c.name)
	}
	_, err = collect(text.Source{Path: p("missing.jsonl")})
	require.ErrorIs(t, err, os.ErrNotExist)
	require.NoError(t, os.MkdirAll(p("empty"), 0o755))
	_, err = collect(text.Source{Path: p("empty")})
	require.ErrorContains(t, err, "no .txt files")
}
