package train

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"slices"
	"strconv"
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
	beam.RegisterType(reflect.TypeOf((*PassTask)(nil)).Elem())
	beam.RegisterType(reflect.TypeOf((*Piece)(nil)).Elem())
	register.Function3x1[context.Context, PrepareTask, func(string), error](prepareFn)
	register.DoFn2x0[string, func(ShareTask)](&tasksFn{})
	register.Emitter1[ShareTask]()
	register.DoFn3x1[context.Context, ShareTask, func(Piece), error](&shareFn{})
	register.Emitter1[Piece]()
	register.Function1x2(groupKV)
	register.DoFn4x1[context.Context, string, func(*Piece) bool, func(Piece), error](&sumGroupFn{})
	register.Iter1[Piece]()
	register.Function1x1(pieceKey)
	register.Function1x2(updateKV)
	register.DoFn4x1[context.Context, string, func(*string) bool, func(string), error](&updateFn{})
	register.Emitter1[string]()
	register.Iter1[string]()
}

// Metrics of the Beam engine's stages, for measuring how the exchange
// grows with the shards: the bytes each shard writes a step, and the
// bytes each element of the reduce reads.
var (
	shareBytes  = beam.NewDistribution("neuralnmf", "share_bytes_written")
	reduceBytes = beam.NewDistribution("neuralnmf", "reduce_bytes_read")
	updateBytes = beam.NewDistribution("neuralnmf", "update_bytes_read")
)

// Beam is the Engine of Apache Beam: the shards are split by one
// pipeline, each pass of steps is one pipeline, and so is the final
// evaluation; Run runs each (beamx.Run for the runner Beam's flags name, or
// a runner's Execute).
//
// In a pass's pipeline every step is a chain of stages. The shards' tasks
// of step n are emitted when step n's A's are written; every shard (one
// element each, reshuffled so that a runner spreads them) computes its
// share (ShardShare) and writes its keyed vectors (ShareVectors) as pieces
// into the work directory; the pieces of each key are added up a tree of
// fan-in FanIn, each node an element that adds its children in index order
// (FanIn's order); then one element takes the step from the totals
// (Update), writing the checkpoint after it and the next step's A's, and
// emits the token that starts the next step. So a pass is one job, and
// the model does not depend on how a runner splits, orders or retries the
// work. The vectors travel through the work directory's filesystem, not
// the runner's shuffle, which carries only their names: a step's pieces
// are a gradient of A⁽⁰⁾ from every shard (16 MB each at 10⁵ words and
// rank 20), and Prism's in-process data path moved such elements at about
// 40 MB/s here, many times the step's compute.
type Beam struct {
	Run func(ctx context.Context, p *beam.Pipeline) error
}

// Piece names one vector of one key of a step in the work directory: at
// level 0 the share of shard Index, above it the partial sum of node
// Index of its level.
type Piece struct {
	Key   string
	Index int
}

func stepAName(step string) string { return "step-" + step + "-a.bin" }
func pieceName(step, key string, shard int) string {
	return fmt.Sprintf("step-%s-share-%s-%05d.bin", step, key, shard)
}
func partName(step string, level int, key string, node int) string {
	return fmt.Sprintf("step-%s-part%d-%s-%05d.bin", step, level, key, node)
}
func totalName(step, key string) string { return "step-" + step + "-total-" + key + ".bin" }

// Prepare runs a pipeline of PrepareShard over tasks.
func (b Beam) Prepare(ctx context.Context, tasks []PrepareTask) error {
	p, s := beam.NewPipelineWithRoot()
	s = s.Scope("neuralnmf.prepare")
	// A runner fuses beam.CreateList's emitting DoFn with the DoFns after
	// it into one stage, run as one bundle on one worker: every shard would
	// be split one after another. After the Reshuffle the per-shard work is
	// a stage of its own, fed by a shuffle, that a runner spreads over its
	// workers.
	// The stage emits the shard's name into sink.Drain: Prism polls a core
	// for as long as a stage without outputs runs.
	sink.Drain(s, beam.ParDo(s, prepareFn, beam.Reshuffle(s, beam.CreateList(s, tasks))))
	return b.Run(ctx, p)
}

