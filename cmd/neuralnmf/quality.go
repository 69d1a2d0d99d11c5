package main

import (
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/quality"
	"github.com/neuralnmf/neuralnmf/tensor"
)

func runQuality(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("quality", flag.ContinueOnError)
	in := addColumnFlags(fs, "model file from 'neuralnmf fit' (required)", false, false)
	vocabPath := fs.String("vocab", "", "vocabulary for the words of the text output: one word per line (default: the model's own, from fit -text)")
	n := fs.Int("n", 10, "top words per topic whose pairs NPMI averages (all the model's features where it has fewer)")
	div := fs.Int("diversity-n", 25, "top words per topic that topic diversity counts")
	format := fs.String("format", "text", "output: text (per layer, then per topic) or csv (one row a topic: layer,topic,npmi,parent_share,...,words,n_words,docs,specialization,...)")
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: neuralnmf quality -model m.nnmf -text docs.jsonl [-n 10] [-format text|csv]
       neuralnmf quality -model m.nnmf -x X.mtx [-vocab vocab.txt]

Measures the topics of every layer of a model on documents (the training
documents, or others), as topic-model users do, to standard output:

  NPMI          each topic's coherence: the normalised pointwise mutual
                information of its top -n words, by how often they occur in
                the same documents, averaged over the pairs (a pair never
                seen together counts -1; 1 is words that occur only together)
  diversity     the share of distinct words among a layer's topics' top
                -diversity-n words (1: no topic shares a top word)
  parent share  below the first layer, how much of a topic's mass its
                largest parent in the layer above gives (1: one parent)
  specialization  1 - the cosine of a topic's word weights and the
                corpus's word counts (Kim et al. 2012): broad topics
                should be more general (lower) than fine ones
  affinity      below the first layer, the mean cosine of each topic's
                words with its children's in the layer before (a topic's
                parent is the topic with its largest weight in A), against
                the same with the other topics: children should be closer

