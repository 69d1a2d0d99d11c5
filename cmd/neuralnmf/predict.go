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
	"github.com/neuralnmf/neuralnmf/tensor"
)

func runPredict(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("predict", flag.ContinueOnError)
	modelPath := fs.String("model", "", "model file from 'neuralnmf fit' trained with -labels (required)")
	xPath := fs.String("x", "", "new columns, with the training data's rows (this or -text is required)")
	textPath, field := textInputFlags(fs)
	out := fs.String("o", "", "output .csv: column (1-based), predicted class, then one score per class (required)")
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: neuralnmf predict -model m.nnmf -x new.mtx -o predictions.csv\n\nPredicts the class of each new column with a supervised model: argmax of B·S⁽ᴸ⁾, where S⁽ᴸ⁾ is the forward pass of the column and B the model's classifier. Writes a CSV with a header row.\n\nFlags:\n")
		fs.PrintDefaults()
		fmt.Fprintln(stderr, "\n"+exitCodesHelp)
	}
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if *modelPath == "" || (*xPath == "") == (*textPath == "") || *out == "" {
		return usageError{errors.New("-model, -o and one of -x and -text are required")}
	}
	if !strings.HasSuffix(*out, ".csv") {
		return usageError{fmt.Errorf("-o %s: want a .csv file", *out)}
	}
	if err := checkOutput("-o", *out, input{"-x", *xPath}, input{"-text", *textPath}, input{"-model", *modelPath}); err != nil {
		return err
	}
	m, err := loadModel(*modelPath)
	if err != nil {
		return err
	}
	if m.B == nil {
		return fmt.Errorf("%s: the model was trained without -labels, so it cannot predict classes", *modelPath)
	}
	x, xName, err := readColumns(*xPath, *textPath, *field, *modelPath, m)
	if err != nil {
		return err
	}
	*xPath = xName
	var pred []int
	var scores *tensor.Dense
	if x.Sparse != nil {
		pred, scores, err = m.ClassifySparse(x.Sparse)
	} else {
		pred, scores, err = m.Classify(x.Dense)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", *xPath, err)
	}
	if err := matio.WriteAtomic(*out, func(f *os.File) error {
		w := bufio.NewWriter(f)
		w.WriteString("column,class")
		for p := 0; p < scores.Rows; p++ {
			fmt.Fprintf(w, ",score_%d", p)
		}
		w.WriteByte('\n')
		for j, c := range pred {
			fmt.Fprintf(w, "%d,%d", j+1, c)
			for p := 0; p < scores.Rows; p++ {
				w.WriteByte(',')
				w.WriteString(strconv.FormatFloat(scores.At(p, j), 'g', -1, 64))
			}
			w.WriteByte('\n')
		}
		return w.Flush()
	}); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote predicted classes of %d columns (%d classes) to %s\n", len(pred), scores.Rows, *out)
	return nil
}
