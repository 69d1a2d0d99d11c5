package report_test

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
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
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.ErrorContains(t, report.Write(&bytes.Buffer{}, c.in), c.want)
		})
	}
}
