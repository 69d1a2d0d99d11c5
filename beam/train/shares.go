package train

import (
	"bytes"
	"context"
	"fmt"

	"github.com/neuralnmf/neuralnmf/beam/internal/files"
	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// The keys of a step's sums: "small" holds the scalars (columns, loss,
// squared error, ‖X‖²), each shard's largest entry (one place per shard:
// a sum of zeros and one entry is exact), P·Pᵀ and the gradients of the
// A's below the first; "g0-NNNNNN" hold blocks of rows of A⁽⁰⁾'s
// gradient, so that the reduce spreads over keys (a reduce-scatter).
const (
	keySmall = "small"
	// blockEntries is about the number of entries of A⁽⁰⁾'s gradient in one
	// key: 4 MB, so a 10⁵×20 gradient is 4 keys and a 10⁶×50 one 96.
	blockEntries = 1 << 19
	nScalars     = 4
)

func g0Key(block int) string { return fmt.Sprintf("g0-%06d", block) }

// blockRows is the rows of A⁽⁰⁾'s gradient in one key, for rank k.
func blockRows(k int) int { return max(1, blockEntries/max(k, 1)) }

// ShardShare computes one shard's share of a step: its slices' shares
// (neuralnmf.StepShare, or EvalShare when t.Eval) at the A's a, added in
// slice order. buf, if not nil, is reused to read the slices.
func ShardShare(ctx context.Context, t ShareTask, a []*tensor.Dense, buf *bytes.Buffer) (*neuralnmf.Share, error) {
	if buf == nil {
		buf = new(bytes.Buffer)
	}
	var sum *neuralnmf.Share
	for _, j := range t.Slices {
		if err := files.ReadInto(ctx, t.slicePath(j), buf); err != nil {
			return nil, fmt.Errorf("train: %w", err)
		}
		x, err := decodeSparse(buf.Bytes())
		if err != nil {
			return nil, fmt.Errorf("train: %s: %w", t.slicePath(j), err)
		}
		share := neuralnmf.StepShare
		if t.Eval {
			share = neuralnmf.EvalShare
		}
		sh, err := share(a, x, t.Workers)
		if err != nil {
			return nil, fmt.Errorf("train: shard %d, slice %d: %w", t.Index, j, err)
		}
		if sum == nil {
			sum = sh
		} else if err := sum.Add(sh); err != nil {
			return nil, fmt.Errorf("train: shard %d: %w", t.Index, err)
		}
	}
	if sum == nil {
		return nil, fmt.Errorf("train: shard %d: no slices", t.Index)
	}
	return sum, nil
}

// ShareVectors splits shard index's share (of shards) into the keyed
// vectors the reduce adds, in key order; the vectors of A⁽⁰⁾'s gradient
// share its memory.
func ShareVectors(sh *neuralnmf.Share, index, shards int) (keys []string, vals [][]float64) {
	small := []float64{float64(sh.Columns), sh.Loss, sh.SqErr, sh.SqNorm}
	mx := make([]float64, shards)
	mx[index] = sh.MaxEntry
	small = append(small, mx...)
	if sh.PPt != nil {
		small = append(small, sh.PPt.Data...)
		for _, g := range sh.Grads[1:] {
			small = append(small, g.Data...)
		}
		g := sh.Grads[0]
		rows := blockRows(g.Cols)
		for b := 0; b*rows < g.Rows; b++ {
			r0, r1 := b*rows, min((b+1)*rows, g.Rows)
			keys, vals = append(keys, g0Key(b)), append(vals, g.Data[r0*g.Cols:r1*g.Cols])
		}
	}
	return append(keys, keySmall), append(vals, small)
}

// assemble builds a step's total Share from its keyed totals, for A's of
// the given shapes (nil for an evaluation).
func assemble(totals map[string][]float64, shards int, a []*tensor.Dense) (*neuralnmf.Share, error) {
	small := totals[keySmall]
	want := nScalars + shards
	if a != nil {
		k := a[0].Cols
		want += k * k
		for _, al := range a[1:] {
			want += al.Len()
		}
	}
	if len(small) != want {
		return nil, fmt.Errorf("train: the step's small sums have %d values, want %d", len(small), want)
	}
	total := &neuralnmf.Share{Columns: int(small[0]), Loss: small[1], SqErr: small[2], SqNorm: small[3]}
	for _, v := range small[nScalars : nScalars+shards] {
		total.MaxEntry = max(total.MaxEntry, v)
	}
	if a == nil {
		return total, nil
	}
	rest := small[nScalars+shards:]
	take := func(m *tensor.Dense) {
		copy(m.Data, rest[:m.Len()])
		rest = rest[m.Len():]
	}
	k := a[0].Cols
	total.PPt = tensor.New(k, k)
	take(total.PPt)
	g0 := tensor.New(a[0].Rows, k)
	total.Grads = append(total.Grads, g0)
	for _, al := range a[1:] {
		g := tensor.New(al.Rows, al.Cols)
		take(g)
		total.Grads = append(total.Grads, g)
	}
	rows := blockRows(k)
	for b := 0; b*rows < g0.Rows; b++ {
		r0, r1 := b*rows, min((b+1)*rows, g0.Rows)
		v := totals[g0Key(b)]
		if len(v) != (r1-r0)*k {
			return nil, fmt.Errorf("train: the step's sum %s has %d values, want %d", g0Key(b), len(v), (r1-r0)*k)
		}
		copy(g0.Data[r0*k:], v)
	}
	if n := (g0.Rows+rows-1)/rows + 1; len(totals) != n {
		return nil, fmt.Errorf("train: the step has %d sums, want %d", len(totals), n)
	}
	return total, nil
}

func readDenses(ctx context.Context, p string) ([]*tensor.Dense, error) {
	b, err := files.Read(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	ms, err := decodeDenses(b)
	if err != nil {
		return nil, fmt.Errorf("train: %s: %w", p, err)
	}
	return ms, nil
}
