// Package train trains a Neural NMF model on sharded documents with
// Apache Beam. The algorithm is sharded mini-batch training (package
// neuralnmf: StepShare, ShardedTrainer): every shard file's documents are
// split into Steps slices, and step j of a pass takes slice j of every
// shard. A Go driver (Train) runs one pipeline per step through an Engine:
// each element is a shard, whose worker computes its slice's share of the
// step's sums (the loss, every layer's gradient, P·Pᵀ) from the current
// A's; the shares are reduced in keyed row blocks in the order of their
// shard (reduce.Ordered), so the sums do not depend on how the runner
// splits or orders the work; the driver takes the step (the HALS sweep
// of A⁽⁰⁾ and Adam's steps below it) and checkpoints the trainer after
// every step, so a killed run resumes where it stopped and ends with the
// model an uninterrupted run trains, bit for bit.
//
// Two engines run the same stages: Local, one process with no Beam
// runner (the plain single-process run of the algorithm), and Beam, a
// pipeline per stage on whatever runner Beam's flags name. They give the
// same model bit for bit (the tests compare).
//
// The work directory holds, while training runs, the shards' slices
// (about 12 bytes a nonzero), one step's A's and totals, and the
// checkpoint; every file in it is the run's own, and Clean removes them.
package train

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strings"
	"time"

	"github.com/neuralnmf/neuralnmf/beam/internal/files"
	"github.com/neuralnmf/neuralnmf/beam/reduce"
	"github.com/neuralnmf/neuralnmf/matio"
	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// DefaultSteps is Options.Steps when it is 0: the step structure chosen in
// experiments/minibatch (16 synchronous steps a pass came closest to full
// batch among the structures a cluster can afford; see docs/minibatch.md).
const DefaultSteps = 16

// Options configures Train.
type Options struct {
	// Shards are the input files (Matrix Market .mtx or .mtx.gz), features
	// × documents each, all with the same features as rows. Their order
	// is the order of the shares' sums: the same shards in the same order
	// train the same model.
	Shards []string
	// Work is the work directory. It must be empty or missing (a local
	// one is created), or hold an earlier run of the same Options, which
	// Train resumes.
	Work string
	// Steps is the number of steps a pass (0: DefaultSteps); a shard's
	// documents are split into this many slices.
	Steps int
	// Config is the model's configuration (Ranks, Seed, Epochs — the
	// passes —, Tol, Window, LR, Decay, Forget, Init), read as
	// neuralnmf.NewShardedTrainer reads it; Workers is taken from Workers
	// below.
	Config neuralnmf.Config
	// Workers bounds the goroutines of one share (0: GOMAXPROCS); shares
	// are the same for any number.
	Workers int
	// Progress, if set, is called after every step.
	Progress func(Progress)
}

// Progress is what Train reports after each step.
type Progress struct {
	Pass, Step, Steps int  // the step just taken: pass from 1, step 1..Steps
	Resumed           bool // this run started from a checkpoint
	// RelError is the relative error of the pass that just ended (NaN
	// inside a pass).
	RelError float64
	Elapsed  time.Duration // the step's time
}

// Engine runs the per-shard stages of training. Local and Beam implement
// it; both must give the same files bit for bit.
type Engine interface {
	// Prepare runs PrepareShard for every task.
	Prepare(ctx context.Context, tasks []PrepareTask) error
	// Shares runs ShardShares for every task, adds the shares per key in
	// the order of their Index (reduce.Ordered) and writes every key's
	// total with WriteTotal.
	Shares(ctx context.Context, tasks []ShareTask) error
}

// PrepareTask is one shard to split into slices.
type PrepareTask struct {
	Index       int
	Shard, Work string
	Steps       int
}

// ShareTask is one shard's part in a step: the shares of its Slices (one
// for a training step, all for the final evaluation) at the A's in the
// file APath, added in order, written into the step's totals.
type ShareTask struct {
	Index   int
	Shards  int // the number of shards (the length of the "max" key)
	Work    string
	Step    string // the step's name in file names: its number, or "final"
	Slices  []int
	Eval    bool
	Workers int
}

// File names in the work directory.
const (
	markerName     = "neuralnmf-beam-train.json"
	preparedName   = "prepared.json"
	checkpointName = "checkpoint.bin"
	// tempName is the subdirectory a command may keep Beam's temporary
	// files in (TempDir).
	tempName = "tmp"
)

