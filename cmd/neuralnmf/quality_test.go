package main

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/quality"
)

// quality measures a model fitted on two groups of documents whose words
// never meet across groups: each first-layer topic's top words are one
// group's, which co-occur, so its NPMI is positive; the CSV's layer NPMI is
// the mean of its topics'; bad flags are usage errors.
func TestQuality(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	var b strings.Builder
	words := twoGroups(&b)
	require.NoError(t, os.WriteFile(p("docs.jsonl"), []byte(b.String()), 0o644))
	code, _, errOut := cli(t, "fit", "-text", p("docs.jsonl"), "-field", "body", "-ranks", "2,1", "-o", p("m.nnmf"), "-quiet")
	require.Equal(t, 0, code, errOut)

	code, out, errOut := cli(t, "quality", "-model", p("m.nnmf"), "-text", p("docs.jsonl"), "-field", "body", "-n", "3")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "Layer 1 (2 topics): NPMI")
	require.Contains(t, out, "Layer 2 (1 topics): NPMI")
	require.Contains(t, out, "parent share")
	require.Regexp(t, `Layer 1 \(2 topics\): NPMI [-0-9.]+, diversity [0-9.]+, specialization [0-9.]+\n`, out)
	require.Regexp(t, `Layer 2 \(1 topics\): NPMI [-0-9.]+, diversity [0-9.]+, specialization [0-9.]+, affinity to layer 1: children [0-9.]+, others -\n`, out, "one broad topic: every fine topic is its child")

	code, out, errOut = cli(t, "quality", "-model", p("m.nnmf"), "-text", p("docs.jsonl"), "-field", "body", "-n", "3", "-format", "csv")
	require.Equal(t, 0, code, errOut)
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	require.NoError(t, err)
	require.Equal(t, []string{"layer", "topic", "npmi", "parent_share", "layer_npmi", "layer_diversity", "words", "n_words", "docs",
		"specialization", "layer_specialization", "affinity_children", "affinity_others"}, recs[0])
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

// Issue 66, items 3 and 4: quality and explore name a topic only by its
// words of positive weight, score a short topic on those and say so, leave
// a topic of fewer than two out of the layer's mean, warn about empty
// documents and thin NPMIs, and refuse documents that share no word with
// the model instead of reporting -1 for every topic.
func TestQualitySaysWhatItRestsOn(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	var b strings.Builder
	twoGroups(&b)
	require.NoError(t, os.WriteFile(p("train.jsonl"), []byte(b.String()), 0o644))
	b.WriteString(`{"id":"e1","body":"nothing known here"}` + "\n")
	require.NoError(t, os.WriteFile(p("docs.jsonl"), []byte(b.String()), 0o644))
	require.NoError(t, os.WriteFile(p("other.jsonl"), []byte(`{"id":"o1","body":"zebra yak"}`+"\n"+`{"id":"o2","body":"yak gnu"}`+"\n"), 0o644))
	code, _, errOut := cli(t, "fit", "-text", p("train.jsonl"), "-field", "body", "-ranks", "3,2", "-o", p("m.nnmf"), "-quiet")
	require.Equal(t, 0, code, errOut)
	// A sparse model: topic 1 keeps two words, topic 2 one, topic 3 all.
	m, err := neuralnmf.Load(p("m.nnmf"))
	require.NoError(t, err)
	a := m.A[0]
	keep := map[int]int{0: 2, 1: 1, 2: a.Rows}
	for j, k := range keep {
		tops := quality.TopWords(a, a.Rows)[j]
		for r, i := range tops {
			if r >= k {
				a.Set(i, j, 0)
			}
		}
		for i := range a.Rows { // every other word to 0 too
			if !slices.Contains(tops[:min(k, len(tops))], i) {
				a.Set(i, j, 0)
			}
		}
	}
	require.NoError(t, m.Save(p("sparse.nnmf")))

	code, out, errOut := cli(t, "quality", "-model", p("sparse.nnmf"), "-text", p("docs.jsonl"), "-field", "body", "-n", "5", "-format", "csv")
	require.Equal(t, 0, code, errOut)
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	require.NoError(t, err)
	require.Len(t, strings.Fields(recs[1][6]), 2, "topic 1.1 is named by its two words of positive weight: %v", recs[1])
	require.Equal(t, "2", recs[1][7])
	require.Len(t, strings.Fields(recs[2][6]), 1, "topic 1.2 by its one: %v", recs[2])
	require.Empty(t, recs[2][2], "one word: no NPMI")
	scored := []float64{mustFloat(t, recs[1][2]), mustFloat(t, recs[3][2])}
	require.InDelta(t, (scored[0]+scored[1])/2, mustFloat(t, recs[1][4]), 1e-12, "the layer's mean leaves the unscored topic out")
	require.Regexp(t, `topic\(s\) \(1\.2[,)][^\n]* have fewer than 2 words of positive weight`, errOut)
	require.Regexp(t, `topic\(s\) \(1\.1, [^)]*\) have fewer than 5 words of positive weight`, errOut)
	require.Regexp(t, `warning: 1 of 41 documents have no word of the model's vocabulary \([^)]*docs.jsonl:41\)`, errOut)

	code, out, errOut = cli(t, "quality", "-model", p("sparse.nnmf"), "-text", p("docs.jsonl"), "-field", "body", "-n", "5")
	require.Equal(t, 0, code, errOut)
	require.Regexp(t, `topic 2 +NPMI +- .*\(one word of positive weight: no NPMI\)`, out)
	require.NotContains(t, out, "NaN")

	// Few documents: every topic's NPMI rests on fewer than 10.
	code, _, errOut = cli(t, "quality", "-model", p("m.nnmf"), "-text", p("docs.jsonl"), "-field", "body", "-n", "3")
	require.Equal(t, 0, code, errOut)
	require.NotContains(t, errOut, "rests on fewer", "20 documents a group")
	require.NoError(t, os.WriteFile(p("few.jsonl"), []byte(strings.Join(strings.SplitAfterN(b.String(), "\n", 7)[:6], "")), 0o644))
	code, _, errOut = cli(t, "quality", "-model", p("m.nnmf"), "-text", p("few.jsonl"), "-field", "body", "-n", "3")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, "rests on fewer than 10 documents")

	// Documents of another corpus: refused, not -1 everywhere.
	for _, cmd := range [][]string{
		{"quality", "-model", p("m.nnmf"), "-text", p("other.jsonl"), "-field", "body"},
		{"explore", "-model", p("m.nnmf"), "-text", p("other.jsonl"), "-field", "body", "-o", p("e.html")},
	} {
		code, out, errOut = cli(t, cmd...)
		require.Equal(t, exitData, code, "%v: %s", cmd, errOut)
		require.Contains(t, errOut, "no document holds a word of the model's vocabulary", cmd)
		require.Empty(t, out)
	}

	// explore: the page carries null for no NPMI and says why.
	code, _, errOut = cli(t, "explore", "-model", p("sparse.nnmf"), "-text", p("docs.jsonl"), "-field", "body", "-o", p("e.html"))
	require.Equal(t, 0, code, errOut)
	page, err := os.ReadFile(p("e.html"))
	require.NoError(t, err)
	require.Contains(t, string(page), `"npmi":null,"note":"one word of positive weight: no NPMI"`)
	require.NotContains(t, string(page), "NaN")
	require.Regexp(t, `\(1\.2[,)][^\n]* have fewer than 2 words of positive weight`, errOut)

	// topics lists only words of positive weight, and says so.
	code, out, errOut = cli(t, "topics", "-model", p("sparse.nnmf"), "-n", "5")
	require.Equal(t, 0, code, errOut)
	require.Regexp(t, `(?m)^  topic 2 +\w+  \(only 1 word\(s\) of positive weight\)$`, out)
}

