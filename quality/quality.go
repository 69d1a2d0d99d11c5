// Package quality measures how interpretable the topics of a hierarchy
// are, as topic-model users measure them: the coherence of each topic's top
// words by their co-occurrence in documents (NPMI), the diversity of a
// layer's topics, how much of a topic below the first comes from a
// single parent, and the measures papers on hierarchical topic models
// report beside them (docs/quality.md): each topic's specialization
// (broad topics should be more general than fine ones) and the
// hierarchical affinity of each layer to the one before (children should
// be closer to their parent than to other topics).
//
// Documents are a sparse features × documents matrix (a column a document,
// as neuralnmf and its text pipeline make them); only which entries are
// stored counts: a word is in a document when its entry is stored and
// positive.
package quality

import (
	"fmt"
	"math"

	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// Options configures Measure. The zero value gives the defaults.
type Options struct {
	// Top is the number of top words of a topic whose pairs NPMI averages
	// (all the features where there are fewer). Default 10 (45 pairs), as
	// gensim's and most papers' NPMI.
	Top int
	// DiversityTop is the number of top words per topic Diversity counts.
	// Default 25, as Dieng et al.'s topic diversity.
	DiversityTop int
}

// DefaultTop is Options.Top when it is 0.
const DefaultTop = 10

// MinDocs is the number of documents below which an NPMI means little:
// a topic whose top words occur two together in fewer documents than this
// has its pairs' joint probabilities estimated from a handful of counts
// (one document more or less moves one by 10 % or more), and at 0 every
// pair scores −1 whatever the topic is. Commands warn below it.
const MinDocs = 10

// Topic is the quality of one topic.
type Topic struct {
	// Layer and Index count from 0.
	Layer, Index int
	// Words are the topic's top words (rows of X) of positive weight, the
	// heaviest first: Top of them, or all the topic has when it has fewer
	// (TopWords). A word of weight 0 is never a top word.
	Words []int
	// NPMI is the mean NPMI of the pairs of Words; NaN when the topic has
	// fewer than two words of positive weight (no pair to score).
	NPMI float64
	// Docs is the number of documents that hold at least two of Words:
	// the only documents where a pair of them co-occurs. Below MinDocs the
	// NPMI rests on too few documents to mean much.
	Docs int
	// Specialization is 1 − the cosine similarity between the topic's
	// word weights (its column of A⁽⁰⁾⋯A⁽ˡ⁾) and the corpus's word vector
	// (the row sums of the documents' matrix) (Kim et al., 2012): 0 for a
	// topic that is the corpus's own word distribution, 1 for one that
	// shares no word with it. NaN for a zero topic.
	Specialization float64
	// ParentShare is, below the first layer, the share of the topic's mass
	// in word space that its largest parent (a topic of the layer above it
	// in A⁽ˡ⁾'s column) contributes: 1 when one parent makes it, 1/k when k
	// parents contribute equally. NaN on the first layer and for a zero
	// topic.
	ParentShare float64
}

// Caveats says, in words, what the topic's NPMI rests on where that is
// little, measured with top words a topic (Options.Top): fewer words of
// positive weight than top (none, or one: no NPMI), or fewer than MinDocs
// documents holding two of them. Nil when the NPMI rests on enough.
func (t Topic) Caveats(top int) []string {
	var c []string
	switch k := len(t.Words); {
	case k == 0:
		c = append(c, "no word of positive weight: no NPMI")
	case k == 1:
		c = append(c, "one word of positive weight: no NPMI")
	case k < top:
		c = append(c, fmt.Sprintf("NPMI of its only %d words of positive weight", k))
	}
	if len(t.Words) >= 2 && t.Docs < MinDocs {
		c = append(c, fmt.Sprintf("NPMI from %d document(s) holding two of its words", t.Docs))
	}
	return c
}

// Layer is the quality of one layer's topics.
type Layer struct {
	// Layer counts from 0.
	Layer int
	// NPMI is the mean of the topics' NPMI, over the topics that have
	// one (NaN if none has).
	NPMI float64
	// Diversity is the share of distinct words among the layer's topics'
	// DiversityTop top words: 1 when no two topics share a top word.
	Diversity float64
	// Specialization is the mean over the layer's topics of Topic's:
	// broader topics should be more general (lower) than finer ones.
	Specialization float64
	// Affinity compares, below the first layer, this layer's topics with
	// their children in the layer before (NaN fields on the first layer).
	Affinity Affinity
	Topics   []Topic
}

// Affinity is hierarchical affinity (Kim et al., 2012) between a layer ℓ
// and the layer before it, ℓ−1: a topic i of ℓ−1 is the child of the
// topic j of ℓ with its largest weight in A⁽ˡ⁾'s row i (the first such j
// on ties), and the measure is the mean cosine similarity of the word
// weights (columns of A⁽⁰⁾⋯A⁽ˡ⁾ and A⁽⁰⁾⋯A⁽ˡ⁻¹⁾) over the parent–child
// pairs (Children) and over every other pair (NonChildren). A hierarchy
// whose children are clearly closer to their parent than to the other
// parents has Children well above NonChildren.
type Affinity struct {
	Children, NonChildren float64
}

// Measure returns the quality of every layer of the hierarchy a (the A's
// of a model: A⁽⁰⁾ is features × k⁽⁰⁾, A⁽ˡ⁾ is k⁽ˡ⁻¹⁾ × k⁽ˡ⁾; layer ℓ's
// topics in word space are A⁽⁰⁾⋯A⁽ˡ⁾, neuralnmf.LayerTopics), with NPMI
// counted over the documents docs (features × documents). It returns an
// error if a is empty or not a chain of nonnegative, finite matrices, or
// if docs has another number of features or no documents. Documents with
// no entry count in the total that NPMI's probabilities divide by, as in
// gensim's document co-occurrence.
func Measure(docs *tensor.Sparse, a []*tensor.Dense, opt *Options) ([]Layer, error) {
	o := withDefaults(opt)
	if len(a) == 0 {
		return nil, fmt.Errorf("quality: no layers")
	}
	rows := a[0].Rows
	for l, al := range a {
		if al.Rows != rows {
			return nil, fmt.Errorf("quality: A%d is %d×%d, want %d rows (A%d's columns)", l+1, al.Rows, al.Cols, rows, l)
		}
		if err := tensor.CheckData(fmt.Sprintf("A%d", l+1), al); err != nil {
			return nil, fmt.Errorf("quality: %w", err)
		}
		rows = al.Cols
	}
	if docs == nil || docs.Rows != a[0].Rows {
		return nil, fmt.Errorf("quality: the documents have %d features, the topics %d", rowsOf(docs), a[0].Rows)
	}
	if docs.Cols == 0 {
		return nil, fmt.Errorf("quality: no documents")
	}
	if o.Top < 2 || a[0].Rows < 2 {
		return nil, fmt.Errorf("quality: NPMI pairs a topic's top words: want Top ≥ 2 and at least 2 features (Top %d, %d features)", o.Top, a[0].Rows)
	}
	co := NewCooccurrence(docs)
	topics := neuralnmf.LayerTopics(a)
	corpus := rowSums(docs)
	var out []Layer
	var mass []float64 // the mass in word space of each topic of the layer above
	for l, t := range topics {
		lay := Layer{Layer: l, Affinity: Affinity{math.NaN(), math.NaN()}}
		if l > 0 {
			lay.Affinity = HierarchicalAffinity(topics[l-1], t, a[l])
		}
		tops := TopWords(t, o.Top)
		var sum float64
		scored := 0
		for j, words := range tops {
			tp := Topic{Layer: l, Index: j, Words: words, NPMI: math.NaN(), ParentShare: math.NaN(),
				Specialization: 1 - cosineColumn(t, j, corpus)}
			if len(words) >= 2 {
				tp.NPMI = co.NPMI(words)
				tp.Docs = co.DocsWithTwo(words)
				sum += tp.NPMI
				scored++
			}
			if l > 0 {
				tp.ParentShare = parentShare(mass, a[l], j)
			}
			lay.Topics = append(lay.Topics, tp)
		}
		lay.NPMI = math.NaN()
		if scored > 0 {
			lay.NPMI = sum / float64(scored)
		}
		lay.Diversity = Diversity(TopWords(t, o.DiversityTop))
		lay.Specialization = meanOf(lay.Topics, func(t Topic) float64 { return t.Specialization })
		out = append(out, lay)
		mass = columnSums(t)
	}
	return out, nil
}

// TopWords returns, for each column of t (a topic in word space), the rows
// of its n largest positive entries, the largest first (ties in row
// order): fewer than n, or none, where the column has fewer positive
// entries. A word of weight 0 is not a top word of the topic.
func TopWords(t *tensor.Dense, n int) [][]int {
	tops := neuralnmf.TopRows(t, n)
	for j, rows := range tops {
		k := 0
		for k < len(rows) && t.At(rows[k], j) > 0 {
			k++
		}
		tops[j] = rows[:k:k]
	}
	return tops
}

func rowsOf(s *tensor.Sparse) int {
	if s == nil {
		return 0
	}
	return s.Rows
}

func withDefaults(opt *Options) Options {
	var o Options
	if opt != nil {
		o = *opt
	}
	if o.Top == 0 {
		o.Top = DefaultTop
	}
	if o.DiversityTop == 0 {
		o.DiversityTop = 25
	}
	return o
}

// columnSums returns the sum of each column of t.
func columnSums(t *tensor.Dense) []float64 {
	s := make([]float64, t.Cols)
	for w := range t.Rows {
		for i, v := range t.Row(w) {
			s[i] += v
		}
	}
	return s
}

// parentShare is the share of topic j of a layer (column j of al, whose
// rows are the topics above, of word-space masses mass) that its largest
// parent contributes to its mass.
func parentShare(mass []float64, al *tensor.Dense, j int) float64 {
	var total, most float64
	for i, m := range mass {
		c := al.At(i, j) * m
		total += c
		most = math.Max(most, c)
	}
	if total == 0 {
		return math.NaN()
	}
	return most / total
}

// Diversity returns the share of distinct words among the words of tops
// (each a topic's top words): 1 when no word repeats, 0 for no words.
func Diversity(tops [][]int) float64 {
	seen := map[int]bool{}
	n := 0
	for _, t := range tops {
		for _, w := range t {
			seen[w] = true
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return float64(len(seen)) / float64(n)
}

// Cooccurrence counts in how many documents words occur, alone and in
// pairs.
type Cooccurrence struct {
	docs  int
	words [][]int // words[w]: the documents holding word w, increasing
}

// NewCooccurrence indexes docs (features × documents): word w occurs in
// document j when entry (w, j) is stored and positive.
func NewCooccurrence(docs *tensor.Sparse) *Cooccurrence {
	c := &Cooccurrence{docs: docs.Cols, words: make([][]int, docs.Rows)}
	for j := range docs.Cols {
		rows, vals := docs.Column(j)
		for p, w := range rows {
			if vals[p] > 0 {
				c.words[w] = append(c.words[w], j)
			}
		}
	}
	return c
}

// DocsWithTwo returns the number of documents holding at least two of
// words.
func (c *Cooccurrence) DocsWithTwo(words []int) int {
	seen := map[int]int{}
	n := 0
	for _, w := range words {
		for _, d := range c.words[w] {
			if seen[d]++; seen[d] == 2 {
				n++
			}
		}
	}
	return n
}

// Count returns the number of documents holding word w.
func (c *Cooccurrence) Count(w int) int { return len(c.words[w]) }

// CountPair returns the number of documents holding both words.
func (c *Cooccurrence) CountPair(w, v int) int {
	a, b := c.words[w], c.words[v]
	n := 0
	for i, k := 0, 0; i < len(a) && k < len(b); {
		switch {
		case a[i] < b[k]:
			i++
		case a[i] > b[k]:
			k++
		default:
			n++
			i++
			k++
		}
	}
	return n
}

// PairNPMI is the normalised pointwise mutual information of two words by
// document co-occurrence, log(p(w,v) / (p(w)·p(v))) / −log p(w,v), with
// p the share of documents holding the word (or both): −1 for a pair never
// seen together, 1 for a pair that occurs only together, and 1 for a pair
// in every document (where the formula is 0/0).
func (c *Cooccurrence) PairNPMI(w, v int) float64 {
	nwv := c.CountPair(w, v)
	if nwv == 0 {
		return -1
	}
	d := float64(c.docs)
	pwv := float64(nwv) / d
	if nwv == c.docs {
		return 1
	}
	pw, pv := float64(c.Count(w))/d, float64(c.Count(v))/d
	return math.Log(pwv/(pw*pv)) / -math.Log(pwv)
}

// NPMI is the mean PairNPMI over the pairs of words (0 with fewer than two
// words).
func (c *Cooccurrence) NPMI(words []int) float64 {
	var sum float64
	n := 0
	for i := range words {
		for k := i + 1; k < len(words); k++ {
			sum += c.PairNPMI(words[i], words[k])
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// rowSums returns the sum of each row of docs (features × documents): the
// corpus's word vector.
func rowSums(docs *tensor.Sparse) []float64 {
	s := make([]float64, docs.Rows)
	for j := range docs.Cols {
		rows, vals := docs.Column(j)
		for p, w := range rows {
			s[w] += vals[p]
		}
	}
	return s
}

// cosineColumn returns the cosine similarity between column j of t and v
// (NaN when either is zero).
func cosineColumn(t *tensor.Dense, j int, v []float64) float64 {
	return cosine(len(v), func(i int) (float64, float64) { return t.At(i, j), v[i] })
}

// cosineColumns returns the cosine similarity between column i of a and
// column j of b (same rows; NaN when either is zero).
func cosineColumns(a *tensor.Dense, i int, b *tensor.Dense, j int) float64 {
	return cosine(a.Rows, func(r int) (float64, float64) { return a.At(r, i), b.At(r, j) })
}

// cosine returns the cosine similarity of two vectors of n entries, the
// r-th pair of entries given by at(r) (NaN when either is zero).
func cosine(n int, at func(r int) (float64, float64)) float64 {
	var dot, nx, ny float64
	for r := range n {
		x, y := at(r)
		dot += x * y
		nx += x * x
		ny += y * y
	}
	if nx == 0 || ny == 0 {
		return math.NaN()
	}
	return dot / math.Sqrt(nx*ny)
}

// HierarchicalAffinity returns the Affinity between the topics of a layer
// (broad, words × k⁽ˡ⁾) and those of the layer before (fine, words ×
// k⁽ˡ⁻¹⁾), whose A⁽ˡ⁾ (k⁽ˡ⁻¹⁾ × k⁽ˡ⁾) says each fine topic's parent. Pairs
// with a zero topic are left out; a mean over no pair is NaN.
func HierarchicalAffinity(fine, broad, al *tensor.Dense) Affinity {
	var sumC, sumN float64
	var nC, nN int
	for i := range fine.Cols {
		parent := 0
		for j := 1; j < al.Cols; j++ {
			if al.At(i, j) > al.At(i, parent) {
				parent = j
			}
		}
		for j := range broad.Cols {
			c := cosineColumns(fine, i, broad, j)
			if math.IsNaN(c) {
				continue
			}
			if j == parent {
				sumC, nC = sumC+c, nC+1
			} else {
				sumN, nN = sumN+c, nN+1
			}
		}
	}
	return Affinity{ratio(sumC, nC), ratio(sumN, nN)}
}

func ratio(sum float64, n int) float64 {
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}

// meanOf is the mean of f over the topics where it is not NaN (NaN if
// none).
func meanOf(ts []Topic, f func(Topic) float64) float64 {
	var sum float64
	n := 0
	for _, t := range ts {
		if v := f(t); !math.IsNaN(v) {
			sum, n = sum+v, n+1
		}
	}
	return ratio(sum, n)
}
