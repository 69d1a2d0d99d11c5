package train

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neuralnmf/neuralnmf/beam/internal/files"
	"github.com/neuralnmf/neuralnmf/beam/internal/sink"
	"github.com/neuralnmf/neuralnmf/tensor"
)

func init() {
	beam.RegisterType(reflect.TypeOf((*PrepareTask)(nil)).Elem())
	beam.RegisterType(reflect.TypeOf((*ShareTask)(nil)).Elem())
	beam.RegisterType(reflect.TypeOf((*Piece)(nil)).Elem())
	register.Function2x1[context.Context, PrepareTask, error](PrepareShard)
	register.DoFn3x1[context.Context, ShareTask, func(Piece), error](&shareFn{})
	register.Emitter1[Piece]()
	register.Function1x2(pieceKV)
	register.DoFn4x1[context.Context, string, func(*int) bool, func(string), error](&sumKeyFn{})
	register.Emitter1[string]()
	register.Iter1[int]()
}

// Beam is the Engine of Apache Beam: each stage is one pipeline, run by
// Run (beamx.Run for the runner Beam's flags name, or a runner's Execute).
//
// A step's pipeline has the shards as its elements. Each computes its
// shard's share (ShardShare) and writes its keyed vectors (ShareVectors)
// as pieces into the work directory; the pieces' names are grouped by key
// and each key's pieces are added in shard order (SumKey, a
// reduce-scatter) and written as the key's total, which Shares reads back.
// The vectors travel through the work directory's filesystem, not the
// runner's shuffle, which carries only their names: a step's pieces are a
// gradient of A⁽⁰⁾ from every shard (16 MB each at 10⁵ words and rank
// 20), and Prism's in-process data path moved such elements at about
// 40 MB/s here, many times the step's compute.
type Beam struct {
	Run func(ctx context.Context, p *beam.Pipeline) error
}

// Piece names one shard's vector of one key of a step, written into the
// work directory.
type Piece struct {
	Key   string
	Index int
}

func stepAName(step string) string { return "step-" + step + "-a.bin" }
func pieceName(step, key string, shard int) string {
	return fmt.Sprintf("step-%s-share-%s-%05d.bin", step, key, shard)
}
func totalName(step, key string) string { return "step-" + step + "-total-" + key + ".bin" }

// Prepare runs a pipeline of PrepareShard over tasks.
func (b Beam) Prepare(ctx context.Context, tasks []PrepareTask) error {
	p, s := beam.NewPipelineWithRoot()
	s = s.Scope("neuralnmf.prepare")
	beam.ParDo0(s, PrepareShard, beam.Reshuffle(s, beam.CreateList(s, tasks))) // one bundle per shard: see Shares
	return b.Run(ctx, p)
}

// Shares writes a, runs the step's pipeline and reads its totals back.
func (b Beam) Shares(ctx context.Context, a []*tensor.Dense, tasks []ShareTask) (map[string][]float64, error) {
	if len(tasks) == 0 {
		return nil, fmt.Errorf("train: no shards")
	}
	work, step := tasks[0].Work, tasks[0].Step
	if err := files.Write(ctx, files.Join(work, stepAName(step)), encodeDenses(a)); err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	p, s := beam.NewPipelineWithRoot()
	s = s.Scope("neuralnmf.step")
	// A runner fuses beam.CreateList's emitting DoFn with the DoFns after
	// it into one stage, run as one bundle on one worker: every shard of the
	// step would run one after another. After the Reshuffle the per-shard
	// work is a stage of its own, fed by a shuffle, that a runner spreads
	// over its workers; sumKeyFn adds the pieces in shard order, so the
	// model does not depend on how the elements are split.
	pieces := beam.ParDo(s, &shareFn{}, beam.Reshuffle(s, beam.CreateList(s, tasks)))
	grouped := beam.GroupByKey(s, beam.ParDo(s, pieceKV, pieces))
	sink.Drain(s, beam.ParDo(s, &sumKeyFn{Work: work, Step: step}, grouped))
	if err := b.Run(ctx, p); err != nil {
		return nil, err
	}
	prefix := files.Join(work, "step-"+step+"-total-")
	paths, err := files.List(ctx, prefix+"*")
	if err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	totals := map[string][]float64{}
	for _, p := range paths {
		ms, err := readDenses(ctx, p)
		if err != nil {
			return nil, err
		}
		if len(ms) != 1 || ms[0].Rows != 1 {
			return nil, fmt.Errorf("train: %s: %w", p, errFormat)
		}
		totals[strings.TrimSuffix(strings.TrimPrefix(p, prefix), ".bin")] = ms[0].Data
	}
	if err := removeGlob(ctx, stepGlob(work, step)); err != nil {
		return nil, err
	}
	return totals, nil
}

