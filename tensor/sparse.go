package tensor

import (
	"fmt"
	"math"
	"runtime"

	"github.com/neuralnmf/neuralnmf/internal/gather"
	"github.com/neuralnmf/neuralnmf/internal/parallel"
)

// Sparse is a matrix in compressed sparse column (CSC) form: the entries of
// column j are Val[ColPtr[j]:ColPtr[j+1]], in rows RowIdx[ColPtr[j]:ColPtr[j+1]],
// strictly increasing. Columns are samples throughout neuralnmf, so CSC gives
// each sample's entries contiguously. Use NewSparse or SparseFromDense to make
// one; code that fills the fields directly must keep these invariants.
type Sparse struct {
	Rows, Cols int
	ColPtr     []int
	RowIdx     []int
	Val        []float64

	rows *Sparse // the transpose, when attached by WithRows
}

// WithRows returns a Sparse that shares s's arrays and also holds its
// transpose, so that the products that walk s by rows (X·Uᵀ: MulRows,
// MulDenseTRows, MulDenseTParallel) read each row's entries contiguously
// instead of searching every column for them. The results are the same
// bit for bit. It costs one transpose (O(nnz + rows + cols)) and a second
// copy of the indices and values (16 bytes per entry); it pays for itself
// when X·Uᵀ is formed more than once or twice, as in training. Neither s
// nor the result may be modified afterwards. If s already holds its
// transpose, WithRows returns s.
func (s *Sparse) WithRows() *Sparse {
	if s.rows != nil {
		return s
	}
	w := *s
	w.rows = s.T()
	return &w
}

// SparseFromDense returns the nonzero entries of d as a Sparse.
func SparseFromDense(d *Dense) *Sparse {
	s := &Sparse{Rows: d.Rows, Cols: d.Cols, ColPtr: make([]int, d.Cols+1)}
	for j := 0; j < d.Cols; j++ {
		for i := 0; i < d.Rows; i++ {
			if v := d.Data[i*d.Stride+j]; v != 0 {
				s.RowIdx = append(s.RowIdx, i)
				s.Val = append(s.Val, v)
			}
		}
		s.ColPtr[j+1] = len(s.Val)
	}
	return s
}

// Dims returns the number of rows and columns.
func (s *Sparse) Dims() (int, int) { return s.Rows, s.Cols }

// NNZ returns the number of stored entries.
func (s *Sparse) NNZ() int { return len(s.Val) }

// Dense returns a new dense copy of s.
func (s *Sparse) Dense() *Dense {
	d := New(s.Rows, s.Cols)
	for j := 0; j < s.Cols; j++ {
		for p := s.ColPtr[j]; p < s.ColPtr[j+1]; p++ {
			d.Data[s.RowIdx[p]*d.Stride+j] = s.Val[p]
		}
	}
	return d
}

// SqNorm returns ‖s‖²_F, the stored values summed in the order of Dot.
func (s *Sparse) SqNorm() float64 {
	var q lanes
	q.dot(s.Val, s.Val, 0)
	return q.total()
}

// Column returns the row indices and values of column j; they alias s.
func (s *Sparse) Column(j int) ([]int, []float64) {
	lo, hi := s.ColPtr[j], s.ColPtr[j+1]
	return s.RowIdx[lo:hi], s.Val[lo:hi]
}

// SelectColumns returns a new matrix of the columns cols of s, in that
// order (a column may repeat). It panics if an index is out of range.
func (s *Sparse) SelectColumns(cols []int) *Sparse {
	nnz := 0
	for _, c := range cols {
		nnz += s.ColPtr[c+1] - s.ColPtr[c]
	}
	out := &Sparse{Rows: s.Rows, Cols: len(cols), ColPtr: make([]int, len(cols)+1), RowIdx: make([]int, 0, nnz), Val: make([]float64, 0, nnz)}
	for j, c := range cols {
		p0, p1 := s.ColPtr[c], s.ColPtr[c+1]
		out.RowIdx = append(out.RowIdx, s.RowIdx[p0:p1]...)
		out.Val = append(out.Val, s.Val[p0:p1]...)
		out.ColPtr[j+1] = len(out.Val)
	}
	return out
}

