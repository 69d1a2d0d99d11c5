package train_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/beam/internal/corpus"
	"github.com/neuralnmf/neuralnmf/beam/train"
	"github.com/neuralnmf/neuralnmf/matio"
	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/tensor"
)

func TestMain(m *testing.M) {
	beam.Init()
	os.Exit(m.Run())
}

// writeShards writes x as n shards (every third gzipped) into dir.
func writeShards(t *testing.T, x *tensor.Sparse, n int, dir string) []string {
	paths, err := corpus.WriteShards(x, n, 3, dir)
	require.NoError(t, err)
	return paths
}

// Corpus is corpus.Generate's 48 words, 4 topics, 60 words a document.
func Corpus(docs int, seed uint64) *tensor.Sparse { return corpus.Generate(48, 4, docs, 60, seed) }

func prismEngine() train.Beam {
	return train.Beam{Run: func(ctx context.Context, p *beam.Pipeline) error {
		_, err := prism.Execute(ctx, p)
		return err
	}}
}

func options(shards []string, work string) train.Options {
	return train.Options{Shards: shards, Work: work, Steps: 4,
		Config: neuralnmf.Config{Ranks: []int{4, 2}, Epochs: 3, Tol: -1, Seed: 7}}
}

// requireSameModel checks two models' A's and histories bit for bit.
func requireSameModel(t *testing.T, want, got *neuralnmf.Model) {
	t.Helper()
	require.Len(t, got.A, len(want.A))
	for l := range want.A {
		require.Equal(t, want.A[l].Data, got.A[l].Data, "A⁽%d⁾", l)
	}
	require.Equal(t, want.History.Loss, got.History.Loss)
	require.Equal(t, want.History.RelError, got.History.RelError)
	require.Equal(t, want.History.FinalRelError, got.History.FinalRelError)
	require.Equal(t, want.History.Stopped, got.History.Stopped)
}

// Training on 16 shards on in-process Prism gives the single-process
// run's model bit for bit, reaches a good fit, and Clean leaves the work
// directory empty.
func TestTrainPrism(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir()) // Beam's loopback worker leaves a file there
	dir := t.TempDir()
	x := Corpus(16*60, 1)
	shards := writeShards(t, x, 16, dir)
	ctx := context.Background()

	local := filepath.Join(dir, "work-local")
	var steps []train.Progress
	opt := options(shards, local)
	opt.Progress = func(p train.Progress) { steps = append(steps, p) }
	want, err := train.Train(ctx, opt, train.Local{})
	require.NoError(t, err)
	require.Len(t, steps, 3, "3 passes")
	require.Equal(t, train.Progress{Pass: 3, First: 1, Step: 4, Steps: 4, RelError: want.History.RelError[2], Elapsed: steps[2].Elapsed}, steps[2])
	t.Logf("relative error: start %.4f, passes %.4f, final %.4f", want.History.RelError[0], want.History.RelError, want.History.FinalRelError)
	require.Less(t, want.History.FinalRelError, want.History.RelError[0])
	full, err := neuralnmf.Train(x, neuralnmf.Config{Ranks: []int{4, 2}, Seed: 7})
	require.NoError(t, err)
	t.Logf("full batch: %.4f", full.History.FinalRelError)
	require.Less(t, want.History.FinalRelError, 1.02*full.History.FinalRelError, "3 passes reach full batch")

	work := filepath.Join(dir, "work-prism")
	got, err := train.Train(ctx, options(shards, work), prismEngine())
	require.NoError(t, err)
	requireSameModel(t, want, got)

	for _, w := range []string{local, work} {
		require.NoError(t, train.Clean(ctx, w))
		left, err := os.ReadDir(w)
		require.NoError(t, err)
		require.Empty(t, left)
	}
}

// failAfter is Local until its n-th step (the final evaluation counts as
// one), which fails: a run stopped in the middle of a step.
type failAfter struct {
	train.Local
	n int
}

var errStopped = errors.New("stopped")