func pieceKV(p Piece) (string, int) { return p.Key, p.Index }

// shareFn runs ShardShare and writes the pieces, keeping the A's of the
// step it last read.
type shareFn struct {
	aPath string
	a     []*tensor.Dense
	in    bytes.Buffer // a slice's bytes
	out   []byte       // a piece's bytes
}

func (f *shareFn) ProcessElement(ctx context.Context, t ShareTask, emit func(Piece)) error {
	if p := files.Join(t.Work, stepAName(t.Step)); p != f.aPath {
		a, err := readDenses(ctx, p)
		if err != nil {
			return err
		}
		f.aPath, f.a = p, a
	}
	sum, err := ShardShare(ctx, t, f.a, &f.in)
	if err != nil {
		return err
	}
	keys, vals := ShareVectors(sum, t.Index, t.Shards)
	for k, key := range keys {
		m := &tensor.Dense{Rows: 1, Cols: len(vals[k]), Stride: len(vals[k]), Data: vals[k]}
		f.out = appendDenses(f.out[:0], []*tensor.Dense{m})
		if err := files.Write(ctx, files.Join(t.Work, pieceName(t.Step, key, t.Index)), f.out); err != nil {
			return fmt.Errorf("train: %w", err)
		}
		emit(Piece{Key: key, Index: t.Index})
	}
	return nil
}

// sumKeyFn runs SumKey for each key of a step.
type sumKeyFn struct {
	Work, Step string
}

func (f *sumKeyFn) ProcessElement(ctx context.Context, key string, indexes func(*int) bool, emit func(string)) error {
	var idx []int
	var i int
	for indexes(&i) {
		idx = append(idx, i)
	}
	if err := SumKey(ctx, f.Work, f.Step, key, idx); err != nil {
		return err
	}
	emit(key)
	return nil
}

// SumKey is the reduce of one key of a step in the Beam engine: it reads
// the key's pieces of the shards indexes (in any order) and adds them in
// the order of their index, as Local does: the
// first piece's values, then each next piece's added entry by entry; then
// it writes the key's total. The pieces are decoded into the sum as they
// are read.
func SumKey(ctx context.Context, work, step, key string, indexes []int) error {
	idx := slices.Clone(indexes)
	slices.Sort(idx)
	var total []float64
	var buf bytes.Buffer
	for i, index := range idx {
		if i > 0 && index == idx[i-1] {
			return fmt.Errorf("train: step %s, key %s: two pieces of shard %d", step, key, index)
		}
		p := files.Join(work, pieceName(step, key, index))
		if err := files.ReadInto(ctx, p, &buf); err != nil {
			return fmt.Errorf("train: %w", err)
		}
		var err error
		if total, err = addVector(total, buf.Bytes(), i == 0); err != nil {
			return fmt.Errorf("train: %s: %w", p, err)
		}
	}
	m := &tensor.Dense{Rows: 1, Cols: len(total), Stride: len(total), Data: total}
	if err := files.Write(ctx, files.Join(work, totalName(step, key)), encodeDenses([]*tensor.Dense{m})); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	return nil
}
