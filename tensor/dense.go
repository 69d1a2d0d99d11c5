package tensor

import (
	"fmt"
	"math/rand/v2"
	"runtime"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/neuralnmf/neuralnmf/internal/parallel"
)

// Dense is a row-major matrix of float64. Element (i, j) is stored at
// Data[i*Stride+j]; Stride ≥ Cols. The zero value is a 0×0 matrix.
//
// Fields are exported so that hot loops can index Data directly. Code that
// changes them must keep len(Data) ≥ (Rows−1)*Stride+Cols.
type Dense struct {
	Rows, Cols, Stride int
	Data               []float64
}

// New returns a zeroed r×c matrix with Stride c. It panics if r or c is
// negative. Zero-sized matrices are allowed.
func New(r, c int) *Dense {
	if r < 0 || c < 0 {
		panic(fmt.Sprintf("tensor: negative dimension %d×%d", r, c))
	}
	return &Dense{Rows: r, Cols: c, Stride: c, Data: make([]float64, r*c)}
}

// FromSlice returns an r×c matrix that uses data as its storage, row-major,
// without copying: the caller must not use data for anything else. It
// returns an error wrapping ErrShape if len(data) ≠ r*c or a dimension is
// negative.
func FromSlice(r, c int, data []float64) (*Dense, error) {
	if r < 0 || c < 0 {
		return nil, fmt.Errorf("%w: negative dimension %d×%d", ErrShape, r, c)
	}
	if len(data) != r*c {
		return nil, fmt.Errorf("%w: %d values for a %d×%d matrix (want %d)", ErrShape, len(data), r, c, r*c)
	}
	return &Dense{Rows: r, Cols: c, Stride: c, Data: data}, nil
}

// FromRows returns a new matrix holding a copy of rows. All rows must have the
// same length; otherwise it returns an error wrapping ErrShape.
func FromRows(rows [][]float64) (*Dense, error) {
	if len(rows) == 0 {
		return New(0, 0), nil
	}
	c := len(rows[0])
	d := New(len(rows), c)
	for i, row := range rows {
		if len(row) != c {
			return nil, fmt.Errorf("%w: row %d has %d values, row 0 has %d", ErrShape, i, len(row), c)
		}
		copy(d.Data[i*c:], row)
	}
	return d, nil
}

// MustFromRows is FromRows for literals in tests and examples: it panics on
// ragged rows.
func MustFromRows(rows [][]float64) *Dense {
	d, err := FromRows(rows)
	if err != nil {
		panic(err)
	}
	return d
}

// Uniform returns an r×c matrix with entries drawn independently and uniformly
// from [lo, hi) using rng, in row-major order, so equal seeds give equal
// matrices.
func Uniform(r, c int, lo, hi float64, rng *rand.Rand) *Dense {
	d := New(r, c)
	for i := range d.Data {
		d.Data[i] = lo + (hi-lo)*rng.Float64()
	}
	return d
}

// NewRand returns a deterministic random source for seed, the one neuralnmf
// uses everywhere a seed is accepted (PCG with the seed in both words).
func NewRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

// Dims returns the number of rows and columns.
func (d *Dense) Dims() (r, c int) { return d.Rows, d.Cols }

// Len returns Rows*Cols.
func (d *Dense) Len() int { return d.Rows * d.Cols }

// SameShape reports whether d and o have the same dimensions.
func (d *Dense) SameShape(o *Dense) bool { return d.Rows == o.Rows && d.Cols == o.Cols }

// At returns element (i, j). It panics if the index is out of range.
func (d *Dense) At(i, j int) float64 {
	d.checkIndex(i, j)
	return d.Data[i*d.Stride+j]
}

// Set sets element (i, j) to v. It panics if the index is out of range.
func (d *Dense) Set(i, j int, v float64) {
	d.checkIndex(i, j)
	d.Data[i*d.Stride+j] = v
}

func (d *Dense) checkIndex(i, j int) {
	if uint(i) >= uint(d.Rows) || uint(j) >= uint(d.Cols) {
		panic(fmt.Sprintf("tensor: index (%d, %d) out of range for %d×%d", i, j, d.Rows, d.Cols))
	}
}

// Row returns row i as a slice that aliases d's storage.
func (d *Dense) Row(i int) []float64 {
	if uint(i) >= uint(d.Rows) {
		panic(fmt.Sprintf("tensor: row %d out of range for %d×%d", i, d.Rows, d.Cols))
	}
	return d.Data[i*d.Stride : i*d.Stride+d.Cols]
}

// Contiguous reports whether the storage has no gaps (Stride == Cols), so that
// Data[:Rows*Cols] holds exactly the elements.
func (d *Dense) Contiguous() bool { return d.Stride == d.Cols || d.Rows <= 1 }

