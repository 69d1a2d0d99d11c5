package train

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/neuralnmf/neuralnmf/tensor"
)

// The work directory's binary files: a slice of a shard (CSC) and a list
// of dense matrices (the A's of a step, a key's total), little-endian,
// each behind an 8-byte magic.
const (
	sparseMagic = "NNMFCSC1"
	denseMagic  = "NNMFDNS1"
)

// errFormat is wrapped by every decoding error.
var errFormat = errors.New("not a file of this version of neuralnmf-beam train")

func appendU64(b []byte, v uint64) []byte { return binary.LittleEndian.AppendUint64(b, v) }

// encodeSparse encodes x: rows, cols, nnz, the column pointers, the row
// indices (uint32) and the values.
func encodeSparse(x *tensor.Sparse) []byte {
	nnz := len(x.Val)
	b := make([]byte, 0, 8+24+8*(x.Cols+1)+12*nnz)
	b = append(b, sparseMagic...)
	b = appendU64(b, uint64(x.Rows))
	b = appendU64(b, uint64(x.Cols))
	b = appendU64(b, uint64(nnz))
	for _, p := range x.ColPtr {
		b = appendU64(b, uint64(p))
	}
	for _, r := range x.RowIdx {
		b = binary.LittleEndian.AppendUint32(b, uint32(r))
	}
	for _, v := range x.Val {
		b = appendU64(b, math.Float64bits(v))
	}
	return b
}

// decodeSparse decodes encodeSparse's bytes, checking the structure (the
// values are checked where they are used).
func decodeSparse(b []byte) (*tensor.Sparse, error) {
	if len(b) < 32 || string(b[:8]) != sparseMagic {
		return nil, fmt.Errorf("%w: no slice header", errFormat)
	}
	u := func(i int) uint64 { return binary.LittleEndian.Uint64(b[i:]) }
	rows, cols, nnz := u(8), u(16), u(24)
	if rows > math.MaxUint32 || cols > 1<<40 || nnz > 1<<40 || uint64(len(b)) != 32+8*(cols+1)+12*nnz {
		return nil, fmt.Errorf("%w: a slice of %d bytes for %d×%d with %d entries", errFormat, len(b), rows, cols, nnz)
	}
	x := &tensor.Sparse{Rows: int(rows), Cols: int(cols), ColPtr: make([]int, cols+1), RowIdx: make([]int, nnz), Val: make([]float64, nnz)}
	at := 32
	for j := range x.ColPtr {
		x.ColPtr[j] = int(u(at))
		at += 8
		if j > 0 && x.ColPtr[j] < x.ColPtr[j-1] || x.ColPtr[j] > int(nnz) {
			return nil, fmt.Errorf("%w: column pointers out of order", errFormat)
		}
	}
	if x.ColPtr[0] != 0 || x.ColPtr[cols] != int(nnz) {
		return nil, fmt.Errorf("%w: column pointers do not span the entries", errFormat)
	}
	for i := range x.RowIdx {
		x.RowIdx[i] = int(binary.LittleEndian.Uint32(b[at:]))
		at += 4
		if x.RowIdx[i] >= x.Rows {
			return nil, fmt.Errorf("%w: a row index out of range", errFormat)
		}
	}
	for j := 0; j < x.Cols; j++ {
		for p := x.ColPtr[j] + 1; p < x.ColPtr[j+1]; p++ {
			if x.RowIdx[p] <= x.RowIdx[p-1] {
				return nil, fmt.Errorf("%w: row indices out of order in column %d", errFormat, j)
			}
		}
	}
	for i := range x.Val {
		x.Val[i] = math.Float64frombits(u(at))
		at += 8
	}
	return x, nil
}

// encodeDenses encodes ms: their count, then each one's rows, cols and
// entries by rows.
func encodeDenses(ms []*tensor.Dense) []byte { return appendDenses(nil, ms) }

// appendDenses appends encodeDenses(ms) to b.
func appendDenses(b []byte, ms []*tensor.Dense) []byte {
	n := 16
	for _, m := range ms {
		n += 16 + 8*m.Len()
	}
	b = slices.Grow(b, n)
	b = append(b, denseMagic...)
	b = appendU64(b, uint64(len(ms)))
	for _, m := range ms {
		b = appendU64(b, uint64(m.Rows))
		b = appendU64(b, uint64(m.Cols))
		for i := 0; i < m.Rows; i++ {
			for _, v := range m.Row(i) {
				b = appendU64(b, math.Float64bits(v))
			}
		}
	}
	return b
}

// decodeDenses decodes encodeDenses's bytes.
func decodeDenses(b []byte) ([]*tensor.Dense, error) {
	if len(b) < 16 || string(b[:8]) != denseMagic {
		return nil, fmt.Errorf("%w: no matrix header", errFormat)
	}
	u := func(i int) uint64 { return binary.LittleEndian.Uint64(b[i:]) }
	count, at := u(8), 16
	if count > 1<<20 {
		return nil, fmt.Errorf("%w: %d matrices", errFormat, count)
	}
	var out []*tensor.Dense
	for range count {
		if len(b)-at < 16 {
			return nil, fmt.Errorf("%w: cut short", errFormat)
		}
		r, c := u(at), u(at+8)
		at += 16
		if r > 1<<40 || c > 1<<40 || c != 0 && r > uint64(len(b)-at)/8/c {
			return nil, fmt.Errorf("%w: a %d×%d matrix in %d bytes", errFormat, r, c, len(b)-at)
		}
		m := tensor.New(int(r), int(c))
		for i := range m.Data {
			m.Data[i] = math.Float64frombits(u(at))
			at += 8
		}
		out = append(out, m)
	}
	if at != len(b) {
		return nil, fmt.Errorf("%w: %d bytes after the matrices", errFormat, len(b)-at)
	}
	return out, nil
}

// addVector adds the 1×n matrix encoded in b (encodeDenses of one row)
// into sum entry by entry, or, if first, returns its values as the sum;
// the sum must have n entries otherwise.
func addVector(sum []float64, b []byte, first bool) ([]float64, error) {
	u := func(i int) uint64 { return binary.LittleEndian.Uint64(b[i:]) }
	if len(b) < 32 || string(b[:8]) != denseMagic || u(8) != 1 || u(16) != 1 || u(24) != uint64(len(b)-32)/8 || (len(b)-32)%8 != 0 {
		return nil, fmt.Errorf("%w: not one vector", errFormat)
	}
	n := int(u(24))
	vals := b[32:]
	if first {
		sum = make([]float64, n)
		for j := range sum {
			sum[j] = math.Float64frombits(binary.LittleEndian.Uint64(vals[8*j:]))
		}
		return sum, nil
	}
	if n != len(sum) {
		return nil, fmt.Errorf("%w: a vector of %d values for a sum of %d", errFormat, n, len(sum))
	}
	for j := range sum {
		sum[j] += math.Float64frombits(binary.LittleEndian.Uint64(vals[8*j:]))
	}
	return sum, nil
}
