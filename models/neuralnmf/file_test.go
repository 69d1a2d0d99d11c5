package neuralnmf_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/neuralnmf/neuralnmf/plot"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/tensor"
)

func trained(t *testing.T) *neuralnmf.Model {
	x := tensor.Uniform(20, 15, 0, 1, tensor.NewRand(21))
	labels := make([]int, 15)
	for i := range labels {
		labels[i] = i % 2
	}
	m, err := neuralnmf.Train(x, neuralnmf.Config{Ranks: []int{4, 2}, Epochs: 10, Optimizer: neuralnmf.Adam,
		Supervision: &neuralnmf.Supervision{Labels: labels, Classes: 2}})
	require.NoError(t, err)
	return m
}

func TestModelFileRoundTrip(t *testing.T) {
	m := trained(t)
	m.ClassNames = []string{"odd", "even"}
	path := filepath.Join(t.TempDir(), "m.nnmf")
	require.NoError(t, m.Save(path))
	got, err := neuralnmf.Load(path)
	require.NoError(t, err)
	for l := range m.A {
		require.Equal(t, m.A[l].Data, got.A[l].Data, "bit-exact A[%d]", l)
		require.Equal(t, m.S[l].Data, got.S[l].Data, "bit-exact S[%d]", l)
	}
	require.Equal(t, m.B.Data, got.B.Data)
	require.Equal(t, m.Predict(), got.Predict())
	// The whole training curve survives, not only its last epoch.
	require.Greater(t, len(m.History.Loss), 1)
	require.Equal(t, m.History.Loss, got.History.Loss)
	require.Equal(t, m.History.RelError, got.History.RelError)
	require.Equal(t, m.History.Accuracy, got.History.Accuracy)
	require.Equal(t, m.ClassNames, got.ClassNames)
	// Loaded models transform like the original.
	x := tensor.Uniform(20, 3, 0, 1, tensor.NewRand(22))
	s1, err := m.Transform(x)
	require.NoError(t, err)
	s2, err := got.Transform(x)
	require.NoError(t, err)
	require.Equal(t, s1[1].Data, s2[1].Data)
	m.ClassNames = []string{"one"}
	require.ErrorContains(t, m.Save(path), "1 class names for the 2 classes")
}

func TestModelFileCorruptAndTruncated(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, trained(t).Write(&buf))
	good := buf.Bytes()
	newer := append([]byte(nil), good...)
	binary.LittleEndian.PutUint32(newer[8:], neuralnmf.FileVersion+1)
	cases := map[string][]byte{
		"empty":          {},
		"truncated-head": good[:10],
		"truncated-half": good[:len(good)/2],
		"truncated-crc":  good[:len(good)-1],
		"flipped-byte":   flip(good, len(good)/2),
		"flipped-header": flip(good, 20),
		"wrong-magic":    flip(good, 0),
		"newer-version":  newer,
		"trailing":       append(append([]byte(nil), good...), 0),
	}
	for name, data := range cases {
		_, err := neuralnmf.Read(bytes.NewReader(data))
		require.Error(t, err, name)
		require.True(t, errors.Is(err, neuralnmf.ErrModelFile), "%s: %v", name, err)
	}
	_, err := neuralnmf.Read(bytes.NewReader(newer))
	require.ErrorContains(t, err, "newer than this program supports")
	_, err = neuralnmf.Load(filepath.Join(t.TempDir(), "missing.nnmf"))
	require.ErrorIs(t, err, os.ErrNotExist)
}

func flip(b []byte, i int) []byte {
	c := append([]byte(nil), b...)
	c[i] ^= 0x55
	return c
}

// Any input is an error or a model, never a panic.
// FuzzReadModel fuzzes the model file parser behind its checksum: the
// fuzzer mutates the body (magic, version, header, matrices) and the target
// appends the body's correct CRC, so mutations reach the parser instead of
// stopping at the checksum. Read must return an error or a model; a model it
// accepts must write back and read again to the same matrices, and every A
// and S must draw as a heatmap (the model → heatmap path of the CLI).
//
//	go test -run '^$' -fuzz FuzzReadModel -fuzztime 60s ./models/neuralnmf/
func FuzzReadModel(f *testing.F) {
	var buf bytes.Buffer
	x := tensor.Uniform(6, 5, 0, 1, tensor.NewRand(1))
	m, err := neuralnmf.Train(x, neuralnmf.Config{Ranks: []int{2}, Epochs: 2})
	if err != nil {
		f.Fatal(err)
	}
	if err := m.Write(&buf); err != nil {
		f.Fatal(err)
	}
	body := buf.Bytes()[:buf.Len()-4]
	f.Add(append([]byte(nil), body...))
	f.Add([]byte("NNMFMODL"))
	f.Fuzz(func(t *testing.T, body []byte) {
		data := binary.LittleEndian.AppendUint32(append([]byte(nil), body...), crc32.ChecksumIEEE(body))
		m, err := neuralnmf.Read(bytes.NewReader(data))
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := m.Write(&out); err != nil {
			t.Fatalf("a model Read accepted does not write: %v", err)
		}
		back, err := neuralnmf.Read(&out)
		if err != nil {
			t.Fatalf("a written model does not read back: %v", err)
		}
		for l := range m.A {
			if !reflect.DeepEqual(m.A[l].Data, back.A[l].Data) || !reflect.DeepEqual(m.S[l].Data, back.S[l].Data) {
				t.Fatalf("layer %d changed in a write/read round trip", l)
			}
			for _, d := range []*tensor.Dense{m.A[l], m.S[l]} {
				if _, err := plot.Heatmaps([]plot.Panel{{Title: "fuzz", M: d}}, nil); err != nil {
					t.Fatalf("layer %d: heatmap of an accepted model: %v", l, err)
				}
			}
		}
	})
}