// ConcatColumns returns a new matrix of the columns of blocks side by side,
// in order. It panics if blocks is empty or their row counts differ.
func ConcatColumns(blocks []*Sparse) *Sparse {
	nnz, cols := 0, 0
	for _, b := range blocks {
		if b.Rows != blocks[0].Rows {
			panic(fmt.Sprintf("tensor: ConcatColumns: a block has %d rows, the first %d", b.Rows, blocks[0].Rows))
		}
		nnz += len(b.Val)
		cols += b.Cols
	}
	out := &Sparse{Rows: blocks[0].Rows, Cols: cols, ColPtr: make([]int, 1, cols+1), RowIdx: make([]int, 0, nnz), Val: make([]float64, 0, nnz)}
	for _, b := range blocks {
		base := len(out.Val)
		out.RowIdx = append(out.RowIdx, b.RowIdx...)
		out.Val = append(out.Val, b.Val...)
		for _, p := range b.ColPtr[1:] {
			out.ColPtr = append(out.ColPtr, base+p)
		}
	}
	return out
}

// CheckSparseData returns an error naming name and the offending entry if s
// is empty (a zero dimension), has a negative or non-finite entry, or breaks
// the CSC invariants.
func CheckSparseData(name string, s *Sparse) error {
	return checkSparse(name, s, true)
}

// CheckSparseFinite is CheckSparseData without the sign check: it accepts
// negative entries.
func CheckSparseFinite(name string, s *Sparse) error {
	return checkSparse(name, s, false)
}

func checkSparse(name string, s *Sparse, nonneg bool) error {
	if s == nil || s.Rows == 0 || s.Cols == 0 {
		r, c := 0, 0
		if s != nil {
			r, c = s.Rows, s.Cols
		}
		return fmt.Errorf("%s: %w (%d×%d)", name, ErrEmpty, r, c)
	}
	if len(s.ColPtr) != s.Cols+1 || s.ColPtr[0] != 0 || s.ColPtr[s.Cols] != len(s.Val) || len(s.RowIdx) != len(s.Val) {
		return fmt.Errorf("%s: %w: inconsistent CSC arrays", name, ErrShape)
	}
	for j := 0; j < s.Cols; j++ {
		prev := -1
		for p := s.ColPtr[j]; p < s.ColPtr[j+1]; p++ {
			i, v := s.RowIdx[p], s.Val[p]
			if i <= prev || i >= s.Rows {
				return fmt.Errorf("%s: %w: row index %d in column %d is out of order or range", name, ErrShape, i, j)
			}
			prev = i
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%s: %w: entry (%d, %d) is %v", name, ErrNotFinite, i, j, v)
			}
			if nonneg && v < 0 {
				return fmt.Errorf("%s: %w: entry (%d, %d) is %g", name, ErrNegative, i, j, v)
			}
		}
	}
	return nil
}

// T returns the transpose of s (s.Cols×s.Rows), also in CSC form, so that
// its columns are the rows of s, each with increasing column indices. It
// costs O(nnz + rows) and allocates the result.
func (s *Sparse) T() *Sparse {
	t := &Sparse{Rows: s.Cols, Cols: s.Rows, ColPtr: make([]int, s.Rows+1), RowIdx: make([]int, len(s.RowIdx)), Val: make([]float64, len(s.Val))}
	// The columns are shared among w workers in w contiguous ranges; each
	// counts its entries per row, and worker c's entries of row r go after
	// those of workers before it, so every row of t lists its entries by
	// column, whatever w is.
	w := 1
	if len(s.Val) >= transposeParallel {
		w = max(1, min(runtime.GOMAXPROCS(0), s.Cols))
	}
	bounds := make([]int, w+1)
	for c := range bounds {
		bounds[c] = c * s.Cols / w
	}
	counts := make([][]int, w)
	parallel.ForChunks(w, 1, w, func(_, c, _ int) {
		n := make([]int, s.Rows)
		for _, r := range s.RowIdx[s.ColPtr[bounds[c]]:s.ColPtr[bounds[c+1]]] {
			n[r]++
		}
		counts[c] = n
	})
	// counts[c][r] becomes where worker c writes its first entry of row r.
	pos := 0
	for r := 0; r < s.Rows; r++ {
		t.ColPtr[r] = pos
		for c := 0; c < w; c++ {
			n := counts[c][r]
			counts[c][r] = pos
			pos += n
		}
	}
	t.ColPtr[s.Rows] = pos
	parallel.ForChunks(w, 1, w, func(_, c, _ int) {
		next := counts[c]
		for j := bounds[c]; j < bounds[c+1]; j++ {
			for p := s.ColPtr[j]; p < s.ColPtr[j+1]; p++ {
				r := s.RowIdx[p]
				t.RowIdx[next[r]], t.Val[next[r]] = j, s.Val[p]
				next[r]++
			}
		}
	})
	return t
}

