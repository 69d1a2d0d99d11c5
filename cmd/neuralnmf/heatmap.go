package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/plot"
	"github.com/neuralnmf/neuralnmf/tensor"
)

func runHeatmap(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("heatmap", flag.ContinueOnError)
	modelPath := fs.String("model", "", "model file from 'neuralnmf fit' (required)")
	which := fs.String("matrix", "A1", "matrix to draw: A1..AL, S1..SL or B (layer numbers from 1; A1 is features × layer-1 topics)")
	out := fs.String("o", "", "output PNG file (required)")
	vocabPath := fs.String("vocab", "", "vocabulary naming the features, one word per line (default: the model's own, for models trained with fit -text)")
	words := fs.Int("words", 5, fmt.Sprintf("for an A1 of more than %d features: draw the rows of each topic's top this many words, named", tallRows))
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: neuralnmf heatmap -model m.nnmf -matrix A2 -o a2.png\n\nDraws one matrix of a saved model (Aℓ, Sℓ or B, named as in 'neuralnmf export' and the report) as a PNG heatmap with labelled axes.\n\nFlags:\n")
		fs.PrintDefaults()
		fmt.Fprintln(stderr, "\n"+exitCodesHelp)
	}
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if *out == "" || filepath.Ext(*out) != ".png" {
		return usageError{errors.New("-o must name a .png file")}
	}
	if *words < 1 {
		return usageError{fmt.Errorf("-words is %d: want at least 1", *words)}
	}
	if err := checkOutput("-o", *out, input{"-model", *modelPath}, input{"-vocab", *vocabPath}); err != nil {
		return err
	}
	m, err := loadModel(*modelPath)
	if err != nil {
		return err
	}
	nm, err := modelMatrix(m, "-matrix", *which)
	if err != nil {
		return err
	}
	ranks := make([]string, len(m.A))
	for l, a := range m.A {
		ranks[l] = strconv.Itoa(a.Cols)
	}
	title := fmt.Sprintf("Neural NMF model %s (ranks %s): %s", filepath.Base(*modelPath), strings.Join(ranks, ","), nm.name)
	panel := plot.Panel{Title: nm.title(), M: nm.m, RowLabel: nm.rows, ColLabel: nm.cols}
	if nm.name == "A1" && nm.m.Rows > tallRows {
		vocab, err := modelVocab(*modelPath, *vocabPath, m)
		if err != nil {
			return err
		}
		panel = topRowsPanel(nm, vocab, *words)
	}
	img, err := plot.Heatmaps([]plot.Panel{panel}, &plot.Options{Title: title, BarLabel: "entry of " + nm.name})
	if err != nil {
		return err
	}
	if err := plot.WritePNG(*out, img); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s: %s, %s\n", *out, panel.Title, nm.describe)
	return nil
}

// tallRows is the most features of an A1 drawn whole; a taller one (a
// vocabulary) would be a strip a few pixels wide, so only its topics' top
// words are drawn.
const tallRows = 60

// topRowsPanel is the panel of a tall A1's rows that are among the top n
// of some topic, grouped by topic, named by vocab (or by feature number).
func topRowsPanel(nm namedMatrix, vocab []string, n int) plot.Panel {
	a := nm.m
	var rows []int
	seen := map[int]bool{}
	for _, top := range neuralnmf.TopRows(a, n) {
		for _, i := range top {
			if !seen[i] {
				seen[i] = true
				rows = append(rows, i)
			}
		}
	}
	rows = rows[:min(len(rows), plot.MaxNamedRows)]
	sub := tensor.New(len(rows), a.Cols)
	names := make([]string, len(rows))
	for r, i := range rows {
		copy(sub.Row(r), a.Row(i))
		names[r] = "feature " + strconv.Itoa(i+1)
		if vocab != nil {
			names[r] = vocab[i]
		}
	}
	return plot.Panel{Title: fmt.Sprintf("%s: the top %d words of each of its %d topics (%d of %d rows)", nm.name, n, a.Cols, len(rows), a.Rows),
		M: sub, RowNames: names, RowLabel: "top words", ColLabel: nm.cols}
}
