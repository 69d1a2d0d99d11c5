package reduce

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAccumCoder checks the accumulator's wire format: a round trip keeps
// every sum exactly (so a merge after a shuffle gives the same bits), and
// malformed bytes are refused.
func TestAccumCoder(t *testing.T) {
	var fn sumFn
	a, err := fn.AddInput(accum{}, []float64{1e16, math.SmallestNonzeroFloat64, -3})
	require.NoError(t, err)
	a, err = fn.AddInput(a, []float64{1, 0, math.Inf(1)})
	require.NoError(t, err)
	b, err := encodeAccum(a)
	require.NoError(t, err)
	back, err := decodeAccum(b)
	require.NoError(t, err)
	// Merging the decoded copy into a fresh one after a share that cancels
	// the large term: the 1 survives only if nothing was rounded.
	c, err := fn.AddInput(accum{}, []float64{-1e16, 0, 0})
	require.NoError(t, err)
	c, err = fn.MergeAccumulators(c, back)
	require.NoError(t, err)
	require.Equal(t, []float64{1, math.SmallestNonzeroFloat64, math.Inf(1)}, fn.ExtractOutput(c))

	empty, err := encodeAccum(accum{})
	require.NoError(t, err)
	e, err := decodeAccum(empty)
	require.NoError(t, err)
	require.Nil(t, e.sums)

	for name, bad := range map[string][]byte{
		"empty":     nil,
		"count":     {200},
		"cut short": b[:len(b)-1],
		"trailing":  append(append([]byte(nil), b...), 0),
	} {
		_, err := decodeAccum(bad)
		require.Error(t, err, name)
	}
	_, err = fn.MergeAccumulators(a, accum{sums: a.sums[:2]})
	require.Error(t, err)
}

// TestVectorCoders: Share and Total round-trip bit for bit (NaN payloads,
// signed zeros, empty vectors and keys included), and malformed bytes are
// refused.
func TestVectorCoders(t *testing.T) {
	for _, s := range []Share{
		{Key: "g0-000001", Index: 15, Values: []float64{1, math.Copysign(0, -1), math.Float64frombits(0x7ff8000000000123), math.Inf(-1), 5e-324}},
		{Key: "", Index: -3, Values: []float64{}},
	} {
		got, err := decodeShare(encodeShare(s))
		require.NoError(t, err)
		require.Equal(t, s.Key, got.Key)
		require.Equal(t, s.Index, got.Index)
		require.Len(t, got.Values, len(s.Values))
		for i := range s.Values {
			require.Equal(t, math.Float64bits(s.Values[i]), math.Float64bits(got.Values[i]))
		}
		tot, err := decodeTotal(encodeTotal(Total{Key: s.Key, Values: s.Values}))
		require.NoError(t, err)
		require.Equal(t, s.Key, tot.Key)
		require.Len(t, tot.Values, len(s.Values))
	}
	b := encodeShare(Share{Key: "k", Index: 1, Values: []float64{1, 2}})
	for name, bad := range map[string][]byte{
		"empty":      nil,
		"key cut":    {5, 'a'},
		"index cut":  b[:2],
		"values cut": b[:len(b)-1],
		"extra":      append(append([]byte(nil), b...), 0),
	} {
		_, err := decodeShare(bad)
		require.Error(t, err, name)
	}
}