// transposeParallel is the number of stored entries from which T shares
// its work among goroutines.
const transposeParallel = 1 << 18

// MulTRows adds alpha·sᵀ[r0:r1, :]·B to rows r0:r1 of dst, for B of shape
// s.Rows×k and dst of shape s.Cols×k: row i gains alpha·Σ s_pi·B_p over the
// nonzeros of column i of s, in order. With s = Xᵀ (see T) this is X·B row
// by row: rows can be shared among goroutines, each row reads contiguous
// k-vectors of B, and the sums do not depend on how rows were shared. Its
// cost is k·nnz of the columns r0:r1.
//
// Where B is larger than mulTRowsBlock bytes, the rows r0:r1 are swept once
// per block of B's rows, each column of s resuming where the last block
// left it: B's rows are then read from a block that stays in cache instead
// of at random from all of B (at 10⁶ documents and k = 20, B is 160 MB and
// a product took 0.59–0.64 s on 2 cores where blocks of 2¹⁷ rows took
// 0.40–0.45 s). The terms of each sum are added in the same order, each
// block's into the sum the block before left, so the result is the same
// bit for bit.
func (s *Sparse) MulTRows(alpha float64, b *Dense, r0, r1 int, dst *Dense) {
	s.mulTRowsBlocked(alpha, b, r0, r1, dst, max(1, mulTRowsBlock/(8*max(1, b.Cols))))
}

// mulTRowsBlock is the size in bytes of the blocks of B that MulTRows
// sweeps in turn: a size that a last-level cache holds (16 MB).
const mulTRowsBlock = 1 << 24

// mulTRowsBlocked is MulTRows reading B by blocks of block rows.
func (s *Sparse) mulTRowsBlocked(alpha float64, b *Dense, r0, r1 int, dst *Dense, block int) {
	k := b.Cols
	if s.Rows <= block {
		for i := r0; i < r1; i++ {
			p0, p1 := s.ColPtr[i], s.ColPtr[i+1]
			gather.Axpy(dst.Data[i*dst.Stride:i*dst.Stride+k], alpha, s.Val[p0:p1], s.RowIdx[p0:p1], b.Data, b.Stride)
		}
		return
	}
	next := make([]int, r1-r0) // where column r0+c resumes
	copy(next, s.ColPtr[r0:r1])
	for end := block; end-block < s.Rows; end += block {
		for i := r0; i < r1; i++ {
			p0, last := next[i-r0], s.ColPtr[i+1]
			p1 := p0
			for p1 < last && s.RowIdx[p1] < end {
				p1++
			}
			if p1 > p0 {
				gather.Axpy(dst.Data[i*dst.Stride:i*dst.Stride+k], alpha, s.Val[p0:p1], s.RowIdx[p0:p1], b.Data, b.Stride)
				next[i-r0] = p1
			}
		}
	}
}

// MulTA writes Aᵀ·s[:, j0:j1] into dst (a.Cols×(j1−j0), row-major with the
// given stride), for A of shape s.Rows×k. Its cost is k·nnz of the columns.
//
// A column's k sums are formed in a contiguous buffer and stored once: the
// sums are the same, in the same order, as adding into dst's strided
// column entry by entry, which cost a strided read and write per
// multiply-add.
func (s *Sparse) MulTA(a *Dense, j0, j1 int, dst []float64, stride int) {
	k := a.Cols
	acc := make([]float64, k)
	for j := j0; j < j1; j++ {
		clear(acc)
		p0, p1 := s.ColPtr[j], s.ColPtr[j+1]
		gather.Axpy(acc, 1, s.Val[p0:p1], s.RowIdx[p0:p1], a.Data, a.Stride)
		c := j - j0
		for i, v := range acc {
			dst[i*stride+c] = v
		}
	}
}

