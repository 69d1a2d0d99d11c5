package text

import (
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"math"
	"runtime"
	"slices"
	"sort"
	"strings"

	"github.com/neuralnmf/neuralnmf/internal/parallel"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// Norm is how each document's vector is normalised.
type Norm int

const (
	// L2 divides each document by its Euclidean norm (scikit-learn's
	// norm='l2', the default).
	L2 Norm = iota
	// L1 divides each document by the sum of its absolute values.
	L1
	// NoNorm leaves documents unnormalised.
	NoNorm
)

func (n Norm) String() string {
	switch n {
	case L2:
		return "l2"
	case L1:
		return "l1"
	case NoNorm:
		return "none"
	}
	return fmt.Sprintf("Norm(%d)", int(n))
}

// DocFreq bounds a word's document frequency: either a number of documents
// (Docs) or a share of them (Share), like scikit-learn's int and float
// min_df and max_df. The zero DocFreq is no bound.
type DocFreq struct {
	Count int     `json:"count,omitempty"`
	Frac  float64 `json:"fraction,omitempty"`
	IsSet bool    `json:"set,omitempty"`
	// IsFrac says whether Frac (not Count) is the bound.
	IsFrac bool `json:"is_fraction,omitempty"`
}

// Docs returns the bound "n documents".
func Docs(n int) DocFreq { return DocFreq{Count: n, IsSet: true} }

// Share returns the bound "the fraction f of the documents" (0 ≤ f ≤ 1).
func Share(f float64) DocFreq { return DocFreq{Frac: f, IsSet: true, IsFrac: true} }

// limit returns the bound in documents for a corpus of n documents
// (scikit-learn: max_df * n for a fraction, unrounded).
func (d DocFreq) limit(n int) float64 {
	if d.IsFrac {
		return d.Frac * float64(n)
	}
	return float64(d.Count)
}

func (d DocFreq) String() string {
	if !d.IsSet {
		return "none"
	}
	if d.IsFrac {
		return fmt.Sprint(d.Frac)
	}
	return fmt.Sprint(d.Count)
}

// Options configures a Vectorizer. The zero Options is scikit-learn's
// TfidfVectorizer() with its defaults: lowercase, token pattern
// (?u)\b\w\w+\b, raw term counts, smooth IDF ln((1+n)/(1+df)) + 1, and
// L2-normalised documents.
type Options struct {
	// KeepCase turns lowercasing off (lowercase=False).
	KeepCase bool `json:"keep_case,omitempty"`
	// StopWords are removed after tokenising (compared with the lowercased
	// tokens unless KeepCase).
	StopWords []string `json:"stop_words,omitempty"`
	// Newsgroups strips each document's Usenet headers, signature and quoted
	// lines (StripNewsgroup) and then removes every decimal digit, the
	// cleaning of the paper's 20 Newsgroups matrix.
	Newsgroups bool `json:"newsgroups,omitempty"`
	// MinDF and MaxDF drop words that occur in fewer or more documents
	// than the bound (min_df, max_df).
	MinDF DocFreq `json:"min_df"`
	MaxDF DocFreq `json:"max_df"`
	// MaxFeatures, if positive, keeps only the words with the largest
	// total counts over the corpus (after MinDF/MaxDF), ties broken by the
	// alphabetical order.
	MaxFeatures int `json:"max_features,omitempty"`
	// Counts returns raw term counts: no IDF and no normalisation
	// (CountVectorizer). SublinearTF, NoIDF, NoSmoothIDF and Norm then do
	// not apply.
	Counts bool `json:"counts,omitempty"`
	// SublinearTF replaces a count c by 1 + ln(c) (sublinear_tf=True).
	SublinearTF bool `json:"sublinear_tf,omitempty"`
	// NoIDF drops the IDF factor (use_idf=False).
	NoIDF bool `json:"no_idf,omitempty"`
	// NoSmoothIDF uses ln(n/df) + 1 (smooth_idf=False).
	NoSmoothIDF bool `json:"no_smooth_idf,omitempty"`
	// Norm is the document normalisation.
	Norm Norm `json:"norm"`
}

func (o *Options) validate() error {
	for _, d := range []struct {
		name string
		v    DocFreq
	}{{"MinDF", o.MinDF}, {"MaxDF", o.MaxDF}} {
		if d.v.IsFrac && !(d.v.Frac >= 0 && d.v.Frac <= 1) {
			return fmt.Errorf("text: %s is the fraction %v, want 0 ≤ f ≤ 1", d.name, d.v.Frac)
		}
		if !d.v.IsFrac && d.v.Count < 0 {
			return fmt.Errorf("text: %s is %d documents, want at least 0", d.name, d.v.Count)
		}
	}
	if o.MaxFeatures < 0 {
		return fmt.Errorf("text: MaxFeatures is %d, want at least 0 (0 keeps every word)", o.MaxFeatures)
	}
	if o.Norm < L2 || o.Norm > NoNorm {
		return fmt.Errorf("text: unknown Norm %d", int(o.Norm))
	}
	return nil
}

// Vectorizer turns documents into columns of a words × documents matrix in
// a fixed vocabulary. Fit makes one; it is safe for concurrent use and
// serialises to JSON (encoding/json) so that new documents can be put in
// the same space later.
type Vectorizer struct {
	Options Options `json:"options"`
	// Vocab holds the word of each row, in Python's sorted (code point)
	// order.
	Vocab []string `json:"vocab"`
	// IDF holds each word's inverse document frequency (nil with Counts or
	// NoIDF).
	IDF []float64 `json:"idf,omitempty"`
	// Docs is the number of documents it was fitted on.
	Docs int `json:"docs"`

	index map[string]int
}

// ErrNoWords is returned by Fit when no document has a word that survives
// the options (scikit-learn's "empty vocabulary").
var ErrNoWords = errors.New("text: empty vocabulary; the documents contain only stop words or no tokens, or the bounds removed every word")

// Analyze returns the tokens of a document as the vectoriser with options o
// sees them: cleaned (Newsgroups), lowercased, tokenised and without stop
// words.
func (o *Options) Analyze(doc string) []string {
	return o.analyzer().tokens(nil, doc)
}

type analyzer struct {
	o    *Options
	stop map[string]bool
}

func (o *Options) analyzer() analyzer {
	a := analyzer{o: o}
	if len(o.StopWords) > 0 {
		a.stop = make(map[string]bool, len(o.StopWords))
		for _, w := range o.StopWords {
			a.stop[w] = true
		}
	}
	return a
}

func (a analyzer) tokens(dst []string, doc string) []string {
	if a.o.Newsgroups {
		doc = removeDigits(StripNewsgroup(doc))
	}
	if !a.o.KeepCase {
		doc = pyLower(doc)
	}
	n := len(dst)
	dst = appendTokens(dst, doc)
	if a.stop != nil {
		kept := dst[:n]
		for _, t := range dst[n:] {
			if !a.stop[t] {
				kept = append(kept, t)
			}
		}
		dst = kept
	}
	return dst
}

// termCount is one (word, count) entry of a document.
type termCount struct {
	id    int32
	count int32
}

// batchSize is how many documents are tokenised together; bounded so that
// memory holds the batch's text, not the corpus's.
const batchSize = 2048

// countBatch tokenises docs on all cores and returns each document's word
// counts keyed by word (in first-occurrence order).
func (a analyzer) countBatch(docs []string) [][]wordCount {
	out := make([][]wordCount, len(docs))
	type scratch struct {
		toks []string
		seen map[string]int
	}
	workers := parallel.Workers(len(docs), 1, runtime.GOMAXPROCS(0))
	scr := make([]scratch, workers)
	parallel.ForChunks(len(docs), 1, workers, func(wi, i, _ int) {
		sc := &scr[wi]
		if sc.seen == nil {
			sc.seen = map[string]int{}
		}
		sc.toks = a.tokens(sc.toks[:0], docs[i])
		clear(sc.seen)
		var wc []wordCount
		for _, t := range sc.toks {
			if k, ok := sc.seen[t]; ok {
				wc[k].count++
				continue
			}
			sc.seen[t] = len(wc)
			wc = append(wc, wordCount{t, 1})
		}
		out[i] = wc
	})
	return out
}

// count reads docs a batch at a time, tokenises each batch on all cores
// (countBatch) and calls add with each document's word counts, in order. It
// returns the first error docs yields.
func (a analyzer) count(docs iter.Seq2[string, error], add func([]wordCount)) error {
	var batch []string
	flush := func() {
		for _, wc := range a.countBatch(batch) {
			add(wc)
		}
		batch = batch[:0]
	}
	for doc, err := range docs {
		if err != nil {
			return err
		}
		batch = append(batch, doc)
		if len(batch) == batchSize {
			flush()
		}
	}
	flush()
	return nil
}

type wordCount struct {
	word  string
	count int32
}

// Fit learns the vocabulary and IDF of the documents that docs yields and
// returns the vectoriser with the documents' matrix (words × documents,
// one column per document in order). It reads the documents once, a batch
// at a time, so memory grows with the matrix's non-zeros and the vocabulary,
// not with the text. An error from docs is returned as is; ErrNoWords when
// no word survives.
func Fit(docs iter.Seq2[string, error], o Options) (*Vectorizer, *tensor.Sparse, error) {
	if err := o.validate(); err != nil {
		return nil, nil, err
	}
	a := o.analyzer()
	index := map[string]int32{}
	var words []string
	var cols [][]termCount
	err := a.count(docs, func(wc []wordCount) {
		col := make([]termCount, len(wc))
		for k, e := range wc {
			id, ok := index[e.word]
			if !ok {
				id = int32(len(words))
				w := strings.Clone(e.word) // not a slice of the document
				index[w] = id
				words = append(words, w)
			}
			col[k] = termCount{id, e.count}
		}
		cols = append(cols, col)
	})
	if err != nil {
		return nil, nil, err
	}
	n := len(cols)
	if n == 0 {
		return nil, nil, ErrNoDocuments
	}
	if len(words) == 0 {
		return nil, nil, ErrNoWords
	}

	// Document frequencies and total counts, then the kept words in sorted
	// order.
	df := make([]int, len(words))
	tf := make([]int64, len(words))
	for _, col := range cols {
		for _, e := range col {
			df[e.id]++
			tf[e.id] += int64(e.count)
		}
	}
	v, row, err := build(o, n, words, df, tf)
	if err != nil {
		return nil, nil, err
	}
	x := v.assemble(cols, row)
	return v, x, nil
}

// build makes the vectoriser of a corpus of n documents whose words (in
// any order, each once) occur in df documents and tf times in all: the
// vocabulary the bounds keep, in sorted order, and its IDF. row maps each
// index of words to its row, or −1 for a word left out. Fit and FitCounts
// share it, so a vectoriser fitted from counts added over shards is the one
// Fit makes of the whole corpus.
func build(o Options, n int, words []string, df []int, tf []int64) (*Vectorizer, []int32, error) {
	order := make([]int32, len(words))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(x, y int32) int { return strings.Compare(words[x], words[y]) })
	keep := order[:0:0]
	if err := o.CheckBounds(n); err != nil {
		return nil, nil, err
	}
	for _, id := range order {
		if o.InBounds(df[id], n) {
			keep = append(keep, id)
		}
	}
	if o.MaxFeatures > 0 && len(keep) > o.MaxFeatures {
		byCount := slices.Clone(keep)
		sort.SliceStable(byCount, func(i, j int) bool { return tf[byCount[i]] > tf[byCount[j]] })
		byCount = byCount[:o.MaxFeatures]
		slices.SortFunc(byCount, func(x, y int32) int { return strings.Compare(words[x], words[y]) })
		keep = byCount
	}
	if len(keep) == 0 {
		return nil, nil, ErrNoWords
	}
	row := make([]int32, len(words))
	for i := range row {
		row[i] = -1
	}
	v := &Vectorizer{Options: o, Vocab: make([]string, len(keep)), Docs: n}
	for r, id := range keep {
		row[id] = int32(r)
		v.Vocab[r] = words[id]
	}
	if !o.Counts && !o.NoIDF {
		v.IDF = make([]float64, len(keep))
		for r, id := range keep {
			v.IDF[r] = idf(n, df[id], !o.NoSmoothIDF)
		}
	}
	v.init()
	return v, row, nil
}

