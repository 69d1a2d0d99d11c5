package text

import (
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
)

// Counts holds what fitting a vectoriser needs to know of a set of
// documents: how many there are and, for each word, in how many it occurs
// and how often in all. Counts of disjoint sets of documents add exactly
// (Add), so the vocabulary and IDF of a corpus split into shards can be
// fitted from the shards' counts (FitCounts) and each shard then turned
// into its columns on its own (Transform): the columns are those Fit makes
// of the whole corpus, the same floats.
type Counts struct {
	// Docs is the number of documents.
	Docs int `json:"docs"`
	// Words are the words of the documents, once each, in sorted (code
	// point) order; DF and TF hold each one's document frequency and total
	// count.
	Words []string `json:"words"`
	DF    []int    `json:"df"`
	TF    []int64  `json:"tf"`
}

// Count reads the documents docs yields, a batch at a time, and returns
// their counts as the vectoriser with options o sees their words (after
// cleaning, lowercasing and stop words; the bounds on document frequency
// and MaxFeatures are applied by FitCounts). An error from docs is
// returned as is; no documents is not an error here (a shard may be
// empty), but FitCounts refuses counts of none.
func Count(docs iter.Seq2[string, error], o Options) (*Counts, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	index := map[string]int{}
	var words []string
	var df []int
	var tf []int64
	n := 0
	err := o.analyzer().count(docs, func(wc []wordCount) {
		n++
		for _, e := range wc {
			id, ok := index[e.word]
			if !ok {
				id = len(words)
				w := strings.Clone(e.word)
				index[w] = id
				words = append(words, w)
				df, tf = append(df, 0), append(tf, 0)
			}
			df[id]++
			tf[id] += int64(e.count)
		}
	})
	if err != nil {
		return nil, err
	}
	order := make([]int, len(words))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(x, y int) int { return strings.Compare(words[x], words[y]) })
	c := &Counts{Docs: n, Words: make([]string, len(words)), DF: make([]int, len(words)), TF: make([]int64, len(words))}
	for k, id := range order {
		c.Words[k], c.DF[k], c.TF[k] = words[id], df[id], tf[id]
	}
	return c, nil
}

// Add adds d's counts to c (the counts of the documents of both): integer
// sums, so the result does not depend on the order counts are added in.
// Both must be valid (Check).
func (c *Counts) Add(d *Counts) {
	var words []string
	var df []int
	var tf []int64
	i, j := 0, 0
	for i < len(c.Words) || j < len(d.Words) {
		switch {
		case j == len(d.Words) || i < len(c.Words) && c.Words[i] < d.Words[j]:
			words, df, tf = append(words, c.Words[i]), append(df, c.DF[i]), append(tf, c.TF[i])
			i++
		case i == len(c.Words) || d.Words[j] < c.Words[i]:
			words, df, tf = append(words, d.Words[j]), append(df, d.DF[j]), append(tf, d.TF[j])
			j++
		default:
			words, df, tf = append(words, c.Words[i]), append(df, c.DF[i]+d.DF[j]), append(tf, c.TF[i]+d.TF[j])
			i, j = i+1, j+1
		}
	}
	c.Docs += d.Docs
	c.Words, c.DF, c.TF = words, df, tf
}

// Check says whether c is well formed: as many DF and TF values as words,
// the words sorted and distinct, 1 ≤ DF ≤ Docs and DF ≤ TF for each.
func (c *Counts) Check() error {
	if c == nil {
		return errors.New("text: no counts")
	}
	if len(c.DF) != len(c.Words) || len(c.TF) != len(c.Words) {
		return fmt.Errorf("text: counts have %d words, %d document frequencies and %d totals", len(c.Words), len(c.DF), len(c.TF))
	}
	for i, w := range c.Words {
		if i > 0 && c.Words[i-1] >= w {
			return fmt.Errorf("text: counts' words %q and %q are not sorted and distinct", c.Words[i-1], w)
		}
		if c.DF[i] < 1 || c.DF[i] > c.Docs || int64(c.DF[i]) > c.TF[i] {
			return fmt.Errorf("text: counts of %q: in %d of %d documents, %d times", w, c.DF[i], c.Docs, c.TF[i])
		}
	}
	return nil
}

// FitCounts returns the vectoriser that Fit fits to documents whose counts
// are c: the same vocabulary and IDF. ErrNoDocuments when c counts no
// document, ErrNoWords when no word survives the options.
func FitCounts(c *Counts, o Options) (*Vectorizer, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	if err := c.Check(); err != nil {
		return nil, err
	}
	if c.Docs == 0 {
		return nil, ErrNoDocuments
	}
	if len(c.Words) == 0 {
		return nil, ErrNoWords
	}
	v, _, err := build(o, c.Docs, c.Words, c.DF, c.TF)
	return v, err
}
