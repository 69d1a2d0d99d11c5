package neuralnmf

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/neuralnmf/neuralnmf/autograd"
	"github.com/neuralnmf/neuralnmf/optim"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// Share is one part of a sharded step's sums, from some of the step's
// columns: Add adds another part into it. Its matrices belong to it.
type Share struct {
	// Columns is the number of columns summed.
	Columns int
	// Loss is the loss over the columns, ‖X_b − A⁽⁰⁾⋯A⁽ᴸ⁾S_b‖², at the
	// A's of the step; SqErr is the same squared error as the fused loss
	// reports it (clamped at 0 when read); SqNorm is ‖X_b‖².
	Loss, SqErr, SqNorm float64
	// MaxEntry is the largest entry of X_b.
	MaxEntry float64
	// Grads[l] is ∂Loss/∂A⁽ˡ⁾ (A⁽ˡ⁾'s shape); nil in an EvalShare.
	Grads []*tensor.Dense
	// PPt is P·Pᵀ (k⁽⁰⁾×k⁽⁰⁾), P = A⁽¹⁾⋯A⁽ᴸ⁾S⁽ᴸ⁾_b the matrix A⁽⁰⁾
	// multiplies; nil in an EvalShare.
	PPt *tensor.Dense
}

// StepShare computes the share of the columns x (N×B, CSC) in a sharded
// step at the A's a (not changed): the forward pass through every NNLS
// layer, the loss and its gradients. workers bounds the goroutines (0:
// GOMAXPROCS); the share is the same for any number. An x without
// columns gives a zero share. It returns an error if x does not have A⁽⁰⁾'s
// rows, has a negative, non-finite or huge (above MaxScale) entry, or if
// the forward or backward pass fails (for example a non-finite A).
func StepShare(a []*tensor.Dense, x *tensor.Sparse, workers int) (*Share, error) {
	return share(a, x, workers, true)
}

// EvalShare is StepShare without the gradients: Loss, SqErr, SqNorm and
// MaxEntry of x at a, the forward pass alone.
func EvalShare(a []*tensor.Dense, x *tensor.Sparse, workers int) (*Share, error) {
	return share(a, x, workers, false)
}

func share(a []*tensor.Dense, x *tensor.Sparse, workers int, grads bool) (*Share, error) {
	if err := checkShareA(a); err != nil {
		return nil, err
	}
	if x == nil {
		return nil, fmt.Errorf("neuralnmf: StepShare: x is nil")
	}
	if x.Rows != a[0].Rows {
		return nil, fmt.Errorf("neuralnmf: StepShare: %w: x has %d rows, A⁽⁰⁾ has %d", tensor.ErrShape, x.Rows, a[0].Rows)
	}
	sh := &Share{Columns: x.Cols}
	if grads {
		for _, al := range a {
			sh.Grads = append(sh.Grads, tensor.New(al.Rows, al.Cols))
		}
		sh.PPt = tensor.New(a[0].Cols, a[0].Cols)
	}
	if x.Cols == 0 {
		return sh, nil
	}
	if err := tensor.CheckSparseData("x", x); err != nil {
		return nil, fmt.Errorf("neuralnmf: StepShare: %w", err)
	}
	d := data{sparse: x}
	sh.MaxEntry = maxEntry(d)
	if sh.MaxEntry > MaxScale {
		return nil, fmt.Errorf("%w (column %d of x)", checkScale(sh.MaxEntry), d.columnOf(sh.MaxEntry)+1)
	}
	t := &trainer{x: d, a: a, cfg: Config{Ranks: ranksOf(a), Workers: workers}.withDefaults(), tape: autograd.NewTape()}
	f, _ := t.forward(t.tape)
	loss, fit, err := t.loss(f)
	if err != nil {
		return nil, fmt.Errorf("neuralnmf: StepShare: %w", err)
	}
	if err := t.tape.Err(); err != nil {
		return nil, fmt.Errorf("neuralnmf: StepShare: %w", err)
	}
	sh.Loss, sh.SqErr = loss.Value().Data[0], fit.Value().Data[0]
	xn := d.norm()
	sh.SqNorm = xn * xn
	if !grads {
		return sh, nil
	}
	g, err := t.tape.Backward(loss)
	if err != nil {
		return nil, fmt.Errorf("neuralnmf: StepShare: %w", err)
	}
	for l, gl := range t.gradients(g, f) {
		sh.Grads[l].Copy(gl)
	}
	p := t.batchP(f)
	tensor.Gemm(false, true, 1, p, p, 0, sh.PPt)
	return sh, nil
}

