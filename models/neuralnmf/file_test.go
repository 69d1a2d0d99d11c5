package neuralnmf_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"

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
	// Loaded models transform like the original.
	x := tensor.Uniform(20, 3, 0, 1, tensor.NewRand(22))
	s1, err := m.Transform(x)
	require.NoError(t, err)
	s2, err := got.Transform(x)
	require.NoError(t, err)
	require.Equal(t, s1[1].Data, s2[1].Data)
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
func FuzzReadModel(f *testing.F) {
	var buf bytes.Buffer
	x := tensor.Uniform(6, 5, 0, 1, tensor.NewRand(1))
	m, _ := neuralnmf.Train(x, neuralnmf.Config{Ranks: []int{2}, Epochs: 2})
	_ = m.Write(&buf)
	f.Add(buf.Bytes())
	f.Add([]byte("NNMFMODL"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = neuralnmf.Read(bytes.NewReader(data))
	})
}
