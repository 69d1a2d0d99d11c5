package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

func runExport(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	modelPath := fs.String("model", "", "model file from 'neuralnmf fit' (required)")
	which := fs.String("matrix", "", "matrix to write: A1..AL, S1..SL, B, BX or Intercept (layer numbers from 1; A1 is features × layer-1 topics) (required)")
	out := fs.String("o", "", "output file: .csv or .mtx (required)")
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: neuralnmf export -model m.nnmf -matrix A1|S2|B|BX|Intercept -o file.csv

Writes one matrix a saved model holds, with the names heatmap and report
use: Aℓ is layer ℓ's A (A1: features × layer-1 topics; Aℓ: layer-(ℓ-1)
topics × layer-ℓ topics), Sℓ the training columns' layer-ℓ weights (topics
× columns), B the classifier (classes × the topics of the layer it reads:
the last, or the one fit -labels chose), and, when fit -labels chose a
logistic regression on the words, BX (classes × features) and Intercept
(classes × 1): a column x's class scores are B·Sl + BX·x/‖x‖ + Intercept.

Flags:
`)
		fs.PrintDefaults()
		fmt.Fprintln(stderr, "\n"+exitCodesHelp)
	}
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if *modelPath == "" || *which == "" || *out == "" {
		return usageError{errors.New("-model, -matrix and -o are required")}
	}
	if !strings.HasSuffix(*out, ".csv") && !strings.HasSuffix(*out, ".mtx") {
		return usageError{fmt.Errorf("-o %s: want a .csv or .mtx file", *out)}
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
	if err := writeMatrix(*out, nm.m); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s to %s: %s (rows: %s, columns: %s)\n", nm.title(), *out, nm.describe, nm.rows, nm.cols)
	return nil
}