func ranksOf(a []*tensor.Dense) []int {
	r := make([]int, len(a))
	for l, al := range a {
		r[l] = al.Cols
	}
	return r
}

// checkShareA checks that a is a chain of nonnegative A's.
func checkShareA(a []*tensor.Dense) error {
	if len(a) == 0 {
		return fmt.Errorf("neuralnmf: StepShare: %w: no A's", ErrConfig)
	}
	for l, al := range a {
		if al == nil {
			return fmt.Errorf("neuralnmf: StepShare: A⁽%d⁾ is nil", l)
		}
		if l > 0 && al.Rows != a[l-1].Cols {
			return fmt.Errorf("neuralnmf: StepShare: %w: A⁽%d⁾ has %d rows, A⁽%d⁾ has %d columns", tensor.ErrShape, l, al.Rows, l-1, a[l-1].Cols)
		}
		if err := tensor.CheckData(fmt.Sprintf("A⁽%d⁾", l), al); err != nil {
			return fmt.Errorf("neuralnmf: StepShare: %w", err)
		}
	}
	return nil
}

// Add adds o into s: the counts and sums, the gradients and PPt entry by
// entry, and the larger MaxEntry. Adding the same shares in the same order
// gives the same bits; in another order the sums may differ in their last
// bits, so a distributed reduce must add in a fixed order (by shard, say).
// It returns an error if the two differ in shape or one has gradients and
// the other not.
func (s *Share) Add(o *Share) error {
	if (s.PPt == nil) != (o.PPt == nil) || len(s.Grads) != len(o.Grads) {
		return fmt.Errorf("neuralnmf: Share.Add: %w: a share with %d gradients and one with %d", tensor.ErrShape, len(s.Grads), len(o.Grads))
	}
	if s.PPt != nil && !s.PPt.SameShape(o.PPt) {
		return fmt.Errorf("neuralnmf: Share.Add: %w: PPt is %d×%d and %d×%d", tensor.ErrShape, s.PPt.Rows, s.PPt.Cols, o.PPt.Rows, o.PPt.Cols)
	}
	for l := range s.Grads {
		if !s.Grads[l].SameShape(o.Grads[l]) {
			return fmt.Errorf("neuralnmf: Share.Add: %w: gradient %d is %d×%d and %d×%d", tensor.ErrShape, l, s.Grads[l].Rows, s.Grads[l].Cols, o.Grads[l].Rows, o.Grads[l].Cols)
		}
	}
	s.Columns += o.Columns
	s.Loss += o.Loss
	s.SqErr += o.SqErr
	s.SqNorm += o.SqNorm
	s.MaxEntry = math.Max(s.MaxEntry, o.MaxEntry)
	for l := range s.Grads {
		tensor.AddScaled(s.Grads[l], 1, o.Grads[l])
	}
	if s.PPt != nil {
		tensor.AddScaled(s.PPt, 1, o.PPt)
	}
	return nil
}

