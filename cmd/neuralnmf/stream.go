package main

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/neuralnmf/neuralnmf/matio"
	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// batchSizeHelp documents transform's and predict's -batch-size.
const batchSizeHelp = "stream -x, a coordinate .mtx or .mtx.gz sorted by column (see convert), in blocks of this many columns, writing one CSV row per column as it goes; memory does not grow with the columns (0: read -x whole)"

// streamed is what streamRows did.
type streamed struct {
	cols       int
	emptyCols  []int // 1-based numbers of the first empty columns (at most 5)
	emptyCount int
	duplicates int // entries summed into an earlier one at their position
	unused     *unusedFeatures
}

// streamRows runs the column-sorted Matrix Market file xPath through m
// block by block (batch columns at a time) and writes the CSV out
// atomically: head, then for each block the records rows returns, given
// the block's first column (0-based), its columns x, the forward pass S
// of every layer and which of its columns have no entry.
func streamRows(xPath, out string, batch int, m *neuralnmf.Model, head []string,
	rows func(first int, x *tensor.Sparse, s []*tensor.Dense, empty []bool) ([][]string, error)) (streamed, error) {
	st := streamed{unused: newUnusedFeatures(m)}
	r, err := matio.OpenColumns(xPath)
	if err != nil {
		return st, err
	}
	defer r.Close()
	if n, _ := r.Dims(); n != m.A[0].Rows {
		return st, fmt.Errorf("-x %s has %d rows; the model was trained on %d", xPath, n, m.A[0].Rows)
	}
	r.RequireNonnegative()
	var inErr error // an error of the input, not of writing out
	err = matio.WriteAtomic(out, func(f *os.File) error {
		w := csv.NewWriter(f)
		w.Write(head)
		for {
			x, err := r.Next(batch)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				inErr = err
				return err
			}
			s, err := m.Transform(x)
			if err != nil {
				inErr = fmt.Errorf("-x %s, columns %d to %d: %w", xPath, st.cols+1, st.cols+x.Cols, err)
				return inErr
			}
			st.unused.add(st.cols, &matio.Matrix{Sparse: x})
			empty := make([]bool, x.Cols)
			for j := range empty {
				if empty[j] = x.ColPtr[j] == x.ColPtr[j+1]; empty[j] {
					if st.emptyCount++; len(st.emptyCols) < 5 {
						st.emptyCols = append(st.emptyCols, st.cols+j+1)
					}
				}
			}
			recs, err := rows(st.cols, x, s, empty)
			if err != nil {
				return err
			}
			if err := w.WriteAll(recs); err != nil {
				return err
			}
			st.cols += x.Cols
		}
		w.Flush()
		return w.Error()
	})
	st.duplicates = r.Duplicates()
	if inErr != nil {
		return st, inErr
	}
	return st, err
}

// warn prints the warnings of a streamed run: repeated entries, and
// columns without an entry (what says what was written for them).
func (st streamed) warn(w io.Writer, xPath, what string) {
	warnDuplicates(w, "-x "+xPath, st.duplicates)
	if st.emptyCount > 0 {
		fmt.Fprintf(w, "warning: %d of %d columns have no entry (columns %v): %s\n", st.emptyCount, st.cols, st.emptyCols, what)
	}
	st.unused.warn(w, nil, st.cols)
}

// formatColumn appends the values of column j of s to rec.
func formatColumn(rec []string, s *tensor.Dense, j int) []string {
	for i := 0; i < s.Rows; i++ {
		rec = append(rec, strconv.FormatFloat(s.At(i, j), 'g', -1, 64))
	}
	return rec
}
