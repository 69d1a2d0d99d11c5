package tensor

import (
	"fmt"
	"slices"
	"sort"
)

// Entry is one (row, column, value) triplet.
type Entry struct {
	Row, Col int
	Val      float64
}

// NewSparse returns the rows×cols matrix holding entries. Entries at the same
// position are summed; explicit zeros are dropped. It returns an error wrapping
// ErrShape if an index is out of range or a dimension is negative.
func NewSparse(rows, cols int, entries []Entry) (*Sparse, error) {
	s, _, err := NewSparseDuplicates(rows, cols, entries)
	return s, err
}

// NewSparseDuplicates is NewSparse that also returns how many entries
// repeated the position of an earlier one and were summed into it, so
// that a reader of a file can say so.
func NewSparseDuplicates(rows, cols int, entries []Entry) (s *Sparse, duplicates int, err error) {
	return buildSparse(rows, cols, [][]Entry{entries})
}

// SparseBuilder collects the entries of a rows×cols matrix one at a time,
// in blocks, so that a reader of millions of entries never copies them to
// grow a slice, and builds the Sparse as NewSparseDuplicates does. The
// zero value is not usable: make one with NewSparseBuilder.
//
// While the entries come in column-major order (by column, then by row,
// each position once) and in range, as a file written from a compressed
// sparse column matrix has them, the builder stores them straight into the
// result's arrays: no entry is held twice and Build sorts nothing. The
// first entry out of that order moves those stored so far into blocks, and
// the rest is collected as above.
type SparseBuilder struct {
	rows, cols int
	blocks     [][]Entry
	// direct: every entry so far is in range and after the one before
	// it; they are in rowIdx, val, and colPtr[j+1] counts column j's.
	direct           bool
	colPtr, rowIdx   []int
	val              []float64
	lastRow, lastCol int  // the last entry's position (direct)
	zeros            bool // an explicit zero was stored (direct)
}

// sparseBlock is the number of entries of a SparseBuilder's block (24 MB).
const sparseBlock = 1 << 20

// NewSparseBuilder returns a builder of a rows×cols matrix.
func NewSparseBuilder(rows, cols int) *SparseBuilder {
	return &SparseBuilder{rows: rows, cols: cols, direct: rows >= 0 && cols >= 0, lastRow: -1}
}

// Reserve makes room for n more entries at once, where a caller knows
// about how many will come (a file's header); it is only a hint.
func (b *SparseBuilder) Reserve(n int) {
	if b.direct && n > cap(b.val)-len(b.val) {
		// make, not slices.Grow: memory fresh from the system is not
		// cleared first, so the room is touched only as entries fill it.
		r, v := make([]int, len(b.rowIdx), len(b.rowIdx)+n), make([]float64, len(b.val), len(b.val)+n)
		copy(r, b.rowIdx)
		copy(v, b.val)
		b.rowIdx, b.val = r, v
	}
}

// Add adds an entry (checked by Build).
func (b *SparseBuilder) Add(e Entry) {
	if b.direct && b.addDirect(e) {
		return
	}
	if n := len(b.blocks); n == 0 || len(b.blocks[n-1]) == cap(b.blocks[n-1]) {
		b.blocks = append(b.blocks, make([]Entry, 0, sparseBlock))
	}
	last := &b.blocks[len(b.blocks)-1]
	*last = append(*last, e)
}

// addDirect stores e in the result's arrays if it is in range and after
// the last entry; otherwise it leaves direct mode (moving the entries
// stored into a block) and reports false.
func (b *SparseBuilder) addDirect(e Entry) bool {
	if e.Row < 0 || e.Row >= b.rows || e.Col < 0 || e.Col >= b.cols || e.Col < b.lastCol || (e.Col == b.lastCol && e.Row <= b.lastRow) {
		b.leaveDirect()
		return false
	}
	if b.colPtr == nil {
		b.colPtr = make([]int, b.cols+1)
	}
	b.lastRow, b.lastCol = e.Row, e.Col
	b.rowIdx, b.val = append(b.rowIdx, e.Row), append(b.val, e.Val)
	b.colPtr[e.Col+1]++
	b.zeros = b.zeros || e.Val == 0
	return true
}

// leaveDirect moves the entries stored directly into a block, in the
// order they were added, and collects the rest in blocks.
func (b *SparseBuilder) leaveDirect() {
	b.direct = false
	if len(b.val) == 0 {
		b.rowIdx, b.val, b.colPtr = nil, nil, nil
		return
	}
	block := make([]Entry, 0, max(len(b.val), sparseBlock))
	p := 0
	for j := 0; j < b.cols; j++ {
		for end := p + b.colPtr[j+1]; p < end; p++ {
			block = append(block, Entry{Row: b.rowIdx[p], Col: j, Val: b.val[p]})
		}
	}
	b.blocks = append(b.blocks, block)
	b.rowIdx, b.val, b.colPtr = nil, nil, nil
}

