package exact

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// reference is the sum of xs rounded once to float64 (nearest, ties to
// even), by math/big at a precision that holds it exactly.
func reference(xs []float64) float64 {
	acc := new(big.Float).SetPrec(4000)
	for _, x := range xs {
		acc.Add(acc, new(big.Float).SetPrec(4000).SetFloat64(x))
	}
	f, _ := new(big.Float).SetPrec(53).SetMode(big.ToNearestEven).Set(acc).Float64()
	return f
}

func sumOf(xs []float64) *Sum {
	var s Sum
	for _, x := range xs {
		s.Add(x)
	}
	return &s
}

// terms returns n random terms of every magnitude class: normal values
// over the whole exponent range, subnormals, and values that cancel.
func terms(rng *rand.Rand, n int) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		switch rng.IntN(4) {
		case 0: // any finite magnitude
			xs[i] = math.Ldexp(rng.Float64()+0.5, rng.IntN(2000)-1000)
		case 1: // subnormal
			xs[i] = math.Float64frombits(rng.Uint64() & (1<<52 - 1))
		case 2: // near one
			xs[i] = rng.NormFloat64()
		default: // cancels an earlier term
			if i > 0 {
				xs[i] = -xs[rng.IntN(i)]
			}
		}
		if rng.IntN(2) == 0 {
			xs[i] = -xs[i]
		}
	}
	return xs
}

// TestCorrectlyRounded checks Float64 against math/big's exact sum rounded
// once, over random terms of every magnitude.
func TestCorrectlyRounded(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 300 {
		xs := terms(rng, 1+rng.IntN(200))
		want := reference(xs)
		got := sumOf(xs).Float64()
		require.Equal(t, math.Float64bits(want), math.Float64bits(got), "trial %d: got %v, want %v", trial, got, want)
	}
}

// TestOrderAndSplit checks that a sum does not depend on the order of its
// terms or on how they are split into parts and merged, as a distributed
// runner would: the same value and the same encoding bytes.
func TestOrderAndSplit(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	xs := terms(rng, 5000)
	whole := sumOf(xs)
	wantBytes, err := whole.MarshalBinary()
	require.NoError(t, err)
	for trial := range 20 {
		perm := rng.Perm(len(xs))
		parts := make([]Sum, 1+rng.IntN(16))
		for _, i := range perm {
			parts[rng.IntN(len(parts))].Add(xs[i])
		}
		var total Sum
		for _, i := range rng.Perm(len(parts)) {
			// half the parts go through the wire format, as a shuffle would
			if rng.IntN(2) == 0 {
				b, err := parts[i].MarshalBinary()
				require.NoError(t, err)
				var p Sum
				require.NoError(t, p.UnmarshalBinary(b))
				total.Merge(&p)
			} else {
				total.Merge(&parts[i])
			}
		}
		require.Equal(t, math.Float64bits(whole.Float64()), math.Float64bits(total.Float64()), "trial %d", trial)
		got, err := total.MarshalBinary()
		require.NoError(t, err)
		require.Equal(t, wantBytes, got, "trial %d: encoding", trial)
	}
}

// TestCases are sums whose exact answer is known.
func TestCases(t *testing.T) {
	maxF, minSub := math.MaxFloat64, math.SmallestNonzeroFloat64
	cases := []struct {
		name string
		xs   []float64
		want float64
	}{
		{"empty", nil, 0},
		{"cancel across the range", []float64{1e308, 1, -1e308}, 1},
		{"tiny survives", []float64{1, minSub, -1}, minSub},
		{"ties to even, down", []float64{1 << 53, 1}, 1 << 53},
		{"ties to even, up", []float64{1 << 53, 3}, 1<<53 + 4},
		{"above the tie", []float64{1 << 53, 1, minSub}, 1<<53 + 2},
		{"overflow", []float64{maxF, maxF}, math.Inf(1)},
		{"overflow undone", []float64{maxF, maxF, -maxF}, maxF},
		{"negative overflow", []float64{-maxF, -maxF}, math.Inf(-1)},
		{"subnormals add exactly", []float64{minSub, minSub, 3 * minSub}, 5 * minSub},
		{"signed zeros", []float64{math.Copysign(0, -1), math.Copysign(0, -1)}, 0},
		{"inf", []float64{1, math.Inf(1)}, math.Inf(1)},
		{"-inf", []float64{1, math.Inf(-1), -maxF}, math.Inf(-1)},
		{"inf - inf", []float64{math.Inf(1), math.Inf(-1)}, math.NaN()},
		{"nan", []float64{1, math.NaN()}, math.NaN()},
	}
	for _, c := range cases {
		got := sumOf(c.xs).Float64()
		if math.IsNaN(c.want) {
			require.True(t, math.IsNaN(got), c.name)
			continue
		}
		require.Equal(t, math.Float64bits(c.want), math.Float64bits(got), "%s: got %v, want %v", c.name, got, c.want)
	}
}

// TestManyTerms runs past the point where carries are propagated
// (normalizeEvery Adds) with terms that fill every digit they touch.
func TestManyTerms(t *testing.T) {
	if testing.Short() {
		t.Skip("2²⁹+ Adds")
	}
	var s Sum
	x := math.Float64frombits(0x3fefffffffffffff) // the largest float64 below 1
	n := normalizeEvery + 1000
	for range n {
		s.Add(x)
	}
	want := new(big.Float).SetPrec(200).SetFloat64(x)
	want.Mul(want, new(big.Float).SetInt64(int64(n)))
	w, _ := new(big.Float).SetPrec(53).SetMode(big.ToNearestEven).Set(want).Float64()
	require.Equal(t, w, s.Float64())
}

// TestUnmarshalErrors checks that malformed encodings are refused and leave
// the Sum unchanged.
func TestUnmarshalErrors(t *testing.T) {
	var s Sum
	s.Add(2.5)
	good, err := s.MarshalBinary()
	require.NoError(t, err)
	for name, b := range map[string][]byte{
		"empty":       nil,
		"short":       good[:3],
		"version":     append([]byte{9}, good[1:]...),
		"flags":       append([]byte{good[0], 0x80}, good[2:]...),
		"truncated":   good[:len(good)-1],
		"past digits": {wireVersion, 0, 60, 0, 10, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0},
	} {
		err := s.UnmarshalBinary(b)
		require.ErrorIs(t, err, ErrEncoding, name)
		require.Equal(t, 2.5, s.Float64(), name)
	}
}

func ExampleSum() {
	// A float64 loop loses the 1: 1e16 + 1 rounds to 1e16.
	xs := []float64{1e16, 1, -1e16}
	var loop float64
	for _, x := range xs {
		loop += x
	}
	// Split among two workers, merged in either order: exactly 1.
	var a, b Sum
	a.Add(xs[0])
	b.Add(xs[1])
	b.Add(xs[2])
	b.Merge(&a)
	fmt.Println(loop, b.Float64())
	// Output: 0 1
}

// BenchmarkAdd times Add beside a plain float64 sum of the same terms (the
// baseline of the same run): go test -run '^$' -bench Add ./exact/
func BenchmarkAdd(b *testing.B) {
	xs := terms(rand.New(rand.NewPCG(5, 6)), 1<<12)
	b.Run("exact", func(b *testing.B) {
		var s Sum
		for b.Loop() {
			for _, x := range xs {
				s.Add(x)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(xs)), "ns/term")
	})
	b.Run("float64", func(b *testing.B) {
		var s float64
		for b.Loop() {
			for _, x := range xs {
				s += x
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(xs)), "ns/term")
		_ = s
	})
}
