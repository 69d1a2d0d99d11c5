// Package reduce sums vectors per key on an Apache Beam pipeline so that
// the result does not depend on how the runner bundles, orders or combines
// the work: the reduce of distributed training, where each worker emits
// its shard's share of the sums a step needs (a block of rows of a
// gradient, say) and the runner adds the shares per key. A float64 sum of
// the same shares would change in its last bits with their order, and a
// runner picks the order. Two reduces avoid that:
//
//   - Sums adds exactly: every entry of a key's total is the exact sum of
//     the shares' entries rounded once (package exact), whatever the order
//     and grouping, through a combiner (partial sums before the shuffle).
//     Its accumulators take about 560 bytes an entry and rounding one
//     costs a big-integer conversion, so it suits short vectors.
//   - Ordered adds in a fixed order: the Shares of a key are grouped and
//     added in float64 in the order of their Index (a shard's number, say),
//     as a single process adding the shards in turn does. It costs a
//     float64 addition an entry and moves every share through the shuffle
//     (no combiner). Distributed training uses it.
//
// Local and LocalOrdered are the same reduces in one process, equal to the
// pipeline's bit for bit.
package reduce

import (
	"encoding/binary"
	"fmt"
	"math"
	"reflect"
	"sort"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neuralnmf/neuralnmf/beam/exact"
)

// Part is one share of a keyed sum: Values is added entrywise into Key's
// vector. Every Part of a key must have the same length.
type Part struct {
	Key    string
	Values []float64
}

// Total is a key's sum: entry i is Σ Values[i] over the key's Parts,
// rounded once to the nearest float64.
type Total struct {
	Key    string
	Values []float64
}

// Share is one share of a keyed sum that Ordered adds: Values is added
// entrywise into Key's vector, after the key's Shares of lower Index.
// Every Share of a key must have the same length and its own Index.
type Share struct {
	Key    string
	Index  int
	Values []float64
}

func init() {
	// Shares and totals are long vectors: their own coders write the
	// values as raw little-endian float64s (Beam's default coder for a
	// struct spends hundreds of nanoseconds an entry through reflection).
	beam.RegisterCoder(reflect.TypeOf(Share{}), encodeShare, decodeShare)
	beam.RegisterCoder(reflect.TypeOf(Total{}), encodeTotal, decodeTotal)
	register.Function1x2(shareKV)
	register.Function2x2(sumOrdered)
	register.Iter1[Share]()
	beam.RegisterCoder(reflect.TypeOf(accum{}), encodeAccum, decodeAccum)
	register.Combiner3[accum, []float64, []float64](&sumFn{})
	register.Function1x2(toKV)
	register.Function2x1(toTotal)
}

// Sums adds the Parts of parts (a PCollection of Part) per key, exactly,
// and returns a PCollection of Total, one per key. A key whose Parts differ
// in length fails the pipeline.
func Sums(s beam.Scope, parts beam.PCollection) beam.PCollection {
	s = s.Scope("reduce.Sums")
	kv := beam.ParDo(s, toKV, parts)
	return beam.ParDo(s, toTotal, beam.CombinePerKey(s, &sumFn{}, kv))
}

func toKV(p Part) (string, []float64)     { return p.Key, p.Values }
func toTotal(k string, v []float64) Total { return Total{Key: k, Values: v} }

// accum is a key's running exact sums.
type accum struct{ sums []exact.Sum }

type sumFn struct{}

func (*sumFn) CreateAccumulator() accum { return accum{} }

func (*sumFn) AddInput(a accum, v []float64) (accum, error) {
	if a.sums == nil {
		a.sums = make([]exact.Sum, len(v))
	}
	if len(v) != len(a.sums) {
		return a, fmt.Errorf("reduce: a share of %d values for a sum of %d", len(v), len(a.sums))
	}
	for i, x := range v {
		a.sums[i].Add(x)
	}
	return a, nil
}

func (*sumFn) MergeAccumulators(a, b accum) (accum, error) {
	switch {
	case b.sums == nil:
		return a, nil
	case a.sums == nil:
		return b, nil
	case len(a.sums) != len(b.sums):
		return a, fmt.Errorf("reduce: merging sums of %d and %d values", len(a.sums), len(b.sums))
	}
	for i := range a.sums {
		a.sums[i].Merge(&b.sums[i])
	}
	return a, nil
}

func (*sumFn) ExtractOutput(a accum) []float64 {
	out := make([]float64, len(a.sums))
	for i := range a.sums {
		out[i] = a.sums[i].Float64()
	}
	return out
}

// encodeAccum writes the number of sums, then each sum's encoding with its
// length (uvarints).
func encodeAccum(a accum) ([]byte, error) {
	out := binary.AppendUvarint(nil, uint64(len(a.sums)))
	for i := range a.sums {
		b, err := a.sums[i].MarshalBinary()
		if err != nil {
			return nil, err
		}
		out = binary.AppendUvarint(out, uint64(len(b)))
		out = append(out, b...)
	}
	return out, nil
}

