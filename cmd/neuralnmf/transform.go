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
	"github.com/neuralnmf/neuralnmf/tensor"
)

func runTransform(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("transform", flag.ContinueOnError)
	in := addColumnFlags(fs, "model file from 'neuralnmf fit' (required)", false, true)
	layer := fs.Int("layer", 0, "layer whose S to write, 1..L (default: the last)")
	batch := fs.Int("batch-size", 0, batchSizeHelp+"; the table's rows are column, topic_1, …")
	out := fs.String("o", "", "output file for S: .csv or .mtx (k × columns); with -id-field a .csv table, one row per document: id, then its weight on each topic (required)")
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: neuralnmf transform -model m.nnmf -x X.mtx -o S.csv [flags]
       neuralnmf transform -model m.nnmf -text new.jsonl -id-field id -o S.csv

Runs new columns through a saved model (forward pass only) and writes S of
one layer. A column with no entry (a document with no word of the
vocabulary) has S = 0, and a warning says which. A model of -loss kl
cannot fit an entry in a feature its training data never used (the
divergence would be infinite): such entries are left out, each column's
S fits its other entries, and a warning names the columns and features.

Flags:
`)
		fs.PrintDefaults()
		fmt.Fprintln(stderr, "\n"+exitCodesHelp)
	}
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if err := in.check(fs, *out); err != nil {
		return err
	}
	if *in.docs.idField != "" && !strings.HasSuffix(*out, ".csv") {
		return usageError{fmt.Errorf("-o %s: with -id-field, want a .csv file (ids are written to a CSV table)", *out)}
	}
	if !strings.HasSuffix(*out, ".csv") && !strings.HasSuffix(*out, ".mtx") {
		return usageError{fmt.Errorf("-o %s: want a .csv or .mtx file (gzip is not written)", *out)}
	}
	if *batch < 0 || (*batch > 0 && (*in.x == "" || !matio.IsMatrixMarket(*in.x) || !strings.HasSuffix(*out, ".csv"))) {
		return usageError{errors.New("-batch-size streams a .mtx or .mtx.gz -x into a .csv -o, with a positive number of columns per block")}
	}
	m, err := in.loadModel()
	if err != nil {
		return err
	}
	L := len(m.A)
	if *layer == 0 {
		*layer = L
	}
	if *layer < 1 || *layer > L {
		return usageError{fmt.Errorf("-layer %d: the model has layers 1..%d", *layer, L)}
	}
	if *batch > 0 {
		st, err := streamRows(*in.x, *out, *batch, m, topicHead("column", m.A[*layer-1].Cols), func(first int, _ *tensor.Sparse, s []*tensor.Dense, _ []bool) ([][]string, error) {
			sl := s[*layer-1]
			recs := make([][]string, sl.Cols)
			for j := range recs {
				recs[j] = formatColumn([]string{strconv.Itoa(first + j + 1)}, sl, j)
			}
			return recs, nil
		})
		if err != nil {
			return err
		}
		st.warn(stderr, *in.x, "their S is 0")
		fmt.Fprintf(stdout, "wrote S%d, the layer-%d weights of %d columns, one row per column, to %s (streamed in blocks of %d)\n", *layer, *layer, st.cols, *out, *batch)
		return nil
	}
	cols, err := in.read(m, stderr)
	if err != nil {
		return err
	}
	s, err := forward(m, cols.x)
	if err != nil {
		return fmt.Errorf("%s: %w", cols.from, err)
	}
	cols.warnEmpty(stderr, "their S is 0")
	unused := newUnusedFeatures(m)
	unused.add(0, cols.x)
	unused.warn(stderr, cols.names, len(cols.names))
	sl := s[*layer-1]
	if *in.docs.idField != "" {
		err = writeTopicTable(*out, cols.names, sl)
	} else {
		err = writeMatrix(*out, sl)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote S%d, the layer-%d weights of %d columns (%d×%d), to %s\n", *layer, *layer, sl.Cols, sl.Rows, sl.Cols, *out)
	return nil
}

// topicHead is the header row of a table with one row per column: first
// (what names the column), then topic_1 … topic_k.
func topicHead(first string, k int) []string {
	head := []string{first}
	for i := 0; i < k; i++ {
		head = append(head, fmt.Sprintf("topic_%d", i+1))
	}
	return head
}

// writeTopicTable writes S as a CSV table with a header row: one row per
// column of S, its id, then its weight on each topic.
func writeTopicTable(path string, ids []string, s *tensor.Dense) error {
	return matio.WriteAtomic(path, func(f *os.File) error {
		w := csv.NewWriter(f)
		w.Write(topicHead("id", s.Rows))
		for j := 0; j < s.Cols; j++ {
			w.Write(formatColumn([]string{ids[j]}, s, j))
		}
		w.Flush()
		return w.Error()
	})
}

// writeMatrix writes d to path as .csv or .mtx (by its extension),
// atomically.
func writeMatrix(path string, d *tensor.Dense) error {
	switch {
	case strings.HasSuffix(path, ".gz"):
		return usageError{fmt.Errorf("%s: writing gzip is not supported; drop .gz", path)}
	case strings.HasSuffix(path, ".csv"):
		return matio.WriteAtomic(path, func(f *os.File) error { return matio.WriteCSV(f, d) })
	case strings.HasSuffix(path, ".mtx"):
		return matio.WriteAtomic(path, func(f *os.File) error { return matio.WriteMatrixMarket(f, &matio.Matrix{Dense: d}) })
	}
	return usageError{fmt.Errorf("%s: want a .csv or .mtx output file", path)}
}
