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
		{"mm-nan", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 NaN\n", "x.mtx:3: malformed input: value \"NaN\": not finite", mm},
		{"mm-extra", "%%MatrixMarket matrix array real general\n1 1\n1\n2\n", "x.mtx:4: malformed input: data after", mm},
		{"mm-huge", "%%MatrixMarket matrix array real general\n100000 100000\n1\n", "larger than", mm},
		{"csv-ragged", "1,2\n3\n", "x.csv:2: malformed input: row has 1 fields, earlier rows have 2", csvRead},
		{"csv-value", "a,b\n1,x\n", "x.csv:2: malformed input: field 2 \"x\": not a number", csvRead},
		{"labels", "1\n2\nthree\n", "y.txt:3: malformed input: label \"three\" is not an integer", labels},
	}
	for _, tc := range cases {
		err := tc.read(tc.in, tc.name)
		require.Error(t, err, tc.name)
		require.Contains(t, err.Error(), tc.msg, tc.name)
		if !strings.Contains(tc.name, "huge") {
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