// ShardedTrainer is the driver's side of sharded training (beam/train
// drives it on Apache Beam; docs/beam.md): mini-batch training with the
// Statistics update whose steps are computed in parts. X's columns are
// split into shards, each shard into Steps slices; step j of a pass takes
// slice j of every shard. A worker computes its slice's Share (StepShare:
// loss, gradients, Gram matrix) from the current A's; the driver adds the
// shares in a fixed order (Share.Add) and hands the total to Step, which
// steps exactly as Train on Columns does from a batch, except that a collinear
// topic is found from the new A's Gram matrix. Between steps the whole
// state is MarshalBinary's bytes: a checkpoint that resumes bit for bit.
// Only the unsupervised reconstruction loss without penalties, mask or
// normalisation is supported (their terms are not sums over columns).
type ShardedTrainer struct {
	t      *trainer
	pcg    *rand.PCG
	rows   int
	cols   int
	steps  int
	step   int // steps taken
	pass   passSums
	forget float64
}

// Sharded training's defaults for 16 steps a pass (experiments/minibatch,
// docs/minibatch.md): Adam's relative rate for the A's below the first
// when Config.LR is 0, constant when Config.Decay is the zero value, and
// the statistics' forgetting factor per pass when Config.Forget is 0.
const (
	DefaultShardedLR     = 0.3
	DefaultShardedForget = 0.05
)

// NewShardedTrainer starts sharded training of an N×M X (rows, cols) in
// steps steps per pass from the start cfg.Init makes of sample (N×B, the
// columns the start factorises: HNMFBestInit by default, as Train on Columns
// does on its first batches; GivenInit takes cfg.InitA and ignores the
// sample but for its rows). cfg is read as by Train on Columns with a batch
// of ⌈cols/steps⌉ columns: its defaults, Epochs (passes), Tol, Window and
// Seed apply; LR, Decay (per pass) and Forget apply when set, and are
// otherwise DefaultShardedLR, constant and DefaultShardedForget. It returns an error for a
// configuration sharded training does not support (see StepShare), bad
// sizes, or a sample that cannot start (all zero, a bad entry, fewer
// columns with an entry than the first rank).
func NewShardedTrainer(cfg Config, rows, cols, steps int, sample *tensor.Sparse) (*ShardedTrainer, error) {
	switch {
	case steps < 1:
		return nil, fmt.Errorf("neuralnmf: NewShardedTrainer: %w: steps is %d, want ≥ 1", ErrConfig, steps)
	case cols < steps:
		return nil, fmt.Errorf("neuralnmf: NewShardedTrainer: %w: %d columns for %d steps a pass; want at least one column a step", ErrConfig, cols, steps)
	case sample == nil:
		return nil, fmt.Errorf("neuralnmf: NewShardedTrainer: sample is nil")
	case sample.Rows != rows:
		return nil, fmt.Errorf("neuralnmf: NewShardedTrainer: %w: the sample has %d rows, X has %d", tensor.ErrShape, sample.Rows, rows)
	}
	if err := checkShardedConfig(cfg); err != nil {
		return nil, err
	}
	if err := tensor.CheckSparseData("sample", sample); err != nil {
		return nil, fmt.Errorf("neuralnmf: NewShardedTrainer: %w", err)
	}
	cfg.BatchSize = (cols + steps - 1) / steps
	if cfg.LR == 0 {
		cfg.LR = DefaultShardedLR
	}
	if cfg.Decay == (optim.StepDecay{}) {
		cfg.Decay = optim.StepDecay{Every: 1, Factor: 1} // constant
	}
	if cfg.Forget == 0 {
		cfg.Forget = DefaultShardedForget
	}
	if err := cfg.validate(rows, cols); err != nil {
		return nil, err
	}
	if err := cfg.validateBatches(cols); err != nil {
		return nil, err
	}
	c := cfg.withDefaults()
	c.BatchUpdate = Statistics
	c.Decay.Every *= steps // Decay counts passes here; Adam counts steps
	first := batch{x: data{sparse: sample}, cols: make([]int, sample.Cols)}.withEntries()
	if c.Init != GivenInit && c.Init != RandomInit {
		if len(first.cols) == 0 {
			return nil, fmt.Errorf("neuralnmf: NewShardedTrainer: the sample is all zero: none of its %d columns has an entry", sample.Cols)
		}
		if c.Ranks[0] > len(first.cols) {
			return nil, fmt.Errorf("neuralnmf: NewShardedTrainer: %w: rank %d of layer 1 is above the %d columns with an entry of the sample; give a larger sample or a smaller rank", ErrConfig, c.Ranks[0], len(first.cols))
		}
		if err := checkScale(maxEntry(first.x)); err != nil {
			return nil, err
		}
	}
	t, pcg, err := startBatches(c, rows, cols, first)
	if err != nil {
		return nil, err
	}
	t.x, t.cols, t.prep, t.tape = data{}, nil, nil, nil // the sample is not needed again
	return &ShardedTrainer{t: t, pcg: pcg, rows: rows, cols: cols, steps: steps, forget: c.Forget, pass: passSums{measureX: true}}, nil
}

