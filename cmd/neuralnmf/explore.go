package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/neuralnmf/neuralnmf/explore"
	"github.com/neuralnmf/neuralnmf/matio"
	"github.com/neuralnmf/neuralnmf/quality"
)

func runExplore(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("explore", flag.ContinueOnError)
	in := addColumnFlags(fs, "model file from 'neuralnmf fit' (required)", false, true)
	vocabPath := fs.String("vocab", "", "vocabulary, one word per line (default: the model's own, from fit -text)")
	out := fs.String("o", "", "output HTML page (required)")
	nDocs := fs.Int("docs", 1000, "documents the page holds besides each topic's most representative ones (every n/docs-th)")
	nWords := fs.Int("n", 15, "top words shown per topic")
	title := fs.String("title", "", "the page's title (default: the model file's name)")
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: neuralnmf explore -model m.nnmf -text docs.jsonl -o explore.html [-docs 1000] [-n 15]
       neuralnmf explore -model m.nnmf -x X.mtx [-vocab vocab.txt] -o explore.html

Writes one self-contained HTML page (no network) for moving through a
model's hierarchy of topics: the tree of topics sized by their weight in
the documents, each topic's words, NPMI coherence, the topics it is made
of and part of, and its most representative documents; a word search; a
document's path through the layers; a map of each layer's topics (by the
Jensen-Shannon distance of their words, as pyLDAvis's). The view is in the
URL's fragment: #topic=2.5, #doc=ID, #word=gpu, #layer=2, #docs.

Flags:
`)
		fs.PrintDefaults()
		fmt.Fprintln(stderr, "\n"+exitCodesHelp)
	}
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if err := in.check(fs, *out, input{"-vocab", *vocabPath}); err != nil {
		return err
	}
	if *nDocs < 1 || *nWords < 2 || *nWords > maxTopWords {
		return usageError{fmt.Errorf("-docs must be at least 1 and -n from 2 to %d (got %d and %d)", maxTopWords, *nDocs, *nWords)}
	}
	td, err := readTopicDocs(in, *vocabPath, stderr)
	if err != nil {
		return err
	}
	if td.vocab == nil {
		return usageError{fmt.Errorf("-vocab is required: the model %s has no words of its own (it was fitted on a matrix, not on -text); give -vocab FILE, one word per row of the matrix", *in.model)}
	}
	m, c, docs := td.m, td.c, td.docs
	q, err := quality.Measure(docs, m.A, nil)
	if err != nil {
		return err
	}
	warnQuality(stderr, q, quality.DefaultTop)
	s, err := m.Transform(docs)
	if err != nil {
		return err
	}
	ids := make([]explore.Doc, len(c.names))
	seen := map[string]int{}
	for j, n := range c.names {
		if seen[n]++; seen[n] > 1 {
			n += " (" + strconv.Itoa(seen[n]) + ")" // a repeated id
		}
		ids[j] = explore.Doc{ID: n}
	}
	if *title == "" {
		*title = "Topics of " + filepath.Base(*in.model)
	}
	opt := &explore.Options{Words: *nWords, Docs: *nDocs, Title: *title}
	d, err := explore.Build(m.A, s, ids, td.vocab, q, opt)
	if err != nil {
		return err
	}
	if *in.text != "" {
		// The texts of the documents on the page, from a second read.
		want := map[int]int{}
		for i, dd := range d.Docs {
			want[dd.Column] = i
		}
		j := 0
		for t, err := range in.docs.source(*in.text).Texts() {
			if err != nil {
				return err
			}
			if i, ok := want[j]; ok {
				d.Docs[i].Text = explore.Snippet(t, explore.DefaultSnippet)
			}
			j++
		}
	}
	if err := matio.WriteAtomic(*out, func(f *os.File) error { return d.WriteHTML(f) }); err != nil {
		return err
	}
	topics := 0
	for _, l := range d.Layers {
		topics += len(l.Topics)
	}
	fmt.Fprintf(stdout, "wrote %s: %d layers, %d topics, %d of %d documents; open it in a browser (#topic=1.1, #word=…, #doc=…)\n", *out, len(d.Layers), topics, len(d.Docs), docs.Cols)
	return nil
}
