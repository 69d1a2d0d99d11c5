package explore_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/explore"
	"github.com/neuralnmf/neuralnmf/quality"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// hierarchy is a two-layer hierarchy over 12 words: four layer-1 topics of
// three words each, topics 1 and 2 making layer-2 topic 1, 3 and 4 topic
// 2; and documents, each mostly one layer-1 topic.
func hierarchy(t *testing.T, docs int) (a, s []*tensor.Dense, ds []explore.Doc, vocab []string, q []quality.Layer) {
	a0 := tensor.New(12, 4)
	for j := 0; j < 4; j++ {
		for w := 0; w < 3; w++ {
			a0.Set(3*j+w, j, float64(3-w))
		}
	}
	a1 := tensor.New(4, 2)
	a1.Set(0, 0, 1)
	a1.Set(1, 0, 0.5)
	a1.Set(2, 1, 1)
	a1.Set(3, 1, 1)
	x := tensor.New(12, docs)
	for d := 0; d < docs; d++ {
		j := d % 4
		for w := 0; w < 3; w++ {
			x.Set(3*j+w, d, float64(1+(d+w)%3))
		}
		x.Set((3*j+5)%12, d, 0.2) // a word of another topic
		ds = append(ds, explore.Doc{ID: fmt.Sprintf("d%d", d), Text: fmt.Sprintf("document   %d\n text", d)})
	}
	// S as a transform would give it: each document mostly its topic.
	s1, s2 := tensor.New(4, docs), tensor.New(2, docs)
	for d := 0; d < docs; d++ {
		j := d % 4
		s1.Set(j, d, 1+float64(d%5)/10)
		s1.Set((j+1)%4, d, 0.05)
		s2.Set(j/2, d, 1+float64(d%3)/10)
		s2.Set(1-j/2, d, 0.02)
	}
	s = []*tensor.Dense{s1, s2}
	a = []*tensor.Dense{a0, a1}
	for w := 0; w < 12; w++ {
		vocab = append(vocab, fmt.Sprintf("w%02d", w))
	}
	q, err := quality.Measure(tensor.SparseFromDense(x), a, &quality.Options{Top: 3})
	require.NoError(t, err)
	return a, s, ds, vocab, q
}

