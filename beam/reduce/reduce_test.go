package reduce_test

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/beam/reduce"
)

func TestMain(m *testing.M) {
	beam.Init()
	os.Exit(m.Run())
}

// parts returns shares for 5 keys of 7 entries each, of magnitudes from
// 2⁻⁶⁰ to 2⁶⁰ with cancellations, so that a float64 sum of a key's shares
// depends on their order.
func parts(rng *rand.Rand) []reduce.Part {
	var ps []reduce.Part
	for i := range 300 {
		v := make([]float64, 7)
		for j := range v {
			v[j] = math.Ldexp(rng.Float64()-0.5, rng.IntN(121)-60)
		}
		ps = append(ps, reduce.Part{Key: fmt.Sprintf("rows-%d", i%5), Values: v})
	}
	return ps
}

// floatSums is the float64 sum of each key's shares in the given order.
func floatSums(ps []reduce.Part) map[string][]float64 {
	out := map[string][]float64{}
	for _, p := range ps {
		if out[p.Key] == nil {
			out[p.Key] = make([]float64, len(p.Values))
		}
		for i, v := range p.Values {
			out[p.Key][i] += v
		}
	}
	return out
}

// TestSumsPrism checks Local against math/big's exact sums rounded once,
// then runs the reduce on in-process Prism, twice, with the shares in two
// orders: both give Local's totals bit for bit, although a float64 sum of
// the same shares differs between the two orders.
func TestSumsPrism(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir()) // Beam's loopback worker leaves a file there
	rng := rand.New(rand.NewPCG(1, 2))
	ps := parts(rng)
	want, err := reduce.Local(ps)
	require.NoError(t, err)
	require.Len(t, want, 5)
	// Local against math/big's exact sums, rounded once.
	exactSums := map[string][]*big.Float{}
	for _, p := range ps {
		if exactSums[p.Key] == nil {
			exactSums[p.Key] = make([]*big.Float, len(p.Values))
			for i := range p.Values {
				exactSums[p.Key][i] = new(big.Float).SetPrec(2000)
			}
		}
		for i, v := range p.Values {
			exactSums[p.Key][i].Add(exactSums[p.Key][i], new(big.Float).SetFloat64(v))
		}
	}
	for _, w := range want {
		for i, v := range w.Values {
			r, _ := new(big.Float).SetPrec(53).SetMode(big.ToNearestEven).Set(exactSums[w.Key][i]).Float64()
			require.Equal(t, math.Float64bits(r), math.Float64bits(v), "%s[%d]", w.Key, i)
		}
	}

	shuffled := append([]reduce.Part(nil), ps...)
	rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	differ := false
	a, b := floatSums(ps), floatSums(shuffled)
	for k := range a {
		for i := range a[k] {
			differ = differ || a[k][i] != b[k][i]
		}
	}
	require.True(t, differ, "the test's shares must make a float64 sum depend on order")
	local2, err := reduce.Local(shuffled)
	require.NoError(t, err)
	require.Equal(t, want, local2, "Local does not depend on order")

	for _, in := range [][]reduce.Part{ps, shuffled} {
		p, s := beam.NewPipelineWithRoot()
		totals := reduce.Sums(s, beam.CreateList(s, in))
		wantAny := make([]any, len(want))
		for i, w := range want {
			wantAny[i] = w
		}
		passert.Equals(s, totals, wantAny...)
		_, err := prism.Execute(context.Background(), p)
		require.NoError(t, err)
	}
}

// TestLocalErrors: shares of one key that differ in length are refused.
func TestLocalErrors(t *testing.T) {
	_, err := reduce.Local([]reduce.Part{{Key: "a", Values: []float64{1, 2}}, {Key: "a", Values: []float64{1}}})
	require.ErrorContains(t, err, `key "a"`)
}

func ExampleLocal() {
	// Two workers' shares of one key; in float64, 1e16 + 1 − 1e16 is 0.
	totals, _ := reduce.Local([]reduce.Part{
		{Key: "rows-0", Values: []float64{1e16, 2}},
		{Key: "rows-0", Values: []float64{1, 2}},
		{Key: "rows-0", Values: []float64{-1e16, 2}},
	})
	fmt.Println(totals[0].Key, totals[0].Values)
	// Output: rows-0 [1 6]
}

// TestOrderedPrism: LocalOrdered adds each key's shares in index order
// (checked against a plain loop), and Ordered on in-process Prism gives
// its totals bit for bit with the shares in two orders whose plain float64
// sums differ.
func TestOrderedPrism(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	rng := rand.New(rand.NewPCG(3, 4))
	ps := parts(rng)
	shares := make([]reduce.Share, len(ps))
	for i, p := range ps {
		shares[i] = reduce.Share{Key: p.Key, Index: i, Values: p.Values}
	}
	want, err := reduce.LocalOrdered(shares)
	require.NoError(t, err)
	require.Len(t, want, 5)
	inOrder := floatSums(ps) // the shares in index order
	for _, w := range want {
		require.Equal(t, inOrder[w.Key], w.Values, w.Key)
	}
	shuffled := append([]reduce.Share(nil), shares...)
	rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	back, err := reduce.LocalOrdered(shuffled)
	require.NoError(t, err)
	require.Equal(t, want, back)
	differ := false
	sp := make([]reduce.Part, len(shuffled))
	for i, sh := range shuffled {
		sp[i] = reduce.Part{Key: sh.Key, Values: sh.Values}
	}
	for k, v := range floatSums(sp) {
		for i := range v {
			differ = differ || v[i] != inOrder[k][i]
		}
	}
	require.True(t, differ, "the test's shares must make a float64 sum depend on order")

	for _, in := range [][]reduce.Share{shares, shuffled} {
		p, s := beam.NewPipelineWithRoot()
		totals := reduce.Ordered(s, beam.CreateList(s, in))
		wantAny := make([]any, len(want))
		for i, w := range want {
			wantAny[i] = w
		}
		passert.Equals(s, totals, wantAny...)
		_, err := prism.Execute(context.Background(), p)
		require.NoError(t, err)
	}
}

func TestLocalOrderedErrors(t *testing.T) {
	_, err := reduce.LocalOrdered([]reduce.Share{{Key: "a", Index: 1, Values: []float64{1}}, {Key: "a", Index: 1, Values: []float64{2}}})
	require.ErrorContains(t, err, "two shares of index 1")
	_, err = reduce.LocalOrdered([]reduce.Share{{Key: "a", Index: 0, Values: []float64{1}}, {Key: "a", Index: 1, Values: []float64{2, 3}}})
	require.ErrorContains(t, err, `key "a"`)
}