// RawMatrix returns a blas64.General that aliases d's storage. It satisfies
// gonum's mat.RawMatrixer. For a matrix with a zero dimension the stride is
// at least 1, as BLAS requires.
func (d *Dense) RawMatrix() blas64.General {
	s := d.Stride
	if s < 1 {
		s = 1
	}
	return blas64.General{Rows: d.Rows, Cols: d.Cols, Stride: s, Data: d.Data}
}

// Mat returns a *mat.Dense that aliases d's storage. gonum's mat does not
// support zero-sized matrices, so Mat panics if d has a zero dimension.
func (d *Dense) Mat() *mat.Dense {
	var m mat.Dense
	m.SetRawMatrix(d.RawMatrix())
	return &m
}

// FromMat returns a new Dense holding a copy of m.
func FromMat(m mat.Matrix) *Dense {
	r, c := m.Dims()
	d := New(r, c)
	for i := 0; i < r; i++ {
		row := d.Data[i*c : (i+1)*c]
		for j := range row {
			row[j] = m.At(i, j)
		}
	}
	return d
}

// Clone returns a new, contiguous copy of d.
func (d *Dense) Clone() *Dense {
	c := New(d.Rows, d.Cols)
	c.Copy(d)
	return c
}

// Copy copies src into d. It panics if the shapes differ.
func (d *Dense) Copy(src *Dense) {
	mustSameShape("Copy", d, src)
	if d.Contiguous() && src.Contiguous() {
		copy(d.Data[:d.Len()], src.Data[:src.Len()])
		return
	}
	for i := 0; i < d.Rows; i++ {
		copy(d.Row(i), src.Row(i))
	}
}

// Zero sets every element of d to 0.
func (d *Dense) Zero() {
	for i := 0; i < d.Rows; i++ {
		clear(d.Data[i*d.Stride : i*d.Stride+d.Cols])
	}
}

// Fill sets every element of d to v.
func (d *Dense) Fill(v float64) {
	for i := 0; i < d.Rows; i++ {
		row := d.Data[i*d.Stride : i*d.Stride+d.Cols]
		for j := range row {
			row[j] = v
		}
	}
}

// T returns a new matrix holding the transpose of d.
func (d *Dense) T() *Dense {
	t := New(d.Cols, d.Rows)
	TransposeInto(t, d)
	return t
}

// TransposeInto writes srcᵀ into dst. dst must be src.Cols×src.Rows.
func TransposeInto(dst, src *Dense) {
	if dst.Rows != src.Cols || dst.Cols != src.Rows {
		panic(fmt.Sprintf("tensor: TransposeInto: dst is %d×%d, want %d×%d", dst.Rows, dst.Cols, src.Cols, src.Rows))
	}
	// By blocks of transposeBlock columns of src: a block's rows of dst
	// are written whole while they are in cache, where a row of src at a
	// time wrote one entry per row of dst, across all of dst, once for
	// each row of src. Blocks share out among goroutines; every entry is
	// a copy, so the result is the same however they are shared.
	workers := 1
	if src.Rows*src.Cols >= transposeDenseParallel {
		workers = runtime.GOMAXPROCS(0)
	}
	parallel.ForChunks(src.Cols, transposeBlock, workers, func(_, j0, j1 int) {
		for i := 0; i < src.Rows; i++ {
			row := src.Data[i*src.Stride+j0 : i*src.Stride+j1]
			for j, v := range row {
				dst.Data[(j0+j)*dst.Stride+i] = v
			}
		}
	})
}

// transposeBlock is the columns of src per block of TransposeInto, and
// transposeDenseParallel the entries from which it uses goroutines.
const (
	transposeBlock         = 64
	transposeDenseParallel = 1 << 18
)

// String formats d as rows of %g values, for debugging and examples.
func (d *Dense) String() string {
	return fmt.Sprintf("%v", mat.Formatted(rawOrEmpty{d}))
}

// rawOrEmpty lets String format zero-sized matrices, which mat rejects.
type rawOrEmpty struct{ d *Dense }

func (r rawOrEmpty) Dims() (int, int)    { return r.d.Rows, r.d.Cols }
func (r rawOrEmpty) At(i, j int) float64 { return r.d.At(i, j) }
func (r rawOrEmpty) T() mat.Matrix       { return mat.Transpose{Matrix: r} }

func mustSameShape(op string, a, b *Dense) {
	if !a.SameShape(b) {
		panic(fmt.Sprintf("tensor: %s: shape mismatch %d×%d vs %d×%d", op, a.Rows, a.Cols, b.Rows, b.Cols))
	}
}