// checkShardedConfig refuses what sharded training does not support.
func checkShardedConfig(c Config) error {
	var what string
	switch {
	case c.Loss != Reconstruction:
		what = "a Loss other than Reconstruction"
	case c.Normalize:
		what = "Normalize"
	case c.Supervision != nil:
		what = "Supervision"
	case c.DataMask != nil:
		what = "a DataMask"
	case c.CustomLoss != nil:
		what = "a CustomLoss"
	case c.AlphaA != 0 || c.AlphaS != 0:
		what = "penalties (AlphaA, AlphaS)"
	case c.Algorithm1 || c.Optimizer == GD:
		what = "gradient descent (Algorithm1, Optimizer GD)"
	case c.BatchUpdate == Gradient:
		what = "BatchUpdate Gradient"
	case c.Restarts > 1:
		what = "Restarts"
	default:
		return nil
	}
	return fmt.Errorf("neuralnmf: NewShardedTrainer: %w: sharded training supports the unsupervised reconstruction loss with the Statistics update; %s is not supported", ErrConfig, what)
}

// Next returns the pass (from 1) and the slice (0 ≤ slice < steps) of the
// next step: every shard's slice of that number makes it.
func (s *ShardedTrainer) Next() (pass, slice int) {
	return s.step/s.steps + 1, s.step % s.steps
}

// Steps returns the steps taken so far.
func (s *ShardedTrainer) Steps() int { return s.step }

// Done reports whether training has stopped: after the last pass of
// Config.Epochs, or when the stopping rule fired at the end of a pass
// (History.Stopped says which).
func (s *ShardedTrainer) Done() bool { return s.t.done }

// A returns the current A's, A⁽⁰⁾ first. They belong to the trainer and
// change with the next Step; clone them to keep them.
func (s *ShardedTrainer) A() []*tensor.Dense { return s.t.a }

// History returns the history so far: one entry per completed pass (each
// pass's loss summed over its steps, and its relative error, measured at
// each step's A's before the step).
func (s *ShardedTrainer) History() History {
	h := s.t.hist
	h.LRScale = s.t.lrScale
	return h
}

