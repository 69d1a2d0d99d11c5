package matio_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/matio"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// SortByColumn's output holds the same matrix as its input, in an order
// ColumnReader streams, whether it fits in memory or takes many runs.
func TestSortByColumn(t *testing.T) {
	rng := tensor.NewRand(5)
	var body bytes.Buffer
	body.WriteString("%%MatrixMarket matrix coordinate real general\n% shuffled\n9 40 150\n")
	for k := 0; k < 150; k++ { // random order, some positions twice
		i, j := rng.IntN(9)+1, rng.IntN(40)+1
		body.WriteString(fmtEntry(i, j, rng.Float64()))
	}
	cases := []struct{ name, body string }{
		{"coordinate", body.String()},
		{"symmetric", "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n3 1 2\n1 1 1\n2 1 4\n"},
		{"array", "%%MatrixMarket matrix array real general\n2 3\n1\n0\n0\n0\n5\n6\n"},
		{"symmetric array", "%%MatrixMarket matrix array real symmetric\n3 3\n1\n2\n0\n3\n4\n5\n"},
		{"skew-symmetric array", "%%MatrixMarket matrix array real skew-symmetric\n3 3\n2\n0\n4\n"},
		{"pattern", "%%MatrixMarket matrix coordinate pattern general\n2 2 2\n2 2\n1 1\n"},
	}
	for _, c := range cases {
		for _, mem := range []int{24, 24 * 7, 1 << 20} {
			dir := t.TempDir()
			src, dst := filepath.Join(dir, "in.mtx"), filepath.Join(dir, "out.mtx.gz")
			require.NoError(t, os.WriteFile(src, []byte(c.body), 0o644))
			st, err := matio.SortByColumn(src, dst, "", mem)
			require.NoError(t, err, c.name)
			want, err := matio.ReadMatrix(src)
			require.NoError(t, err)
			got, err := matio.ReadMatrix(dst)
			require.NoError(t, err)
			// Repeated positions are summed in another order: equal to rounding.
			require.InDeltaSlice(t, want.ToDense().Data, got.ToDense().Data, 1e-15, "%s, %d bytes", c.name, mem)
			if mem == 24 {
				require.Equal(t, st.Entries, st.Runs, "one entry per run")
			}
			r, err := matio.OpenColumns(dst)
			require.NoError(t, err)
			require.InDeltaSlice(t, want.ToDense().Data, readBlocks(t, r, 3).Data, 1e-15)
			r.Close()
			left, _ := filepath.Glob(filepath.Join(dir, ".*"))
			require.Empty(t, left, "temporary files removed")
		}
	}
	_, err := matio.SortByColumn(filepath.Join(t.TempDir(), "none.mtx"), filepath.Join(t.TempDir(), "o.mtx"), "", 1<<20)
	require.Error(t, err)
}

func fmtEntry(i, j int, v float64) string {
	return fmt.Sprintf("%d %d %g\n", i, j, v)
}
