package main

import (
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
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
	format := fs.String("format", "text", "output: text (per layer, then per topic) or csv (one row a topic: layer,topic,npmi,parent_share,words)")
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
	write, err := choose("format", *format, choice[func(io.Writer, []quality.Layer, []string) error]{"text", writeQualityText},
		choice[func(io.Writer, []quality.Layer, []string) error]{"csv", writeQualityCSV})
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
	return write(stdout, layers, td.vocab)
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

func fmtShare(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

func writeQualityText(w io.Writer, layers []quality.Layer, vocab []string) error {
	for _, l := range layers {
		fmt.Fprintf(w, "Layer %d (%d topics): NPMI %.3f, diversity %.3f\n", l.Layer+1, len(l.Topics), l.NPMI, l.Diversity)
		for _, t := range l.Topics {
			share := ""
			if !math.IsNaN(t.ParentShare) {
				share = ", parent share " + fmtShare(t.ParentShare)
			}
			fmt.Fprintf(w, "  topic %-3d NPMI %6.3f%s  %s\n", t.Index+1, t.NPMI, share, wordsOf(t.Words, vocab))
		}
	}
	return nil
}

func writeQualityCSV(w io.Writer, layers []quality.Layer, vocab []string) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"layer", "topic", "npmi", "parent_share", "layer_npmi", "layer_diversity", "words"})
	for _, l := range layers {
		for _, t := range l.Topics {
			cw.Write([]string{strconv.Itoa(l.Layer + 1), strconv.Itoa(t.Index + 1), strconv.FormatFloat(t.NPMI, 'g', -1, 64), fmtShare(t.ParentShare),
				strconv.FormatFloat(l.NPMI, 'g', -1, 64), strconv.FormatFloat(l.Diversity, 'g', -1, 64), wordsOf(t.Words, vocab)})
		}
	}
	cw.Flush()
	return cw.Error()
}