// prepareFn runs PrepareShard and emits the shard's name.
func prepareFn(ctx context.Context, t PrepareTask, emit func(string)) error {
	if err := PrepareShard(ctx, t); err != nil {
		return err
	}
	emit(t.Shard)
	return nil
}

// Pass runs the steps of p as one pipeline: step First's A's must be in
// the work directory (stepAName), and the checkpoint after First steps.
func (b Beam) Pass(ctx context.Context, p PassTask) (jobs int, err error) {
	pl, s := beam.NewPipelineWithRoot()
	s = s.Scope("neuralnmf.pass")
	token := beam.Create(s, stepNumber(p.First))
	for i := range p.Count {
		n := p.First + i
		ss := s.Scope("step-" + strconv.Itoa(i+1))
		// The step's tasks are emitted by the token of its A's, and
		// reshuffled so that the shards run as bundles of their own.
		tasks := beam.Reshuffle(ss, beam.ParDo(ss, &tasksFn{P: p}, token))
		totals := reduce(ss, p.Work, stepNumber(n), p.Shards, beam.ParDo(ss, &shareFn{}, tasks))
		token = beam.ParDo(ss, &updateFn{P: p, N: n}, beam.GroupByKey(ss, beam.ParDo(ss, updateKV, totals)))
	}
	sink.Drain(s, token)
	return 1, b.Run(ctx, pl)
}

// Shares writes a, runs one pipeline of the shares of tasks (one step, or
// the final evaluation) and their sums, and reads the totals back.
func (b Beam) Shares(ctx context.Context, a []*tensor.Dense, tasks []ShareTask) (map[string][]float64, error) {
	if len(tasks) == 0 {
		return nil, fmt.Errorf("train: no shards")
	}
	work, step := tasks[0].Work, tasks[0].Step
	if err := files.Write(ctx, files.Join(work, stepAName(step)), encodeDenses(a)); err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	p, s := beam.NewPipelineWithRoot()
	s = s.Scope("neuralnmf.shares")
	pieces := beam.ParDo(s, &shareFn{}, beam.Reshuffle(s, beam.CreateList(s, tasks))) // one bundle per shard: see Prepare
	sink.Drain(s, reduce(s, work, step, len(tasks), pieces))
	if err := b.Run(ctx, p); err != nil {
		return nil, err
	}
	totals, _, err := readTotals(ctx, work, step)
	if err != nil {
		return nil, err
	}
	if err := removeGlob(ctx, stepGlob(work, step)); err != nil {
		return nil, err
	}
	return totals, nil
}

// readTotals reads the keyed totals of step from the work directory, and
// says how many bytes it read.
func readTotals(ctx context.Context, work, step string) (map[string][]float64, int, error) {
	prefix := files.Join(work, "step-"+step+"-total-")
	paths, err := files.List(ctx, prefix+"*")
	if err != nil {
		return nil, 0, fmt.Errorf("train: %w", err)
	}
	totals := map[string][]float64{}
	read := 0
	for _, p := range paths {
		ms, err := readDenses(ctx, p)
		if err != nil {
			return nil, 0, err
		}
		if len(ms) != 1 || ms[0].Rows != 1 {
			return nil, 0, fmt.Errorf("train: %s: %w", p, errFormat)
		}
		totals[strings.TrimSuffix(strings.TrimPrefix(p, prefix), ".bin")] = ms[0].Data
		read += 32 + 8*len(ms[0].Data) // encodeDenses of one row
	}
	return totals, read, nil
}

// reduce adds the pieces (one per shard and key) of step up the tree of
// FanIn, one GroupByKey a level, and returns the keys whose totals are
// written.
func reduce(s beam.Scope, work, step string, shards int, pieces beam.PCollection) beam.PCollection {
	sizes := treeSizes(shards)
	cur := pieces
	for l := 1; l < len(sizes); l++ {
		cur = beam.ParDo(s, &sumGroupFn{Work: work, Step: step, Level: l, Items: sizes[l-1], Top: l == len(sizes)-1},
			beam.GroupByKey(s, beam.ParDo(s, groupKV, cur)))
	}
	return beam.ParDo(s, pieceKey, cur)
}

