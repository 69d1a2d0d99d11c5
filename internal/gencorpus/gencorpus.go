// Package gencorpus generates large sparse document corpora with a planted
// two-level topic hierarchy, column by column and deterministically, so
// that a corpus of millions of documents can be streamed (Columns) or
// written to a Matrix Market file without ever being held.
//
// Each of Groups groups has TopicsPerGroup fine topics; fine topic t owns
// the words [t·W/T, (t+1)·W/T) with Zipf weights (exponent 1.1) inside its
// block. A document belongs to one group: Share of its words come from a
// primary fine topic of the group, and the rest from a second fine topic
// of the same group (Mix) or from a Zipf background over the whole
// vocabulary (Background). Its length is uniform on [DocLen/2, 3·DocLen/2].
// Its column holds its word counts scaled to unit Euclidean norm.
package gencorpus

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/neuralnmf/neuralnmf/tensor"
)

// Spec describes a corpus.
type Spec struct {
	Words, Docs            int
	Groups, TopicsPerGroup int
	DocLen                 int
	// Mix and Background are the shares of a document's words drawn from
	// a second fine topic of its group and from the background.
	Mix, Background float64
	Seed            uint64
}

// Default is the benchmark's corpus shape for docs documents: 10⁵ words,
// 5 groups of 4 fine topics, about 100 words per document.
func Default(docs int) Spec {
	return Spec{Words: 100000, Docs: docs, Groups: 5, TopicsPerGroup: 4, DocLen: 100, Mix: 0.3, Background: 0.1, Seed: 1}
}

// Corpus streams the columns of a Spec; it implements neuralnmf.Columns.
type Corpus struct {
	s        Spec
	topicCum []float64 // Zipf cumulative weights within a topic's block
	bgCum    []float64 // Zipf cumulative weights over the vocabulary
	bgPerm   []int     // the background's word of each Zipf rank
	pos      int
}

// New returns a corpus for s, or an error for a spec it cannot generate.
func New(s Spec) (*Corpus, error) {
	t := s.Groups * s.TopicsPerGroup
	if s.Words < t || s.Docs < 1 || t < 1 || s.DocLen < 2 || s.Mix < 0 || s.Background < 0 || s.Mix+s.Background >= 1 {
		return nil, fmt.Errorf("gencorpus: invalid spec %+v", s)
	}
	c := &Corpus{s: s, topicCum: zipf(s.Words / t), bgCum: zipf(s.Words)}
	c.bgPerm = rand.New(rand.NewPCG(s.Seed, 0x6267)).Perm(s.Words)
	return c, nil
}

func zipf(n int) []float64 {
	cum := make([]float64, n)
	var c float64
	for i := range cum {
		c += math.Pow(float64(i+1), -1.1)
		cum[i] = c
	}
	return cum
}

func draw(cum []float64, rng *rand.Rand) int {
	return min(sort.SearchFloat64s(cum, rng.Float64()*cum[len(cum)-1]), len(cum)-1)
}

// Dims returns the words and documents.
func (c *Corpus) Dims() (int, int) { return c.s.Words, c.s.Docs }

// Rewind starts again at the first document.
func (c *Corpus) Rewind() error { c.pos = 0; return nil }

// Group returns the group (0..Groups−1) of document j: its coarse label.
func (c *Corpus) Group(j int) int {
	return rand.New(rand.NewPCG(c.s.Seed, uint64(j)+1)).IntN(c.s.Groups)
}

// Document returns the sorted word rows of document j and its values.
func (c *Corpus) Document(j int) ([]int, []float64) {
	s := c.s
	rng := rand.New(rand.NewPCG(s.Seed, uint64(j)+1))
	g := rng.IntN(s.Groups) // first draw: Group(j)
	block := s.Words / (s.Groups * s.TopicsPerGroup)
	first := g*s.TopicsPerGroup + rng.IntN(s.TopicsPerGroup)
	second := g*s.TopicsPerGroup + rng.IntN(s.TopicsPerGroup)
	n := s.DocLen/2 + rng.IntN(s.DocLen+1)
	words := make([]int, n)
	for i := range words {
		u := rng.Float64()
		switch {
		case u < s.Background:
			words[i] = c.bgPerm[draw(c.bgCum, rng)]
		case u < s.Background+s.Mix:
			words[i] = second*block + draw(c.topicCum, rng)
		default:
			words[i] = first*block + draw(c.topicCum, rng)
		}
	}
	slices.Sort(words)
	var rows []int
	var vals []float64
	var sq float64
	for i := 0; i < len(words); {
		k := i
		for k < len(words) && words[k] == words[i] {
			k++
		}
		rows = append(rows, words[i])
		vals = append(vals, float64(k-i))
		sq += float64((k - i) * (k - i))
		i = k
	}
	for i := range vals {
		vals[i] /= math.Sqrt(sq)
	}
	return rows, vals
}

// Next returns the next ≤ n documents, io.EOF after the last.
func (c *Corpus) Next(n int) (*tensor.Sparse, error) {
	if c.pos >= c.s.Docs {
		return nil, io.EOF
	}
	end := min(c.pos+n, c.s.Docs)
	x := &tensor.Sparse{Rows: c.s.Words, Cols: end - c.pos, ColPtr: []int{0}}
	for j := c.pos; j < end; j++ {
		r, v := c.Document(j)
		x.RowIdx = append(x.RowIdx, r...)
		x.Val = append(x.Val, v...)
		x.ColPtr = append(x.ColPtr, len(x.Val))
	}
	c.pos = end
	return x, nil
}
