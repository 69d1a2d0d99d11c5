package matio

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/neuralnmf/neuralnmf/tensor"
)

// ErrUnsorted is wrapped by the error of a ColumnReader that meets an entry
// in an earlier column than the one before it: the file must be sorted by
// column to be streamed (neuralnmf convert does it).
var ErrUnsorted = errors.New("entries are not sorted by column")

// ErrNotStreamable is wrapped by OpenColumns' error for a Matrix Market
// file that is valid but not a general coordinate one (an array or a
// symmetric file): read it whole, or convert it.
var ErrNotStreamable = errors.New("not a streamable Matrix Market file")

// ColumnReader reads a Matrix Market coordinate file (.mtx or .mtx.gz,
// general symmetry) block of columns by block, never holding more than one
// block: the file's entries must be sorted by column (rows may come in any
// order within a column), as WriteMatrixMarket and neuralnmf vectorize
// write them. Entries that repeat a position within a column are summed
// and counted (Duplicates). It implements neuralnmf.Columns.
//
// A ColumnReader is not safe for concurrent use. Close it when done.
type ColumnReader struct {
	path       string
	lim        Limits
	h          header
	rc         io.ReadCloser
	ls         *lines
	col        int           // the first column of the next block
	read       int           // entries read in this pass
	pending    *tensor.Entry // an entry read past the last block
	lastCol    int           // the column of the last entry read
	nonneg     bool          // refuse negative entries (RequireNonnegative)
	duplicates int           // repeated entries met in this pass
	mostDups   int           // the most met in one earlier pass
	passes     int
}

// IsMatrixMarket reports whether path names a Matrix Market file: .mtx or
// .mtx.gz, in any case.
func IsMatrixMarket(path string) bool {
	return strings.HasSuffix(strings.TrimSuffix(strings.ToLower(path), ".gz"), ".mtx")
}

// OpenColumns opens path for streaming with the default Limits, except
// that the number of entries is not bounded (only a block is held). It
// returns an error for an unreadable file, a malformed header, an array
// file, a symmetric one or a field other than real, integer or pattern.
func OpenColumns(path string) (*ColumnReader, error) {
	r := &ColumnReader{path: path, lim: Limits{MaxEntries: int(^uint(0) >> 1)}.resolve()}
	if !IsMatrixMarket(path) {
		return nil, fmt.Errorf("%s: only Matrix Market coordinate files (.mtx, .mtx.gz) are streamed", path)
	}
	if err := r.Rewind(); err != nil {
		return nil, err
	}
	return r, nil
}

// ErrNegative is wrapped by the error of a ColumnReader that requires
// nonnegative entries (RequireNonnegative) and meets a negative one.
var ErrNegative = errors.New("a negative entry")

// CheckNonnegative returns an error naming the file name and the first
// negative entry's 1-based row and column, and saying what to do, if x has
// a negative entry.
func CheckNonnegative(name string, x *Matrix) error {
	bad := func(i, j int, v float64) error {
		return fmt.Errorf("%s: row %d, column %d is %g: X must be nonnegative (Neural NMF factorises nonnegative data; shift or clip the data first)", name, i+1, j+1, v)
	}
	if s := x.Sparse; s != nil {
		for j := 0; j < s.Cols; j++ {
			rows, vals := s.Column(j)
			for p, v := range vals {
				if v < 0 {
					return bad(rows[p], j, v)
				}
			}
		}
		return nil
	}
	d := x.Dense
	for i := 0; i < d.Rows; i++ {
		for j, v := range d.Row(i) {
			if v < 0 {
				return bad(i, j, v)
			}
		}
	}
	return nil
}

// RequireNonnegative makes Next return an error wrapping ErrNegative,
// naming the file's line and the entry's 1-based row and column, for an
// entry below zero. (Values are always finite: the parser refuses NaN and
// Inf.)
func (r *ColumnReader) RequireNonnegative() { r.nonneg = true }

// Dims returns the rows and columns the file declares.
func (r *ColumnReader) Dims() (rows, cols int) { return r.h.rows, r.h.cols }

// NNZ returns the number of entries the file declares.
func (r *ColumnReader) NNZ() int { return r.h.nnz }