// TempDir is where a command keeps the temporary files of the runs of a
// local work directory (Beam's loopback environment leaves one per job):
// inside the work directory, so that a killed run leaves nothing outside
// it and the resumed run removes them. Train ignores it.
func TempDir(work string) string { return files.Join(work, tempName) }

func sliceName(shard, slice int) string      { return fmt.Sprintf("slice-%05d-%04d.csc", shard, slice) }
func infoName(shard int) string              { return fmt.Sprintf("info-%05d.json", shard) }
func stepAName(step string) string           { return "step-" + step + "-a.bin" }
func totalName(step, key string) string      { return "step-" + step + "-total-" + key + ".bin" }
func stepGlob(work, step string) string      { return files.Join(work, "step-"+step+"-*") }
func stepNumber(n int) string                { return fmt.Sprintf("%07d", n) }
func (t ShareTask) aPath() string            { return files.Join(t.Work, stepAName(t.Step)) }
func (t ShareTask) slicePath(j int) string   { return files.Join(t.Work, sliceName(t.Index, j)) }
func (t PrepareTask) slicePath(j int) string { return files.Join(t.Work, sliceName(t.Index, j)) }

// shardInfo is what preparing a shard finds: its size.
type shardInfo struct {
	Rows, Cols, NNZ int
}

// spec is what a work directory's marker records of the Options, to
// resume only the same run.
type spec struct {
	Version      int
	Shards       []string
	Steps        int
	Ranks        []int
	Seed         uint64
	Epochs       int
	Tol          float64
	Window       int
	LR           float64
	DecayEvery   int
	DecayFactor  float64
	Forget       float64
	Init         int
	InitRestarts int
	InitIters    int
}

func specOf(opt Options) spec {
	c := opt.Config
	return spec{Version: 1, Shards: opt.Shards, Steps: opt.Steps, Ranks: c.Ranks, Seed: c.Seed, Epochs: c.Epochs, Tol: c.Tol,
		Window: c.Window, LR: c.LR, DecayEvery: c.Decay.Every, DecayFactor: c.Decay.Factor, Forget: c.Forget,
		Init: int(c.Init), InitRestarts: c.InitRestarts, InitIters: c.InitIters}
}

// PrepareShard reads the shard file t.Shard and writes its Steps slices of
// columns into the work directory (slice j: columns ⌊j·n/Steps⌋ to
// ⌊(j+1)·n/Steps⌋ − 1 of its n), and its size. It is what each element of
// the prepare stage runs.
func PrepareShard(ctx context.Context, t PrepareTask) error {
	r, err := files.Open(ctx, t.Shard)
	if err != nil {
		return fmt.Errorf("train: shard %s: %w", t.Shard, err)
	}
	defer r.Close()
	x, err := readShard(r, t.Shard)
	if err != nil {
		return err
	}
	if err := tensor.CheckSparseData(t.Shard, x); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	for j := range t.Steps {
		lo, hi := j*x.Cols/t.Steps, (j+1)*x.Cols/t.Steps
		cols := make([]int, hi-lo)
		for i := range cols {
			cols[i] = lo + i
		}
		if err := files.WriteWhole(ctx, t.slicePath(j), encodeSparse(x.SelectColumns(cols))); err != nil {
			return fmt.Errorf("train: %w", err)
		}
	}
	info, _ := json.Marshal(shardInfo{Rows: x.Rows, Cols: x.Cols, NNZ: len(x.Val)})
	if err := files.WriteWhole(ctx, files.Join(t.Work, infoName(t.Index)), info); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	return nil
}

// readShard reads a Matrix Market shard (gzipped if its name ends in .gz)
// as a sparse matrix.
func readShard(r io.Reader, name string) (*tensor.Sparse, error) {
	if strings.HasSuffix(name, ".gz") {
		z, err := gzip.NewReader(r)
		if err != nil {
			return nil, fmt.Errorf("train: %s: %w", name, err)
		}
		defer z.Close()
		r = z
	}
	m, err := matio.ReadMatrixMarket(r, name)
	if err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	if m.Sparse != nil {
		return m.Sparse, nil
	}
	return tensor.SparseFromDense(m.Dense), nil
}

// Share keys: the scalars (columns, loss, squared error, ‖X‖²), each
// shard's largest entry (one place per shard: the sum of zeros and one
// entry is exact), P·Pᵀ, blocks of rows of A⁽⁰⁾'s gradient, and the
// gradients of the smaller A's whole.
const (
	keyScalars = "scalars"
	keyMax     = "max"
	keyPPt     = "ppt"
	// blockEntries is about the number of entries of A⁽⁰⁾'s gradient in one
	// key: 512 KB, so the reduce of a 10⁵×50 gradient spreads over ~80 keys.
	blockEntries = 1 << 16
)

