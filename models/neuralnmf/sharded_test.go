package neuralnmf_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/optim"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// shardSlices splits the columns of x into shards contiguous shards and
// each into steps contiguous slices: slices[s][j] is shard s's slice j.
func shardSlices(x *tensor.Sparse, shards, steps int) [][]*tensor.Sparse {
	out := make([][]*tensor.Sparse, shards)
	for s := range shards {
		lo, hi := s*x.Cols/shards, (s+1)*x.Cols/shards
		for j := range steps {
			a, b := lo+j*(hi-lo)/steps, lo+(j+1)*(hi-lo)/steps
			cols := make([]int, 0, b-a)
			for c := a; c < b; c++ {
				cols = append(cols, c)
			}
			out[s] = append(out[s], x.SelectColumns(cols))
		}
	}
	return out
}

// trainSharded is the plain single-process driver: each step's shares in
// shard order, added in that order; checkpoint, if set, replaces the
// trainer by its decoded bytes after every step.
func trainSharded(t *testing.T, cfg neuralnmf.Config, x *tensor.Sparse, sample *tensor.Sparse, shards, steps int, checkpoint bool) *neuralnmf.Model {
	slices := shardSlices(x, shards, steps)
	tr, err := neuralnmf.NewShardedTrainer(cfg, x.Rows, x.Cols, steps, sample)
	require.NoError(t, err)
	for !tr.Done() {
		_, j := tr.Next()
		var total *neuralnmf.Share
		for s := range shards {
			sh, err := neuralnmf.StepShare(tr.A(), slices[s][j], 0)
			require.NoError(t, err)
			if total == nil {
				total = sh
			} else {
				require.NoError(t, total.Add(sh))
			}
		}
		require.NoError(t, tr.Step(total))
		if checkpoint {
			b, err := tr.MarshalBinary()
			require.NoError(t, err)
			tr, err = neuralnmf.UnmarshalShardedTrainer(b, 0)
			require.NoError(t, err)
		}
	}
	var final *neuralnmf.Share
	for s := range shards {
		for j := range steps {
			sh, err := neuralnmf.EvalShare(tr.A(), slices[s][j], 0)
			require.NoError(t, err)
			if final == nil {
				final = sh
			} else {
				require.NoError(t, final.Add(sh))
			}
		}
	}
	m, err := tr.Model(final)
	require.NoError(t, err)
	return m
}

// With one shard, a sharded step is a mini-batch step: the sharded trainer
// trains the model of Train on Columns bit for bit when its steps are its
// batches and its sample the columns its start reads.
func TestShardedIsMiniBatch(t *testing.T) {
	xd, _ := blockHierarchy(30, 1200, 4)
	x := tensor.SparseFromDense(xd)
	// The mini-batch defaults, given: sharded training's own differ.
	cfg := neuralnmf.Config{Ranks: []int{4, 2}, Epochs: 3, Tol: -1, Seed: 1, LR: neuralnmf.DefaultBatchLR,
		Decay: optim.StepDecay{Every: 1, Factor: neuralnmf.DefaultBatchDecay}, Forget: neuralnmf.DefaultForget}
	mb := cfg
	mb.BatchSize = 300 // the start reads 4 batches: all of X
	want, err := neuralnmf.Train(&blockColumns{x: x}, mb)
	require.NoError(t, err)
	got := trainSharded(t, cfg, x, x, 1, 4, false)
	for l := range want.A {
		require.Equal(t, want.A[l].Data, got.A[l].Data, "A⁽%d⁾", l)
	}
	require.Equal(t, want.History.Loss, got.History.Loss)
	require.Equal(t, want.History.RelError, got.History.RelError)
	require.InDelta(t, want.History.FinalRelError, got.History.FinalRelError, 1e-12)
	require.InDelta(t, relErrOf(t, got, xd), got.History.FinalRelError, 1e-12)
}

