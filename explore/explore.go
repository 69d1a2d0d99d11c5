// Package explore makes a self-contained HTML page on which a person moves
// through a model's hierarchy of topics: the tree of topics sized by their
// weight in the documents, a topic's words, quality, the topics it is made
// of and part of, and its most representative documents, a word search, a
// document's path through the layers, and a 2-D map of each layer's topics
// (classical multidimensional scaling of the Jensen–Shannon distances of
// their word distributions, as pyLDAvis draws its intertopic map).
//
// The page needs no network: its data (Data, as JSON), style and script
// are inline. Its state is in the URL's fragment (#topic=2.5, #doc=ID,
// #word=gpu, #layer=2), so that a view can be bookmarked and tested.
//
// Layers and topics are numbered from 1 on the page, as neuralnmf's
// commands print them: topic "2.5" is the fifth topic of layer 2. As in
// package quality, a topic of layer ℓ > 1 is made of the topics of layer
// ℓ−1 (its column of A⁽ˡ⁻¹⁾ weighted by their mass), and is part of the
// topics of layer ℓ+1.
package explore

import (
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"gonum.org/v1/gonum/mat"

	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/quality"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// DefaultSnippet is Options.Snippet when it is 0.
const DefaultSnippet = 300

// Options configures Build. The zero value gives the defaults.
type Options struct {
	// Words is the number of a topic's top words shown (default 15).
	Words int
	// SearchWords is the number of a topic's top words the word search
	// finds it by (default 30, at least Words).
	SearchWords int
	// Docs bounds the documents the page holds besides each topic's
	// representative ones: every ⌈n/Docs⌉-th document (default 1000).
	Docs int
	// TopDocs is the number of representative documents a topic lists
	// (default 5): those whose share of the layer's weight the topic
	// holds most, ties by the larger weight.
	TopDocs int
	// Snippet bounds a document's text on the page, in characters
	// (default DefaultSnippet).
	Snippet int
	// Title is the page's title (default "Topics").
	Title string
}

func (o *Options) withDefaults() Options {
	var d Options
	if o != nil {
		d = *o
	}
	if d.Words <= 0 {
		d.Words = 15
	}
	if d.SearchWords < d.Words {
		d.SearchWords = max(30, d.Words)
	}
	if d.Docs <= 0 {
		d.Docs = 1000
	}
	if d.TopDocs <= 0 {
		d.TopDocs = 5
	}
	if d.Snippet <= 0 {
		d.Snippet = DefaultSnippet
	}
	if d.Title == "" {
		d.Title = "Topics"
	}
	return d
}

// Doc is one document: its id (unique) and text ("" where the documents
// are a matrix).
type Doc struct {
	ID   string
	Text string
}

// Data is what the page shows, serialised into it as JSON.
type Data struct {
	Title  string      `json:"title"`
	Layers []LayerData `json:"layers"`
	Docs   []DocData   `json:"docs"`
	// Words is the vocabulary of the topics' search words, each with the
	// topics that rank it (word search).
	Words map[string][]WordRank `json:"words"`
}

// LayerData is one layer.
type LayerData struct {
	Layer     int         `json:"layer"` // from 1
	NPMI      *float64    `json:"npmi"`  // null when no topic has one
	Diversity float64     `json:"diversity"`
	Topics    []TopicData `json:"topics"`
}

// TopicData is one topic.
type TopicData struct {
	ID string `json:"id"` // "layer.topic", from 1
	// Weight is the topic's share of its layer's weight in the documents
	// (the sum of its row of S over the sum of S).
	Weight float64 `json:"weight"`
	// NPMI is package quality's; null for a topic with fewer than two
	// words of positive weight.
	NPMI *float64 `json:"npmi"`
	// Note says what the NPMI rests on where that is little (few words of
	// positive weight, few documents), or is empty.
	Note string `json:"note"`
	// ParentShare is package quality's: the share of the topic's mass its
	// largest topic of the layer before gives (null on layer 1).
	ParentShare *float64 `json:"parentShare"`
	// Words are the top words with their share of the topic's mass.
	Words []WordWeight `json:"words"`
	// MadeOf are the topics of the layer before that make it up, with
	// their share of its mass (at least 5 %, the largest first); PartOf
	// are the topics of the next layer it makes up, with the share of
	// that topic's mass it gives.
	MadeOf []Link `json:"madeOf"`
	PartOf []Link `json:"partOf"`
	// Docs are the indexes (in Data.Docs) of its representative documents.
	Docs []int `json:"docs"`
	// X and Y place it on its layer's map.
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

// WordWeight is a word and its share of a topic's mass.
type WordWeight struct {
	Word   string  `json:"w"`
	Weight float64 `json:"p"`
}

// Link is a topic and a share.
type Link struct {
	ID    string  `json:"id"`
	Share float64 `json:"share"`
}

// WordRank is a topic that ranks a word, and the rank (from 1).
type WordRank struct {
	ID   string `json:"id"`
	Rank int    `json:"rank"`
}

// DocData is one document on the page.
type DocData struct {
	ID   string `json:"id"`
	Text string `json:"text"`
	// Column is the document's column in the documents given to Build
	// (not on the page), so that a caller that passed no texts can fill
	// Text (with Snippet) from a second read of the documents.
	Column int `json:"-"`
	// Path is the document's topic at each layer (its largest entry of S)
	// with its share of the document's weight at that layer; "" for a
	// document without weight.
	Path []Link `json:"path"`
}

// Build computes the page of the hierarchy a (a model's A's) on documents
// whose S at every layer is s (s[ℓ] is k⁽ˡ⁾ × documents, as
// Model.Transform returns), named by docs (one per column), with words
// vocab (one per row of A⁽⁰⁾) and the quality q of the same layers
// (quality.Measure). It returns an error for shapes that do not agree,
// repeated document ids, or no documents.
func Build(a, s []*tensor.Dense, docs []Doc, vocab []string, q []quality.Layer, opt *Options) (*Data, error) {
	o := opt.withDefaults()
	switch {
	case len(a) == 0:
		return nil, errors.New("explore: no layers")
	case len(s) != len(a) || len(q) != len(a):
		return nil, fmt.Errorf("explore: %d layers of A, %d of S and %d of quality", len(a), len(s), len(q))
	case len(vocab) != a[0].Rows:
		return nil, fmt.Errorf("explore: %d words for %d rows of A⁽⁰⁾", len(vocab), a[0].Rows)
	case len(docs) == 0:
		return nil, errors.New("explore: no documents")
	}
	for l := range a {
		if s[l].Rows != a[l].Cols || s[l].Cols != len(docs) {
			return nil, fmt.Errorf("explore: S of layer %d is %d×%d, want %d×%d", l+1, s[l].Rows, s[l].Cols, a[l].Cols, len(docs))
		}
		if len(q[l].Topics) != a[l].Cols {
			return nil, fmt.Errorf("explore: quality of layer %d has %d topics, want %d", l+1, len(q[l].Topics), a[l].Cols)
		}
	}
	seen := map[string]bool{}
	for _, d := range docs {
		if seen[d.ID] {
			return nil, fmt.Errorf("explore: document id %q is repeated", d.ID)
		}
		seen[d.ID] = true
	}

	d := &Data{Title: o.Title, Words: map[string][]WordRank{}}
	// The documents on the page: a spread sample, then each topic's
	// representative ones.
	keep := map[int]int{} // column → index in d.Docs
	add := func(j int) int {
		if i, ok := keep[j]; ok {
			return i
		}
		keep[j] = len(d.Docs)
		d.Docs = append(d.Docs, DocData{ID: docs[j].ID, Text: Snippet(docs[j].Text, o.Snippet), Column: j, Path: path(s, j)})
		return keep[j]
	}
	step := (len(docs) + o.Docs - 1) / o.Docs
	for j := 0; j < len(docs); j += step {
		add(j)
	}

	topics := neuralnmf.LayerTopics(a)
	var mass []float64 // word-space mass of each topic of the layer before
	for l, t := range topics {
		ld := LayerData{Layer: l + 1, NPMI: orNull(q[l].NPMI), Diversity: q[l].Diversity}
		weights := rowShares(s[l])
		share := shares(s[l])
		tmass := columnSums(t)
		xy := mapTopics(t)
		tops := quality.TopWords(t, o.SearchWords)
		for j := 0; j < t.Cols; j++ {
			qt := q[l].Topics[j]
			td := TopicData{ID: topicID(l, j), Weight: weights[j], NPMI: orNull(qt.NPMI), Note: strings.Join(qt.Caveats(quality.DefaultTop), "; "), X: xy[j][0], Y: xy[j][1],
				Words: []WordWeight{}, MadeOf: []Link{}, PartOf: []Link{}, Docs: []int{}} // [] on the page, not null
			if ps := q[l].Topics[j].ParentShare; !math.IsNaN(ps) {
				td.ParentShare = &ps
			}
			for r, w := range tops[j] {
				if r < o.Words {
					p := 0.0
					if tmass[j] > 0 {
						p = t.At(w, j) / tmass[j]
					}
					td.Words = append(td.Words, WordWeight{vocab[w], p})
				}
				d.Words[vocab[w]] = append(d.Words[vocab[w]], WordRank{td.ID, r + 1})
			}
			if l > 0 { // what it is made of, and so what those are part of
				for _, pt := range madeOf(mass, a[l], j) {
					td.MadeOf = append(td.MadeOf, Link{topicID(l-1, pt.topic), pt.share})
					below := &d.Layers[l-1].Topics[pt.topic]
					below.PartOf = append(below.PartOf, Link{td.ID, pt.share})
				}
			}
			for _, c := range representative(s[l], share, j, o.TopDocs) {
				td.Docs = append(td.Docs, add(c))
			}
			ld.Topics = append(ld.Topics, td)
		}
		d.Layers = append(d.Layers, ld)
		mass = tmass
	}
	for l := range d.Layers {
		for j := range d.Layers[l].Topics {
			t := &d.Layers[l].Topics[j]
			slices.SortStableFunc(t.PartOf, func(x, y Link) int { return cmpDesc(x.Share, y.Share) })
		}
	}
	return d, nil
}

func topicID(l, j int) string { return fmt.Sprintf("%d.%d", l+1, j+1) }

func cmpDesc(x, y float64) int {
	switch {
	case x > y:
		return -1
	case x < y:
		return 1
	}
	return 0
}

// Snippet cuts text to at most n characters, on a rune boundary, with its
// runs of white space made single spaces (what the page shows of a
// document; Options.Snippet is n).
func Snippet(text string, n int) string {
	text = strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(text) <= n {
		return text
	}
	r := []rune(text)
	return string(r[:n]) + "…"
}

// path is document j's largest topic at each layer with its share.
func path(s []*tensor.Dense, j int) []Link {
	out := make([]Link, len(s))
	for l, sl := range s {
		best, sum := -1, 0.0
		for i := 0; i < sl.Rows; i++ {
			v := sl.At(i, j)
			sum += v
			if v > 0 && (best < 0 || v > sl.At(best, j)) {
				best = i
			}
		}
		if best >= 0 {
			out[l] = Link{topicID(l, best), sl.At(best, j) / sum}
		}
	}
	return out
}

// rowShares is each row's share of the sum of s.
func rowShares(s *tensor.Dense) []float64 {
	w := make([]float64, s.Rows)
	var total float64
	for i := range w {
		for _, v := range s.Row(i) {
			w[i] += v
		}
		total += w[i]
	}
	if total > 0 {
		for i := range w {
			w[i] /= total
		}
	}
	return w
}

// shares is s with each column divided by its sum (zero columns stay zero).
func shares(s *tensor.Dense) *tensor.Dense {
	out := tensor.New(s.Rows, s.Cols)
	for j := 0; j < s.Cols; j++ {
		var sum float64
		for i := 0; i < s.Rows; i++ {
			sum += s.At(i, j)
		}
		if sum > 0 {
			for i := 0; i < s.Rows; i++ {
				out.Set(i, j, s.At(i, j)/sum)
			}
		}
	}
	return out
}

// representative returns the n columns whose share of topic j is largest,
// ties broken by the larger entry of s, then by the earlier column;
// documents without weight in j are left out.
func representative(s, share *tensor.Dense, j, n int) []int {
	var cols []int
	for c := 0; c < s.Cols; c++ {
		if s.At(j, c) > 0 {
			cols = append(cols, c)
		}
	}
	slices.SortStableFunc(cols, func(x, y int) int {
		if c := cmpDesc(share.At(j, x), share.At(j, y)); c != 0 {
			return c
		}
		return cmpDesc(s.At(j, x), s.At(j, y))
	})
	return cols[:min(n, len(cols))]
}

func columnSums(t *tensor.Dense) []float64 {
	s := make([]float64, t.Cols)
	for w := 0; w < t.Rows; w++ {
		for i, v := range t.Row(w) {
			s[i] += v
		}
	}
	return s
}

// part is a topic of the layer before (its index) and its share.
type part struct {
	topic int
	share float64
}

// madeOf lists the topics of the layer before (of word-space masses mass)
// that make up topic j through al = A⁽ˡ⁾, with their shares of its mass:
// those of at least 5 %, the largest first.
func madeOf(mass []float64, al *tensor.Dense, j int) []part {
	var total float64
	c := make([]float64, len(mass))
	for i, m := range mass {
		c[i] = al.At(i, j) * m
		total += c[i]
	}
	var out []part
	if total == 0 {
		return out
	}
	for i, v := range c {
		if v/total >= 0.05 {
			out = append(out, part{i, v / total})
		}
	}
	slices.SortStableFunc(out, func(x, y part) int { return cmpDesc(x.share, y.share) })
	return out
}

// mapTopics places the topics (columns of t) in two dimensions by
// classical multidimensional scaling of the Jensen–Shannon distances
// (square roots of the divergences, in bits) of their word distributions,
// scaled into [−1, 1]. One topic sits at the origin; two lie on a line.
func mapTopics(t *tensor.Dense) [][2]float64 {
	k := t.Cols
	xy := make([][2]float64, k)
	if k < 2 {
		return xy
	}
	p := make([][]float64, k)
	for j := range p {
		p[j] = make([]float64, t.Rows)
		var sum float64
		for w := 0; w < t.Rows; w++ {
			p[j][w] = t.At(w, j)
			sum += p[j][w]
		}
		for w := range p[j] {
			if sum > 0 {
				p[j][w] /= sum
			}
		}
	}
	// B = −½ J D² J, D the distances.
	d2 := mat.NewSymDense(k, nil)
	for i := 0; i < k; i++ {
		for j := i + 1; j < k; j++ {
			d2.SetSym(i, j, jsd(p[i], p[j]))
		}
	}
	rowMean := make([]float64, k)
	var all float64
	for i := 0; i < k; i++ {
		for j := 0; j < k; j++ {
			rowMean[i] += d2.At(i, j) / float64(k)
		}
		all += rowMean[i] / float64(k)
	}
	b := mat.NewSymDense(k, nil)
	for i := 0; i < k; i++ {
		for j := i; j < k; j++ {
			b.SetSym(i, j, -0.5*(d2.At(i, j)-rowMean[i]-rowMean[j]+all))
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(b, true) {
		return xy
	}
	vals := eig.Values(nil)
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	// The two largest eigenvalues are the last (ascending order).
	var scale float64
	for dim := 0; dim < 2; dim++ {
		c := k - 1 - dim
		lam := math.Max(vals[c], 0)
		// A fixed sign, so that the map does not flip between runs: the
		// largest coordinate positive.
		sign, big := 1.0, 0.0
		for i := 0; i < k; i++ {
			if v := vecs.At(i, c); math.Abs(v) > big {
				big, sign = math.Abs(v), math.Copysign(1, v)
			}
		}
		for i := 0; i < k; i++ {
			xy[i][dim] = sign * vecs.At(i, c) * math.Sqrt(lam)
			scale = math.Max(scale, math.Abs(xy[i][dim]))
		}
	}
	if scale > 0 {
		for i := range xy {
			xy[i][0] /= scale
			xy[i][1] /= scale
		}
	}
	return xy
}

// jsd is the Jensen–Shannon divergence of two distributions, in bits.
func jsd(p, q []float64) float64 {
	var s float64
	for i := range p {
		m := (p[i] + q[i]) / 2
		if p[i] > 0 {
			s += p[i] * math.Log2(p[i]/m)
		}
		if q[i] > 0 {
			s += q[i] * math.Log2(q[i]/m)
		}
	}
	return math.Max(s/2, 0)
}

// WriteHTML writes the page of d: one HTML file with the data, style and
// script inline, no request to any network.
func (d *Data) WriteHTML(w io.Writer) error {
	b, err := json.Marshal(d)
	if err != nil {
		return fmt.Errorf("explore: %w", err)
	}
	return page.Execute(w, struct {
		Title string
		Data  template.JS
	}{d.Title, template.JS(b)})
}

// orNull is v, or nil (null on the page) for NaN.
func orNull(v float64) *float64 {
	if math.IsNaN(v) {
		return nil
	}
	return &v
}
