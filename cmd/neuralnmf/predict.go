package main

import (
	"bufio"
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
	modelPath := fs.String("model", "", "model file from 'neuralnmf fit' trained with labels (required)")
	xPath := fs.String("x", "", "new columns, with the training data's rows (this or -text is required)")
	textPath := fs.String("text", "", "new documents instead of -x (.jsonl, .csv or a directory of .txt files), vectorised by the model's saved vectoriser (models trained with fit -text)")
	docs := addDocFlags(fs, true, true)
	labelsPath := fs.String("labels", "", "true class of each column (0..P-1, -1 unknown): print accuracy, per-class precision and recall, and the confusion matrix")
	out := fs.String("o", "", "output .csv: column number (or id), class (-1: no word of the vocabulary), class name, then one score per class (required)")
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: neuralnmf predict -model m.nnmf -x new.mtx -o predictions.csv [-labels y.txt]
       neuralnmf predict -model m.nnmf -text new.jsonl [-id-field id] [-label-field topic] -o predictions.csv

Predicts the class of each new column with a supervised model: argmax of
B·S⁽ᴸ⁾, where S⁽ᴸ⁾ is the forward pass of the column and B the model's
classifier. Writes a CSV with a header row. A column with no entry (a
document with no word of the vocabulary) has no prediction: class -1, and a
warning. With -labels or -label-field it also prints accuracy, precision and
recall per class and the confusion matrix.

Flags:
`)
		fs.PrintDefaults()
		fmt.Fprintln(stderr, "\n"+exitCodesHelp)
	}
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if err := oneInput(*xPath, *textPath); err != nil {
		return err
	}
	if *modelPath == "" || *out == "" {
		return usageError{errors.New("-model and -o are required")}
	}
	if *textPath == "" {
		if err := rejectFlags(fs, []string{"field", "label-field", "id-field"}, "applies to -text documents only"); err != nil {
			return err
		}
	}
	if *labelsPath != "" && *docs.labelField != "" {
		return usageError{errors.New("-labels and -label-field both give the true classes: give one")}
	}
	if !strings.HasSuffix(*out, ".csv") {
		return usageError{fmt.Errorf("-o %s: want a .csv file", *out)}
	}
	if err := checkOutput("-o", *out, input{"-x", *xPath}, input{"-text", *textPath}, input{"-model", *modelPath}, input{"-labels", *labelsPath}); err != nil {
		return err
	}
	m, err := loadModel(*modelPath)
	if err != nil {
		return err
	}
	if m.B == nil {
		return fmt.Errorf("-model %s was trained without labels, so it cannot predict classes (train it with -labels or -label-field)", *modelPath)
	}
	if err := checkUsable(*modelPath, m); err != nil {
		return err
	}
	cols, err := readColumns(*xPath, *textPath, docs, *modelPath, m, stderr)
	if err != nil {
		return err
	}
	y, err := trueLabels(*labelsPath, cols, m, stderr)
	if err != nil {
		return err
	}
	s, err := forward(m, cols.x)
	if err != nil {
		return fmt.Errorf("%s: %w", cols.from, err)
	}
	scores := tensor.MatMul(false, false, m.B, s[len(s)-1])
	pred := make([]int, scores.Cols)
	for j := range pred {
		pred[j] = -1
		if !cols.empty[j] {
			pred[j] = argmaxColumn(scores, j)
		}
	}
	cols.warnEmpty(stderr, "their class is written as -1")
	if err := writePredictions(*out, cols, *docs.idField != "", pred, scores, m.ClassNames); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote predicted classes of %d columns (%d classes) to %s\n", len(pred), scores.Rows, *out)
	if y != nil {
		writeScores(stdout, y, pred, classNames(m))
	}
	return nil
}

// oneInput checks that exactly one of -x and -text is given.
func oneInput(xPath, textPath string) error {
	switch {
	case xPath != "" && textPath != "":
		return usageError{errors.New("-x and -text were both given: give one (a matrix or documents)")}
	case xPath == "" && textPath == "":
		return usageError{errors.New("one of -x (a matrix) and -text (documents) is required")}
	}
	return nil
}

// argmaxColumn returns the row of the largest entry of column j (the first
// of ties).
func argmaxColumn(d *tensor.Dense, j int) int {
	best := 0
	for p := 1; p < d.Rows; p++ {
		if d.At(p, j) > d.At(best, j) {
			best = p
		}
	}
	return best
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
		w := bufio.NewWriter(f)
		first := "column"
		if ids {
			first = "id"
		}
		w.WriteString(first + ",class")
		if names != nil {
			w.WriteString(",class_name")
		}
		for p := 0; p < scores.Rows; p++ {
			fmt.Fprintf(w, ",score_%d", p)
		}
		w.WriteByte('\n')
		for j, c := range pred {
			name := strconv.Itoa(j + 1)
			if ids {
				name = csvField(cols.names[j])
			}
			fmt.Fprintf(w, "%s,%d", name, c)
			if names != nil {
				w.WriteByte(',')
				if c >= 0 {
					w.WriteString(csvField(names[c]))
				}
			}
			for p := 0; p < scores.Rows; p++ {
				w.WriteByte(',')
				w.WriteString(strconv.FormatFloat(scores.At(p, j), 'g', -1, 64))
			}
			w.WriteByte('\n')
		}
		return w.Flush()
	})
}

// csvField quotes s for CSV when it needs it.
func csvField(s string) string {
	if !strings.ContainsAny(s, ",\"\r\n") && strings.TrimSpace(s) == s {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
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
	for p, row := range conf {
		cell = max(cell, len([]rune(heads[min(p, P-1)]))+1)
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