// idf is scikit-learn's inverse document frequency: ln(n/df) + 1, with n
// and df each increased by one when smooth.
func idf(n, df int, smooth bool) float64 {
	if smooth {
		n, df = n+1, df+1
	}
	return math.Log(float64(n)/float64(df)) + 1
}

// init builds the lookup tables of a fitted or decoded vectoriser.
func (v *Vectorizer) init() {
	v.index = make(map[string]int, len(v.Vocab))
	for i, w := range v.Vocab {
		v.index[w] = i
	}
}

// assemble builds the words × documents matrix from per-document counts,
// mapping word ids to rows through row (−1 drops the word), and applies the
// weighting and normalisation.
func (v *Vectorizer) assemble(cols [][]termCount, row []int32) *tensor.Sparse {
	x := &tensor.Sparse{Rows: len(v.Vocab), Cols: len(cols), ColPtr: make([]int, len(cols)+1)}
	nnz := 0
	for _, col := range cols {
		for _, e := range col {
			if row[e.id] >= 0 {
				nnz++
			}
		}
	}
	x.RowIdx, x.Val = make([]int, 0, nnz), make([]float64, 0, nnz)
	var tmp []termCount
	for j, col := range cols {
		tmp = tmp[:0]
		for _, e := range col {
			if r := row[e.id]; r >= 0 {
				tmp = append(tmp, termCount{r, e.count})
			}
		}
		slices.SortFunc(tmp, func(p, q termCount) int { return int(p.id - q.id) })
		start := len(x.Val)
		for _, e := range tmp {
			x.RowIdx = append(x.RowIdx, int(e.id))
			x.Val = append(x.Val, v.weight(int(e.id), e.count))
		}
		v.normalize(x.Val[start:])
		x.ColPtr[j+1] = len(x.Val)
	}
	return x
}

