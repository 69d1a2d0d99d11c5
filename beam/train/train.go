// Package train trains a Neural NMF model on sharded documents with
// Apache Beam. The algorithm is sharded mini-batch training (package
// neuralnmf: StepShare, ShardedTrainer): every shard file's documents are
// split into Steps slices, and step j of a pass takes slice j of every
// shard. A Go driver (Train) runs each pass through an Engine: in every
// step each shard computes its slice's share of the step's sums (the
// loss, every layer's gradient, P·Pᵀ) from the current A's; the shares
// are added per key (the scalars, blocks of rows of A⁽⁰⁾'s gradient) up a
// tree of fan-in FanIn in the order of their shards, so the sums do not
// depend on how a runner splits or orders the work; the step (the HALS
// sweep of A⁽⁰⁾ and Adam's steps below it) is taken from the totals and
// the trainer checkpointed after every step, so a killed run resumes where
// it stopped and ends with the model an uninterrupted run trains, bit for
// bit.
//
// Two engines run the same stages: Local, one process with no Beam runner
// (the plain single-process run of the algorithm), and Beam, one pipeline
// a pass (its steps chained inside it) on whatever runner Beam's flags
// name. They give the same model bit for bit (the tests compare).
//
// The work directory holds, while training runs, the shards' slices
// (about 12 bytes a nonzero), one step's files (the Beam engine's A's,
// pieces, partial sums and totals) and the checkpoint; every file in it is
// the run's own, and Clean removes them.
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
	"path"
	"strconv"
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

// Progress is what Train reports after each pass, or part of a pass that
// a resumed run finishes.
type Progress struct {
	Pass     int  // the pass, from 1
	First    int  // the first step of the pass this run took (1 unless resumed mid-pass)
	Step     int  // the last step taken (Steps: the pass is complete)
	Steps    int  // steps a pass
	Jobs     int  // pipeline jobs the steps took (0 for Local)
	Resumed  bool // this run started from a checkpoint
	RelError float64
	Elapsed  time.Duration // the steps' time
}

// Engine runs the per-shard stages of training. Local and Beam implement
// it; both must give the same bits.
type Engine interface {
	// Prepare runs PrepareShard for every task.
	Prepare(ctx context.Context, tasks []PrepareTask) error
	// Pass takes the steps of p in order, each from the work directory's
	// checkpoint before it: every shard's ShardShare at the step's A's
	// (stepAName, the first written by Train, the others by Update), their
	// keyed vectors added up FanIn's tree, and Update. It returns the
	// number of pipeline jobs it ran.
	Pass(ctx context.Context, p PassTask) (jobs int, err error)
	// Shares computes every task's ShardShare at the A's a and returns
	// the keyed totals: for each key of ShareVectors, the tasks' vectors
	// added up FanIn's tree (the tasks are in Index order). Train uses it
	// for the final evaluation.
	Shares(ctx context.Context, a []*tensor.Dense, tasks []ShareTask) (map[string][]float64, error)
}

// PassTask is the steps First … First+Count−1 of a run (numbered from 0
// over all passes), all of one pass.
type PassTask struct {
	Work                   string
	Shards, Steps, Workers int
	First, Count           int
}