// Step takes the step whose summed shares are total (StepShares of the
// current A's over every shard's slice of the step Next names, added in
// one fixed order). It returns an error, and leaves the trainer
// unchanged, for a total of the wrong shapes, without columns or
// gradients, or whose loss is not finite (a blow-up: one-machine
// training would undo the step and cut the rate; here the driver decides),
// and, at the end of the first pass, for an X out of range (all zero, or
// entries outside [MinScale, MaxScale]).
func (s *ShardedTrainer) Step(total *Share) error {
	t := s.t
	if s.t.done {
		return fmt.Errorf("neuralnmf: ShardedTrainer.Step: training has stopped (%s)", t.hist.Stopped)
	}
	if total == nil || total.PPt == nil || len(total.Grads) != len(t.a) {
		return fmt.Errorf("neuralnmf: ShardedTrainer.Step: %w: want a StepShare total with %d gradients", ErrConfig, len(t.a))
	}
	if total.Columns < 1 {
		return fmt.Errorf("neuralnmf: ShardedTrainer.Step: the total has %d columns", total.Columns)
	}
	for l, g := range total.Grads {
		if !g.SameShape(t.a[l]) {
			return fmt.Errorf("neuralnmf: ShardedTrainer.Step: %w: gradient %d is %d×%d, A⁽%d⁾ is %d×%d", tensor.ErrShape, l, g.Rows, g.Cols, l, t.a[l].Rows, t.a[l].Cols)
		}
	}
	if k := t.a[0].Cols; total.PPt.Rows != k || total.PPt.Cols != k {
		return fmt.Errorf("neuralnmf: ShardedTrainer.Step: %w: PPt is %d×%d, want %d×%d", tensor.ErrShape, total.PPt.Rows, total.PPt.Cols, k, k)
	}
	if math.IsNaN(total.Loss) || math.IsInf(total.Loss, 0) {
		return fmt.Errorf("neuralnmf: ShardedTrainer.Step: pass %d, step %d: the loss is %v (a blow-up); resume from the checkpoint before it with a smaller learning rate", s.step/s.steps+1, s.step%s.steps+1, total.Loss)
	}
	for l, g := range total.Grads {
		if err := tensor.CheckFinite(fmt.Sprintf("gradient %d", l), g); err != nil {
			return fmt.Errorf("neuralnmf: ShardedTrainer.Step: %w", err)
		}
	}
	p := &s.pass
	p.loss += total.Loss
	p.sq += math.Max(total.SqErr, 0)
	if p.measureX {
		p.xsq += total.SqNorm
		p.xmax = math.Max(p.xmax, total.MaxEntry)
	}
	t.online.addGram(t.a[0], total.PPt, total.Grads[0], 2, total.Columns)
	if err := t.step(total.Grads); err != nil {
		return fmt.Errorf("neuralnmf: ShardedTrainer.Step: %w", err)
	}
	t.stepped = false
	t.hist.Collinear += t.resetCollinearTopics()
	s.step++
	if s.step%s.steps == 0 {
		return s.endPass()
	}
	return nil
}

// endPass ends a pass of steps: the shared end of a pass (trainer.endPass).
func (s *ShardedTrainer) endPass() error {
	done, err := s.t.endPass(&s.pass, s.step/s.steps)
	s.pass = passSums{}
	s.t.done = done
	return err
}

// Model returns the trained model from the final A's and final, the
// EvalShares of every column of X at them, added up (History.FinalRelError
// is read from it). It has no S; transform the columns for it. It returns
// an error if training has not stopped or final does not cover X's
// columns.
func (s *ShardedTrainer) Model(final *Share) (*Model, error) {
	if !s.t.done {
		return nil, fmt.Errorf("neuralnmf: ShardedTrainer.Model: training has not stopped (pass %d, step %d next)", s.step/s.steps+1, s.step%s.steps+1)
	}
	if final == nil || final.Columns != s.cols {
		n := 0
		if final != nil {
			n = final.Columns
		}
		return nil, fmt.Errorf("neuralnmf: ShardedTrainer.Model: the final shares cover %d columns, X has %d", n, s.cols)
	}
	m := &Model{cfg: s.t.cfg, History: s.History()}
	for _, a := range s.t.a {
		m.A = append(m.A, a.Clone())
	}
	m.History.FinalRelError = math.Sqrt(math.Max(final.SqErr, 0)) / s.t.xNorm
	return m, nil
}

// shardedMagic opens MarshalBinary's bytes; its last byte is the version.
var shardedMagic = [8]byte{'N', 'N', 'M', 'F', 'S', 'H', 'D', 1}

// ErrCheckpoint is returned (wrapped) for bytes that are not a sharded
// trainer's state.
var ErrCheckpoint = errors.New("not a sharded trainer's checkpoint")