func gradKey(l, block int) string {
	if l == 0 {
		return fmt.Sprintf("g0-%06d", block)
	}
	return fmt.Sprintf("g%d", l)
}

// blockRows is the rows of A⁽⁰⁾'s gradient in one key, for rank k.
func blockRows(k int) int { return max(1, blockEntries/max(k, 1)) }

// ShardShares computes the shares of one shard in a step: its slices'
// shares (neuralnmf.StepShare, or EvalShare when t.Eval) at the A's of
// the step, added in slice order, split into keyed reduce.Shares of
// Index t.Index, emitted in key order. It is what each element of the
// shares stage runs. a, if not nil, are the A's already read from
// t.aPath().
func ShardShares(ctx context.Context, t ShareTask, a []*tensor.Dense, emit func(reduce.Share)) error {
	if a == nil {
		var err error
		if a, err = readDenses(ctx, t.aPath()); err != nil {
			return err
		}
	}
	var sum *neuralnmf.Share
	for _, j := range t.Slices {
		b, err := files.Read(ctx, t.slicePath(j))
		if err != nil {
			return fmt.Errorf("train: %w", err)
		}
		x, err := decodeSparse(b)
		if err != nil {
			return fmt.Errorf("train: %s: %w", t.slicePath(j), err)
		}
		share := neuralnmf.StepShare
		if t.Eval {
			share = neuralnmf.EvalShare
		}
		sh, err := share(a, x, t.Workers)
		if err != nil {
			return fmt.Errorf("train: shard %d, slice %d: %w", t.Index, j, err)
		}
		if sum == nil {
			sum = sh
		} else if err := sum.Add(sh); err != nil {
			return fmt.Errorf("train: shard %d: %w", t.Index, err)
		}
	}
	if sum == nil {
		return fmt.Errorf("train: shard %d: no slices", t.Index)
	}
	emit(reduce.Share{Key: keyScalars, Index: t.Index, Values: []float64{float64(sum.Columns), sum.Loss, sum.SqErr, sum.SqNorm}})
	mx := make([]float64, t.Shards)
	mx[t.Index] = sum.MaxEntry
	emit(reduce.Share{Key: keyMax, Index: t.Index, Values: mx})
	if t.Eval {
		return nil
	}
	for l, g := range sum.Grads {
		if l > 0 {
			emit(reduce.Share{Key: gradKey(l, 0), Index: t.Index, Values: g.Data})
			continue
		}
		rows := blockRows(g.Cols)
		for b := 0; b*rows < g.Rows; b++ {
			r0, r1 := b*rows, min((b+1)*rows, g.Rows)
			emit(reduce.Share{Key: gradKey(0, b), Index: t.Index, Values: g.Data[r0*g.Cols : r1*g.Cols]})
		}
	}
	emit(reduce.Share{Key: keyPPt, Index: t.Index, Values: sum.PPt.Data})
	return nil
}