// tasks returns the shards' tasks of step n.
func (p PassTask) tasks(n int) []ShareTask {
	t := make([]ShareTask, p.Shards)
	for i := range t {
		t[i] = ShareTask{Index: i, Shards: p.Shards, Work: p.Work, Step: stepNumber(n), Slices: []int{n % p.Steps}, Workers: p.Workers}
	}
	return t
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
	markerName   = "neuralnmf-beam-train.json"
	preparedName = "prepared.json"
	// checkpointPrefix names the checkpoints: checkpoint-NNNNNNN.bin holds
	// the trainer after N steps.
	checkpointPrefix = "checkpoint-"
	lockName         = "lock"
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
func checkpointName(n int) string            { return checkpointPrefix + stepNumber(n) + ".bin" }
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
// earlier run of the same Options stopped. Each pass (or the rest of a
// pass a resumed run finishes) is one call of eng.Pass. The returned model
// has no S (transform the shards for it, with package score); its History
// has one entry a pass and FinalRelError from a last pass over every
// shard. The work directory keeps its files (the final checkpoint among
// them) until Clean. It returns an error for invalid Options, a work
// directory in use (ErrWorkInUse), shards that cannot be read or differ
// in their rows, a configuration sharded training does not support, or a
// failed stage.
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
		p := PassTask{Work: opt.Work, Shards: len(opt.Shards), Steps: opt.Steps, Workers: opt.Workers, First: n, Count: opt.Steps - slice}
		// A stopped run's step files are of steps to redo.
		if err := removeGlob(ctx, files.Join(opt.Work, "step-*")); err != nil {
			return nil, err
		}
		if err := files.Write(ctx, files.Join(opt.Work, stepAName(stepNumber(n))), encodeDenses(tr.A())); err != nil {
			return nil, fmt.Errorf("train: %w", err)
		}
		jobs, err := eng.Pass(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("train: pass %d: %w", pass, err)
		}
		if tr, err = restore(ctx, opt.Work, opt.Workers, n+p.Count); err != nil {
			return nil, err
		}
		if opt.Progress != nil {
			h := tr.History()
			opt.Progress(Progress{Pass: pass, First: slice + 1, Step: opt.Steps, Steps: opt.Steps, Jobs: jobs, Resumed: resumed,
				RelError: h.RelError[len(h.RelError)-1], Elapsed: time.Since(t0)})
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

// Update takes step n of p's run from its keyed totals: it restores the
// trainer from the checkpoint after n steps, takes the step (advance),
// writes the next step's A's unless training has stopped, and removes the
// step's files. The Beam engine runs it inside the pass's pipeline.
func Update(ctx context.Context, p PassTask, n int, totals map[string][]float64) error {
	tr, err := restore(ctx, p.Work, p.Workers, n)
	if err != nil {
		return err
	}
	if err := advance(ctx, p, n, tr, totals); err != nil {
		return err
	}
	if !tr.Done() {
		if err := files.Write(ctx, files.Join(p.Work, stepAName(stepNumber(n+1))), encodeDenses(tr.A())); err != nil {
			return fmt.Errorf("train: %w", err)
		}
	}
	return removeGlob(ctx, stepGlob(p.Work, stepNumber(n)))
}

// advance takes step n with tr (after n steps) from the step's keyed
// totals, writes the checkpoint after it and removes the one before.
func advance(ctx context.Context, p PassTask, n int, tr *neuralnmf.ShardedTrainer, totals map[string][]float64) error {
	total, err := assemble(totals, p.Shards, tr.A())
	if err != nil {
		return err
	}
	if err := tr.Step(total); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	b, err := tr.MarshalBinary()
	if err != nil {
		return fmt.Errorf("train: %w", err)
	}
	if err := files.WriteWhole(ctx, files.Join(p.Work, checkpointName(n+1)), b); err != nil {
		return fmt.Errorf("train: checkpoint: %w", err)
	}
	return files.Remove(ctx, files.Join(p.Work, checkpointName(n)))
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

// restore restores the trainer checkpointed in work after n steps.
func restore(ctx context.Context, work string, workers, n int) (*neuralnmf.ShardedTrainer, error) {
	cp := files.Join(work, checkpointName(n))
	b, err := files.Read(ctx, cp)
	if err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	tr, err := neuralnmf.UnmarshalShardedTrainer(b, workers)
	if err != nil {
		return nil, fmt.Errorf("train: %s: %w", cp, err)
	}
	if tr.Steps() != n {
		return nil, fmt.Errorf("train: %s holds the trainer after %d steps, not %d", cp, tr.Steps(), n)
	}
	return tr, nil
}

// latestCheckpoint returns the number of steps of the last checkpoint in
// the work directory (−1 if none), after removing any older ones (a
// stopped step's Update may leave two).
func latestCheckpoint(ctx context.Context, work string) (int, error) {
	paths, err := files.List(ctx, files.Join(work, checkpointPrefix+"*.bin"))
	if err != nil {
		return 0, fmt.Errorf("train: %w", err)
	}
	latest := -1
	var ns []int
	for _, p := range paths {
		name := path.Base(p)
		n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(name, checkpointPrefix), ".bin"))
		if err != nil || checkpointName(n) != name {
			continue // a temporary file of an interrupted write
		}
		ns = append(ns, n)
		latest = max(latest, n)
	}
	for _, n := range ns {
		if n < latest {
			if err := files.Remove(ctx, files.Join(work, checkpointName(n))); err != nil {
				return 0, fmt.Errorf("train: %w", err)
			}
		}
	}
	return latest, nil
}

// trainer returns the checkpointed trainer, or a new one started on a
// sample: from each shard's first slice, its first ⌈StartColumns/shards⌉
// columns with an entry, in shard order.
func trainer(ctx context.Context, opt Options, info []shardInfo, resumed bool) (*neuralnmf.ShardedTrainer, error) {
	if resumed {
		n, err := latestCheckpoint(ctx, opt.Work)
		if err != nil {
			return nil, err
		}
		if n >= 0 {
			return restore(ctx, opt.Work, opt.Workers, n)
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
	if err := files.WriteWhole(ctx, files.Join(opt.Work, checkpointName(0)), b); err != nil {
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

// Pass takes p's steps one after another with the trainer in memory (as
// one machine trains): each step's shares in turn, added up FanIn's tree,
// then the step and its checkpoint (advance).
func (l Local) Pass(ctx context.Context, p PassTask) (int, error) {
	tr, err := restore(ctx, p.Work, p.Workers, p.First)
	if err != nil {
		return 0, err
	}
	for n := p.First; n < p.First+p.Count; n++ {
		totals, err := l.Shares(ctx, tr.A(), p.tasks(n))
		if err != nil {
			return 0, err
		}
		if err := advance(ctx, p, n, tr, totals); err != nil {
			return 0, err
		}
	}
	return 0, nil
}

// Shares computes each task's ShardShare in turn and adds their vectors
// key by key up FanIn's tree (the tasks are in Index order), in memory.
func (Local) Shares(ctx context.Context, a []*tensor.Dense, tasks []ShareTask) (map[string][]float64, error) {
	trees := map[string]*treeSum{}
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
			tr, ok := trees[key]
			if !ok {
				tr = newTreeSum(len(tasks))
				trees[key] = tr
			}
			if err := tr.add(vals[k]); err != nil {
				return nil, fmt.Errorf("train: key %s: %w", key, err)
			}
		}
	}
	totals := map[string][]float64{}
	for key, tr := range trees {
		v, err := tr.total()
		if err != nil {
			return nil, fmt.Errorf("train: key %s: %w", key, err)
		}
		totals[key] = v
	}
	return totals, nil
}