func (f *failAfter) Pass(ctx context.Context, p train.PassTask) (int, error) {
	for i := range p.Count {
		if f.n--; f.n == 0 {
			return 0, errStopped
		}
		q := p
		q.First, q.Count = p.First+i, 1
		if _, err := f.Local.Pass(ctx, q); err != nil {
			return 0, err
		}
	}
	return 0, nil
}

func (f *failAfter) Shares(ctx context.Context, a []*tensor.Dense, tasks []train.ShareTask) (map[string][]float64, error) {
	if f.n--; f.n == 0 {
		return nil, errStopped
	}
	return f.Local.Shares(ctx, a, tasks)
}

// A run stopped mid-step (at three different steps) and resumed trains the
// uninterrupted model bit for bit; a work directory of another run or with
// other files is refused.
func TestResume(t *testing.T) {
	dir := t.TempDir()
	shards := writeShards(t, Corpus(5*50, 2), 5, dir)
	ctx := context.Background()
	want, err := train.Train(ctx, options(shards, filepath.Join(dir, "whole")), train.Local{})
	require.NoError(t, err)
	for _, stop := range []int{1, 6, 13} { // the first step, one inside pass 2, the final pass
		work := filepath.Join(dir, fmt.Sprintf("stopped-%d", stop))
		_, err := train.Train(ctx, options(shards, work), &failAfter{n: stop})
		require.ErrorIs(t, err, errStopped)
		var resumed bool
		opt := options(shards, work)
		opt.Progress = func(p train.Progress) { resumed = p.Resumed }
		count := &failAfter{n: -1}
		got, err := train.Train(ctx, opt, count)
		require.NoError(t, err)
		requireSameModel(t, want, got)
		require.True(t, resumed || stop == 13, "the steps after a resume say so")
		require.Equal(t, 14-stop, -1-count.n, "the resumed run takes the steps left and the final pass, no more")
	}

	other := options(shards, filepath.Join(dir, "whole"))
	other.Config.Seed = 8
	_, err = train.Train(ctx, other, train.Local{})
	require.ErrorIs(t, err, train.ErrWorkInUse)
	foreign := filepath.Join(dir, "foreign")
	require.NoError(t, os.MkdirAll(foreign, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(foreign, "notes.txt"), []byte("mine"), 0o644))
	_, err = train.Train(ctx, options(shards, foreign), train.Local{})
	require.ErrorIs(t, err, train.ErrWorkInUse)
	require.NoError(t, train.Clean(ctx, foreign))
	b, err := os.ReadFile(filepath.Join(foreign, "notes.txt"))
	require.NoError(t, err)
	require.Equal(t, "mine", string(b), "Clean removes only a run's files")
}

func TestTrainErrors(t *testing.T) {
	dir := t.TempDir()
	shards := writeShards(t, Corpus(100, 3), 2, dir)
	var b bytes.Buffer
	require.NoError(t, matio.WriteMatrixMarket(&b, &matio.Matrix{Sparse: Corpus(30, 4).SelectColumns([]int{0, 1, 2})}))
	narrow := filepath.Join(dir, "narrow.mtx")
	wide := tensor.SparseFromDense(tensor.New(50, 3))
	b.Reset()
	require.NoError(t, matio.WriteMatrixMarket(&b, &matio.Matrix{Sparse: wide}))
	require.NoError(t, os.WriteFile(narrow, b.Bytes(), 0o644))
	ctx := context.Background()
	for name, edit := range map[string]func(*train.Options){
		"no shards":  func(o *train.Options) { o.Shards = nil },
		"suffix":     func(o *train.Options) { o.Shards = []string{filepath.Join(dir, "x.csv")} },
		"twice":      func(o *train.Options) { o.Shards = []string{shards[0], shards[0]} },
		"no work":    func(o *train.Options) { o.Work = "" },
		"steps":      func(o *train.Options) { o.Steps = -1 },
		"no ranks":   func(o *train.Options) { o.Config.Ranks = nil },
		"missing":    func(o *train.Options) { o.Shards = []string{filepath.Join(dir, "none.mtx")} },
		"rows":       func(o *train.Options) { o.Shards = []string{shards[0], narrow} },
		"supervised": func(o *train.Options) { o.Config.Normalize = true },
	} {
		opt := options(shards, filepath.Join(dir, "work-"+name))
		edit(&opt)
		_, err := train.Train(ctx, opt, train.Local{})
		require.Error(t, err, name)
	}
}