func TestBuild(t *testing.T) {
	a, s, ds, vocab, q := hierarchy(t, 40)
	d, err := explore.Build(a, s, ds, vocab, q, &explore.Options{Words: 3, Docs: 10, TopDocs: 2, Title: "test"})
	require.NoError(t, err)
	require.Len(t, d.Layers, 2)
	require.Len(t, d.Layers[0].Topics, 4)
	require.Len(t, d.Layers[1].Topics, 2)
	for l, lay := range d.Layers {
		var sum float64
		for j, tp := range lay.Topics {
			require.Equal(t, fmt.Sprintf("%d.%d", l+1, j+1), tp.ID)
			sum += tp.Weight
			require.LessOrEqual(t, math.Abs(tp.X), 1.0)
			require.LessOrEqual(t, math.Abs(tp.Y), 1.0)
			require.Len(t, tp.Docs, 2)
			require.NotNil(t, tp.NPMI)
			require.Equal(t, q[l].Topics[j].NPMI, *tp.NPMI)
		}
		require.InDelta(t, 1, sum, 1e-12, "layer %d's weights are shares", l+1)
	}
	// Layer-1 topic j's top words are its three words, heaviest first.
	t3 := d.Layers[0].Topics[2]
	require.Equal(t, []string{"w06", "w07", "w08"}, []string{t3.Words[0].Word, t3.Words[1].Word, t3.Words[2].Word})
	require.InDelta(t, 3.0/6, t3.Words[0].Weight, 1e-12)
	// Composition: 2.1 is 1.1 (mass 6, weight 1) and 1.2 (mass 6, ½): ⅔ and ⅓.
	m := d.Layers[1].Topics[0].MadeOf
	require.Len(t, m, 2)
	require.Equal(t, "1.1", m[0].ID)
	require.InDelta(t, 2.0/3, m[0].Share, 1e-12)
	require.Equal(t, "1.2", m[1].ID)
	po := d.Layers[0].Topics[1].PartOf
	require.Len(t, po, 1)
	require.Equal(t, "2.1", po[0].ID)
	require.InDelta(t, 1.0/3, po[0].Share, 1e-12)
	require.Empty(t, d.Layers[0].Topics[0].MadeOf)
	require.NotNil(t, d.Layers[0].Topics[0].MadeOf, "[] on the page, not null")
	require.Empty(t, d.Layers[1].Topics[0].PartOf)
	// A document's path: the document of layer-1 topic 3 goes to 1.3, then 2.2.
	for _, doc := range d.Docs {
		var n int
		fmt.Sscanf(doc.ID, "d%d", &n)
		require.Equal(t, fmt.Sprintf("1.%d", n%4+1), doc.Path[0].ID, doc.ID)
		require.Equal(t, fmt.Sprintf("2.%d", n%4/2+1), doc.Path[1].ID, doc.ID)
		require.Equal(t, fmt.Sprintf("document %d text", n), doc.Text, "white space made single")
		require.Equal(t, n, doc.Column)
	}
	// Representative documents of 1.3 are documents of topic 3.
	for _, i := range t3.Docs {
		require.Equal(t, "1.3", d.Docs[i].Path[0].ID)
	}
	// The sample: every 4th of 40 documents, plus the representative ones.
	require.GreaterOrEqual(t, len(d.Docs), 10)
	require.LessOrEqual(t, len(d.Docs), 10+6*2)
	// Word search: w06 is ranked first by 1.3 and by 2.2 (which holds 1.3).
	require.Contains(t, d.Words["w06"], explore.WordRank{ID: "1.3", Rank: 1})
	// Two topics with the same words are one point of the map; different
	// ones are apart.
	l1 := d.Layers[0].Topics
	require.Greater(t, math.Hypot(l1[0].X-l1[2].X, l1[0].Y-l1[2].Y), 0.1)
}

// The page holds its data as JSON that reads back as the Data, and asks
// nothing of any network: no src or href leaves the page.
func TestWriteHTML(t *testing.T) {
	a, s, ds, vocab, q := hierarchy(t, 24)
	ds[3].Text = `</script><script>alert(1)</script> & "quotes"`
	d, err := explore.Build(a, s, ds, vocab, q, nil)
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, d.WriteHTML(&b))
	html := b.String()
	require.Equal(t, 2, strings.Count(html, "<script"), "the data and the script, nothing injected")
	m := regexp.MustCompile(`(?s)<script id="data" type="application/json">(.*?)</script>`).FindStringSubmatch(html)
	require.NotNil(t, m)
	var back explore.Data
	require.NoError(t, json.Unmarshal([]byte(m[1]), &back))
	for i := range back.Docs {
		back.Docs[i].Column = d.Docs[i].Column // not on the page
	}
	require.Equal(t, *d, back)
	for _, attr := range regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?([^"' >]*)`).FindAllStringSubmatch(html, -1) {
		require.False(t, strings.Contains(attr[2], "://"), "a request outside the page: %s", attr[0])
	}
	require.NotContains(t, html, "@import")
}

func TestBuildErrors(t *testing.T) {
	a, s, ds, vocab, q := hierarchy(t, 8)
	_, err := explore.Build(nil, nil, ds, vocab, nil, nil)
	require.Error(t, err)
	_, err = explore.Build(a, s[:1], ds, vocab, q, nil)
	require.Error(t, err)
	_, err = explore.Build(a, s, ds, vocab[:5], q, nil)
	require.ErrorContains(t, err, "words")
	_, err = explore.Build(a, s, ds[:7], vocab, q, nil)
	require.Error(t, err)
	dup := append([]explore.Doc(nil), ds...)
	dup[1].ID = dup[0].ID
	_, err = explore.Build(a, s, dup, vocab, q, nil)
	require.ErrorContains(t, err, "repeated")
}

func TestSnippet(t *testing.T) {
	require.Equal(t, "a b", explore.Snippet(" a \n\t b ", 10))
	require.Equal(t, "αβγ…", explore.Snippet("αβγδ", 3))
}
