// Package train trains a Neural NMF model on sharded documents with
// Apache Beam. The algorithm is sharded mini-batch training (package
// neuralnmf: StepShare, ShardedTrainer): every shard file's documents are
// split into Steps slices, and step j of a pass takes slice j of every
// shard. A Go driver (Train) runs each step through an Engine: every shard
// computes its slice's share of the step's sums (the loss, every layer's
// gradient, P·Pᵀ) from the current A's; the shares are added per key (the
// scalars, blocks of rows of A⁽⁰⁾'s gradient) in the order of their shard,
// so the sums do not depend on how a runner splits or orders the work;
// the driver takes the step (the HALS sweep of A⁽⁰⁾ and Adam's steps
// below it) and checkpoints the trainer after every step, so a killed run
// resumes where it stopped and ends with the model an uninterrupted run
// trains, bit for bit.
//
// Two engines run the same stages: Local, one process with no Beam runner
// (the plain single-process run of the algorithm), and Beam, a pipeline
// per stage on whatever runner Beam's flags name. They give the same
// model bit for bit (the tests compare).
//
// The work directory holds, while training runs, the shards' slices
// (about 12 bytes a nonzero), one step's files (the Beam engine's A's,
// pieces and totals) and the checkpoint; every file in it is the run's
// own, and Clean removes them.
package train

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/neuralnmf/neuralnmf/beam/internal/files"
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
	// neuralnmf.NewShardedTrainer reads it: LR, Decay and Forget left zero
	// are sharded training's defaults (neuralnmf.DefaultShardedLR,
	// constant, neuralnmf.DefaultShardedForget), chosen for 16 steps a
	// pass. Workers is taken from Workers below.
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
// it; both must give the same bits.
type Engine interface {
	// Prepare runs PrepareShard for every task.
	Prepare(ctx context.Context, tasks []PrepareTask) error
	// Shares computes every task's ShardShare at the A's a and returns
	// the keyed totals: for each key of ShareVectors, the tasks' vectors
	// added in float64 in the order of their Index, starting from a copy
	// of the first.
	Shares(ctx context.Context, a []*tensor.Dense, tasks []ShareTask) (map[string][]float64, error)
}

// PrepareTask is one shard to split into slices.
type PrepareTask struct {
	Index       int
	Shard, Work string
	Steps       int
}

// ShareTask is one shard's part in a step: the shares of its Slices (one
// for a training step, all for the final evaluation), added in order.
// Work and Step (the step's name in file names: its number, or "final")
// name the files an engine keeps the step's pieces in.
type ShareTask struct {
	Index   int
	Shards  int // the number of shards (ShareVectors' layout depends on it)
	Work    string
	Step    string
	Slices  []int
	Eval    bool
	Workers int
}