// groupKV keys a piece by its key and its parent node in the tree.
func groupKV(p Piece) (string, Piece) { return p.Key + "/" + strconv.Itoa(p.Index/FanIn), p }
func pieceKey(p Piece) string         { return p.Key }
func updateKV(key string) (string, string) {
	return "update", key
}

// tasksFn emits the shards' tasks of the step its token names.
type tasksFn struct{ P PassTask }

func (f *tasksFn) ProcessElement(step string, emit func(ShareTask)) {
	n, err := strconv.Atoi(step)
	if err != nil {
		panic(fmt.Sprintf("train: a step token %q", step)) // the pipeline's own tokens
	}
	for _, t := range f.P.tasks(n) {
		emit(t)
	}
}

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
	written := 0
	for k, key := range keys {
		m := &tensor.Dense{Rows: 1, Cols: len(vals[k]), Stride: len(vals[k]), Data: vals[k]}
		f.out = appendDenses(f.out[:0], []*tensor.Dense{m})
		if err := files.Write(ctx, files.Join(t.Work, pieceName(t.Step, key, t.Index)), f.out); err != nil {
			return fmt.Errorf("train: %w", err)
		}
		written += len(f.out)
		emit(Piece{Key: key, Index: t.Index})
	}
	shareBytes.Update(ctx, int64(written))
	return nil
}

// sumGroupFn adds one node's children of one key (the pieces of up to
// FanIn shards at level 1, the partial sums of up to FanIn nodes above)
// in index order, and writes the node's sum (the key's total at the top).
type sumGroupFn struct {
	Work, Step string
	Level      int  // from 1
	Items      int  // the number of the level's children (below it)
	Top        bool // the level of the totals
}

func (f *sumGroupFn) ProcessElement(ctx context.Context, group string, pieces func(*Piece) bool, emit func(Piece)) error {
	var key string
	var idx []int
	var p Piece
	for pieces(&p) {
		key = p.Key
		idx = append(idx, p.Index)
	}
	slices.Sort(idx)
	node := idx[0] / FanIn
	lo, hi := node*FanIn, min((node+1)*FanIn, f.Items)
	ok := len(idx) == hi-lo
	for i := 0; ok && i < len(idx); i++ {
		ok = idx[i] == lo+i
	}
	if !ok {
		return fmt.Errorf("train: step %s, key %s, level %d: node %d has children %v, want %d to %d once each", f.Step, key, f.Level, node, idx, lo, hi-1)
	}
	var total []float64
	var buf bytes.Buffer
	read := 0
	for i, index := range idx {
		name := pieceName(f.Step, key, index)
		if f.Level > 1 {
			name = partName(f.Step, f.Level-1, key, index)
		}
		p := files.Join(f.Work, name)
		if err := files.ReadInto(ctx, p, &buf); err != nil {
			return fmt.Errorf("train: %w", err)
		}
		read += buf.Len()
		var err error
		if total, err = addVector(total, buf.Bytes(), i == 0); err != nil {
			return fmt.Errorf("train: %s: %w", p, err)
		}
	}
	reduceBytes.Update(ctx, int64(read))
	name := partName(f.Step, f.Level, key, node)
	if f.Top {
		name = totalName(f.Step, key)
	}
	m := &tensor.Dense{Rows: 1, Cols: len(total), Stride: len(total), Data: total}
	if err := files.Write(ctx, files.Join(f.Work, name), encodeDenses([]*tensor.Dense{m})); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	emit(Piece{Key: key, Index: node})
	return nil
}

// updateFn takes step N from its totals once every key's is written, and
// emits the token of the next step.
type updateFn struct {
	P PassTask
	N int
}

func (f *updateFn) ProcessElement(ctx context.Context, _ string, keys func(*string) bool, emit func(string)) error {
	var k string
	count := 0
	for keys(&k) {
		count++
	}
	totals, read, err := readTotals(ctx, f.P.Work, stepNumber(f.N))
	if err != nil {
		return err
	}
	updateBytes.Update(ctx, int64(read))
	if len(totals) != count {
		return fmt.Errorf("train: step %d: %d totals written, %d in the work directory", f.N, count, len(totals))
	}
	if err := Update(ctx, f.P, f.N, totals); err != nil {
		return err
	}
	emit(stepNumber(f.N + 1))
	return nil
}