// MulDenseT adds alpha·s[:, j0:j1]·U[:, j0:j1]ᵀ to dst (s.Rows×k) for U of
// shape k×s.Cols. Its cost is k·nnz of the columns.
func (s *Sparse) MulDenseT(alpha float64, u *Dense, j0, j1 int, dst *Dense) {
	for j := j0; j < j1; j++ {
		s.addColumnT(alpha, u, j, s.ColPtr[j], s.ColPtr[j+1], dst)
	}
}

// addColumnT adds alpha·s_pj·U[:, j] to row RowIdx[p] of dst for the
// entries p0:p1 of column j, in order: MulDenseT's step (MulRows takes the
// same steps from Uᵀ).
func (s *Sparse) addColumnT(alpha float64, u *Dense, j, p0, p1 int, dst *Dense) {
	k := u.Rows
	col := make([]float64, k) // column j of U, contiguous
	for i := range col {
		col[i] = u.Data[i*u.Stride+j]
	}
	for p := p0; p < p1; p++ {
		gather.Add(dst.Data[s.RowIdx[p]*dst.Stride:s.RowIdx[p]*dst.Stride+k], alpha*s.Val[p], col)
	}
}

// MulDenseTRows adds alpha·s[r0:r1, :]·Uᵀ to rows r0:r1 of dst (s.Rows×k),
// for U of shape k×s.Cols: row i gains alpha·s_ij·U[:, j] for every nonzero
// s_ij, in increasing j, as MulDenseT over all columns adds them. So rows
// can be shared among goroutines without transposing s, and the result
// does not depend on how they were shared. Each column's entries in rows
// r0:r1 are found by binary search (its row indices increase); the cost is
// k·nnz of those rows plus s.Cols·log(nnz per column). If s holds its
// transpose (WithRows), rows are read from it: no search, and each row's
// sums are formed in place.
func (s *Sparse) MulDenseTRows(alpha float64, u *Dense, r0, r1 int, dst *Dense) {
	ut := New(u.Cols, u.Rows)
	TransposeInto(ut, u)
	s.MulRows(alpha, ut, r0, r1, dst)
}

// MulRows adds alpha·s[r0:r1, :]·B to rows r0:r1 of dst (s.Rows×k), for B
// of shape s.Cols×k: MulDenseTRows given B = Uᵀ, whose row j (column j of
// U) is contiguous, so that callers sharing the rows out transpose U once.
// The sums are MulDenseTRows's, in the same order (from s's transpose if
// it holds one: MulTRows on it).
func (s *Sparse) MulRows(alpha float64, b *Dense, r0, r1 int, dst *Dense) {
	if s.rows != nil {
		s.rows.MulTRows(alpha, b, r0, r1, dst)
		return
	}
	k := b.Cols
	for j := 0; j < s.Cols; j++ {
		lo, hi := s.ColPtr[j], s.ColPtr[j+1]
		p0, p1 := lo, hi
		if r0 > 0 {
			p0 = firstAtLeast(s.RowIdx, lo, hi, r0)
		}
		if r1 < s.Rows {
			p1 = firstAtLeast(s.RowIdx, p0, hi, r1)
		}
		bj := b.Data[j*b.Stride : j*b.Stride+k]
		for p := p0; p < p1; p++ {
			gather.Add(dst.Data[s.RowIdx[p]*dst.Stride:s.RowIdx[p]*dst.Stride+k], alpha*s.Val[p], bj)
		}
	}
}

// MulTAParallel sets dst (k×s.Cols) to Aᵀ·s for A of shape s.Rows×k: MulTA
// over all columns, shared among goroutines by chunks of columns (one
// goroutine per 2¹⁶ multiply-adds, at most GOMAXPROCS). A column's sums
// are the same whichever goroutine forms them, so the result is MulTA's bit
// for bit. It panics if the shapes disagree.
func (s *Sparse) MulTAParallel(a, dst *Dense) {
	if a.Rows != s.Rows || dst.Rows != a.Cols || dst.Cols != s.Cols {
		panic(fmt.Sprintf("tensor: Sparse.MulTAParallel: s is %d×%d, A %d×%d, dst %d×%d", s.Rows, s.Cols, a.Rows, a.Cols, dst.Rows, dst.Cols))
	}
	parallel.ForChunks(s.Cols, 64, sparseWorkers(a.Cols, s.NNZ()), func(_, j0, j1 int) {
		s.MulTA(a, j0, j1, dst.Data[j0:], dst.Stride)
	})
}

