package matio_test

import (
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/matio"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// readBlocks reads every block of one pass and joins them.
func readBlocks(t *testing.T, r *matio.ColumnReader, n int) *tensor.Dense {
	rows, cols := r.Dims()
	out := tensor.New(rows, cols)
	at := 0
	for {
		b, err := r.Next(n)
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		require.LessOrEqual(t, b.Cols, n)
		d := b.Dense()
		for i := 0; i < rows; i++ {
			for j := 0; j < b.Cols; j++ {
				out.Set(i, at+j, d.At(i, j))
			}
		}
		at += b.Cols
	}
	require.Equal(t, cols, at)
	return out
}

func TestColumnReaderMatchesReadMatrix(t *testing.T) {
	dir := t.TempDir()
	rng := tensor.NewRand(3)
	x := tensor.Uniform(7, 23, 0, 1, rng)
	for i := range x.Data {
		if rng.Float64() < 0.6 {
			x.Data[i] = 0
		}
	}
	for _, name := range []string{"x.mtx", "x.mtx.gz"} {
		path := filepath.Join(dir, name)
		require.NoError(t, matio.WriteAtomic(path, func(f *os.File) error {
			var w io.Writer = f
			if filepath.Ext(name) == ".gz" {
				z := gzip.NewWriter(f)
				defer z.Close()
				w = z
			}
			return matio.WriteMatrixMarket(w, &matio.Matrix{Sparse: tensor.SparseFromDense(x)})
		}))
		r, err := matio.OpenColumns(path)
		require.NoError(t, err)
		for _, n := range []int{1, 4, 23, 100} {
			require.NoError(t, r.Rewind())
			require.Equal(t, x.Data, readBlocks(t, r, n).Data, "%s, blocks of %d", name, n)
		}
		require.NoError(t, r.Close())
	}
}

func TestColumnReaderFileShapes(t *testing.T) {
	cases := []struct {
		name, body, err string
		want            [][]float64
	}{
		{"rows unsorted within a column, duplicates summed, empty column", "%%MatrixMarket matrix coordinate real general\n% c\n3 3 4\n3 1 2\n1 1 1\n2 3 5\n2 3 1\n", "",
			[][]float64{{1, 0, 0}, {0, 0, 6}, {2, 0, 0}}},
		{"pattern", "%%MatrixMarket matrix coordinate pattern general\n2 2 2\n1 1\n2 2\n", "", [][]float64{{1, 0}, {0, 1}}},
		{"unsorted", "%%MatrixMarket matrix coordinate real general\n2 3 3\n1 2 1\n1 3 1\n2 1 1\n", "x.mtx:5: entries are not sorted by column: an entry in column 1 follows one in column 3; streaming needs them sorted: neuralnmf convert", nil},
		{"array", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", "an array (dense) file", nil},
		{"symmetric", "%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n2 1 1\n", "a symmetric file stores half its entries", nil},
		{"truncated", "%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1\n", "x.mtx:4: malformed input: file ends after 1 of 3 entries", nil},
		{"trailing", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n2 2 2\n", "x.mtx:4", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x.mtx")
			require.NoError(t, os.WriteFile(path, []byte(c.body), 0o644))
			r, err := matio.OpenColumns(path)
			if err == nil {
				defer r.Close()
				for err == nil {
					_, err = r.Next(2)
				}
				if errors.Is(err, io.EOF) {
					err = nil
				}
			}
			if c.err != "" {
				require.ErrorContains(t, err, c.err)
				return
			}
			require.NoError(t, err)
			require.NoError(t, r.Rewind())
			require.Equal(t, tensor.MustFromRows(c.want).Data, readBlocks(t, r, 2).Data)
			require.Equal(t, map[bool]int{true: 1}[c.name[:4] == "rows"], r.Duplicates())
		})
	}
}

// Repeated entries are counted over a whole pass, even when the first
// pass stopped early (a start sample) and whatever the passes' blocks;
// repeated passes do not count them again.
func TestColumnReaderDuplicatesAcrossPasses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.mtx")
	require.NoError(t, os.WriteFile(path, []byte("%%MatrixMarket matrix coordinate real general\n3 10 6\n1 1 1\n1 1 2\n2 3 1\n2 9 1\n2 9 1\n3 10 1\n"), 0o644))
	r, err := matio.OpenColumns(path)
	require.NoError(t, err)
	defer r.Close()
	_, err = r.Next(2)
	require.NoError(t, err)
	require.Equal(t, 1, r.Duplicates())
	for pass := 0; pass < 2; pass++ {
		require.NoError(t, r.Rewind())
		for {
			if _, err := r.Next(3); err != nil {
				require.ErrorIs(t, err, io.EOF)
				break
			}
		}
		require.Equal(t, 2, r.Duplicates(), "pass %d", pass+1)
	}
}