// Issue 66, item 8: explore of a model without words asks for -vocab; a
// vocabulary that repeats a word is refused; -n is bounded.
func TestTopicFlagsRefused(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	writeData(t, dir)
	code, _, errOut := cli(t, "fit", "-x", p("x.mtx"), "-ranks", "4,2", "-quiet", "-o", p("m.nnmf"))
	require.Equal(t, 0, code, errOut)
	words := make([]string, 12)
	for i := range words {
		words[i] = fmt.Sprintf("w%d", i)
	}
	require.NoError(t, os.WriteFile(p("v.txt"), []byte(strings.Join(words, "\n")+"\n"), 0o644))
	words[5] = "w2"
	require.NoError(t, os.WriteFile(p("dup.txt"), []byte(strings.Join(words, "\n")+"\n"), 0o644))
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"explore", "-model", p("m.nnmf"), "-x", p("x.mtx"), "-o", p("e.html")}, exitUsage, "-vocab is required: the model"},
		{[]string{"explore", "-model", p("m.nnmf"), "-x", p("x.mtx"), "-vocab", p("dup.txt"), "-o", p("e.html")}, exitData, `line 6 repeats "w2" of line 3`},
		{[]string{"topics", "-model", p("m.nnmf"), "-vocab", p("dup.txt")}, exitData, `line 6 repeats "w2" of line 3`},
		{[]string{"quality", "-model", p("m.nnmf"), "-x", p("x.mtx"), "-n", "1000000"}, exitUsage, "-n and -diversity-n are at most 100"},
		{[]string{"explore", "-model", p("m.nnmf"), "-x", p("x.mtx"), "-vocab", p("v.txt"), "-n", "1000", "-o", p("e.html")}, exitUsage, "-n from 2 to 100"},
	} {
		code, _, errOut := cli(t, tc.args...)
		require.Equal(t, tc.code, code, "%v: %s", tc.args, errOut)
		require.Contains(t, errOut, tc.want, tc.args)
		require.NotContains(t, errOut, "explore: explore:")
	}
	code, _, errOut = cli(t, "explore", "-model", p("m.nnmf"), "-x", p("x.mtx"), "-vocab", p("v.txt"), "-o", p("e.html"))
	require.Equal(t, 0, code, errOut)
}

func mustFloat(t *testing.T, s string) float64 {
	v, err := strconv.ParseFloat(s, 64)
	require.NoError(t, err)
	return v
}

// twoGroups writes to b 40 JSON lines (id, body) of two groups of four
// words that never meet across groups, three words a document, and
// returns the groups.
func twoGroups(b *strings.Builder) [][]string {
	words := [][]string{{"engine", "wheel", "brake", "motor"}, {"planet", "orbit", "rocket", "moon"}}
	for d := 0; d < 40; d++ {
		g := d % 2
		fmt.Fprintf(b, `{"id":"d%d","body":"%s %s %s"}`+"\n", d, words[g][d%4], words[g][(d+1)%4], words[g][(d+2)%4])
	}
	return words
}