// File names in the work directory.
const (
	markerName     = "neuralnmf-beam-train.json"
	preparedName   = "prepared.json"
	checkpointName = "checkpoint.bin"
	lockName       = "lock"
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
func stepGlob(work, step string) string      { return files.Join(work, "step-"+step+"-*") }
func stepNumber(n int) string                { return fmt.Sprintf("%07d", n) }
func (t ShareTask) slicePath(j int) string   { return files.Join(t.Work, sliceName(t.Index, j)) }
func (t PrepareTask) slicePath(j int) string { return files.Join(t.Work, sliceName(t.Index, j)) }

// PrepareShard reads the shard file t.Shard and writes its Steps slices of
// columns into the work directory (slice j: columns ⌊j·n/Steps⌋ to
// ⌊(j+1)·n/Steps⌋ − 1 of its n), and its size. It is what each element of
// the prepare stage runs.
func PrepareShard(ctx context.Context, t PrepareTask) error {
	size, mod, err := fileStamp(ctx, t.Shard)
	if err != nil {
		return fmt.Errorf("train: shard %s: %w", t.Shard, err)
	}
	r, err := files.Open(ctx, t.Shard)
	if err != nil {
		return fmt.Errorf("train: shard %s: %w", t.Shard, err)
	}
	defer r.Close()
	h := sha256.New()
	m, err := files.DecodeMatrix(io.TeeReader(r, h), t.Shard)
	if err != nil {
		return fmt.Errorf("%strain: %w", files.InputError, err)
	}
	if _, err := io.Copy(h, r); err != nil { // the bytes after the last entry, if any
		return fmt.Errorf("train: shard %s: %w", t.Shard, err)
	}
	if err := matio.CheckNonnegative(t.Shard, m); err != nil {
		return fmt.Errorf("%strain: %w", files.InputError, err)
	}
	x := m.Sparse
	if x == nil {
		x = tensor.SparseFromDense(m.Dense)
	}
	if err := tensor.CheckSparseData(t.Shard, x); err != nil {
		return fmt.Errorf("%strain: %w", files.InputError, err)
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
	info, _ := json.Marshal(shardInfo{Rows: x.Rows, Cols: x.Cols, NNZ: len(x.Val), Bytes: size, ModTime: mod, SHA256: hex.EncodeToString(h.Sum(nil))})
	if err := files.WriteWhole(ctx, files.Join(t.Work, infoName(t.Index)), info); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	return nil
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
	for !tr.Done() {
		t0 := time.Now()
		n := tr.Steps()
		pass, slice := tr.Next()
		step := stepNumber(n)
		total, err := runStep(ctx, opt, eng, step, tr.A(), []int{slice}, false)
		if err != nil {
			return nil, fmt.Errorf("train: pass %d, step %d: %w", pass, slice+1, err)
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
	final, err := runStep(ctx, opt, eng, "final", tr.A(), all, true)
	if err != nil {
		return nil, fmt.Errorf("train: the final pass: %w", err)
	}
	m, err := tr.Model(final)
	if err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	return m, nil
}

// runStep runs the shares stage of step over every shard's slices, after
// removing the files a killed run of the same step may have left, and
// returns the step's total.
func runStep(ctx context.Context, opt Options, eng Engine, step string, a []*tensor.Dense, slices []int, eval bool) (*neuralnmf.Share, error) {
	if err := removeGlob(ctx, stepGlob(opt.Work, step)); err != nil {
		return nil, err
	}
	tasks := make([]ShareTask, len(opt.Shards))
	for i := range tasks {
		tasks[i] = ShareTask{Index: i, Shards: len(opt.Shards), Work: opt.Work, Step: step, Slices: slices, Eval: eval, Workers: opt.Workers}
	}
	totals, err := eng.Shares(ctx, a, tasks)
	if err != nil {
		return nil, err
	}
	if eval {
		a = nil
	}
	return assemble(totals, len(opt.Shards), a)
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

// Local is the Engine of one process: the stages' elements one after
// another, each step's shares added in memory in shard order. It is the
// plain single-process run of the algorithm.
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

// Shares computes each task's ShardShare in turn and adds their vectors
// key by key in task order (the tasks are in Index order), in memory.
func (Local) Shares(ctx context.Context, a []*tensor.Dense, tasks []ShareTask) (map[string][]float64, error) {
	totals := map[string][]float64{}
	var buf bytes.Buffer
	for i, t := range tasks {
		if t.Index != i {
			return nil, fmt.Errorf("train: task %d has index %d; want the tasks in index order", i, t.Index)
		}
		sum, err := ShardShare(ctx, t, a, &buf)
		if err != nil {
			return nil, err
		}
		keys, vals := ShareVectors(sum, t.Index, t.Shards)
		for k, key := range keys {
			tot, ok := totals[key]
			switch {
			case !ok:
				totals[key] = append([]float64(nil), vals[k]...)
			case len(tot) != len(vals[k]):
				return nil, fmt.Errorf("train: key %s: a share of %d values for a sum of %d", key, len(vals[k]), len(tot))
			default:
				for j, v := range vals[k] {
					tot[j] += v
				}
			}
		}
	}
	return totals, nil
}