// Several shards: the steps mix slices of every shard; training reaches
// the one-shard quality, and a trainer checkpointed and decoded after
// every step trains the uninterrupted model bit for bit.
func TestShardedCheckpoint(t *testing.T) {
	xd, _ := blockHierarchy(40, 2000, 5)
	x := tensor.SparseFromDense(xd)
	sample := x.SelectColumns([]int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 1000, 1001, 1002, 1003, 1004, 1005, 1006, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 1015})
	cfg := neuralnmf.Config{Ranks: []int{4, 2}, Epochs: 4, Tol: -1, Seed: 2}
	one := trainSharded(t, cfg, x, sample, 1, 8, false)
	plain := trainSharded(t, cfg, x, sample, 5, 8, false)
	resumed := trainSharded(t, cfg, x, sample, 5, 8, true)
	for l := range plain.A {
		require.Equal(t, plain.A[l].Data, resumed.A[l].Data, "A⁽%d⁾", l)
	}
	ph, rh := plain.History, resumed.History
	require.Equal(t, ph.Loss, rh.Loss)
	require.Equal(t, ph.RelError, rh.RelError)
	require.Equal(t, ph.FinalRelError, rh.FinalRelError)
	require.Equal(t, []int{ph.Resets, ph.Collinear}, []int{rh.Resets, rh.Collinear})
	require.Equal(t, ph.Stopped, rh.Stopped)
	t.Logf("start %.5f; after 4 passes: one shard %.5f, five shards %.5f", plain.History.RelError[0], one.History.FinalRelError, plain.History.FinalRelError)
	require.Len(t, plain.History.Loss, 4)
	require.Less(t, plain.History.FinalRelError, plain.History.RelError[0])
	require.InDelta(t, one.History.FinalRelError, plain.History.FinalRelError, 0.01*one.History.FinalRelError)
}

// A share is a function of A and the columns alone: the same bits for any
// number of workers; the shares of parts add up to the share of the whole
// (to rounding: the parts are solved and summed apart).
func TestStepShare(t *testing.T) {
	xd, _ := blockHierarchy(30, 500, 6)
	x := tensor.SparseFromDense(xd)
	rng := tensor.NewRand(1)
	a := []*tensor.Dense{tensor.Uniform(30, 4, 0, 1, rng), tensor.Uniform(4, 2, 0, 1, rng)}
	whole, err := neuralnmf.StepShare(a, x, 1)
	require.NoError(t, err)
	for _, w := range []int{2, 3, 0} {
		again, err := neuralnmf.StepShare(a, x, w)
		require.NoError(t, err)
		require.Equal(t, whole, again, "workers %d", w)
	}
	require.Equal(t, 500, whole.Columns)
	require.InDelta(t, x.SqNorm(), whole.SqNorm, 1e-12*x.SqNorm())
	require.InDelta(t, whole.Loss, whole.SqErr, 1e-12*whole.Loss)

	parts := shardSlices(x, 3, 1)
	sum, err := neuralnmf.StepShare(a, parts[0][0], 0)
	require.NoError(t, err)
	for _, p := range parts[1:] {
		sh, err := neuralnmf.StepShare(a, p[0], 0)
		require.NoError(t, err)
		require.NoError(t, sum.Add(sh))
	}
	require.Equal(t, whole.Columns, sum.Columns)
	require.Equal(t, whole.MaxEntry, sum.MaxEntry)
	require.InDelta(t, whole.Loss, sum.Loss, 1e-10*whole.Loss)
	for l := range whole.Grads {
		require.InDeltaSlice(t, whole.Grads[l].Data, sum.Grads[l].Data, 1e-9*tensor.Norm(whole.Grads[l]))
	}
	require.InDeltaSlice(t, whole.PPt.Data, sum.PPt.Data, 1e-10*tensor.Norm(whole.PPt))

	ev, err := neuralnmf.EvalShare(a, x, 0)
	require.NoError(t, err)
	require.Nil(t, ev.Grads)
	require.Equal(t, whole.Loss, ev.Loss)
	require.Error(t, ev.Add(whole), "an EvalShare and a StepShare do not add")

	empty, err := neuralnmf.StepShare(a, &tensor.Sparse{Rows: 30, ColPtr: []int{0}}, 0)
	require.NoError(t, err)
	require.Zero(t, empty.Columns)
	require.NoError(t, sum.Add(empty))
}

