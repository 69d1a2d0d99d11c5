package main

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// quality measures a model fitted on two groups of documents whose words
// never meet across groups: each first-layer topic's top words are one
// group's, which co-occur, so its NPMI is positive; the CSV's layer NPMI is
// the mean of its topics'; bad flags are usage errors.
func TestQuality(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	var b strings.Builder
	words := [][]string{{"engine", "wheel", "brake", "motor"}, {"planet", "orbit", "rocket", "moon"}}
	for d := 0; d < 40; d++ {
		g := d % 2
		fmt.Fprintf(&b, `{"id":"d%d","body":"%s %s %s"}`+"\n", d, words[g][d%4], words[g][(d+1)%4], words[g][(d+2)%4])
	}
	require.NoError(t, os.WriteFile(p("docs.jsonl"), []byte(b.String()), 0o644))
	code, _, errOut := cli(t, "fit", "-text", p("docs.jsonl"), "-field", "body", "-ranks", "2,1", "-o", p("m.nnmf"), "-quiet")
	require.Equal(t, 0, code, errOut)

	code, out, errOut := cli(t, "quality", "-model", p("m.nnmf"), "-text", p("docs.jsonl"), "-field", "body", "-n", "3")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "Layer 1 (2 topics): NPMI")
	require.Contains(t, out, "Layer 2 (1 topics): NPMI")
	require.Contains(t, out, "parent share")

	code, out, errOut = cli(t, "quality", "-model", p("m.nnmf"), "-text", p("docs.jsonl"), "-field", "body", "-n", "3", "-format", "csv")
	require.Equal(t, 0, code, errOut)
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	require.NoError(t, err)
	require.Equal(t, []string{"layer", "topic", "npmi", "parent_share", "layer_npmi", "layer_diversity", "words"}, recs[0])
	require.Len(t, recs, 4) // 2 + 1 topics
	var sum float64
	for _, r := range recs[1:3] {
		v, err := strconv.ParseFloat(r[2], 64)
		require.NoError(t, err)
		require.Positive(t, v, "a topic of one group's words: %v", r)
		group := 0
		if strings.Contains("planet orbit rocket moon", strings.Fields(r[6])[0]) {
			group = 1
		}
		for _, w := range strings.Fields(r[6]) {
			require.Contains(t, words[group], w, "a topic's top words are one group's: %v", r)
		}
		require.Empty(t, r[3], "no parent on layer 1")
		sum += v
	}
	layer, err := strconv.ParseFloat(recs[1][4], 64)
	require.NoError(t, err)
	require.InDelta(t, sum/2, layer, 1e-12)
	share, err := strconv.ParseFloat(recs[3][3], 64)
	require.NoError(t, err)
	require.True(t, share >= 0.5 && share <= 1, "parent share %v of two parents", share)

	// The report shows the same numbers with -quality-text.
	code, _, errOut = cli(t, "report", "-model", p("m.nnmf"), "-quality-text", p("docs.jsonl"), "-field", "body", "-o", p("r.html"))
	require.Equal(t, 0, code, errOut)
	page, err := os.ReadFile(p("r.html"))
	require.NoError(t, err)
	code, out, errOut = cli(t, "quality", "-model", p("m.nnmf"), "-text", p("docs.jsonl"), "-field", "body", "-format", "csv") // the report's 10 words
	require.Equal(t, 0, code, errOut)
	recs, err = csv.NewReader(strings.NewReader(out)).ReadAll()
	require.NoError(t, err)
	for _, want := range []string{"<th>NPMI</th>", fmt.Sprintf("<p>NPMI %.3f (the mean", mustFloat(t, recs[1][4])), fmt.Sprintf("topic diversity %.3f", mustFloat(t, recs[1][5]))} {
		require.True(t, strings.Contains(string(page), want), "the report shows %q", want)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"quality", "-text", p("docs.jsonl")}, "-model is required"},
		{[]string{"quality", "-model", p("m.nnmf")}, "one of -x (a matrix) and -text (documents) is required"},
		{[]string{"quality", "-model", p("m.nnmf"), "-text", p("docs.jsonl"), "-n", "1"}, "-n must be at least 2"},
		{[]string{"quality", "-model", p("m.nnmf"), "-text", p("docs.jsonl"), "-format", "xml"}, "-format"},
	} {
		code, _, errOut := cli(t, tc.args...)
		require.Equal(t, exitUsage, code, "%v: %s", tc.args, errOut)
		require.Contains(t, errOut, tc.want, tc.args)
	}
}

func mustFloat(t *testing.T, s string) float64 {
	v, err := strconv.ParseFloat(s, 64)
	require.NoError(t, err)
	return v
}
