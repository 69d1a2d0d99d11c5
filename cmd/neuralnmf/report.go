package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/neuralnmf/neuralnmf/classify"
	"github.com/neuralnmf/neuralnmf/matio"
	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/quality"
	"github.com/neuralnmf/neuralnmf/report"
)

func runReport(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	modelPath := fs.String("model", "", "model file from 'neuralnmf fit' (required)")
	out := fs.String("o", "", "output HTML file (required)")
	vocabPath := fs.String("vocab", "", "vocabulary, one word per line (default: the model's own, for models trained with fit -text; else feature numbers)")
	labelsPath := fs.String("labels", "", "class of each training column (-1 unknown): adds accuracy per layer and a confusion matrix")
	xPath := fs.String("x", "", "the documents the report describes, as a matrix with the training data's rows: for a model from fit -batch-size, which keeps no S, their topic shares, S heatmap and (with labels) scores come from running them through the model")
	textPath := fs.String("text", "", "the documents as text, vectorised by the model's vectoriser: instead of -x, and with -label-field their labels instead of -labels")
	docs := addDocFlags(fs, true, false)
	classNames := fs.String("class-names", "", "file naming the classes, one per line, class 0 first (default: the model's own, for models trained with -label-field)")
	words := fs.Int("words", 10, "top words per topic")
	qualityText := fs.String("quality-text", "", "documents (as -text, vectorised by the model's vectoriser) on which to measure every topic's NPMI coherence, and each layer's diversity, as 'neuralnmf quality' does: shown in the topic tables")
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: neuralnmf report -model m.nnmf -o report.html [flags]

Writes one self-contained HTML page (no network, scripts or external fonts)
showing the model's topic hierarchy as a tree, its topics' top words and
shares of documents, heatmaps, the training curve and, with -labels,
accuracy per layer and a confusion matrix.

A model from fit -batch-size keeps no S (the training columns' weights):
give its documents with -x or -text for the shares and label scores;
without them the report shows the topics, their words and the heatmaps
of A.

Flags:
`)
		fs.PrintDefaults()
		fmt.Fprintln(stderr, "\n"+exitCodesHelp)
	}
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if *modelPath == "" || *out == "" {
		return usageError{errors.New("-model and -o are required")}
	}
	if *words < 1 {
		return usageError{fmt.Errorf("-words is %d: want at least 1", *words)}
	}
	if !strings.HasSuffix(strings.ToLower(*out), ".html") && !strings.HasSuffix(strings.ToLower(*out), ".htm") {
		return usageError{fmt.Errorf("-o %s: want an .html file", *out)}
	}
	if *textPath == "" && *docs.labelField != "" {
		return usageError{errors.New("-label-field needs -text: the documents that hold the labels")}
	}
	if *xPath != "" && *textPath != "" {
		return usageError{errors.New("-x and -text were both given: give one (a matrix or documents)")}
	}
	if *textPath == "" && *qualityText == "" {
		if err := rejectFlags(fs, []string{"field"}, "applies to -text and -quality-text documents only"); err != nil {
			return err
		}
	}
	if *labelsPath != "" && *docs.labelField != "" {
		return usageError{errors.New("-labels and -label-field both give the labels: give one")}
	}
	if *classNames != "" && *labelsPath == "" {
		return usageError{errors.New("-class-names needs -labels")}
	}
	if err := checkOutput("-o", *out, input{"-model", *modelPath}, input{"-x", *xPath}, input{"-vocab", *vocabPath}, input{"-labels", *labelsPath}, input{"-text", *textPath}, input{"-class-names", *classNames}, input{"-quality-text", *qualityText}); err != nil {
		return err
	}
	m, err := loadModel(*modelPath)
	if err != nil {
		return err
	}
	in := report.Input{Model: m, Title: "Neural NMF: " + filepath.Base(*modelPath), Words: *words}
	if in.Vocab, err = modelVocab(*modelPath, *vocabPath, m); err != nil {
		return err
	}
	if *qualityText != "" {
		if in.Quality, err = measureQuality(*qualityText, docs, *modelPath, m, stderr); err != nil {
			return err
		}
	}
	cols := 0 // the documents the report describes
	var docLabels []string
	if len(m.S) > 0 {
		if *xPath != "" || (*textPath != "" && *docs.labelField == "") {
			return usageError{fmt.Errorf("-model %s keeps its training columns' S, which the report uses: -x and -text (without -label-field) are for models from fit -batch-size", *modelPath)}
		}
		cols = m.S[0].Cols
	} else if *xPath != "" || *textPath != "" {
		c, err := readColumns(*xPath, *textPath, docs, *modelPath, m, stderr)
		if err != nil {
			return err
		}
		if in.S, err = forward(m, c.x); err != nil {
			return fmt.Errorf("%s: %w", c.from, err)
		}
		cols, docLabels = len(c.empty), c.labels
	} else if *labelsPath != "" || *docs.labelField != "" {
		return usageError{fmt.Errorf("-model %s keeps no S (it was trained with fit -batch-size): give its documents with -x or -text to score labels", *modelPath)}
	}
	if in.Labels, err = reportLabels(*labelsPath, *textPath, docs, docLabels, m, cols); err != nil {
		return err
	}
	if *classNames != "" {
		if in.ClassNames, err = readWordList(*classNames); err != nil {
			return err
		}
		if classes, _ := classify.CheckLabels(in.Labels); len(in.ClassNames) != classes {
			return fmt.Errorf("-class-names %s: %d names for the %d classes of -labels %s", *classNames, len(in.ClassNames), classes, *labelsPath)
		}
	}
	if err := matio.WriteAtomic(*out, func(f *os.File) error { return report.Write(f, in) }); err != nil {
		return fmt.Errorf("%s: %w", *out, err)
	}
	fmt.Fprintf(stdout, "wrote %s\n", *out)
	return nil
}

// reportLabels returns the labels of the report's cols documents from
// -labels, or from -label-field of the -text documents (docLabels if they
// were read already) mapped through the model's class names; nil without
// either. Errors name the labels' source.
func reportLabels(labelsPath, textPath string, docs docFlags, docLabels []string, m *neuralnmf.Model, cols int) ([]int, error) {
	var labels []int
	source := "-labels " + labelsPath
	switch {
	case labelsPath != "":
		var err error
		if labels, err = matio.ReadLabelsFile(labelsPath); err != nil {
			return nil, err
		}
	case *docs.labelField != "":
		source = "-text " + textPath + " -label-field " + *docs.labelField
		info := docInfo{labels: docLabels}
		if docLabels == nil {
			for _, err := range info.texts(docs.source(textPath), docs) {
				if err != nil {
					return nil, err
				}
			}
		}
		names := m.ClassNames
		if names == nil {
			names = classNamesOf(info.labels)
		}
		labels, _ = labelIDs(info.labels, names)
	default:
		return nil, nil
	}
	if len(labels) != cols {
		return nil, fmt.Errorf("%s: %d labels for the report's %d documents", source, len(labels), cols)
	}
	if _, err := classify.CheckLabels(labels); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	return labels, nil
}

// readWordList reads one entry per line (a vocabulary or class names).
func readWordList(path string) ([]string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	words := strings.Split(strings.TrimRight(strings.ReplaceAll(string(raw), "\r\n", "\n"), "\n"), "\n")
	line := make(map[string]int, len(words))
	for i, w := range words {
		if first, ok := line[w]; ok {
			return nil, fmt.Errorf("%s: line %d repeats %q of line %d: each line names one row (a word or class), and two rows of one name could not be told apart", path, i+1, w, first)
		}
		line[w] = i + 1
	}
	return words, nil
}

// measureQuality measures the model's topics on the documents at path
// (report -quality-text), with quality's defaults.
func measureQuality(path string, docs docFlags, modelPath string, m *neuralnmf.Model, stderr io.Writer) ([]quality.Layer, error) {
	c, err := readColumns("", path, docs, modelPath, m, stderr)
	if err != nil {
		return nil, fmt.Errorf("-quality-text: %w", err)
	}
	layers, err := quality.Measure(c.x.Sparse, m.A, nil)
	if err != nil {
		return nil, fmt.Errorf("-quality-text %s: %w", path, err)
	}
	return layers, nil
}