func TestShardedErrors(t *testing.T) {
	xd, _ := blockHierarchy(20, 200, 7)
	x := tensor.SparseFromDense(xd)
	rng := tensor.NewRand(1)
	a := []*tensor.Dense{tensor.Uniform(20, 4, 0, 1, rng), tensor.Uniform(4, 2, 0, 1, rng)}
	neg := xd.Clone()
	neg.Set(3, 5, -1)
	huge := xd.Clone()
	huge.Set(2, 7, 1e200)
	for name, c := range map[string]struct {
		a []*tensor.Dense
		x *tensor.Sparse
	}{
		"no A":       {nil, x},
		"nil x":      {a, nil},
		"rows":       {a, tensor.SparseFromDense(tensor.New(21, 3))},
		"chain":      {[]*tensor.Dense{a[0], tensor.New(3, 2)}, x},
		"negative A": {[]*tensor.Dense{tensor.MustFromRows([][]float64{{-1}})}, tensor.SparseFromDense(tensor.New(1, 2))},
		"negative x": {a, tensor.SparseFromDense(neg)},
		"huge x":     {a, tensor.SparseFromDense(huge)},
	} {
		_, err := neuralnmf.StepShare(c.a, c.x, 0)
		require.Error(t, err, name)
	}

	base := neuralnmf.Config{Ranks: []int{4, 2}, Seed: 1}
	for name, edit := range map[string]func(*neuralnmf.Config){
		"KL":        func(c *neuralnmf.Config) { c.Loss = neuralnmf.KL },
		"Normalize": func(c *neuralnmf.Config) { c.Normalize = true },
		"supervision": func(c *neuralnmf.Config) {
			c.Supervision = &neuralnmf.Supervision{Labels: make([]int, 200), Classes: 2}
		},
		"penalty":  func(c *neuralnmf.Config) { c.AlphaA = 0.1 },
		"GD":       func(c *neuralnmf.Config) { c.Optimizer = neuralnmf.GD },
		"gradient": func(c *neuralnmf.Config) { c.BatchUpdate = neuralnmf.Gradient },
		"rank":     func(c *neuralnmf.Config) { c.Ranks = []int{30, 2} },
	} {
		c := base
		edit(&c)
		_, err := neuralnmf.NewShardedTrainer(c, 20, 200, 4, x)
		require.ErrorIs(t, err, neuralnmf.ErrConfig, name)
	}
	_, err := neuralnmf.NewShardedTrainer(base, 20, 200, 0, x)
	require.Error(t, err)
	_, err = neuralnmf.NewShardedTrainer(base, 20, 3, 4, x)
	require.Error(t, err)
	_, err = neuralnmf.NewShardedTrainer(base, 21, 200, 4, x)
	require.Error(t, err)
	_, err = neuralnmf.NewShardedTrainer(base, 20, 200, 4, tensor.SparseFromDense(tensor.New(20, 10)))
	require.Error(t, err, "an all-zero sample")

	tr, err := neuralnmf.NewShardedTrainer(base, 20, 200, 4, x)
	require.NoError(t, err)
	good, err := neuralnmf.StepShare(tr.A(), x.SelectColumns([]int{0, 1, 2}), 0)
	require.NoError(t, err)
	ev, err := neuralnmf.EvalShare(tr.A(), x, 0)
	require.NoError(t, err)
	inf := *good
	inf.Loss = math.Inf(1)
	for name, s := range map[string]*neuralnmf.Share{"nil": nil, "eval": ev, "no columns": {PPt: good.PPt, Grads: good.Grads}, "blow-up": &inf} {
		require.Error(t, tr.Step(s), name)
	}
	require.Equal(t, 0, tr.Steps(), "a refused step leaves the trainer as it was")
	_, err = tr.Model(ev)
	require.Error(t, err, "training has not stopped")

	b, err := tr.MarshalBinary()
	require.NoError(t, err)
	for name, bytes := range map[string][]byte{"empty": nil, "cut": b[:len(b)/2], "other": []byte("neuralnmf sharded trainer v0")} {
		_, err := neuralnmf.UnmarshalShardedTrainer(bytes, 0)
		require.ErrorIs(t, err, neuralnmf.ErrCheckpoint, name)
	}
}
