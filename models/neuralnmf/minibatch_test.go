package neuralnmf_test

import (
	"io"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/autograd"
	"github.com/neuralnmf/neuralnmf/classify"
	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/models/ssnmf"
	"github.com/neuralnmf/neuralnmf/ops"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// blockColumns streams an in-memory sparse X in order, as a file reader
// would; it counts passes.
type blockColumns struct {
	x      *tensor.Sparse
	pos    int
	passes int
	rows   int // the rows of the blocks it returns (x.Rows unless changed)
	short  int // if positive, the stream ends after this many columns
}

func (b *blockColumns) Dims() (int, int) { return b.x.Rows, b.x.Cols }
func (b *blockColumns) Rewind() error    { b.pos = 0; b.passes++; return nil }
func (b *blockColumns) Next(n int) (*tensor.Sparse, error) {
	end := b.x.Cols
	if b.short > 0 {
		end = b.short
	}
	if b.pos >= end {
		return nil, io.EOF
	}
	j1 := min(b.pos+n, end)
	var es []tensor.Entry
	for j := b.pos; j < j1; j++ {
		r, v := b.x.Column(j)
		for i := range r {
			if b.rows == 0 || r[i] < b.rows {
				es = append(es, tensor.Entry{Row: r[i], Col: j - b.pos, Val: v[i]})
			}
		}
	}
	rows := b.x.Rows
	if b.rows > 0 {
		rows = b.rows
	}
	s, err := tensor.NewSparse(rows, j1-b.pos, es)
	b.pos = j1
	return s, err
}

// blockHierarchy is X = A⁽⁰⁾A⁽¹⁾S⁽¹⁾ + noise for a 2-level block hierarchy
// (4 fine topics owning a quarter of the rows each, 2 groups of 2) with
// each column in one group, at random; it returns X and the groups.
func blockHierarchy(n, m int, seed uint64) (*tensor.Dense, []int) {
	rng := tensor.NewRand(seed)
	a0 := tensor.New(n, 4)
	for i := 0; i < n; i++ {
		a0.Set(i, i*4/n, 0.5+rng.Float64())
	}
	a1 := tensor.MustFromRows([][]float64{{1, 0.05}, {0.8, 0.05}, {0.05, 1}, {0.05, 0.7}})
	s := tensor.New(2, m)
	groups := make([]int, m)
	for j := range groups {
		groups[j] = rng.IntN(2)
		s.Set(groups[j], j, 0.5+rng.Float64())
		s.Set(1-groups[j], j, 0.05*rng.Float64())
	}
	x := tensor.MatMul(false, false, a0, tensor.MatMul(false, false, a1, s))
	for i := range x.Data {
		x.Data[i] += 0.05 * rng.Float64()
	}
	return x, groups
}

// relErrOf recomputes ‖X − A⁽⁰⁾⋯S⁽ᴸ⁾‖/‖X‖ of a model from scratch:
// Transform of all of X, then the product.
func relErrOf(t *testing.T, m *neuralnmf.Model, x *tensor.Dense) float64 {
	s, err := m.Transform(x)
	require.NoError(t, err)
	r := s[len(s)-1]
	for l := len(m.A) - 1; l >= 0; l-- {
		r = tensor.MatMul(false, false, m.A[l], r)
	}
	return math.Sqrt(tensor.SqDiff(x, r)) / tensor.Norm(x)
}

// Mini-batch training reaches full-batch quality from the same start in
// five passes, and its FinalRelError and S are those of its final A.
func TestMiniBatchReachesFullBatch(t *testing.T) {
	x, _ := blockHierarchy(40, 8000, 1)
	ranks := []int{4, 2}
	// The start mini-batch training makes: HNMF of a sample of StartColumns
	// columns (here the first, the columns being in random order).
	sample := tensor.New(x.Rows, neuralnmf.StartColumns)
	for i := 0; i < x.Rows; i++ {
		copy(sample.Row(i), x.Row(i)[:neuralnmf.StartColumns])
	}
	start, err := ssnmf.HNMF(sample, ranks, nil, &ssnmf.Options{Seed: 3})
	require.NoError(t, err)
	full, err := neuralnmf.Train(x, neuralnmf.Config{Ranks: ranks, Init: neuralnmf.GivenInit, InitA: start.A, Seed: 3})
	require.NoError(t, err)
	mb, err := neuralnmf.Train(x, neuralnmf.Config{Ranks: ranks, Init: neuralnmf.GivenInit, InitA: start.A, Seed: 3, BatchSize: neuralnmf.DefaultBatchSize, Epochs: 5})
	require.NoError(t, err)
	require.Len(t, mb.History.Loss, 5)
	t.Logf("start %.5f, full batch %.5f (%d epochs), mini-batch %.5f after 5 passes", full.History.RelError[0], full.History.FinalRelError, len(full.History.Loss), mb.History.FinalRelError)
	require.LessOrEqual(t, mb.History.FinalRelError, 1.01*full.History.FinalRelError)
	require.InDelta(t, relErrOf(t, mb, x), mb.History.FinalRelError, 1e-12)
	require.Len(t, mb.S, 2)
	s, err := mb.Transform(x)
	require.NoError(t, err)
	require.InDeltaSlice(t, s[1].Data, mb.S[1].Data, 1e-9)
	// The same configuration again gives the same model, bit for bit.
	again, err := neuralnmf.Train(x, neuralnmf.Config{Ranks: ranks, Init: neuralnmf.GivenInit, InitA: start.A, Seed: 3, BatchSize: neuralnmf.DefaultBatchSize, Epochs: 5})
	require.NoError(t, err)
	require.Equal(t, mb.A[0].Data, again.A[0].Data)
}

// Train on Columns never asks for more than a batch and keeps no S; a stream
// and the in-memory mini-batch trainer agree on the error they report.
func TestTrainOnColumns(t *testing.T) {
	xd, _ := blockHierarchy(30, 900, 2)
	x := tensor.SparseFromDense(xd)
	src := &blockColumns{x: x}
	m, err := neuralnmf.Train(src, neuralnmf.Config{Ranks: []int{4, 2}, BatchSize: 128, Epochs: 3, Seed: 1})
	require.NoError(t, err)
	require.Nil(t, m.S)
	require.Len(t, m.History.Loss, 3)
	require.Equal(t, 4, src.passes, "three passes and the final one")
	require.InDelta(t, relErrOf(t, m, xd), m.History.FinalRelError, 1e-12)
	require.Less(t, m.History.FinalRelError, 0.1, "the noise is 5 %% of the entries' scale")
	// A model without S saves, loads and transforms.
	path := t.TempDir() + "/m.nnmf"
	require.NoError(t, m.Save(path))
	back, err := neuralnmf.Load(path)
	require.NoError(t, err)
	require.Nil(t, back.S)
	require.Equal(t, m.History.FinalRelError, back.History.FinalRelError)
	require.InDelta(t, relErrOf(t, m, xd), relErrOf(t, back, xd), 1e-15)
}

// The least-squares classifier of a mini-batch model is (Z∘Y)S† of its
// final S, accumulated over the batches; cross-entropy trains B per batch.
func TestMiniBatchSupervision(t *testing.T) {
	xd, labels := blockHierarchy(40, 1200, 3)
	x := tensor.SparseFromDense(xd)
	known := make([]bool, x.Cols)
	for j := range known {
		known[j] = j%3 != 0
	}
	for _, c := range []neuralnmf.Classifier{neuralnmf.LeastSquares, neuralnmf.CrossEntropy} {
		sup := &neuralnmf.Supervision{Labels: labels, Known: known, Classes: 2, Classifier: c}
		m, err := neuralnmf.Train(&blockColumns{x: x}, neuralnmf.Config{Ranks: []int{4, 2}, BatchSize: 100, Epochs: 3, Seed: 1, Supervision: sup})
		require.NoError(t, err, c)
		pred, _, err := m.Classify(x)
		require.NoError(t, err)
		_, held := classify.SplitLabels(labels, known)
		require.Greater(t, classify.Accuracy(pred, held), 0.95, c)
		require.Greater(t, m.History.HeldOutAccuracy[2], 0.95, c)
		if c == neuralnmf.LeastSquares {
			s, err := m.Transform(x)
			require.NoError(t, err)
			seen, _ := classify.SplitLabels(labels, known)
			y, _ := tensor.OneHot(seen, 2)
			tape := autograd.NewTape()
			b := ops.MatMul(tape.Const(y), ops.Pinv(tape.Const(s[1])))
			require.NoError(t, tape.Err())
			require.InDeltaSlice(t, b.Value().Data, m.B.Data, 1e-8)
		}
	}
}

func TestMiniBatchErrors(t *testing.T) {
	xd, _ := blockHierarchy(20, 100, 4)
	x := tensor.SparseFromDense(xd)
	cases := []struct {
		name string
		src  neuralnmf.Columns
		cfg  neuralnmf.Config
		want string
	}{
		{"negative", &blockColumns{x: x}, neuralnmf.Config{Ranks: []int{3}, BatchSize: -1}, "BatchSize is -1"},
		{"algorithm1", &blockColumns{x: x}, neuralnmf.Config{Ranks: []int{3}, BatchSize: 10, Algorithm1: true}, "Algorithm1 is full-batch"},
		{"restarts", &blockColumns{x: x}, neuralnmf.Config{Ranks: []int{3}, BatchSize: 10, Restarts: 2}, "trains one start"},
		{"rows", &blockColumns{x: x, rows: 19}, neuralnmf.Config{Ranks: []int{3}, BatchSize: 10}, "a block has 19 rows, the stream declared 20"},
		{"short", &blockColumns{x: x, short: 50}, neuralnmf.Config{Ranks: []int{3}, BatchSize: 10}, "the stream ended after 50 columns; it declared 100"},
		{"nil", nil, neuralnmf.Config{Ranks: []int{3}}, "X is nil"},
		{"forget", &blockColumns{x: x}, neuralnmf.Config{Ranks: []int{3}, BatchSize: 10, Forget: 1.5}, "Forget is 1.5"},
		{"forget NaN", &blockColumns{x: x}, neuralnmf.Config{Ranks: []int{3}, BatchSize: 10, Forget: math.NaN()}, "Forget is NaN"},
		{"update", &blockColumns{x: x}, neuralnmf.Config{Ranks: []int{3}, BatchSize: 10, BatchUpdate: 7}, "BatchUpdate is 7"},
		{"custom loss", &blockColumns{x: x}, neuralnmf.Config{Ranks: []int{3}, BatchSize: 10, BatchUpdate: neuralnmf.Statistics,
			CustomLoss: func(_ *autograd.Tape, f *neuralnmf.Forward) *autograd.Var {
				return ops.SparseFrobeniusLoss(f.XSparse, f.A[0], f.S[0])
			}}, "with a CustomLoss use Gradient"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := neuralnmf.Train(c.src, c.cfg)
			require.ErrorContains(t, err, c.want)
		})
	}
	// A CustomLoss's default update is Gradient, which it trains with.
	custom := neuralnmf.Config{Ranks: []int{3}, BatchSize: 10, Epochs: 1,
		CustomLoss: func(_ *autograd.Tape, f *neuralnmf.Forward) *autograd.Var {
			return ops.SparseFrobeniusLoss(f.XSparse, f.A[0], f.S[0])
		}}
	var ran []neuralnmf.BatchUpdate
	record := func(s neuralnmf.Stage) {
		if s.Name == "start" {
			ran = append(ran, s.Run.BatchUpdate)
		}
	}
	custom.Phase = record
	_, err := neuralnmf.Train(&blockColumns{x: x}, custom)
	require.NoError(t, err)
	_, err = neuralnmf.Train(&blockColumns{x: x}, neuralnmf.Config{Ranks: []int{3}, BatchSize: 10, Epochs: 1, Phase: record})
	require.NoError(t, err)
	require.Equal(t, []neuralnmf.BatchUpdate{neuralnmf.Gradient, neuralnmf.Statistics}, ran, "the update each ran, as Phase reports it")
	neg := tensor.SparseFromDense(xd)
	neg.Val[len(neg.Val)-1] = -1
	_, err = neuralnmf.Train(&blockColumns{x: neg}, neuralnmf.Config{Ranks: []int{3}, BatchSize: 10})
	require.ErrorContains(t, err, "columns 91 to 100")
}