A topic's top words are its words of positive weight: a topic with fewer
than -n is scored on those it has, one with fewer than 2 has no NPMI (-)
and stays out of its layer's mean, and a warning names them; so it does
for an NPMI that rests on fewer than 10 documents holding two of the
topic's top words, and for documents with no word of the model's (which
count in NPMI's document total). Documents none of which holds a word of
the model's are refused.

Documents are -text (vectorised by the model's saved vectoriser) or a
matrix -x with the model's rows; a word is in a document when its entry is
positive. Layers and topics count from 1.

Flags:
`)
		fs.PrintDefaults()
		fmt.Fprintln(stderr, "\n"+exitCodesHelp)
	}
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if err := oneInput(*in.x, *in.text); err != nil {
		return err
	}
	if *in.model == "" {
		return usageError{errors.New("-model is required")}
	}
	if *in.text == "" {
		if err := rejectFlags(fs, []string{"field"}, "applies to -text documents only"); err != nil {
			return err
		}
	}
	if *n < 2 || *div < 1 {
		return usageError{fmt.Errorf("-n must be at least 2 (NPMI pairs the top words) and -diversity-n at least 1 (got %d and %d)", *n, *div)}
	}
	if *n > maxTopWords || *div > maxTopWords {
		return usageError{fmt.Errorf("-n and -diversity-n are at most %d (NPMI averages n(n-1)/2 pairs a topic: %d pairs at -n %d; papers use 10 to 20) (got %d and %d)", maxTopWords, maxTopWords*(maxTopWords-1)/2, maxTopWords, *n, *div)}
	}
	type writer = func(io.Writer, []quality.Layer, []string, int) error
	write, err := choose("format", *format, choice[writer]{"text", writeQualityText}, choice[writer]{"csv", writeQualityCSV})
	if err != nil {
		return err
	}
	td, err := readTopicDocs(in, *vocabPath, stderr)
	if err != nil {
		return err
	}
	layers, err := quality.Measure(td.docs, td.m.A, &quality.Options{Top: *n, DiversityTop: *div})
	if err != nil {
		return err
	}
	warnQuality(stderr, layers, *n)
	return write(stdout, layers, td.vocab, *n)
}

// maxTopWords bounds quality's and explore's top words per topic.
const maxTopWords = 100

// warnQuality says on stderr which topics have fewer than n words of
// positive weight (scored on those, or not at all), and which NPMIs rest
// on fewer than quality.MinDocs documents.
func warnQuality(stderr io.Writer, layers []quality.Layer, n int) {
	var short, unscored, thin []string
	for _, l := range layers {
		for _, t := range l.Topics {
			id := fmt.Sprintf("%d.%d", l.Layer+1, t.Index+1)
			switch {
			case len(t.Words) < 2:
				unscored = append(unscored, id)
			case len(t.Words) < n:
				short = append(short, id)
			}
			if len(t.Words) >= 2 && t.Docs < quality.MinDocs {
				thin = append(thin, id)
			}
		}
	}
	if len(unscored) > 0 {
		fmt.Fprintf(stderr, "warning: %d topic(s) (%s) have fewer than 2 words of positive weight: no NPMI (shown as -), and left out of their layer's mean\n", len(unscored), quoteIDs(unscored))
	}
	if len(short) > 0 {
		fmt.Fprintf(stderr, "warning: %d topic(s) (%s) have fewer than %d words of positive weight: each is scored on the words it has\n", len(short), quoteIDs(short), n)
	}
	if len(thin) > 0 {
		fmt.Fprintf(stderr, "warning: the NPMI of %d topic(s) (%s) rests on fewer than %d documents holding two of their top words: it means little (0 documents: every pair scores -1)\n", len(thin), quoteIDs(thin), quality.MinDocs)
	}
}

// quoteIDs lists the first few topic ids.
func quoteIDs(ids []string) string {
	if len(ids) > 8 {
		return strings.Join(ids[:8], ", ") + ", …"
	}
	return strings.Join(ids, ", ")
}

// topicDocs is a model with its words and the documents its topics are
// judged on, as quality and explore read them.
type topicDocs struct {
	m     *neuralnmf.Model
	vocab []string
	c     *newColumns
	docs  *tensor.Sparse // c's matrix, sparse
}

// readTopicDocs loads -model, its vocabulary (-vocab, or the model's own)
// and the documents (-x or -text), which must have the model's rows.
func readTopicDocs(in columnFlags, vocabPath string, stderr io.Writer) (*topicDocs, error) {
	m, err := in.loadModel()
	if err != nil {
		return nil, err
	}
	vocab, err := modelVocab(*in.model, vocabPath, m)
	if err != nil {
		return nil, err
	}
	c, err := in.read(m, stderr)
	if err != nil {
		return nil, err
	}
	docs := c.x.Sparse
	if docs == nil {
		docs = tensor.SparseFromDense(c.x.Dense)
	}
	if docs.Rows != m.A[0].Rows {
		return nil, fmt.Errorf("%s: %d rows, but the model has %d features", c.from, docs.Rows, m.A[0].Rows)
	}
	if !slices.Contains(c.empty, false) {
		what := "no document holds a word of the model's vocabulary (a wrong -field, language or model?)"
		if strings.HasPrefix(c.from, "-x ") {
			what = "every column is zero"
		}
		return nil, fmt.Errorf("%s: %s: NPMI counts words occurring together in documents, and here every pair would score -1 whatever the topics", c.from, what)
	}
	c.warnEmpty(stderr, "they count in the documents NPMI's probabilities divide by, and hold no pair")
	return &topicDocs{m: m, vocab: vocab, c: c, docs: docs}, nil
}

// wordsOf names the words of a topic: by vocab, or by 1-based row.
func wordsOf(words []int, vocab []string) string {
	s := make([]string, len(words))
	for k, w := range words {
		if vocab != nil {
			s[k] = vocab[w]
		} else {
			s[k] = "row" + strconv.Itoa(w+1)
		}
	}
	return strings.Join(s, " ")
}

// fmt3 is a measure (NPMI, specialization, affinity) to 3 decimals, or
// "-" where there is none.
func fmt3(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

// topicNote is t's caveats (quality.Topic.Caveats), in parentheses.
func topicNote(t quality.Topic, top int) string {
	if c := t.Caveats(top); c != nil {
		return "  (" + strings.Join(c, "; ") + ")"
	}
	return ""
}

func fmtShare(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

func writeQualityText(w io.Writer, layers []quality.Layer, vocab []string, top int) error {
	for _, l := range layers {
		fmt.Fprintf(w, "Layer %d (%d topics): NPMI %s, diversity %.3f, specialization %s", l.Layer+1, len(l.Topics), fmt3(l.NPMI), l.Diversity, fmt3(l.Specialization))
		if !math.IsNaN(l.Affinity.Children) || !math.IsNaN(l.Affinity.NonChildren) {
			fmt.Fprintf(w, ", affinity to layer %d: children %s, others %s", l.Layer, fmt3(l.Affinity.Children), fmt3(l.Affinity.NonChildren))
		}
		fmt.Fprintln(w)
		for _, t := range l.Topics {
			share := ""
			if !math.IsNaN(t.ParentShare) {
				share = ", parent share " + fmtShare(t.ParentShare)
			}
			fmt.Fprintf(w, "  topic %-3d NPMI %6s%s  %s%s\n", t.Index+1, fmt3(t.NPMI), share, wordsOf(t.Words, vocab), topicNote(t, top))
		}
	}
	return nil
}

// fmtFloat is v in full, or empty for NaN (no value).
func fmtFloat(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

func writeQualityCSV(w io.Writer, layers []quality.Layer, vocab []string, _ int) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"layer", "topic", "npmi", "parent_share", "layer_npmi", "layer_diversity", "words", "n_words", "docs",
		"specialization", "layer_specialization", "affinity_children", "affinity_others"})
	for _, l := range layers {
		for _, t := range l.Topics {
			cw.Write([]string{strconv.Itoa(l.Layer + 1), strconv.Itoa(t.Index + 1), fmtFloat(t.NPMI), fmtShare(t.ParentShare),
				fmtFloat(l.NPMI), strconv.FormatFloat(l.Diversity, 'g', -1, 64), wordsOf(t.Words, vocab), strconv.Itoa(len(t.Words)), strconv.Itoa(t.Docs),
				fmtFloat(t.Specialization), fmtFloat(l.Specialization), fmtFloat(l.Affinity.Children), fmtFloat(l.Affinity.NonChildren)})
		}
	}
	cw.Flush()
	return cw.Error()
}
