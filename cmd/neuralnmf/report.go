package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/neuralnmf/neuralnmf/matio"
	"github.com/neuralnmf/neuralnmf/report"
)

func runReport(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	modelPath := fs.String("model", "", "model file from 'neuralnmf fit' (required)")
	out := fs.String("o", "", "output HTML file (required)")
	vocabPath := fs.String("vocab", "", "vocabulary, one word per line (default: the model's own, for models trained with fit -text; else feature numbers)")
	labelsPath := fs.String("labels", "", "class of each training column (-1 unknown): adds accuracy per layer and a confusion matrix")
	classNames := fs.String("class-names", "", "file naming the classes, one per line, class 0 first")
	words := fs.Int("words", 10, "top words per topic")
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: neuralnmf report -model m.nnmf -o report.html [flags]

Writes one self-contained HTML page (no network, scripts or external fonts)
showing the model's topic hierarchy as a tree, its topics' top words and
shares of documents, heatmaps, the training curve and, with -labels,
accuracy per layer and a confusion matrix.

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
	if err := checkOutput("-o", *out, input{"-model", *modelPath}, input{"-vocab", *vocabPath}, input{"-labels", *labelsPath}, input{"-class-names", *classNames}); err != nil {
		return err
	}
	m, err := loadModel(*modelPath)
	if err != nil {
		return err
	}
	in := report.Input{Model: m, Title: "Neural NMF: " + filepath.Base(*modelPath), Words: *words}
	switch {
	case *vocabPath != "":
		if in.Vocab, err = readWordList(*vocabPath); err != nil {
			return err
		}
		if len(in.Vocab) != m.A[0].Rows {
			return fmt.Errorf("%s: %d words, but the model has %d features", *vocabPath, len(in.Vocab), m.A[0].Rows)
		}
	case m.Vectorizer != nil:
		v, err := modelVectorizer(*modelPath, m)
		if err != nil {
			return err
		}
		in.Vocab = v.Vocab
	}
	if *labelsPath != "" {
		if in.Labels, err = matio.ReadLabelsFile(*labelsPath); err != nil {
			return err
		}
		if len(in.Labels) != m.S[0].Cols {
			return fmt.Errorf("%s: %d labels for the model's %d columns", *labelsPath, len(in.Labels), m.S[0].Cols)
		}
	}
	if *classNames != "" {
		if *labelsPath == "" {
			return usageError{errors.New("-class-names needs -labels")}
		}
		if in.ClassNames, err = readWordList(*classNames); err != nil {
			return err
		}
	}
	if err := matio.WriteAtomic(*out, func(f *os.File) error { return report.Write(f, in) }); err != nil {
		return fmt.Errorf("%s: %w", *out, err)
	}
	fmt.Fprintf(stdout, "wrote %s\n", *out)
	return nil
}

// readWordList reads one entry per line (a vocabulary or class names).
func readWordList(path string) ([]string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return strings.Split(strings.TrimRight(strings.ReplaceAll(string(raw), "\r\n", "\n"), "\n"), "\n"), nil
}
