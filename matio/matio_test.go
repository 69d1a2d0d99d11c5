package matio_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/internal/randmat"
	"github.com/neuralnmf/neuralnmf/matio"
	"github.com/neuralnmf/neuralnmf/tensor"
)

func TestMatrixMarketRoundTrip(t *testing.T) {
	rng := tensor.NewRand(1)
	d := randmat.Sparse(7, 5, 0.6, rng)
	for _, m := range []*matio.Matrix{{Sparse: tensor.SparseFromDense(d)}, {Dense: d}} {
		var buf bytes.Buffer
		require.NoError(t, matio.WriteMatrixMarket(&buf, m))
		got, err := matio.ReadMatrixMarket(&buf, "x.mtx")
		require.NoError(t, err)
		require.Equal(t, m.Sparse != nil, got.Sparse != nil)
		require.Equal(t, d.Data, got.ToDense().Data, "exact round trip")
	}
}

func TestMatrixMarketVariants(t *testing.T) {
	cases := []struct {
		name, in string
		want     [][]float64
	}{
		{"pattern", "%%MatrixMarket matrix coordinate pattern general\n% c\n2 2 2\n1 1\n2 1\n", [][]float64{{1, 0}, {1, 0}}},
		{"integer", "%%MatrixMarket matrix coordinate integer general\n2 3 1\n2 3 7\n", [][]float64{{0, 0, 0}, {0, 0, 7}}},
		{"symmetric", "%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n1 1 1\n2 1 3\n", [][]float64{{1, 3}, {3, 0}}},
		{"array", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", [][]float64{{1, 3}, {2, 4}}},
		{"array-symmetric", "%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n4\n", [][]float64{{1, 2}, {2, 4}}},
		{"duplicates", "%%MatrixMarket matrix coordinate real general\n1 1 2\n1 1 1.5\n1 1 2.5\n", [][]float64{{4}}},
	}
	for _, tc := range cases {
		m, err := matio.ReadMatrixMarket(strings.NewReader(tc.in), tc.name)
		require.NoError(t, err, tc.name)
		require.Equal(t, tensor.MustFromRows(tc.want).Data, m.ToDense().Data, tc.name)
	}
}

func TestParseErrorsNameFileAndLine(t *testing.T) {
	cases := []struct {
		name, in, msg string
		read          func(string, string) error
	}{
		{"mm-header", "%%MatrixMarket tensor coordinate real general\n", "x.mtx:1: malformed input: want a header", mm},
		{"mm-complex", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n", "x.mtx:1: malformed input: unsupported field \"complex\"", mm},
		{"mm-range", "%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1\n", "x.mtx:3: malformed input: row index 3 out of range 1..2", mm},
		{"mm-short", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n", "x.mtx:4: malformed input: file ends after 1 of 2 entries", mm},
		{"mm-nan", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 NaN\n", "x.mtx:3: malformed input: value \"NaN\": not a decimal number", mm},
		{"mm-separator", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 309_1\n", "x.mtx:3: malformed input: value \"309_1\": not a decimal number", mm},
		{"mm-hex", "%%MatrixMarket matrix array real general\n1 1\n0x1p-2\n", "x.mtx:3: malformed input: value \"0x1p-2\": not a decimal number", mm},
		{"mm-overflow", "%%MatrixMarket matrix array real general\n1 1\n1e400\n", "x.mtx:3: malformed input: value \"1e400\": out of float64's range", mm},
		{"mm-extra", "%%MatrixMarket matrix array real general\n1 1\n1\n2\n", "x.mtx:4: malformed input: data after", mm},
		{"mm-huge", "%%MatrixMarket matrix array real general\n100000 100000\n1\n", "larger than", mm},
		// The 38-byte files: a size line alone may not ask for
		// gigabytes (column pointers, the models' N×k factors).
		{"mm-rows-1e12", "%%MatrixMarket matrix coordinate real general\n1000000000000 3 3\n", "x.mtx:2: malformed input: size 1000000000000×3: more than the 16777216 rows or columns", mm},
		{"mm-cols-2^28", "%%MatrixMarket matrix coordinate real general\n3 268435456 3\n", "x.mtx:2: malformed input: size 3×268435456: more than the 16777216 rows or columns", mm},
		{"csv-ragged", "1,2\n3\n", "x.csv:2: malformed input: row has 1 fields, earlier rows have 2", csvRead},
		{"csv-value", "a,b\n1,x\n", "x.csv:2: malformed input: field 2 \"x\": not a decimal number", csvRead},
		// A first line mixing numbers and text is data with an error, not a
		// header: otherwise a typo would silently drop the first row.
		{"csv-typo-first-line", "1,2x,3\n4,5,6\n", "x.csv:1: malformed input: field 2 \"2x\": not a decimal number", csvRead},
		{"csv-id-separator", "309_1,2\n4,5\n", "x.csv:1: malformed input: field 1 \"309_1\": not a decimal number", csvRead},
		{"csv-overflow-first-line", "1e400,2\n4,5\n", "x.csv:1: malformed input: field 1 \"1e400\": out of float64's range", csvRead},
		{"csv-inf", "1,Inf\n", "x.csv:1: malformed input: field 2 \"Inf\": not a decimal number", csvRead},
		{"labels", "1\n2\nthree\n", "y.txt:3: malformed input: label \"three\" is not an integer", labels},
	}
	for _, tc := range cases {
		err := tc.read(tc.in, tc.name)
		require.Error(t, err, tc.name)
		require.Contains(t, err.Error(), tc.msg, tc.name)
		if !strings.Contains(tc.name, "huge") { // (all are ErrFormat)
			require.True(t, errors.Is(err, matio.ErrFormat), tc.name)
		}
	}
}

func mm(in, _ string) error {
	_, err := matio.ReadMatrixMarket(strings.NewReader(in), "x.mtx")
	return err
}

func csvRead(in, _ string) error {
	_, err := matio.ReadCSV(strings.NewReader(in), "x.csv")
	return err
}

func labels(in, _ string) error {
	_, err := matio.ReadLabels(strings.NewReader(in), "y.txt")
	return err
}

// A UTF-8 byte-order mark is removed, never taken for a header; a first line
// of names is a header.
func TestCSVHeaderRule(t *testing.T) {
	d, err := matio.ReadCSV(strings.NewReader("\uFEFF1,2\n3,4\n"), "bom.csv")
	require.NoError(t, err)
	require.Equal(t, []float64{1, 2, 3, 4}, d.Data, "the BOM line is data")
	d, err = matio.ReadCSV(strings.NewReader("\uFEFFid,value\n3,4\n"), "bom-header.csv")
	require.NoError(t, err)
	require.Equal(t, []float64{3, 4}, d.Data)
	for _, s := range []string{"12", "-0.5", ".5", "5.", "+3e-4", "1.5E+10"} {
		d, err := matio.ReadCSV(strings.NewReader(s+"\n"), "n.csv")
		require.NoError(t, err, s)
		require.Len(t, d.Data, 1, s)
	}
}

func TestCSVAndLabels(t *testing.T) {
	d, err := matio.ReadCSV(strings.NewReader("w1,w2,w3\n1,2,3\n\n4,5,6e-1\n"), "x.csv")
	require.NoError(t, err)
	require.Equal(t, []float64{1, 2, 3, 4, 5, 0.6}, d.Data)
	var buf bytes.Buffer
	require.NoError(t, matio.WriteCSV(&buf, d))
	back, err := matio.ReadCSV(&buf, "back.csv")
	require.NoError(t, err)
	require.Equal(t, d.Data, back.Data)
	l, err := matio.ReadLabels(strings.NewReader("# classes\n0\n2\n-1\n"), "y")
	require.NoError(t, err)
	require.Equal(t, []int{0, 2, -1}, l)
	// Issue 50: a blank line is an unknown label, as fit's help says, not
	// a skipped one (which shifted every later label); blank lines after
	// the last label are not labels.
	l, err = matio.ReadLabels(strings.NewReader("\n0\n\n \n1\n\n\n"), "y")
	require.NoError(t, err)
	require.Equal(t, []int{-1, 0, -1, -1, 1}, l)
}

func TestReadMatrixFileGzip(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.mtx.gz")
	f, err := os.Create(path)
	require.NoError(t, err)
	z := gzip.NewWriter(f)
	_, _ = z.Write([]byte("%%MatrixMarket matrix coordinate real general\n2 2 1\n2 2 5\n"))
	require.NoError(t, z.Close())
	require.NoError(t, f.Close())
	m, err := matio.ReadMatrix(path)
	require.NoError(t, err)
	require.Equal(t, 5.0, m.ToDense().At(1, 1))
	_, err = matio.ReadMatrix(filepath.Join(dir, "x.txt"))
	require.Error(t, err)
	_, err = matio.ReadMatrix(filepath.Join(dir, "missing.mtx"))
	require.ErrorIs(t, err, os.ErrNotExist)
}

// The paper's 20 Newsgroups matrix, checked against the checksums published
// with the data (stats.json): shape, non-zeros and Frobenius norm.
func TestRead20News(t *testing.T) {
	path := "../../shared/data/20news/paper_subset/X_tfidf.mtx.gz"
	if _, err := os.Stat(path); err != nil {
		t.Skip("shared data not present")
	}
	m, err := matio.ReadMatrix(path)
	require.NoError(t, err)
	require.NotNil(t, m.Sparse)
	r, c := m.Dims()
	require.Equal(t, 45534, r)
	require.Equal(t, 1000, c)
	require.Equal(t, 62872, m.Sparse.NNZ())
	require.InDelta(t, 31.224989991991997, math.Sqrt(m.Sparse.SqNorm()), 1e-9)
}

// Limits can be lowered (and raised) by the caller.
func TestLimits(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.mtx")
	require.NoError(t, os.WriteFile(path, []byte("%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 2\n"), 0o644))
	_, err := matio.ReadMatrix(path)
	require.NoError(t, err)
	_, err = matio.ReadMatrixLimits(path, matio.Limits{MaxDim: 2})
	require.ErrorContains(t, err, "more than the 2 rows or columns")
	_, err = matio.ReadMatrixLimits(path, matio.Limits{MaxEntries: 0, MaxDim: 3})
	require.NoError(t, err)
}