// weight is one entry's value before normalisation.
func (v *Vectorizer) weight(r int, count int32) float64 {
	t := float64(count)
	if v.Options.Counts {
		return t
	}
	if v.Options.SublinearTF {
		t = math.Log(t) + 1
	}
	if v.IDF != nil {
		t *= v.IDF[r]
	}
	return t
}

// normalize scales one document's values in place as scikit-learn's
// normalize does (sum in row order; an all-zero document stays zero).
func (v *Vectorizer) normalize(val []float64) {
	if v.Options.Counts || v.Options.Norm == NoNorm {
		return
	}
	var s float64
	for _, x := range val {
		if v.Options.Norm == L1 {
			s += math.Abs(x)
		} else {
			s += x * x
		}
	}
	if v.Options.Norm == L2 {
		s = math.Sqrt(s)
	}
	if s == 0 {
		return
	}
	for i := range val {
		val[i] /= s
	}
}

// Transform returns the words × documents matrix of docs in v's vocabulary
// and weighting (scikit-learn's transform): words outside the vocabulary
// are ignored, and a document without any known word is a zero column.
func (v *Vectorizer) Transform(docs iter.Seq2[string, error]) (*tensor.Sparse, error) {
	if err := v.check(); err != nil {
		return nil, err
	}
	a := v.Options.analyzer()
	var cols [][]termCount
	err := a.count(docs, func(wc []wordCount) {
		col := make([]termCount, 0, len(wc))
		for _, e := range wc {
			if r, ok := v.index[e.word]; ok {
				col = append(col, termCount{int32(r), e.count})
			}
		}
		cols = append(cols, col)
	})
	if err != nil {
		return nil, err
	}
	row := make([]int32, len(v.Vocab))
	for i := range row {
		row[i] = int32(i)
	}
	return v.assemble(cols, row), nil
}

