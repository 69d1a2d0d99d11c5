package matio

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/neuralnmf/neuralnmf/tensor"
)

// ReadCSV parses a dense matrix from comma-separated values: one matrix row
// per line, every line with the same number of fields, every field a decimal
// number (see the package doc). The first line is a header, and skipped, only
// if none of its fields is a number (all are names); a first line that mixes
// numbers and other text is an error naming the field, so a typo in the
// first data row cannot silently drop it. A UTF-8 byte-order mark at the
// start is removed. Blank lines are skipped. Errors name the file, the
// 1-based line and the 1-based field. name is used in error messages.
func ReadCSV(r io.Reader, name string) (*tensor.Dense, error) {
	return readCSV(r, name, Limits{}.resolve())
}

func readCSV(r io.Reader, name string, lim Limits) (*tensor.Dense, error) {
	ls := newLines(r, name)
	var data []float64
	cols, rows := -1, 0
	first := true
	for {
		line, ok := ls.next()
		if !ok {
			break
		}
		if ls.n == 1 {
			line = strings.TrimPrefix(line, "\uFEFF")
		}
		t := strings.TrimSpace(strings.TrimSuffix(line, "\r"))
		if t == "" {
			continue
		}
		f := strings.Split(t, ",")
		if first {
			first = false
			if isHeader(f) {
				continue
			}
		}
		if cols < 0 {
			cols = len(f)
		} else if len(f) != cols {
			return nil, formatErr(name, ls.n, "row has %d fields, earlier rows have %d", len(f), cols)
		}
		if len(data)+len(f) > lim.MaxEntries || len(f) > lim.MaxDim || rows >= lim.MaxDim {
			return nil, formatErr(name, ls.n, "more than the %d entries or %d rows or columns this reader accepts (matio.Limits)", lim.MaxEntries, lim.MaxDim)
		}
		for c, s := range f {
			v, err := parseFloat(strings.TrimSpace(s))
			if err != nil {
				return nil, formatErr(name, ls.n, "field %d %q: %v", c+1, trunc(s), err)
			}
			data = append(data, v)
		}
		rows++
	}
	if err := ls.err(); err != nil {
		return nil, err
	}
	if rows == 0 {
		return nil, formatErr(name, ls.n, "no data rows")
	}
	d, err := tensor.FromSlice(rows, cols, data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return d, nil
}

// isHeader reports whether a first line is a header: no field looks like a
// number.
func isHeader(fields []string) bool {
	for _, f := range fields {
		if decimalSyntax(strings.TrimSpace(f)) {
			return false
		}
	}
	return true
}

// WriteCSV writes d as CSV, values in full precision, with no header.
func WriteCSV(w io.Writer, d *tensor.Dense) error {
	bw := bufio.NewWriter(w)
	for i := 0; i < d.Rows; i++ {
		for j, v := range d.Row(i) {
			if j > 0 {
				bw.WriteByte(',')
			}
			bw.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
		}
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// ReadLabels parses one integer label per line. A negative label, or a
// blank line before a label, marks an unknown label (-1): a column of a
// spreadsheet with empty cells reads as it looks; blank lines after the
// last label and lines starting with # are skipped. name is used in error messages.
func ReadLabels(r io.Reader, name string) ([]int, error) {
	ls := newLines(r, name)
	var out []int
	blank := 0 // blank lines since the last label
	for {
		line, ok := ls.next()
		if !ok {
			break
		}
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "#") {
			continue
		}
		if t == "" {
			blank++
			continue
		}
		for ; blank > 0; blank-- {
			if len(out) >= MaxEntries {
				return nil, formatErr(name, ls.n, "more than %d labels", MaxEntries)
			}
			out = append(out, -1)
		}
		v, err := strconv.Atoi(t)
		if err != nil {
			return nil, formatErr(name, ls.n, "label %q is not an integer", trunc(t))
		}
		if len(out) >= MaxEntries {
			return nil, formatErr(name, ls.n, "more than %d labels", MaxEntries)
		}
		out = append(out, v)
	}
	if err := ls.err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, formatErr(name, ls.n, "no labels")
	}
	return out, nil
}