func decodeAccum(data []byte) (accum, error) {
	n, k := binary.Uvarint(data)
	if k <= 0 || n > uint64(len(data)) {
		return accum{}, fmt.Errorf("reduce: a bad accumulator (%d bytes)", len(data))
	}
	data = data[k:]
	a := accum{sums: make([]exact.Sum, n)}
	if n == 0 {
		a.sums = nil
	}
	for i := range a.sums {
		l, k := binary.Uvarint(data)
		if k <= 0 || l > uint64(len(data)-k) {
			return accum{}, fmt.Errorf("reduce: a bad accumulator: sum %d of %d is cut short", i, n)
		}
		if err := a.sums[i].UnmarshalBinary(data[k : k+int(l)]); err != nil {
			return accum{}, fmt.Errorf("reduce: sum %d of %d: %w", i, n, err)
		}
		data = data[k+int(l):]
	}
	if len(data) != 0 {
		return accum{}, fmt.Errorf("reduce: %d bytes after the accumulator", len(data))
	}
	return a, nil
}

// Local is the same reduce on one process: the Totals of parts, one per
// key in key order, each entry the exact sum rounded once. It returns an
// error if a key's Parts differ in length.
func Local(parts []Part) ([]Total, error) {
	sums := map[string]accum{}
	var fn sumFn
	for _, p := range parts {
		a, err := fn.AddInput(sums[p.Key], p.Values)
		if err != nil {
			return nil, fmt.Errorf("key %q: %w", p.Key, err)
		}
		sums[p.Key] = a
	}
	out := make([]Total, 0, len(sums))
	for k, a := range sums {
		out = append(out, Total{Key: k, Values: fn.ExtractOutput(a)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

// Ordered adds the Shares of shares (a PCollection of Share) per key in
// the order of their Index and returns a PCollection of Total, one per
// key. A key with two Shares of one Index, or Shares of different
// lengths, fails the pipeline.
func Ordered(s beam.Scope, shares beam.PCollection) beam.PCollection {
	s = s.Scope("reduce.Ordered")
	return beam.ParDo(s, sumOrdered, beam.GroupByKey(s, beam.ParDo(s, shareKV, shares)))
}

func shareKV(sh Share) (string, Share) { return sh.Key, sh }

func sumOrdered(key string, iter func(*Share) bool) (Total, error) {
	var shares []Share
	var sh Share
	for iter(&sh) {
		shares = append(shares, sh)
	}
	return addInOrder(key, shares)
}

// addInOrder adds shares (all of key) in the order of their Index.
func addInOrder(key string, shares []Share) (Total, error) {
	sort.Slice(shares, func(i, j int) bool { return shares[i].Index < shares[j].Index })
	t := Total{Key: key}
	for i, sh := range shares {
		if i > 0 && sh.Index == shares[i-1].Index {
			return t, fmt.Errorf("reduce: key %q: two shares of index %d", key, sh.Index)
		}
		if i == 0 {
			t.Values = append([]float64(nil), sh.Values...)
			continue
		}
		if len(sh.Values) != len(t.Values) {
			return t, fmt.Errorf("reduce: key %q: a share of %d values for a sum of %d", key, len(sh.Values), len(t.Values))
		}
		for j, v := range sh.Values {
			t.Values[j] += v
		}
	}
	return t, nil
}

// LocalOrdered is Ordered in one process: the Totals of shares, one per
// key in key order. It returns Ordered's errors.
func LocalOrdered(shares []Share) ([]Total, error) {
	byKey := map[string][]Share{}
	for _, sh := range shares {
		byKey[sh.Key] = append(byKey[sh.Key], sh)
	}
	out := make([]Total, 0, len(byKey))
	for k, sh := range byKey {
		t, err := addInOrder(k, sh)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

// encodeVector appends key, index and values: the key's length (uvarint)
// and bytes, the index (varint), the count (uvarint) and the values as
// little-endian float64 bits.
func encodeVector(key string, index int, values []float64) []byte {
	b := make([]byte, 0, len(key)+3*binary.MaxVarintLen64+8*len(values))
	b = binary.AppendUvarint(b, uint64(len(key)))
	b = append(b, key...)
	b = binary.AppendVarint(b, int64(index))
	b = binary.AppendUvarint(b, uint64(len(values)))
	for _, v := range values {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	return b
}

// decodeVector reads encodeVector's bytes.
func decodeVector(b []byte) (key string, index int, values []float64, err error) {
	bad := func(what string) error {
		return fmt.Errorf("reduce: a bad encoded vector (%d bytes): %s", len(b), what)
	}
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)-k) {
		return "", 0, nil, bad("the key")
	}
	key, b = string(b[k:k+int(n)]), b[k+int(n):]
	i, k := binary.Varint(b)
	if k <= 0 {
		return "", 0, nil, bad("the index")
	}
	b = b[k:]
	n, k = binary.Uvarint(b)
	if k <= 0 || n != uint64(len(b)-k)/8 || (len(b)-k)%8 != 0 {
		return "", 0, nil, bad("the values")
	}
	b = b[k:]
	values = make([]float64, n)
	for j := range values {
		values[j] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*j:]))
	}
	return key, int(i), values, nil
}

func encodeShare(s Share) []byte { return encodeVector(s.Key, s.Index, s.Values) }

func decodeShare(b []byte) (Share, error) {
	k, i, v, err := decodeVector(b)
	return Share{Key: k, Index: i, Values: v}, err
}

func encodeTotal(t Total) []byte { return encodeVector(t.Key, 0, t.Values) }

func decodeTotal(b []byte) (Total, error) {
	k, _, v, err := decodeVector(b)
	return Total{Key: k, Values: v}, err
}