// craft encodes a model file from a header and matrices by the format's
// description, not by Write, so that files Write never makes can be read.
func craft(h neuralnmf.FileHeader, mats ...*tensor.Dense) []byte {
	hdr, err := json.Marshal(h)
	if err != nil {
		panic(err)
	}
	le := binary.LittleEndian
	b := append([]byte("NNMFMODL"), le.AppendUint32(nil, neuralnmf.FileVersion)...)
	b = le.AppendUint32(b, uint32(len(hdr)))
	b = append(b, hdr...)
	for _, m := range mats {
		b = le.AppendUint32(b, uint32(m.Rows))
		b = le.AppendUint32(b, uint32(m.Cols))
		for _, v := range m.Data {
			b = le.AppendUint64(b, math.Float64bits(v))
		}
	}
	return le.AppendUint32(b, crc32.ChecksumIEEE(b))
}

// Crafted files that would mislead the commands that show a model are
// refused: an all-zero A, a negative S, a matrix named other than its
// place says, class names that are empty, repeated or span lines.
func TestModelFileCrafted(t *testing.T) {
	a := must(tensor.FromRows([][]float64{{1, 0}, {0, 2}, {1, 1}}))
	s := must(tensor.FromRows([][]float64{{1, 0, 2}, {0, 1, 1}}))
	b := must(tensor.FromRows([][]float64{{1, 0}, {0, 1}}))
	zero := tensor.New(3, 2)
	neg := s.Clone()
	neg.Set(1, 2, -0.5)
	head := func(names []string, classes []string) neuralnmf.FileHeader {
		return neuralnmf.FileHeader{Ranks: []int{2}, Loss: "reconstruction", Matrices: names, ClassNames: classes}
	}
	m, err := neuralnmf.Read(bytes.NewReader(craft(head([]string{"A0", "S0", "B"}, []string{"x", "y"}), a, s, b)))
	require.NoError(t, err, "the crafted encoding is the format")
	require.Equal(t, []string{"x", "y"}, m.ClassNames)
	for _, tc := range []struct {
		name string
		file []byte
		want string
	}{
		{"zero A", craft(head([]string{"A0", "S0"}, nil), zero, s), "layer 1: A is all zero"},
		{"negative S", craft(head([]string{"A0", "S0"}, nil), a, neg), "layer 1's S"},
		{"not B", craft(head([]string{"A0", "S0", "C"}, nil), a, s, b), `header lists matrix 3 as "C", want "B"`},
		{"S as B", craft(head([]string{"A0", "B"}, nil), a, s), "the classifier B is 2×3"},
		{"repeated names", craft(head([]string{"A0", "S0", "B"}, []string{"x", "x"}), a, s, b), `classes 0 and 1 are both named "x"`},
		{"line break", craft(head([]string{"A0", "S0", "B"}, []string{"x\ny", "z"}), a, s, b), "control character"},
		{"empty name", craft(head([]string{"A0", "S0", "B"}, []string{" ", "z"}), a, s, b), "is empty"},
		// Issue 50, item 8: a misspelt loss does not load as another, and a
		// KL model carries nothing its training refuses.
		{"loss KL", craft(neuralnmf.FileHeader{Ranks: []int{2}, Loss: "KL", Matrices: []string{"A0", "S0"}}, a, s), `the loss is "KL": want "reconstruction", "energy" or "kl"`},
		{"loss poisson", craft(neuralnmf.FileHeader{Ranks: []int{2}, Loss: "poisson", Matrices: []string{"A0", "S0"}}, a, s), `the loss is "poisson"`},
		{"KL classifier", craft(neuralnmf.FileHeader{Ranks: []int{2}, Loss: "kl", Matrices: []string{"A0", "S0", "B"}}, a, s, b), "a model of the KL loss has no classifier and no penalty"},
		{"KL penalty", craft(neuralnmf.FileHeader{Ranks: []int{2}, Loss: "kl", Matrices: []string{"A0", "S0"}, AlphaS: 0.1}, a, s), "this one has a penalty AlphaS"},
		// Issue 66, item 8: a penalty training refuses does not load.
		{"huge penalty", craft(neuralnmf.FileHeader{Ranks: []int{2}, Matrices: []string{"A0", "S0"}, AlphaS: 1e308}, a, s), "above 1e+"},
	} {
		_, err := neuralnmf.Read(bytes.NewReader(tc.file))
		require.ErrorIs(t, err, neuralnmf.ErrModelFile, tc.name)
		require.ErrorContains(t, err, tc.want, tc.name)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