// MulDenseTParallel sets dst (s.Rows×k) to alpha·s·Uᵀ + beta·dst for U of
// shape k×s.Cols, shared among goroutines by blocks of RowBlock(64) rows
// (MulDenseTRows; one goroutine per 2¹⁶ multiply-adds, at most GOMAXPROCS).
// The result is that of MulDenseT over all columns on one goroutine, bit
// for bit. As in BLAS, beta = 0 ignores dst's contents. It panics if the
// shapes disagree.
func (s *Sparse) MulDenseTParallel(alpha float64, u *Dense, beta float64, dst *Dense) {
	if u.Cols != s.Cols || dst.Rows != s.Rows || dst.Cols != u.Rows {
		panic(fmt.Sprintf("tensor: Sparse.MulDenseTParallel: s is %d×%d, U %d×%d, dst %d×%d", s.Rows, s.Cols, u.Rows, u.Cols, dst.Rows, dst.Cols))
	}
	ut := New(u.Cols, u.Rows)
	TransposeInto(ut, u)
	s.MulParallel(alpha, ut, beta, dst)
}

// MulParallel sets dst (s.Rows×k) to alpha·s·B + beta·dst for B of shape
// s.Cols×k: MulDenseTParallel given B = Uᵀ (a caller that forms many such
// products keeps B's memory), with the same sums, bit for bit. It panics
// if the shapes disagree.
func (s *Sparse) MulParallel(alpha float64, b *Dense, beta float64, dst *Dense) {
	if b.Rows != s.Cols || dst.Rows != s.Rows || dst.Cols != b.Cols {
		panic(fmt.Sprintf("tensor: Sparse.MulParallel: s is %d×%d, B %d×%d, dst %d×%d", s.Rows, s.Cols, b.Rows, b.Cols, dst.Rows, dst.Cols))
	}
	parallel.ForChunks(s.Rows, s.RowBlock(64), sparseWorkers(b.Cols, s.NNZ()), func(_, r0, r1 int) {
		if beta != 1 {
			for r := r0; r < r1; r++ {
				row := dst.Row(r)
				if beta == 0 {
					clear(row)
					continue
				}
				for i := range row {
					row[i] *= beta
				}
			}
		}
		s.MulRows(alpha, b, r0, r1, dst)
	})
}

// sparseWorkers is the number of goroutines for a sparse product of about
// k·nnz multiply-adds: one per 2¹⁶ of them, at most GOMAXPROCS.
func sparseWorkers(k, nnz int) int { return max(1, min(runtime.GOMAXPROCS(0), k*nnz>>16)) }

// RowBlock returns how many rows of s a goroutine should take at a time
// when MulDenseTRows is shared out: at least min, and so many that there
// are at most 16 blocks, because every block searches every column of s.
// It depends on s's shape only, so a caller's arithmetic does not depend on
// the number of goroutines.
func (s *Sparse) RowBlock(min int) int { return max(min, (s.Rows+15)/16) }

// firstAtLeast returns the first p in [lo, hi) with idx[p] ≥ r, or hi, for
// idx increasing on [lo, hi): sort.SearchInts without its closure, which
// cost MulDenseTRows a third of its time.
func firstAtLeast(idx []int, lo, hi, r int) int {
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if idx[mid] < r {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// SqDist returns ‖s − W·H‖²_F for W (s.Rows×k) and H (k×s.Cols) without
// forming W·H: ‖s‖² − 2⟨Wᵀs, H⟩ + ⟨WᵀW, HHᵀ⟩ (Wᵀs by MulTAParallel),
// clamped at 0. The expansion
// loses absolute accuracy of about ε·‖s‖², which matters only when the fit is
// nearly exact.
func (s *Sparse) SqDist(w, h *Dense) float64 {
	if w.Rows != s.Rows || h.Cols != s.Cols || w.Cols != h.Rows {
		panic(fmt.Sprintf("tensor: Sparse.SqDist: %d×%d minus %d×%d · %d×%d", s.Rows, s.Cols, w.Rows, w.Cols, h.Rows, h.Cols))
	}
	wts := New(w.Cols, s.Cols)
	s.MulTAParallel(w, wts)
	return math.Max(0, s.SqNorm()-2*Dot(wts, h)+Dot(MatMul(true, false, w, w), MatMul(false, true, h, h)))
}
