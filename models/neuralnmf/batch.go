package neuralnmf

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/neuralnmf/neuralnmf/tensor"
)

// Training on part of the columns
//
// The files batch*.go hold one family: training that steps on part of X's
// columns at a time. On one machine, mini-batches (Config.BatchSize;
// Train streams them from Columns): trainBatches takes one
// batch's step at a time (trainer.batchStep). Over many, sharded steps:
// each shard computes its slice's StepShare at the current A's, a driver
// adds the shares and a ShardedTrainer takes the step from the total (a
// checkpoint after each, batch_checkpoint.go). Both start alike
// (startBatches: the start on the first columns, the Statistics update's
// running sums primed with them, batch_online.go), step A⁽⁰⁾ by a HALS
// sweep over those sums and the other A's by Adam (trainer.step), and end
// a pass alike (trainer.endPass: the history, the stopping rule).

// Columns is a source of X's columns in blocks, read in order, pass after
// pass: what Train trains on without ever holding X.
// matio.ColumnReader (a Matrix Market file whose entries are sorted by
// column) implements it.
type Columns interface {
	// Dims returns the N rows and M columns of X.
	Dims() (rows, cols int)
	// Next returns the next block of at most n ≥ 1 columns (N rows, CSC;
	// the caller may keep it), in order, and io.EOF after the last block of
	// a pass.
	Next(n int) (*tensor.Sparse, error)
	// Rewind starts a new pass at column 1.
	Rewind() error
}

// trainColumns is Train for Columns.
func trainColumns(src Columns, cfg Config) (*Model, error) {
	if src == nil {
		return nil, fmt.Errorf("neuralnmf: X is nil")
	}
	if cfg.BatchSize == 0 {
		cfg.BatchSize = DefaultBatchSize
	}
	return trainBatches(&streamSource{src: src}, cfg, false)
}

// batch is a block of X's columns.
type batch struct {
	x    data
	cols []int // the column of X of each column of x
}

// batchSource yields the batches of one pass after rewind.
type batchSource interface {
	dims() (int, int)
	rewind(pass int) error
	next(size int) (batch, error) // io.EOF after the last
}

// memSource batches an X held in memory, in a new random order each pass
// (seeded), so that batches are samples of the whole whatever order the
// columns came in.
type memSource struct {
	x    data
	seed uint64
	perm []int
	pos  int
}

func (s *memSource) dims() (int, int) { return s.x.dims() }

func (s *memSource) rewind(pass int) error {
	_, m := s.x.dims()
	s.perm = tensor.NewRand(s.seed ^ 0x6d696e69 + uint64(pass)).Perm(m)
	s.pos = 0
	return nil
}

func (s *memSource) next(size int) (batch, error) {
	if s.pos >= len(s.perm) {
		return batch{}, io.EOF
	}
	cols := s.perm[s.pos:min(s.pos+size, len(s.perm))]
	s.pos += len(cols)
	if s.x.sparse != nil {
		return batch{x: data{sparse: s.x.sparse.SelectColumns(cols)}, cols: cols}, nil
	}
	d := tensor.New(s.x.dense.Rows, len(cols))
	for i := 0; i < d.Rows; i++ {
		src, dst := s.x.dense.Row(i), d.Row(i)
		for j, c := range cols {
			dst[j] = src[c]
		}
	}
	return batch{x: data{dense: d}, cols: cols}, nil
}

// streamSource batches a Columns stream in its own order, checking every
// block.
type streamSource struct {
	src Columns
	pos int
}

func (s *streamSource) dims() (int, int) { return s.src.Dims() }

func (s *streamSource) rewind(pass int) error {
	s.pos = 0
	if err := s.src.Rewind(); err != nil {
		return fmt.Errorf("pass %d: rewinding the columns: %w", pass+1, err)
	}
	return nil
}