// WriteTotal writes one key's total of step into the work directory.
func WriteTotal(ctx context.Context, work, step string, t reduce.Total) error {
	m := &tensor.Dense{Rows: 1, Cols: len(t.Values), Stride: len(t.Values), Data: t.Values}
	if err := files.WriteWhole(ctx, files.Join(work, totalName(step, t.Key)), encodeDenses([]*tensor.Dense{m})); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	return nil
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

// readTotal reads one key's total of step: n values.
func readTotal(ctx context.Context, work, step, key string, n int) ([]float64, error) {
	p := files.Join(work, totalName(step, key))
	ms, err := readDenses(ctx, p)
	if err != nil {
		return nil, err
	}
	if len(ms) != 1 || ms[0].Rows != 1 || ms[0].Cols != n {
		return nil, fmt.Errorf("train: %s: want %d values", p, n)
	}
	return ms[0].Data, nil
}

// readTotals assembles the step's total Share from its keys' files, for
// A's of the given shapes (nil for an evaluation).
func readTotals(ctx context.Context, work, step string, shards int, a []*tensor.Dense) (*neuralnmf.Share, error) {
	sc, err := readTotal(ctx, work, step, keyScalars, 4)
	if err != nil {
		return nil, err
	}
	mx, err := readTotal(ctx, work, step, keyMax, shards)
	if err != nil {
		return nil, err
	}
	total := &neuralnmf.Share{Columns: int(sc[0]), Loss: sc[1], SqErr: sc[2], SqNorm: sc[3]}
	for _, v := range mx {
		total.MaxEntry = max(total.MaxEntry, v)
	}
	if a == nil {
		return total, nil
	}
	for l, al := range a {
		g := tensor.New(al.Rows, al.Cols)
		if l > 0 {
			v, err := readTotal(ctx, work, step, gradKey(l, 0), g.Len())
			if err != nil {
				return nil, err
			}
			copy(g.Data, v)
		} else {
			rows := blockRows(g.Cols)
			for b := 0; b*rows < g.Rows; b++ {
				r0, r1 := b*rows, min((b+1)*rows, g.Rows)
				v, err := readTotal(ctx, work, step, gradKey(0, b), (r1-r0)*g.Cols)
				if err != nil {
					return nil, err
				}
				copy(g.Data[r0*g.Cols:], v)
			}
		}
		total.Grads = append(total.Grads, g)
	}
	k := a[0].Cols
	v, err := readTotal(ctx, work, step, keyPPt, k*k)
	if err != nil {
		return nil, err
	}
	total.PPt = tensor.New(k, k)
	copy(total.PPt.Data, v)
	return total, nil
}

// check validates opt and fills its defaults.
func check(opt *Options) error {
	if opt.Steps == 0 {
		opt.Steps = DefaultSteps
	}
	switch {
	case len(opt.Shards) == 0:
		return errors.New("train: no shards")
	case opt.Work == "":
		return errors.New("train: Work is empty")
	case opt.Steps < 1:
		return fmt.Errorf("train: Steps is %d, want ≥ 1 (0: %d)", opt.Steps, DefaultSteps)
	case len(opt.Config.Ranks) == 0:
		return errors.New("train: Config.Ranks is empty")
	}
	seen := map[string]bool{}
	for _, s := range opt.Shards {
		if !strings.HasSuffix(s, ".mtx") && !strings.HasSuffix(s, ".mtx.gz") {
			return fmt.Errorf("train: shard %s: want a .mtx or .mtx.gz file", s)
		}
		if seen[s] {
			return fmt.Errorf("train: shard %s is given twice", s)
		}
		seen[s] = true
	}
	return nil
}

// ErrWorkInUse is returned (wrapped) when the work directory holds files
// that are not an earlier run of the same Options.
var ErrWorkInUse = errors.New("the work directory is in use")

// openWork makes the work directory the run's: a new one gets the marker;
// one with the marker of the same spec is resumed (true).
func openWork(ctx context.Context, opt Options) (resumed bool, err error) {
	want, _ := json.Marshal(specOf(opt))
	marker := files.Join(opt.Work, markerName)
	if ok, err := files.Exists(ctx, marker); err != nil {
		return false, fmt.Errorf("train: Work: %w", err)
	} else if ok {
		got, err := files.Read(ctx, marker)
		if err != nil {
			return false, fmt.Errorf("train: Work: %w", err)
		}
		var a, b spec
		if json.Unmarshal(got, &a) != nil || json.Unmarshal(want, &b) != nil || !reflect.DeepEqual(a, b) {
			return false, fmt.Errorf("train: %w: %s holds a run of other options (shards, steps or configuration); use a new directory, or the same options to resume it", ErrWorkInUse, opt.Work)
		}
		return true, nil
	}
	existing, err := files.List(ctx, files.Join(opt.Work, "*"))
	if err != nil {
		return false, fmt.Errorf("train: Work: %w", err)
	}
	if len(existing) > 0 {
		return false, fmt.Errorf("train: %w: %s holds %d files that are not a training run's (%s, …); give an empty or new directory", ErrWorkInUse, opt.Work, len(existing), existing[0])
	}
	if err := files.WriteWhole(ctx, marker, want); err != nil {
		return false, fmt.Errorf("train: Work: %w", err)
	}
	return false, nil
}

// Train trains a model on opt.Shards with eng, checkpointing into
// opt.Work after every step and resuming from the checkpoint there if an
// earlier run of the same Options stopped. The returned model has no S
// (transform the shards for it, with package score); its History has one
// entry a pass and FinalRelError from a last pass over every shard. The
// work directory keeps its files (the final checkpoint among them) until
// Clean. It returns an error for invalid Options, a work directory in use
// (ErrWorkInUse), shards that cannot be read or differ in their rows, a
// configuration sharded training does not support, or a failed stage.
func Train(ctx context.Context, opt Options, eng Engine) (*neuralnmf.Model, error) {
	if err := check(&opt); err != nil {
		return nil, err
	}
	resumed, err := openWork(ctx, opt)
	if err != nil {
		return nil, err
	}
	info, err := prepare(ctx, opt, eng)
	if err != nil {
		return nil, err
	}
	tr, err := trainer(ctx, opt, info, resumed)
	if err != nil {
		return nil, err
	}
	shards := len(opt.Shards)
	for !tr.Done() {
		t0 := time.Now()
		n := tr.Steps()
		pass, slice := tr.Next()
		step := stepNumber(n)
		if err := runStep(ctx, opt, eng, step, tr.A(), []int{slice}, false); err != nil {
			return nil, fmt.Errorf("train: pass %d, step %d: %w", pass, slice+1, err)
		}
		total, err := readTotals(ctx, opt.Work, step, shards, tr.A())
		if err != nil {
			return nil, err
		}
		if err := tr.Step(total); err != nil {
			return nil, fmt.Errorf("train: %w", err)
		}
		b, err := tr.MarshalBinary()
		if err != nil {
			return nil, fmt.Errorf("train: %w", err)
		}
		if err := files.WriteWhole(ctx, files.Join(opt.Work, checkpointName), b); err != nil {
			return nil, fmt.Errorf("train: checkpoint: %w", err)
		}
		if err := removeGlob(ctx, stepGlob(opt.Work, step)); err != nil {
			return nil, err
		}
		if opt.Progress != nil {
			p := Progress{Pass: pass, Step: slice + 1, Steps: opt.Steps, Resumed: resumed, RelError: math.NaN(), Elapsed: time.Since(t0)}
			if slice == opt.Steps-1 {
				h := tr.History()
				p.RelError = h.RelError[len(h.RelError)-1]
			}
			opt.Progress(p)
		}
	}
	all := make([]int, opt.Steps)
	for j := range all {
		all[j] = j
	}
	if err := runStep(ctx, opt, eng, "final", tr.A(), all, true); err != nil {
		return nil, fmt.Errorf("train: the final pass: %w", err)
	}
	final, err := readTotals(ctx, opt.Work, "final", shards, nil)
	if err != nil {
		return nil, err
	}
	if err := removeGlob(ctx, stepGlob(opt.Work, "final")); err != nil {
		return nil, err
	}
	m, err := tr.Model(final)
	if err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	return m, nil
}

// runStep writes the A's of step and runs the shares stage over every
// shard's slices, after removing what a killed run of the same step left.
func runStep(ctx context.Context, opt Options, eng Engine, step string, a []*tensor.Dense, slices []int, eval bool) error {
	if err := removeGlob(ctx, stepGlob(opt.Work, step)); err != nil {
		return err
	}
	if err := files.WriteWhole(ctx, files.Join(opt.Work, stepAName(step)), encodeDenses(a)); err != nil {
		return err
	}
	tasks := make([]ShareTask, len(opt.Shards))
	for i := range tasks {
		tasks[i] = ShareTask{Index: i, Shards: len(opt.Shards), Work: opt.Work, Step: step, Slices: slices, Eval: eval, Workers: opt.Workers}
	}
	return eng.Shares(ctx, tasks)
}

// prepare splits the shards into slices, unless an earlier run did, and
// returns the shards' sizes.
func prepare(ctx context.Context, opt Options, eng Engine) ([]shardInfo, error) {
	p := files.Join(opt.Work, preparedName)
	if ok, err := files.Exists(ctx, p); err != nil {
		return nil, err
	} else if !ok {
		tasks := make([]PrepareTask, len(opt.Shards))
		for i, s := range opt.Shards {
			tasks[i] = PrepareTask{Index: i, Shard: s, Work: opt.Work, Steps: opt.Steps}
		}
		if err := eng.Prepare(ctx, tasks); err != nil {
			return nil, fmt.Errorf("train: preparing the shards: %w", err)
		}
		var info []shardInfo
		for i, s := range opt.Shards {
			b, err := files.Read(ctx, files.Join(opt.Work, infoName(i)))
			if err != nil {
				return nil, fmt.Errorf("train: %w", err)
			}
			var si shardInfo
			if err := json.Unmarshal(b, &si); err != nil {
				return nil, fmt.Errorf("train: %s: %w", infoName(i), err)
			}
			if i > 0 && si.Rows != info[0].Rows {
				return nil, fmt.Errorf("train: shard %s has %d rows, %s has %d: shards must share their features", s, si.Rows, opt.Shards[0], info[0].Rows)
			}
			info = append(info, si)
		}
		b, _ := json.Marshal(info)
		if err := files.WriteWhole(ctx, p, b); err != nil {
			return nil, fmt.Errorf("train: %w", err)
		}
	}
	b, err := files.Read(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	var info []shardInfo
	if err := json.Unmarshal(b, &info); err != nil || len(info) != len(opt.Shards) {
		return nil, fmt.Errorf("train: %s: %w", p, errFormat)
	}
	return info, nil
}

// trainer returns the checkpointed trainer, or a new one started on a
// sample: from each shard's first slice, its first ⌈StartColumns/shards⌉
// columns with an entry, in shard order.
func trainer(ctx context.Context, opt Options, info []shardInfo, resumed bool) (*neuralnmf.ShardedTrainer, error) {
	cp := files.Join(opt.Work, checkpointName)
	if resumed {
		if ok, err := files.Exists(ctx, cp); err != nil {
			return nil, err
		} else if ok {
			b, err := files.Read(ctx, cp)
			if err != nil {
				return nil, fmt.Errorf("train: %w", err)
			}
			tr, err := neuralnmf.UnmarshalShardedTrainer(b, opt.Workers)
			if err != nil {
				return nil, fmt.Errorf("train: %s: %w", cp, err)
			}
			return tr, nil
		}
	}
	cols := 0
	for _, si := range info {
		cols += si.Cols
	}
	per := (neuralnmf.StartColumns + len(opt.Shards) - 1) / len(opt.Shards)
	var parts []*tensor.Sparse
	for i := range opt.Shards {
		p := files.Join(opt.Work, sliceName(i, 0))
		b, err := files.Read(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("train: %w", err)
		}
		x, err := decodeSparse(b)
		if err != nil {
			return nil, fmt.Errorf("train: %s: %w", p, err)
		}
		var keep []int
		for j := 0; j < x.Cols && len(keep) < per; j++ {
			if x.ColPtr[j+1] > x.ColPtr[j] {
				keep = append(keep, j)
			}
		}
		parts = append(parts, x.SelectColumns(keep))
	}
	sample := tensor.ConcatColumns(parts)
	cfg := opt.Config
	cfg.Workers = opt.Workers
	tr, err := neuralnmf.NewShardedTrainer(cfg, info[0].Rows, cols, opt.Steps, sample)
	if err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	b, err := tr.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	if err := files.WriteWhole(ctx, cp, b); err != nil {
		return nil, fmt.Errorf("train: checkpoint: %w", err)
	}
	return tr, nil
}

// removeGlob removes the files glob matches.
func removeGlob(ctx context.Context, glob string) error {
	ps, err := files.List(ctx, glob)
	if err != nil {
		return fmt.Errorf("train: %w", err)
	}
	for _, p := range ps {
		if err := files.Remove(ctx, p); err != nil {
			return fmt.Errorf("train: %w", err)
		}
	}
	return nil
}

// Clean removes the files a run wrote into work (its marker, slices,
// sizes, step files, checkpoint, and partial writes of any), nothing else.
func Clean(ctx context.Context, work string) error {
	for _, g := range []string{"slice-*", "info-*", "step-*", checkpointName + "*", preparedName + "*", markerName + "*"} {
		if err := removeGlob(ctx, files.Join(work, g)); err != nil {
			return err
		}
	}
	return nil
}

// Local is the Engine of one process: the stages' elements one after
// another, the shares reduced with reduce.LocalOrdered.
type Local struct{}

// Prepare runs PrepareShard for each task in turn.
func (Local) Prepare(ctx context.Context, tasks []PrepareTask) error {
	for _, t := range tasks {
		if err := PrepareShard(ctx, t); err != nil {
			return err
		}
	}
	return nil
}

// Shares runs ShardShares for each task in turn, reduces and writes.
func (Local) Shares(ctx context.Context, tasks []ShareTask) error {
	if len(tasks) == 0 {
		return nil
	}
	a, err := readDenses(ctx, tasks[0].aPath())
	if err != nil {
		return err
	}
	var shares []reduce.Share
	for _, t := range tasks {
		if err := ShardShares(ctx, t, a, func(s reduce.Share) { shares = append(shares, s) }); err != nil {
			return err
		}
	}
	totals, err := reduce.LocalOrdered(shares)
	if err != nil {
		return err
	}
	for _, t := range totals {
		if err := WriteTotal(ctx, tasks[0].Work, tasks[0].Step, t); err != nil {
			return err
		}
	}
	return nil
}