// check validates a vectoriser made by hand or decoded from JSON.
func (v *Vectorizer) check() error {
	if v == nil || len(v.Vocab) == 0 {
		return errors.New("text: the vectorizer has no vocabulary (make one with Fit)")
	}
	if err := v.Options.validate(); err != nil {
		return err
	}
	if v.IDF != nil && len(v.IDF) != len(v.Vocab) {
		return fmt.Errorf("text: vectorizer has %d IDF values for %d words", len(v.IDF), len(v.Vocab))
	}
	if v.IDF == nil && !v.Options.Counts && !v.Options.NoIDF {
		return errors.New("text: vectorizer has no IDF values but its options use them")
	}
	for i, f := range v.IDF {
		if !(f >= 1) || math.IsInf(f, 0) {
			return fmt.Errorf("text: vectorizer IDF of %q is %v, want a finite value ≥ 1", v.Vocab[i], f)
		}
	}
	if v.index == nil {
		v.init()
	}
	if len(v.index) != len(v.Vocab) {
		return errors.New("text: vectorizer vocabulary has repeated words")
	}
	return nil
}

// UnmarshalJSON decodes a vectoriser written by encoding/json and checks it.
func (v *Vectorizer) UnmarshalJSON(b []byte) error {
	type plain Vectorizer
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return fmt.Errorf("text: vectorizer: %w", err)
	}
	*v = Vectorizer(p)
	v.index = nil
	return v.check()
}

// Strings returns a sequence of the given documents, for Fit and
// Transform.
func Strings(docs []string) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		for _, d := range docs {
			if !yield(d, nil) {
				return
			}
		}
	}
}
