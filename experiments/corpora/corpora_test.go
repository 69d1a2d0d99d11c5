package corpora

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPassages(t *testing.T) {
	words := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = fmt.Sprintf("w%d", i)
		}
		return strings.Join(w, " ")
	}
	c := &Corpus{Docs: []Doc{
		{ID: "b", Label: "x", Text: words(25)}, // 10, 10 and a last 5 (kept: size/2)
		{ID: "a", Label: "y", Text: words(14)}, // 10 and a last 4 (dropped)
		{ID: "c", Label: "z", Text: words(3)},  // shorter than size/2: nothing
	}}
	p := Passages("p", 10, c)
	require.Equal(t, "p", p.Name)
	var ids []string
	for _, d := range p.Docs {
		ids = append(ids, d.ID)
	}
	require.Equal(t, []string{"a#0", "b#0", "b#1", "b#2"}, ids, "sorted by id")
	require.Equal(t, "w10 w11 w12 w13 w14 w15 w16 w17 w18 w19", p.Docs[2].Text)
	require.Equal(t, "w20 w21 w22 w23 w24", p.Docs[3].Text)
	require.Equal(t, "x", p.Docs[3].Label)
}

func TestOneIn(t *testing.T) {
	c := &Corpus{}
	for i := range 4000 {
		c.Docs = append(c.Docs, Doc{ID: fmt.Sprint(i)})
	}
	q := OneIn(c, "q", 4)
	require.InDelta(t, 1000, len(q.Docs), 100, "about one in four")
	require.Equal(t, q.Docs, OneIn(c, "q", 4).Docs, "the same documents every time")
	for _, d := range q.Docs {
		require.Zero(t, idHash(d.ID)%4)
	}
}