func (s *streamSource) next(size int) (batch, error) {
	rows, cols := s.src.Dims()
	x, err := s.src.Next(size)
	if errors.Is(err, io.EOF) {
		if s.pos != cols {
			return batch{}, fmt.Errorf("the stream ended after %d columns; it declared %d", s.pos, cols)
		}
		return batch{}, io.EOF
	}
	if err != nil {
		return batch{}, fmt.Errorf("columns from %d: %w", s.pos+1, err)
	}
	if x == nil || x.Cols == 0 || x.Cols > size {
		n := 0
		if x != nil {
			n = x.Cols
		}
		return batch{}, fmt.Errorf("columns from %d: the stream returned %d columns for a batch of %d", s.pos+1, n, size)
	}
	if x.Rows != rows {
		return batch{}, fmt.Errorf("columns from %d: %w: a block has %d rows, the stream declared %d", s.pos+1, tensor.ErrShape, x.Rows, rows)
	}
	if s.pos+x.Cols > cols {
		return batch{}, fmt.Errorf("the stream has more than the %d columns it declared", cols)
	}
	if err := tensor.CheckSparseData(fmt.Sprintf("X (columns %d to %d)", s.pos+1, s.pos+x.Cols), x); err != nil {
		return batch{}, err
	}
	b := batch{x: data{sparse: x}, cols: make([]int, x.Cols)}
	for j := range b.cols {
		b.cols[j] = s.pos + j
	}
	s.pos += x.Cols
	return b, nil
}

// hasEntry reports whether column j of x has a non-zero entry.
func (x data) hasEntry(j int) bool {
	if s := x.sparse; s != nil {
		for _, v := range s.Val[s.ColPtr[j]:s.ColPtr[j+1]] {
			if v != 0 {
				return true
			}
		}
		return false
	}
	for i := 0; i < x.dense.Rows; i++ {
		if x.dense.At(i, j) != 0 {
			return true
		}
	}
	return false
}

// columnOf returns the first column of x holding the value v.
func (x data) columnOf(v float64) int {
	if s := x.sparse; s != nil {
		for j := 0; j < s.Cols; j++ {
			if slices.Contains(s.Val[s.ColPtr[j]:s.ColPtr[j+1]], v) {
				return j
			}
		}
		return 0
	}
	for i := 0; i < x.dense.Rows; i++ {
		if j := slices.Index(x.dense.Row(i), v); j >= 0 {
			return j
		}
	}
	return 0
}

// nonEmptyColumns counts the columns of x with a non-zero entry.
func (x data) nonEmptyColumns() int {
	_, cols := x.dims()
	n := 0
	for j := 0; j < cols; j++ {
		if x.hasEntry(j) {
			n++
		}
	}
	return n
}

// withEntries returns the columns of b with a non-zero entry (b itself if
// all have one).
func (b batch) withEntries() batch {
	var keep []int
	for j := range b.cols {
		if b.x.hasEntry(j) {
			keep = append(keep, j)
		}
	}
	if len(keep) == len(b.cols) {
		return b
	}
	out := batch{cols: make([]int, len(keep))}
	for k, j := range keep {
		out.cols[k] = b.cols[j]
	}
	if b.x.sparse != nil {
		out.x.sparse = b.x.sparse.SelectColumns(keep)
		return out
	}
	d := tensor.New(b.x.dense.Rows, len(keep))
	for i := 0; i < d.Rows; i++ {
		row, src := d.Row(i), b.x.dense.Row(i)
		for k, j := range keep {
			row[k] = src[j]
		}
	}
	out.x.dense = d
	return out
}

// joinBatches returns the columns of bs side by side.
func joinBatches(bs []batch) batch {
	if len(bs) == 1 {
		return bs[0]
	}
	var out batch
	for _, b := range bs {
		out.cols = append(out.cols, b.cols...)
	}
	if bs[0].x.sparse != nil {
		blocks := make([]*tensor.Sparse, len(bs))
		for i, b := range bs {
			blocks[i] = b.x.sparse
		}
		out.x.sparse = tensor.ConcatColumns(blocks)
		return out
	}
	x := tensor.New(bs[0].x.dense.Rows, len(out.cols))
	at := 0
	for _, b := range bs {
		d := b.x.dense
		for i := 0; i < d.Rows; i++ {
			copy(x.Row(i)[at:at+d.Cols], d.Row(i))
		}
		at += d.Cols
	}
	out.x.dense = x
	return out
}

// maxEntry is the largest entry of x (finite and nonnegative: checked).
func maxEntry(x data) float64 {
	var mx float64
	vals := func() []float64 {
		if x.sparse != nil {
			return x.sparse.Val
		}
		return x.dense.Data
	}()
	for _, v := range vals {
		mx = math.Max(mx, v)
	}
	return mx
}

func ratio(a, b int) float64 {
	if b == 0 {
		return math.NaN()
	}
	return float64(a) / float64(b)
}