// Duplicates returns how many entries repeated a position and were summed,
// counted over the furthest any pass has read: after one whole pass, all
// of the file's. (A first pass may stop early, as a start sample does; a
// later pass counts the rest.)
func (r *ColumnReader) Duplicates() int { return max(r.duplicates, r.mostDups) }

// Rewind starts a new pass at column 1, reopening the file.
func (r *ColumnReader) Rewind() error {
	if r.rc != nil {
		r.rc.Close()
		r.passes++
	}
	rc, err := open(r.path)
	if err != nil {
		return err
	}
	ls := newLines(rc, r.path)
	h, err := readHeader(ls, r.path, r.lim)
	if err != nil {
		rc.Close()
		return err
	}
	switch {
	case h.layout != "coordinate":
		err = fmt.Errorf("%s: %w: an array (dense) file: only coordinate files are streamed; read it whole, or convert it (neuralnmf convert -x %s -o sorted.mtx.gz)", r.path, ErrNotStreamable, r.path)
	case h.sym != "general":
		err = fmt.Errorf("%s: %w: a %s file stores half its entries: only general files are streamed; convert it (neuralnmf convert -x %s -o sorted.mtx.gz)", r.path, ErrNotStreamable, h.sym, r.path)
	case r.passes > 0 && (h.rows != r.h.rows || h.cols != r.h.cols || h.nnz != r.h.nnz):
		err = fmt.Errorf("%s: the file changed between passes (%d×%d, %d entries; was %d×%d, %d)", r.path, h.rows, h.cols, h.nnz, r.h.rows, r.h.cols, r.h.nnz)
	}
	if err != nil {
		rc.Close()
		return err
	}
	r.rc, r.ls, r.h = rc, ls, h
	r.col, r.read, r.pending, r.lastCol = 0, 0, nil, 0
	r.mostDups, r.duplicates = max(r.mostDups, r.duplicates), 0
	return nil
}

// Close closes the file.
func (r *ColumnReader) Close() error {
	if r.rc == nil {
		return nil
	}
	err := r.rc.Close()
	r.rc = nil
	return err
}

// Next returns the next block of at most n ≥ 1 columns (rows × b, CSC, owned
// by the caller), and io.EOF after the last column of the pass. A block
// may hold columns without entries. It returns an error wrapping
// ErrUnsorted, naming the line and the command that sorts the file, when an
// entry's column is before the previous entry's.
func (r *ColumnReader) Next(n int) (*tensor.Sparse, error) {
	if r.rc == nil {
		return nil, fmt.Errorf("%s: read after Close", r.path)
	}
	if n < 1 {
		return nil, fmt.Errorf("%s: a block of %d columns", r.path, n)
	}
	if r.col >= r.h.cols {
		// Every entry was read with the last block: only comments may follow.
		if err := trailing(r.ls, r.path); err != nil {
			return nil, err
		}
		return nil, io.EOF
	}
	end := min(r.col+n, r.h.cols)
	var es []tensor.Entry
	fields := 3
	if r.h.pattern {
		fields = 2
	}
	for {
		var e tensor.Entry
		if r.pending != nil {
			e, r.pending = *r.pending, nil
		} else {
			if r.read == r.h.nnz {
				break
			}
			var ok bool
			var err error
			e, ok, err = nextEntry(r.ls, r.path, r.h.rows, r.h.cols, fields, r.read, r.h.nnz)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			r.read++
			if e.Col < r.lastCol {
				return nil, fmt.Errorf("%s:%d: %w: an entry in column %d follows one in column %d; streaming needs them sorted: neuralnmf convert -x %s -o sorted.mtx.gz (external sort, bounded memory)", r.path, r.ls.n, ErrUnsorted, e.Col+1, r.lastCol+1, r.path)
			}
			r.lastCol = e.Col
			if r.nonneg && e.Val < 0 {
				return nil, fmt.Errorf("%s:%d: %w: row %d, column %d is %g", r.path, r.ls.n, ErrNegative, e.Row+1, e.Col+1, e.Val)
			}
		}
		if e.Col >= end {
			r.pending = &e
			break
		}
		e.Col -= r.col
		es = append(es, e)
	}
	s, dups, err := tensor.NewSparseDuplicates(r.h.rows, end-r.col, es)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.path, err)
	}
	r.duplicates += dups
	r.col = end
	return s, nil
}
