package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/neuralnmf/neuralnmf/plot"
)

func runHeatmap(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("heatmap", flag.ContinueOnError)
	modelPath := fs.String("model", "", "model file from 'neuralnmf fit' (required)")
	which := fs.String("matrix", "A1", "matrix to draw: A1..AL, S1..SL or B (layer numbers from 1; A1 is features × layer-1 topics)")
	out := fs.String("o", "", "output PNG file (required)")
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
	if err := checkOutput("-o", *out, input{"-model", *modelPath}); err != nil {
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
	img, err := plot.Heatmaps([]plot.Panel{{Title: nm.title(), M: nm.m, RowLabel: nm.rows, ColLabel: nm.cols}},
		&plot.Options{Title: title, BarLabel: "entry of " + nm.name})
	if err != nil {
		return err
	}
	if err := plot.WritePNG(*out, img); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s: %s, %s\n", *out, nm.title(), nm.describe)
	return nil
}
