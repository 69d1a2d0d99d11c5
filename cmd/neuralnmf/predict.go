package main

import (
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/neuralnmf/neuralnmf/matio"
	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/tensor"
)

func runPredict(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("predict", flag.ContinueOnError)
	in := addColumnFlags(fs, "model file from 'neuralnmf fit' trained with labels (required)", true, true)
	batch := fs.Int("batch-size", 0, batchSizeHelp)
	labelsPath := fs.String("labels", "", "true class of each column (0..P-1, -1 unknown): print accuracy, per-class precision and recall, and the confusion matrix")
	out := fs.String("o", "", "output .csv: column number (or id), class (-1: no word of the vocabulary, and empty scores), class name, then one score per class (required)")
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: neuralnmf predict -model m.nnmf -x new.mtx -o predictions.csv [-labels y.txt]
       neuralnmf predict -model m.nnmf -text new.jsonl [-id-field id] [-label-field topic] -o predictions.csv

Predicts the class of each new column with a model trained with labels:
the argmax of its class scores B·Sl, where Sl is the column's forward pass
to the layer its classifier reads (the last for the supervised fit; the one
fit -labels chose for a read-out or a regression on topics), plus
BX·x/‖x‖ + intercept when fit -labels chose a logistic regression that
reads the words (x the column). 'neuralnmf export' writes B, BX and the
intercept. Writes a CSV with a header row. A column with no entry
(a document with no word of the vocabulary) has no prediction: class -1,
empty scores, and a warning. With -labels or -label-field it also prints accuracy,
precision and recall per class and the confusion matrix.

Flags:
`)
		fs.PrintDefaults()
		fmt.Fprintln(stderr, "\n"+exitCodesHelp)
	}
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if *labelsPath != "" && *in.docs.labelField != "" {
		return usageError{errors.New("-labels and -label-field both give the true classes: give one")}
	}
	if err := in.check(fs, *out, input{"-labels", *labelsPath}); err != nil {
		return err
	}
	if !strings.HasSuffix(*out, ".csv") {
		return usageError{fmt.Errorf("-o %s: want a .csv file", *out)}
	}
	m, err := in.loadModel()
	if err != nil {
		return err
	}
	if m.B == nil {
		return fmt.Errorf("-model %s was trained without labels, so it cannot predict classes (train it with -labels or -label-field)", *in.model)
	}
	if *batch < 0 || (*batch > 0 && (*in.x == "" || !matio.IsMatrixMarket(*in.x))) {
		return usageError{errors.New("-batch-size streams a .mtx or .mtx.gz -x, with a positive number of columns per block")}
	}
	if *batch > 0 {
		return predictStream(m, *in.x, *labelsPath, *out, *batch, stdout, stderr)
	}
	cols, err := in.read(m, stderr)
	if err != nil {
		return err
	}
	y, err := trueLabels(*labelsPath, cols, m, stderr)
	if err != nil {
		return err
	}
	pred, scores, err := classifyColumns(m, cols.x)
	if err != nil {
		return fmt.Errorf("%s: %w", cols.from, err)
	}
	for j, empty := range cols.empty {
		if empty {
			pred[j] = -1
		}
	}
	cols.warnEmpty(stderr, "their class is written as -1")
	if err := writePredictions(*out, cols, *in.docs.idField != "", pred, scores, m.ClassNames); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote predicted classes of %d columns (%d classes) to %s\n", len(pred), scores.Rows, *out)
	if y != nil {
		writeScores(stdout, y, pred, classNames(m))
	}
	return nil
}

// predictStream is predict with -batch-size: blocks of -x are classified
// and written as they are read; only the predicted classes (one int per
// column) are kept, for scoring against -labels.
func predictStream(m *neuralnmf.Model, xPath, labelsPath, out string, batch int, stdout, stderr io.Writer) error {
	var y []int
	if labelsPath != "" {
		// The labels are checked against the columns the file declares
		// before any work, so that a bad -labels writes nothing.
		r, err := matio.OpenColumns(xPath)
		if err != nil {
			return err
		}
		_, cols := r.Dims()
		r.Close()
		if y, err = readTrueLabels(labelsPath, cols, "-x "+xPath, m); err != nil {
			return err
		}
	}
	head := predictionHead("column", m.ClassNames, m.B.Rows)
	var pred []int
	st, err := streamRows(xPath, out, batch, m, head, func(first int, x *tensor.Sparse, s []*tensor.Dense, empty []bool) ([][]string, error) {
		p, scores, err := m.Scores(x, s)
		if err != nil {
			return nil, err
		}
		recs := make([][]string, len(p))
		for j, c := range p {
			if empty[j] {
				c = -1
			}
			pred = append(pred, c)
			recs[j] = predictionRecord(strconv.Itoa(first+j+1), c, m.ClassNames, scores, j)
		}
		return recs, nil
	})
	if err != nil {
		return err
	}
	st.warn(stderr, xPath, "their class is written as -1")
	fmt.Fprintf(stdout, "wrote predicted classes of %d columns (%d classes) to %s (streamed in blocks of %d)\n", st.cols, m.B.Rows, out, batch)
	if y != nil {
		writeScores(stdout, y, pred, classNames(m))
	}
	return nil
}

// classNames returns the model's class names, or the class numbers.
func classNames(m *neuralnmf.Model) []string {
	if m.ClassNames != nil {
		return m.ClassNames
	}
	names := make([]string, m.B.Rows)
	for p := range names {
		names[p] = strconv.Itoa(p)
	}
	return names
}

// writePredictions writes one row per column: its number (or id), the
// predicted class, its name when the model names its classes, and the
// score of each class.
func writePredictions(path string, cols *newColumns, ids bool, pred []int, scores *tensor.Dense, names []string) error {
	return matio.WriteAtomic(path, func(f *os.File) error {
		w := csv.NewWriter(f)
		first := "column"
		if ids {
			first = "id"
		}
		w.Write(predictionHead(first, names, scores.Rows))
		for j, c := range pred {
			id := strconv.Itoa(j + 1)
			if ids {
				id = cols.names[j]
			}
			w.Write(predictionRecord(id, c, names, scores, j))
		}
		w.Flush()
		return w.Error()
	})
}

// predictionHead is the header row of the predictions: first (what names
// the column), class, class_name when the model names its classes, then
// score_0 … score_{classes−1}.
func predictionHead(first string, names []string, classes int) []string {
	head := []string{first, "class"}
	if names != nil {
		head = append(head, "class_name")
	}
	for p := 0; p < classes; p++ {
		head = append(head, fmt.Sprintf("score_%d", p))
	}
	return head
}

// predictionRecord is the row of column j, named id, predicted class c
// (−1: none), under predictionHead.
func predictionRecord(id string, c int, names []string, scores *tensor.Dense, j int) []string {
	rec := []string{id, strconv.Itoa(c)}
	if names != nil {
		name := ""
		if c >= 0 {
			name = names[c]
		}
		rec = append(rec, name)
	}
	if c < 0 { // no prediction: no scores either (they would be the intercept's alone)
		return append(rec, make([]string, scores.Rows)...)
	}
	return formatColumn(rec, scores, j)
}

// writeScores prints accuracy over the columns with a known label (a
// column without a prediction counts as wrong), precision and recall per
// class, and the confusion matrix.
func writeScores(w io.Writer, y, pred []int, names []string) {
	P := len(names)
	conf := make([][]int, P) // conf[true][predicted]; column P: no prediction
	for p := range conf {
		conf[p] = make([]int, P+1)
	}
	n, right, none := 0, 0, 0
	for j, t := range y {
		if t < 0 {
			continue
		}
		n++
		switch c := pred[j]; {
		case c < 0:
			none++
			conf[t][P]++
		default:
			conf[t][c]++
			if c == t {
				right++
			}
		}
	}
	fmt.Fprintf(w, "accuracy %.4f (%d of %d labelled columns", float64(right)/float64(n), right, n)
	if none > 0 {
		fmt.Fprintf(w, "; %d without a prediction count as wrong", none)
	}
	fmt.Fprintln(w, ")")
	width := len("class")
	for _, s := range names {
		width = max(width, len([]rune(s)))
	}
	fmt.Fprintf(w, "\n%-*s  precision  recall  support\n", width, "class")
	for p, name := range names {
		predicted, support := 0, 0
		for t := 0; t < P; t++ {
			predicted += conf[t][p]
		}
		for c := 0; c <= P; c++ {
			support += conf[p][c]
		}
		fmt.Fprintf(w, "%-*s  %9s  %6s  %7d\n", width, name, ratio(conf[p][p], predicted), ratio(conf[p][p], support), support)
	}
	fmt.Fprintf(w, "\nconfusion matrix (rows: true class, columns: predicted class")
	if none > 0 {
		fmt.Fprint(w, "; last column: no prediction")
	}
	fmt.Fprintln(w, ")")
	// Columns are headed by the class names when they are short, else by
	// the class numbers with a legend.
	heads, short := make([]string, P), true
	for p, name := range names {
		heads[p] = name
		short = short && len([]rune(name)) <= 12
	}
	if !short {
		for p := range heads {
			heads[p] = strconv.Itoa(p)
		}
	}
	cell := 5
	for _, h := range heads {
		cell = max(cell, len([]rune(h))+1)
	}
	for _, row := range conf {
		for _, v := range row {
			cell = max(cell, len(strconv.Itoa(v))+1)
		}
	}
	fmt.Fprintf(w, "%-*s", width, "")
	for _, h := range heads {
		fmt.Fprintf(w, " %*s", cell, h)
	}
	if none > 0 {
		fmt.Fprintf(w, " %*s", cell, "none")
	}
	fmt.Fprintln(w)
	for p, name := range names {
		fmt.Fprintf(w, "%-*s", width, name)
		for c := 0; c < P; c++ {
			fmt.Fprintf(w, " %*d", cell, conf[p][c])
		}
		if none > 0 {
			fmt.Fprintf(w, " %*d", cell, conf[p][P])
		}
		fmt.Fprintln(w)
	}
	if !short {
		fmt.Fprintf(w, "(columns: %s)\n", numberedNames(names))
	}
}

// numberedNames lists "0 name, 1 name, …".
func numberedNames(names []string) string {
	parts := make([]string, len(names))
	for p, n := range names {
		parts[p] = fmt.Sprintf("%d %s", p, n)
	}
	return strings.Join(parts, ", ")
}

// ratio formats a/b with three decimals, or "-" when b is 0.
func ratio(a, b int) string {
	if b == 0 {
		return "-"
	}
	return strconv.FormatFloat(float64(a)/float64(b), 'f', 3, 64)
}