// Issue 50, item 4: a shard that keeps its name but changes after its
// slices were cut (a run stopped, or a work directory kept) is refused on
// resume, naming it, instead of training the old slices silently.
func TestResumeRefusesChangedShard(t *testing.T) {
	ctx := context.Background()
	shards, work := stoppedRun(t)
	// Touched: the size is kept, the time is not.
	later := time.Now().Add(time.Hour)
	require.NoError(t, os.Chtimes(shards[1], later, later))
	_, err := train.Train(ctx, options(shards, work), train.Local{})
	require.ErrorIs(t, err, train.ErrShardChanged)
	require.ErrorContains(t, err, shards[1])
	// Other documents under the same name.
	var nb bytes.Buffer
	require.NoError(t, matio.WriteMatrixMarket(&nb, &matio.Matrix{Sparse: Corpus(50, 9)}))
	require.NoError(t, os.WriteFile(shards[1], nb.Bytes(), 0o644))
	_, err = train.Train(ctx, options(shards, work), train.Local{})
	require.ErrorIs(t, err, train.ErrShardChanged)
}

// Issue 66, item 6: a shard replaced by other bytes of the same size with
// its modification time kept (cp -p, rsync -a, tar x) is refused on resume
// by its content's hash; the untouched shards resume.
func TestResumeRefusesShardWithKeptTimes(t *testing.T) {
	ctx := context.Background()
	shards, work := stoppedRun(t)
	st, err := os.Stat(shards[1])
	require.NoError(t, err)
	b, err := os.ReadFile(shards[1])
	require.NoError(t, err)
	// The last entry's value, one digit changed: the same size.
	i := bytes.LastIndexAny(b, "123456789")
	require.Positive(t, i)
	b[i] = '1' + (b[i]-'1'+1)%9
	require.NoError(t, os.WriteFile(shards[1], b, 0o644))
	require.NoError(t, os.Chtimes(shards[1], st.ModTime(), st.ModTime()))
	st2, err := os.Stat(shards[1])
	require.NoError(t, err)
	require.Equal(t, st.Size(), st2.Size())
	require.Equal(t, st.ModTime(), st2.ModTime())
	_, err = train.Train(ctx, options(shards, work), train.Local{})
	require.ErrorIs(t, err, train.ErrShardChanged)
	require.ErrorContains(t, err, "holds other bytes")
	require.ErrorContains(t, err, shards[1])
}

// With more shards than FanIn the reduce is a tree of two levels on Beam
// and in memory alike: 40 shards (three nodes under the top) train the
// same model bit for bit on in-process Prism and in one process, and each
// pass of Prism's is one pipeline job.
func TestTreeReducePrism(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	dir := t.TempDir()
	shards := writeShards(t, Corpus(40*12, 5), 40, dir)
	ctx := context.Background()
	opt := options(shards, filepath.Join(dir, "local"))
	opt.Config.Epochs = 2
	want, err := train.Train(ctx, opt, train.Local{})
	require.NoError(t, err)
	opt.Work = filepath.Join(dir, "prism")
	var jobs []int
	opt.Progress = func(p train.Progress) { jobs = append(jobs, p.Jobs) }
	got, err := train.Train(ctx, opt, prismEngine())
	require.NoError(t, err)
	requireSameModel(t, want, got)
	require.Equal(t, []int{1, 1}, jobs, "one job a pass")
}

// stoppedRun trains 3 shards of generated documents in a new work
// directory and stops after 2 steps, so that the same Options resume it.
func stoppedRun(t *testing.T) (shards []string, work string) {
	dir := t.TempDir()
	shards = writeShards(t, Corpus(3*50, 2), 3, dir)
	work = filepath.Join(dir, "work")
	_, err := train.Train(context.Background(), options(shards, work), &failAfter{n: 2})
	require.ErrorIs(t, err, errStopped)
	return shards, work
}