// Build returns the matrix of the entries added, as NewSparseDuplicates
// would return it for them in the order added, and releases them.
func (b *SparseBuilder) Build() (*Sparse, int, error) {
	if b.direct {
		s := b.buildDirect()
		b.rowIdx, b.val, b.colPtr = nil, nil, nil
		return s, 0, nil
	}
	s, d, err := buildSparse(b.rows, b.cols, b.blocks)
	b.blocks = nil
	return s, d, err
}

// buildDirect is Build of entries stored directly: in order and each
// position once, so only the explicit zeros are dropped.
func (b *SparseBuilder) buildDirect() *Sparse {
	colPtr := b.colPtr
	if colPtr == nil {
		colPtr = make([]int, b.cols+1)
	}
	rowIdx, val := b.rowIdx, b.val
	if !b.zeros {
		for j := 0; j < b.cols; j++ {
			colPtr[j+1] += colPtr[j]
		}
	} else {
		out, p := 0, 0
		for j := 0; j < b.cols; j++ {
			for end := p + colPtr[j+1]; p < end; p++ {
				if val[p] != 0 {
					rowIdx[out], val[out] = rowIdx[p], val[p]
					out++
				}
			}
			colPtr[j+1] = out
		}
		rowIdx, val = rowIdx[:out], val[:out]
	}
	if rowIdx == nil { // as buildSparse's: empty, not nil
		rowIdx, val = []int{}, []float64{}
	}
	n := len(val)
	return &Sparse{Rows: b.rows, Cols: b.cols, ColPtr: colPtr, RowIdx: rowIdx[:n:n], Val: val[:n:n]}
}

// buildSparse is NewSparseDuplicates of the entries of blocks, in order.
func buildSparse(rows, cols int, blocks [][]Entry) (s *Sparse, duplicates int, err error) {
	if rows < 0 || cols < 0 {
		return nil, 0, fmt.Errorf("%w: negative dimension %d×%d", ErrShape, rows, cols)
	}
	// A counting sort by column, stable (entries of a position are summed
	// in the order given), then each column's entries by row where they
	// are not in order already (a file sorted by column costs no sort).
	colPtr := make([]int, cols+1)
	n := 0
	for _, entries := range blocks {
		for _, e := range entries {
			if e.Row < 0 || e.Row >= rows || e.Col < 0 || e.Col >= cols {
				return nil, 0, fmt.Errorf("%w: entry (%d, %d) outside %d×%d", ErrShape, e.Row, e.Col, rows, cols)
			}
			colPtr[e.Col+1]++
		}
		n += len(entries)
	}
	for j := 0; j < cols; j++ {
		colPtr[j+1] += colPtr[j]
	}
	rowIdx, val := make([]int, n), make([]float64, n)
	next := append([]int(nil), colPtr[:cols]...)
	for _, entries := range blocks {
		for _, e := range entries {
			p := next[e.Col]
			rowIdx[p], val[p] = e.Row, e.Val
			next[e.Col]++
		}
	}
	s = &Sparse{Rows: rows, Cols: cols, ColPtr: make([]int, cols+1)}
	out := 0
	for j := 0; j < cols; j++ {
		lo, hi := colPtr[j], colPtr[j+1]
		r, v := rowIdx[lo:hi], val[lo:hi]
		if !slices.IsSorted(r) {
			idx := make([]int, len(r))
			for i := range idx {
				idx[i] = i
			}
			sort.SliceStable(idx, func(a, b int) bool { return r[idx[a]] < r[idx[b]] })
			r2, v2 := make([]int, len(r)), make([]float64, len(r))
			for i, k := range idx {
				r2[i], v2[i] = r[k], v[k]
			}
			copy(r, r2)
			copy(v, v2)
		}
		for i := 0; i < len(r); {
			row, sum := r[i], v[i]
			for i++; i < len(r) && r[i] == row; i++ {
				sum += v[i]
				duplicates++
			}
			if sum != 0 { // in place: out never passes the entry read
				rowIdx[out], val[out] = row, sum
				out++
			}
		}
		s.ColPtr[j+1] = out
	}
	s.RowIdx, s.Val = rowIdx[:out:out], val[:out:out]
	return s, duplicates, nil
}
