package report_test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html"
	"image/png"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/quality"
	"github.com/neuralnmf/neuralnmf/report"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// model trains a small two-layer model on two blocks of features, so that
// its topics are known: words w0–w5 in one, w6–w11 in the other.
func model(t *testing.T) (*neuralnmf.Model, []string, []int) {
	x := tensor.New(12, 30)
	labels := make([]int, 30)
	for j := 0; j < 30; j++ {
		labels[j] = j % 2
		for i := 0; i < 6; i++ {
			x.Set(i+6*(j%2), j, 1+float64((i*j)%5))
		}
	}
	m, err := neuralnmf.Train(x, neuralnmf.Config{Ranks: []int{3, 2}, Epochs: 20, Seed: 1})
	require.NoError(t, err)
	vocab := make([]string, 12)
	for i := range vocab {
		vocab[i] = "w" + string(rune('a'+i))
	}
	vocab[0] = "<b>&amp;"
	return m, vocab, labels
}

// A model without S (trained by streaming) has a report without the
// documents' shares; given the documents' S from Transform, the report is
// the one of the same model with its own S.
func TestWriteWithoutS(t *testing.T) {
	m, vocab, labels := model(t)
	var own bytes.Buffer
	require.NoError(t, report.Write(&own, report.Input{Model: m, Vocab: vocab, Labels: labels}))
	streamed := *m
	streamed.S = nil
	var bare bytes.Buffer
	require.NoError(t, report.Write(&bare, report.Input{Model: &streamed, Vocab: vocab}))
	page := bare.String()
	require.Contains(t, page, "shares of documents are not shown")
	require.NotContains(t, page, "% of documents")
	require.NotContains(t, page, "S2 (")
	require.Contains(t, page, "A2 (")
	require.Contains(t, page, "<td class=\"num\">—</td>")
	err := report.Write(&bare, report.Input{Model: &streamed, Vocab: vocab, Labels: labels})
	require.ErrorContains(t, err, "Labels need the documents' S")

	var given bytes.Buffer
	require.NoError(t, report.Write(&given, report.Input{Model: &streamed, Vocab: vocab, Labels: labels, S: m.S}))
	require.Equal(t, own.String(), given.String())
	bad := []*tensor.Dense{m.S[0]}
	require.ErrorContains(t, report.Write(&given, report.Input{Model: &streamed, S: bad}), "1 S matrices for the model's 2 layers")
	neg := m.S[1].Clone()
	neg.Set(0, 0, -1)
	require.ErrorContains(t, report.Write(&given, report.Input{Model: &streamed, S: []*tensor.Dense{m.S[0], neg}}), "negative")
}

func TestWrite(t *testing.T) {
	m, vocab, labels := model(t)
	var buf bytes.Buffer
	require.NoError(t, report.Write(&buf, report.Input{Model: m, Title: "test model", Vocab: vocab, Labels: labels, ClassNames: []string{"first", "second"}}))
	page := buf.String()
	for _, want := range []string{"<title>test model</title>", `aria-label="topic hierarchy"`, "Layer 1 (3 topics)", "Layer 2 (2 topics)",
		`aria-label="training curve"`, "data:image/png;base64,", "Confusion matrix", "second</th>", "&lt;b&gt;&amp;amp;"} {
		require.Contains(t, page, want)
	}
	require.NotContains(t, page, "<b>&amp;", "words are escaped")
	// Self-contained: no scripts, no external resources.
	require.NotContains(t, strings.ToLower(page), "<script")
	ext := regexp.MustCompile(`(?i)(src|href)\s*=\s*"(https?:)?//|url\(\s*["']?(https?:)?//|@import`)
	require.Empty(t, ext.FindAllString(page, -1))
	// Two disjoint vocabularies: the read-out separates the classes.
	require.Regexp(t, `<td>2</td><td class="num">1\.000</td>`, page)
}

func TestWriteErrors(t *testing.T) {
	m, vocab, labels := model(t)
	cases := []struct {
		name string
		in   report.Input
		want string
	}{
		{"no model", report.Input{}, "no layers"},
		{"zero model", report.Input{Model: &neuralnmf.Model{}}, "no layers"},
		{"short vocabulary", report.Input{Model: m, Vocab: vocab[:3]}, "Vocab has 3 words"},
		{"short labels", report.Input{Model: m, Labels: labels[:4]}, "Labels has 4 entries"},
		{"bad label", report.Input{Model: m, Labels: append([]int{-2}, labels[1:]...)}, "Labels"},
		{"class names", report.Input{Model: m, Labels: labels, ClassNames: []string{"one"}}, "1 class names for 2 classes"},
		{"quality of another model", report.Input{Model: m, Quality: []quality.Layer{{Topics: make([]quality.Topic, 3)}}}, "Quality does not describe"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.ErrorContains(t, report.Write(&bytes.Buffer{}, c.in), c.want)
		})
	}
}

// TestLayoutFitsPage: a 20-class confusion matrix is headed by class
// numbers (the long names are in the rows, cut at 16em), so it is about
// 16em + 20 narrow columns wide, well inside a 1,400-px page; heatmaps are
// at most 1,100 px wide and shown at their own size, so their 12-px text
// is not scaled below 10 px. Names follow the command line: A2, S2.
func TestLayoutFitsPage(t *testing.T) {
	page := twentyClassPage(t)
	head := regexp.MustCompile(`<table class="confusion"><tr>(.*?)</tr>`).FindStringSubmatch(page)
	require.NotNil(t, head)
	cells := regexp.MustCompile(`<th[^>]*>([^<]*)</th>`).FindAllStringSubmatch(head[1], -1)
	require.Len(t, cells, 20+1)
	for p, c := range cells[1:] {
		require.Equal(t, strconv.Itoa(p), c[1], "column headers are class numbers")
	}
	require.Contains(t, page, `<th class="name">19 comp.os.ms-windows.misc.19</th>`)
	require.Contains(t, page, "th.name { max-width: 16em;")
	require.Contains(t, page, "figure img { max-width: none;")
	imgs := regexp.MustCompile(`data:image/png;base64,([^"]+)`).FindAllStringSubmatch(page, -1)
	require.Len(t, imgs, 2, "A2 and S2")
	for _, im := range imgs {
		raw, err := base64.StdEncoding.DecodeString(html.UnescapeString(im[1]))
		require.NoError(t, err)
		cfg, err := png.DecodeConfig(bytes.NewReader(raw))
		require.NoError(t, err)
		require.LessOrEqual(t, cfg.Width, 1100)
	}
	require.Contains(t, page, "A2 (30×20): how the 20 topics of layer 2 are made of the 30 of layer 1")
	require.Contains(t, page, "S2 (20×200)")
	require.NotContains(t, page, "A⁽")
}

// twentyClassPage is the report of a model of 20 classes with long names.
func twentyClassPage(t *testing.T) string {
	const P, M = 20, 200
	x := tensor.New(40, M)
	labels := make([]int, M)
	for j := 0; j < M; j++ {
		labels[j] = j % P
		x.Set(2*(j%P), j, 1)
		x.Set(2*(j%P)+1, j, 0.5+float64(j%3))
	}
	m, err := neuralnmf.Train(x, neuralnmf.Config{Ranks: []int{30, 20}, Epochs: 5, Seed: 1})
	require.NoError(t, err)
	names := make([]string, P)
	for p := range names {
		names[p] = fmt.Sprintf("comp.os.ms-windows.misc.%02d", p)
	}
	var buf bytes.Buffer
	require.NoError(t, report.Write(&buf, report.Input{Model: m, Labels: labels, ClassNames: names}))
	return buf.String()
}
