package neuralnmf_test

import (
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/neuralnmf/neuralnmf/nnls"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/autograd"
	"github.com/neuralnmf/neuralnmf/classify"
	"github.com/neuralnmf/neuralnmf/datasets/synthetic"
	"github.com/neuralnmf/neuralnmf/gradcheck"
	"github.com/neuralnmf/neuralnmf/internal/randmat"
	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/ops"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// Projected gradient descent with a small step must decrease the loss at
// every epoch (Algorithm 1 on a smooth piece is a descent method).
func TestGDLossDecreasesMonotonically(t *testing.T) {
	x := tensor.Uniform(30, 25, 0, 1, tensor.NewRand(1))
	for _, loss := range []neuralnmf.Loss{neuralnmf.Reconstruction, neuralnmf.Energy} {
		m, err := neuralnmf.Train(x, neuralnmf.Config{Ranks: []int{5, 3}, Loss: loss, Init: neuralnmf.RandomInit, Optimizer: neuralnmf.GD, LR: 1e-3, Epochs: 60, Tol: -1, Seed: 2})
		require.NoError(t, err)
		h := m.History.Loss
		require.Len(t, h, 60)
		for i := 1; i < len(h); i++ {
			require.Less(t, h[i], h[i-1], "%v loss rose at epoch %d: %v → %v", loss, i+1, h[i-1], h[i])
		}
		require.Less(t, h[len(h)-1], 0.95*h[0])
	}
}

// The model's built-in losses, as functions of the A matrices, pass
// gradcheck: the tape does the whole chain rule through NNLS, the
// pseudoinverse classifier and the products.
func TestModelLossGradcheck(t *testing.T) {
	rng := tensor.NewRand(4)
	const n, m = 12, 10
	x := tensor.Uniform(n, m, 0.1, 1, rng)
	labels := []int{0, 1, 2, 0, 1, 2, 0, 1, 2, 0}
	known := []bool{true, true, true, false, true, true, false, true, true, true}
	y, err := tensor.OneHot(labels, 3)
	require.NoError(t, err)
	z := tensor.ColumnMask(3, known)
	a0 := tensor.Uniform(n, 5, 0.1, 1, rng)
	a1 := tensor.Uniform(5, 3, 0.1, 1, rng)
	cases := []struct {
		name string
		f    gradcheck.Func
	}{
		{"reconstruction", func(t *autograd.Tape, in []*autograd.Var) *autograd.Var {
			s0, _ := ops.NNLS(in[0], t.Const(x), nil)
			s1, _ := ops.NNLS(in[1], s0, nil)
			return ops.FrobeniusLoss(t.Const(x), ops.MatMul(in[0], ops.MatMul(in[1], s1)))
		}},
		{"energy+supervised", func(t *autograd.Tape, in []*autograd.Var) *autograd.Var {
			xv := t.Const(x)
			s0, _ := ops.NNLS(in[0], xv, nil)
			s1, _ := ops.NNLS(in[1], s0, nil)
			e := ops.Add(ops.FrobeniusLoss(xv, ops.MatMul(in[0], s0)), ops.FrobeniusLoss(s0, ops.MatMul(in[1], s1)))
			zv, yv := t.Const(z), t.Const(y)
			b := ops.MatMul(ops.Hadamard(zv, yv), ops.Pinv(s1))
			return ops.Add(e, ops.Scale(ops.MaskedLoss(zv, yv, ops.MatMul(b, s1)), 0.7))
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rep := gradcheck.Assert(t, tc.f, []*tensor.Dense{a0, a1}, &gradcheck.Options{MaxSkipFraction: 0.05})
			t.Log(rep)
		})
	}
	// The cross-entropy classifier: B is a parameter too.
	b := tensor.Uniform(3, 3, -0.5, 0.5, rng)
	ce := func(t *autograd.Tape, in []*autograd.Var) *autograd.Var {
		xv := t.Const(x)
		s0, _ := ops.NNLS(in[0], xv, nil)
		s1, _ := ops.NNLS(in[1], s0, nil)
		rec := ops.FrobeniusLoss(xv, ops.MatMul(in[0], ops.MatMul(in[1], s1)))
		return ops.Add(rec, ops.SoftmaxCrossEntropy(ops.MatMul(in[2], s1), t.Const(y), t.Const(z)))
	}
	t.Run("reconstruction+cross-entropy", func(t *testing.T) {
		gradcheck.Assert(t, ce, []*tensor.Dense{a0, a1, b}, &gradcheck.Options{MaxSkipFraction: 0.05})
	})
}

func TestCrossEntropyTraining(t *testing.T) {
	x := synthetic.X()
	labels, _ := synthetic.Labels(9)
	m, err := neuralnmf.Train(x, neuralnmf.Config{Ranks: []int{9}, Init: neuralnmf.HNMFInit, InitRestarts: 5, Optimizer: neuralnmf.Adam, Seed: 2, Epochs: 300,
		Supervision: &neuralnmf.Supervision{Labels: labels, Classes: 9, Classifier: neuralnmf.CrossEntropy, Lambda: 10}})
	require.NoError(t, err)
	require.Equal(t, 9, m.B.Rows)
	acc := m.History.Accuracy
	require.Greater(t, acc[len(acc)-1], 0.95, "a trained B separates the 9 classes")
	require.Less(t, m.History.RelError[len(acc)-1], 0.05)
}

// The same losses through Train's own loss builder: a custom loss that
// reproduces the built-in one gives the same training history.
func TestCustomLossMatchesBuiltin(t *testing.T) {
	x := tensor.Uniform(20, 15, 0, 1, tensor.NewRand(5))
	cfg := neuralnmf.Config{Ranks: []int{4, 2}, Epochs: 20, Tol: -1, Optimizer: neuralnmf.Adam, Seed: 3}
	ref, err := neuralnmf.Train(x, cfg)
	require.NoError(t, err)
	cfg.CustomLoss = func(t *autograd.Tape, f *neuralnmf.Forward) *autograd.Var {
		return ops.FrobeniusLoss(f.X, ops.MatMul(f.A[0], ops.MatMul(f.A[1], f.S[1])))
	}
	got, err := neuralnmf.Train(x, cfg)
	require.NoError(t, err)
	for i := range ref.History.Loss {
		require.InEpsilon(t, ref.History.Loss[i], got.History.Loss[i], 1e-12)
	}
}

// A custom loss with Supervision keeps the label term only through
// Forward.AddSupervision: the built-in loss rewritten that way trains the
// same model, for either classifier and a default λ; a custom loss that
// leaves the term out is an error, not a run that silently ignores labels.
func TestCustomLossAddSupervision(t *testing.T) {
	x := tensor.Uniform(20, 16, 0, 1, tensor.NewRand(5))
	labels := make([]int, 16)
	known := make([]bool, 16)
	for i := range labels {
		labels[i], known[i] = i%3, i%2 == 0
	}
	for _, cl := range []neuralnmf.Classifier{neuralnmf.LeastSquares, neuralnmf.CrossEntropy} {
		cfg := neuralnmf.Config{Ranks: []int{5, 3}, Epochs: 15, Tol: -1, Seed: 3,
			Supervision: &neuralnmf.Supervision{Labels: labels, Classes: 3, Known: known, Classifier: cl}}
		ref, err := neuralnmf.Train(x, cfg)
		require.NoError(t, err)
		cfg.CustomLoss = func(t *autograd.Tape, f *neuralnmf.Forward) *autograd.Var {
			return f.AddSupervision(ops.FrobeniusLoss(f.X, ops.MatMul(f.A[0], ops.MatMul(f.A[1], f.S[1]))))
		}
		got, err := neuralnmf.Train(x, cfg)
		require.NoError(t, err)
		require.InEpsilon(t, ref.History.Lambda, got.History.Lambda, 1e-12, "%v", cl)
		for i := range ref.History.Loss {
			require.InEpsilon(t, ref.History.Loss[i], got.History.Loss[i], 1e-10, "%v epoch %d", cl, i+1)
		}
		require.Equal(t, ref.History.Accuracy, got.History.Accuracy)

		cfg.CustomLoss = func(t *autograd.Tape, f *neuralnmf.Forward) *autograd.Var {
			return ops.FrobeniusLoss(f.X, ops.MatMul(f.A[0], ops.MatMul(f.A[1], f.S[1])))
		}
		_, err = neuralnmf.Train(x, cfg)
		require.ErrorIs(t, err, neuralnmf.ErrConfig)
		require.ErrorContains(t, err, "AddSupervision")
	}
}

func TestSyntheticUnsupervisedBeatsPaper(t *testing.T) {
	x := synthetic.X()
	m, err := neuralnmf.Train(x, neuralnmf.Config{Ranks: []int{9, 4}, Init: neuralnmf.HNMFInit, InitRestarts: 10, Optimizer: neuralnmf.Adam, Seed: 1})
	require.NoError(t, err)
	rel := m.History.RelError[len(m.History.RelError)-1]
	require.LessOrEqual(t, rel, 0.310, "paper's 2-layer Neural NMF error")
	labels, _ := synthetic.Labels(4)
	require.Equal(t, 1.0, classify.ReadoutAccuracy(m.S[1], labels, 4))
	// Transform of the training data reproduces the stored S.
	s, err := m.Transform(x)
	require.NoError(t, err)
	for i := range s[1].Data {
		require.InDelta(t, m.S[1].Data[i], s[1].Data[i], 1e-12)
	}
}

func TestSemiSupervised(t *testing.T) {
	x := synthetic.X()
	labels, _ := synthetic.Labels(9)
	known, _ := synthetic.Known(40)
	m, err := neuralnmf.Train(x, neuralnmf.Config{Ranks: []int{9}, Init: neuralnmf.HNMFInit, InitRestarts: 5, Optimizer: neuralnmf.Adam, Seed: 2,
		Supervision: &neuralnmf.Supervision{Labels: labels, Classes: 9, Known: known}})
	require.NoError(t, err)
	require.NotNil(t, m.B)
	require.Equal(t, 9, m.B.Rows)
	pred := m.Predict()
	right := 0
	for i, p := range pred {
		if p == labels[i] {
			right++
		}
	}
	require.Equal(t, 90, right)
	// Training accuracy counts only the Known columns, held-out accuracy
	// only the others; both are recomputed here from the final model.
	seen, held := classify.SplitLabels(labels, known)
	n := len(m.History.Accuracy)
	require.Equal(t, classify.Accuracy(pred, seen), m.History.Accuracy[n-1])
	require.Equal(t, classify.Accuracy(pred, held), m.History.HeldOutAccuracy[n-1])
	require.Len(t, m.History.HeldOutAccuracy, n)
}

// Training accuracy must not count columns whose labels training did not
// see: with half the labels hidden and the hidden half deliberately wrong,
// History.Accuracy must still be the accuracy on the known half.
func TestTrainAccuracyIgnoresUnknownColumns(t *testing.T) {
	x := synthetic.X()
	labels, _ := synthetic.Labels(9)
	known := make([]bool, len(labels))
	scrambled := append([]int(nil), labels...)
	for i := range known {
		known[i] = i%2 == 0
		if !known[i] {
			scrambled[i] = (labels[i] + 1) % 9 // wrong on purpose
		}
	}
	m, err := neuralnmf.Train(x, neuralnmf.Config{Ranks: []int{9}, Init: neuralnmf.HNMFInit, InitRestarts: 5, Optimizer: neuralnmf.Adam, Seed: 2, Epochs: 30,
		Supervision: &neuralnmf.Supervision{Labels: scrambled, Classes: 9, Known: known, Classifier: neuralnmf.LeastSquares, Balance: 1}})
	require.NoError(t, err)
	pred := m.Predict()
	seen, held := classify.SplitLabels(scrambled, known)
	n := len(m.History.Accuracy)
	require.Equal(t, classify.Accuracy(pred, seen), m.History.Accuracy[n-1])
	require.Equal(t, classify.Accuracy(pred, held), m.History.HeldOutAccuracy[n-1])
	require.Greater(t, m.History.Accuracy[n-1], 0.9, "the known half is learnt")
	require.Less(t, m.History.HeldOutAccuracy[n-1], 0.1, "the scrambled half disagrees with the classes")
}

func TestTrainErrors(t *testing.T) {
	x := tensor.Uniform(10, 8, 0, 1, tensor.NewRand(1))
	neg := x.Clone()
	neg.Set(2, 3, -1)
	cases := []struct {
		name string
		x    *tensor.Dense
		cfg  neuralnmf.Config
		msg  string
	}{
		{"negative", neg, neuralnmf.Config{Ranks: []int{3}}, "X: negative entry: entry (2, 3)"},
		{"all-zero", tensor.New(10, 8), neuralnmf.Config{Ranks: []int{3}}, "X is all zero"},
		{"huge", func() *tensor.Dense { b := x.Clone(); tensor.Scale(b, 1e300, b); return b }(), neuralnmf.Config{Ranks: []int{3}}, "above 1e+100: squared errors would overflow; divide X"},
		{"tiny", func() *tensor.Dense { b := x.Clone(); tensor.Scale(b, 1e-300, b); return b }(), neuralnmf.Config{Ranks: []int{3}}, "below 1e-100: squared errors would underflow; multiply X"},
		{"no-ranks", x, neuralnmf.Config{}, "Ranks is empty"},
		{"rank-too-big", x, neuralnmf.Config{Ranks: []int{11}}, "layer 1's rank 11"},
		{"rank-above-M-with-HNMF", x, neuralnmf.Config{Ranks: []int{9}}, "layer 1's rank 9 is above the 8 columns (samples) of X, which Init hnmf factorises"},
		{"increasing", x, neuralnmf.Config{Ranks: []int{3, 5}}, "ranks must decrease"},
		{"labels", x, neuralnmf.Config{Ranks: []int{3}, Supervision: &neuralnmf.Supervision{Labels: []int{1}, Classes: 2}}, "1 labels for 8 columns"},
		{"label-range", x, neuralnmf.Config{Ranks: []int{3}, Supervision: &neuralnmf.Supervision{Labels: []int{0, 1, 2, 0, 1, 0, 1, 0}, Classes: 2}}, "label 2 of column 2"},
		{"classes>M", x, neuralnmf.Config{Ranks: []int{3}, Supervision: &neuralnmf.Supervision{Labels: []int{0, 1, 2, 0, 1, 0, 1, 0}, Classes: 1000000}}, "Supervision.Classes is 1000000, want 1 to the 8 columns"},
		{"empty-class", x, neuralnmf.Config{Ranks: []int{3}, Supervision: &neuralnmf.Supervision{Labels: []int{0, 1, 3, 0, 1, 0, 1, 0}, Classes: 4}}, "class 2 has no Known labelled column"},
		{"lr", x, neuralnmf.Config{Ranks: []int{3}, LR: math.Inf(1)}, "LR is +Inf"},
		{"epochs", x, neuralnmf.Config{Ranks: []int{3}, Epochs: -5}, "Epochs is -5, want 0 (the default) or more"},
		{"restarts", x, neuralnmf.Config{Ranks: []int{3}, Restarts: -1}, "Restarts is -1"},
		{"workers", x, neuralnmf.Config{Ranks: []int{3}, Workers: -2}, "Workers is -2"},
		{"init-count", x, neuralnmf.Config{Ranks: []int{3, 2}, Init: neuralnmf.GivenInit, InitA: []*tensor.Dense{tensor.New(10, 3)}}, "InitA has 1 matrices for 2 layers"},
		{"init-shape", x, neuralnmf.Config{Ranks: []int{3}, Init: neuralnmf.GivenInit, InitA: []*tensor.Dense{tensor.New(10, 4)}}, "InitA[0]: shape mismatch: is 10×4, want 10×3"},
	}
	for _, tc := range cases {
		_, err := neuralnmf.Train(tc.x, tc.cfg)
		require.ErrorContains(t, err, tc.msg, tc.name)
	}
	m, err := neuralnmf.Train(x, neuralnmf.Config{Ranks: []int{3}, Epochs: 3})
	require.NoError(t, err)
	// GivenInit starts exactly from InitA (and copies it).
	a0 := tensor.Uniform(10, 3, 0, 1, tensor.NewRand(8))
	g, err := neuralnmf.Train(x, neuralnmf.Config{Ranks: []int{3}, Init: neuralnmf.GivenInit, InitA: []*tensor.Dense{a0}, Epochs: 1})
	require.NoError(t, err)
	require.Equal(t, a0.Data, g.A[0].Data, "one epoch records the start and takes no step")
	require.NotSame(t, a0, g.A[0])
	_, err = m.Transform(tensor.New(9, 4))
	require.ErrorContains(t, err, "rows")
	// The model needs nonnegative data, although the NNLS solver does not.
	_, err = m.Transform(neg)
	require.ErrorContains(t, err, "x: negative entry: entry (2, 3)")
	_, err = m.Transform(tensor.SparseFromDense(neg))
	require.ErrorContains(t, err, "x: negative entry: entry (2, 3)")
}

// Collinear topics (here two identical columns in the start) make the NNLS
// minimiser non-unique. Training must go on instead of stopping, for GD and
// Adam, and the duplicate must be re-initialised and counted.
func TestCollinearTopicsDoNotStopTraining(t *testing.T) {
	rng := tensor.NewRand(4)
	x := tensor.Uniform(12, 20, 0, 1, rng)
	a0 := tensor.Uniform(12, 4, 0, 1, rng)
	for r := 0; r < a0.Rows; r++ {
		a0.Set(r, 3, a0.At(r, 1))
	}
	for _, opt := range []neuralnmf.Optimizer{neuralnmf.GD, neuralnmf.Adam} {
		m, err := neuralnmf.Train(x, neuralnmf.Config{Ranks: []int{4}, Init: neuralnmf.GivenInit, InitA: []*tensor.Dense{a0}, Optimizer: opt, Epochs: 20})
		require.NoError(t, err, "optimizer %v", opt)
		h := m.History.Loss
		require.Len(t, h, 20, "optimizer %v: training stopped early (%s)", opt, m.History.Stopped)
		require.Less(t, h[len(h)-1], h[0], "optimizer %v", opt)
		require.Equal(t, 1, m.History.Collinear, "the duplicated topic is re-initialised once")
		g := tensor.MatMul(true, false, m.A[0], m.A[0])
		cos := g.At(1, 3) / math.Sqrt(g.At(1, 1)*g.At(3, 3))
		require.Less(t, cos, 0.9999, "topics 1 and 3 are no longer collinear")
	}
}

// A sparse X and its dense copy train the same model (the issue asks for
// 1e-10 on a small problem), with and without supervision and both losses.
func TestSparseAndDenseTrainTheSameModel(t *testing.T) {
	rng := tensor.NewRand(12)
	x := randmat.Sparse(40, 30, 0.8, rng)
	xs := tensor.SparseFromDense(x)
	labels := make([]int, 30)
	for i := range labels {
		labels[i] = i % 3
	}
	cfgs := []neuralnmf.Config{
		{Ranks: []int{6, 3}, Epochs: 40, Tol: -1, Optimizer: neuralnmf.Adam, Seed: 1},
		{Ranks: []int{6, 3}, Epochs: 40, Tol: -1, Optimizer: neuralnmf.GD, LR: 1e-3, Loss: neuralnmf.Energy, Seed: 2, Init: neuralnmf.HNMFInit},
		{Ranks: []int{5}, Epochs: 40, Tol: -1, Optimizer: neuralnmf.Adam, Seed: 3, Supervision: &neuralnmf.Supervision{Labels: labels, Classes: 3}},
	}
	for i, cfg := range cfgs {
		md, err := neuralnmf.Train(x, cfg)
		require.NoError(t, err)
		ms, err := neuralnmf.Train(xs, cfg)
		require.NoError(t, err)
		for l := range md.A {
			for j := range md.A[l].Data {
				require.InDelta(t, md.A[l].Data[j], ms.A[l].Data[j], 1e-10, "config %d A[%d]", i, l)
			}
			for j := range md.S[l].Data {
				require.InDelta(t, md.S[l].Data[j], ms.S[l].Data[j], 1e-10, "config %d S[%d]", i, l)
			}
		}
		for e := range md.History.Loss {
			require.InEpsilon(t, md.History.Loss[e], ms.History.Loss[e], 1e-10, "config %d epoch %d", i, e)
		}
		st, err := ms.Transform(xs)
		require.NoError(t, err)
		for j := range st[0].Data {
			require.InDelta(t, ms.S[0].Data[j], st[0].Data[j], 1e-12)
		}
	}
}

// A mask of all ones changes nothing; a mask that hides entries makes the
// loss ignore them: corrupting hidden entries of X leaves the training loss
// history unchanged up to what the NNLS layers see.
func TestDataMask(t *testing.T) {
	x := tensor.Uniform(15, 12, 0, 1, tensor.NewRand(30))
	ones := tensor.New(15, 12)
	ones.Fill(1)
	cfg := neuralnmf.Config{Ranks: []int{3}, Epochs: 15, Tol: -1, Optimizer: neuralnmf.Adam, Seed: 1}
	ref, err := neuralnmf.Train(x, cfg)
	require.NoError(t, err)
	cfg.DataMask = ones
	got, err := neuralnmf.Train(x, cfg)
	require.NoError(t, err)
	for i := range ref.History.Loss {
		require.InEpsilon(t, ref.History.Loss[i], got.History.Loss[i], 1e-12)
	}
	half := tensor.New(15, 12)
	for i := range half.Data {
		half.Data[i] = float64(i % 2)
	}
	cfg.DataMask = half
	masked, err := neuralnmf.Train(x, cfg)
	require.NoError(t, err)
	require.Less(t, masked.History.Loss[0], ref.History.Loss[0], "hidden entries do not count")
	_, err = neuralnmf.Train(x, neuralnmf.Config{Ranks: []int{3}, DataMask: tensor.New(2, 2)})
	require.ErrorContains(t, err, "DataMask: shape mismatch")
}

func TestAccuracyAndSplitLabels(t *testing.T) {
	cases := []struct {
		pred, labels []int
		want         float64
	}{
		{[]int{0, 1, 2}, []int{0, 1, 2}, 1},
		{[]int{0, 1, 2}, []int{0, 2, -1}, 0.5},
		{[]int{0, 1}, []int{-1, -1}, math.NaN()},
	}
	for _, c := range cases {
		got := classify.Accuracy(c.pred, c.labels)
		if math.IsNaN(c.want) {
			require.True(t, math.IsNaN(got), "%v", c)
		} else {
			require.Equal(t, c.want, got, "%v", c)
		}
	}
	seen, held := classify.SplitLabels([]int{3, 4, 5}, nil)
	require.Equal(t, []int{3, 4, 5}, seen)
	require.Equal(t, []int{-1, -1, -1}, held)
	_, err := classify.Readout(tensor.New(2, 3), []int{0, 7, 1}, 2)
	require.ErrorContains(t, err, "classify: Readout")
}

// No learning rate may make training diverge or abort: with rates from
// 1e-12 to 1e12, for projected GD and Adam, training finishes without error,
// no recorded loss exceeds the first (the safeguard's guarantee), a rate of
// 1 or more ends below the starting loss (after backtracking where it is too
// large), and a rate too small to move the loss is not reported as
// converged.
func TestAbsurdLearningRates(t *testing.T) {
	x := synthetic.X()
	for _, opt := range []neuralnmf.Optimizer{neuralnmf.GD, neuralnmf.Adam} {
		for _, lr := range []float64{1e-12, 1e-6, 1, 1e6, 1e12} {
			m, err := neuralnmf.Train(x, neuralnmf.Config{Ranks: []int{9, 4, 2}, Init: neuralnmf.RandomInit, Restarts: 1, Optimizer: opt, LR: lr, Epochs: 40, Seed: 3})
			require.NoError(t, err, "optimizer %v, LR %g", opt, lr)
			h := m.History
			for e, l := range h.Loss {
				require.LessOrEqual(t, l, h.Loss[0], "optimizer %v, LR %g: epoch %d loss above the first", opt, lr, e+1)
			}
			last := h.Loss[len(h.Loss)-1]
			if lr >= 1 {
				require.Less(t, last, 0.99*h.Loss[0], "optimizer %v, LR %g: no progress (%s, %d backtracks)", opt, lr, h.Stopped, h.Backtracks)
			}
			if lr >= 1e6 {
				require.Greater(t, h.Backtracks, 0, "optimizer %v, LR %g", opt, lr)
				require.Less(t, h.LRScale, 1.0)
			}
			if lr == 1e-12 {
				require.True(t, strings.HasPrefix(h.Stopped, "no progress"), "optimizer %v: a model that did not move is not converged: %s", opt, h.Stopped)
			}
			t.Logf("%v LR %g: loss %.4g → %.4g, %d backtracks, LR×%.3g, %s", opt, lr, h.Loss[0], last, h.Backtracks, h.LRScale, h.Stopped)
		}
	}
}

func TestCheckLabels(t *testing.T) {
	cases := []struct {
		labels  []int
		classes int
		msg     string
	}{
		{[]int{0, 1, -1, 2, 1}, 3, ""},
		{[]int{1, 0}, 2, ""},
		{[]int{0, 7, 1}, 0, "label 7 of column 2: more classes than the 3 columns"},
		{[]int{0, 2, 2, 0}, 0, "class(es) [1] of 0..2 have no labelled column"},
		{[]int{0, -3}, 0, "label -3 of column 2"},
		{[]int{-1, -1}, 0, "no column has a label"},
	}
	for _, tc := range cases {
		p, err := classify.CheckLabels(tc.labels)
		if tc.msg == "" {
			require.NoError(t, err, "%v", tc.labels)
			require.Equal(t, tc.classes, p)
		} else {
			require.ErrorContains(t, err, tc.msg, "%v", tc.labels)
		}
	}
}

// A zero Model is not a model: its methods return errors, never panic, and
// Save writes nothing that Load would reject.
func TestZeroModel(t *testing.T) {
	var m neuralnmf.Model
	_, err := m.Transform(tensor.Uniform(3, 2, 0, 1, tensor.NewRand(1)))
	require.ErrorContains(t, err, "no layers")
	_, err = m.Transform(tensor.SparseFromDense(tensor.Uniform(3, 2, 0, 1, tensor.NewRand(1))))
	require.ErrorContains(t, err, "no layers")
	path := filepath.Join(t.TempDir(), "zero.nnmf")
	require.ErrorContains(t, m.Save(path), "no layers")
	_, err = os.Stat(path)
	require.ErrorIs(t, err, os.ErrNotExist, "nothing written")
}

// A custom loss that uses Forward.X on a sparse X (where it is nil) makes
// Train return an error that says what to use instead, not panic.
func TestCustomLossOnSparseXIsAnError(t *testing.T) {
	x := tensor.SparseFromDense(tensor.Uniform(10, 8, 0, 1, tensor.NewRand(2)))
	_, err := neuralnmf.Train(x, neuralnmf.Config{Ranks: []int{3}, Epochs: 2, CustomLoss: func(tp *autograd.Tape, f *neuralnmf.Forward) *autograd.Var {
		return ops.FrobeniusLoss(f.X, ops.MatMul(f.A[0], f.S[0]))
	}})
	require.ErrorContains(t, err, "CustomLoss panicked")
	require.ErrorContains(t, err, "use Forward.XSparse")
	require.ErrorContains(t, err, "ops.SparseKLLoss for the divergence", "a KL custom loss is pointed at its sparse form too")
}

// Normalize divides each squared term by its entries: with a given start
// and one epoch (no step), the recorded loss must equal the normalised
// energy computed here from nnls.Solve and plain matrix arithmetic.
func TestNormalizedEnergyLoss(t *testing.T) {
	rng := tensor.NewRand(6)
	x := tensor.Uniform(14, 11, 0, 1, rng)
	a0, a1 := tensor.Uniform(14, 5, 0, 1, rng), tensor.Uniform(5, 3, 0, 1, rng)
	m, err := neuralnmf.Train(x, neuralnmf.Config{Ranks: []int{5, 3}, Loss: neuralnmf.Energy, Normalize: true,
		Init: neuralnmf.GivenInit, InitA: []*tensor.Dense{a0, a1}, Epochs: 1})
	require.NoError(t, err)
	sq := func(p, q *tensor.Dense) float64 {
		d := tensor.New(p.Rows, p.Cols)
		tensor.Sub(d, p, q)
		return tensor.SqNorm(d)
	}
	r0, err := nnls.Solve(a0, x, nil)
	require.NoError(t, err)
	r1, err := nnls.Solve(a1, r0.S, nil)
	require.NoError(t, err)
	want := sq(x, tensor.MatMul(false, false, a0, r0.S))/float64(14*11) + sq(r0.S, tensor.MatMul(false, false, a1, r1.S))/float64(5*11)
	require.InDelta(t, want, m.History.Loss[0], 1e-12*want)
}

// Classify on the training columns must give the model's own predictions,
// and its scores are B·S⁽ᴸ⁾; an unsupervised model has nothing to classify
// with.
func TestClassify(t *testing.T) {
	x := synthetic.X()
	labels, _ := synthetic.Labels(9)
	known, _ := synthetic.Known(40)
	m, err := neuralnmf.Train(x, neuralnmf.Config{Ranks: []int{9}, Seed: 2, Epochs: 50,
		Supervision: &neuralnmf.Supervision{Labels: labels, Classes: 9, Known: known}})
	require.NoError(t, err)
	pred, scores, err := m.Classify(x)
	require.NoError(t, err)
	require.Equal(t, m.Predict(), pred)
	require.Equal(t, 9, scores.Rows)
	require.Equal(t, x.Cols, scores.Cols)
	sp, _, err := m.Classify(tensor.SparseFromDense(x))
	require.NoError(t, err)
	require.Equal(t, pred, sp)
	u, err := neuralnmf.Train(x, neuralnmf.Config{Ranks: []int{9}, Epochs: 3})
	require.NoError(t, err)
	_, _, err = u.Classify(x)
	require.ErrorContains(t, err, "trained without labels")
}

// History.RelError is ‖X − A⁽⁰⁾⋯S⁽ᴸ⁾‖/‖X‖ at the epoch's parameters whatever
// the loss: read from the loss's own fit term where it has one (plain,
// supervised, normalised), computed separately otherwise (energy, data
// mask). At the last epoch it must equal the error of the returned model.
func TestRelErrorHistoryIsTheModelsError(t *testing.T) {
	x := synthetic.X()
	labels, _ := synthetic.Labels(9)
	known := make([]bool, len(labels))
	for j := range known {
		known[j] = j%4 != 0
	}
	mask := tensor.New(x.Rows, x.Cols)
	for i := range mask.Data {
		mask.Data[i] = float64(i % 2)
	}
	cases := []struct {
		name string
		edit func(*neuralnmf.Config)
	}{
		{"plain", func(*neuralnmf.Config) {}},
		{"supervised", func(c *neuralnmf.Config) {
			c.Supervision = &neuralnmf.Supervision{Labels: labels, Classes: 9, Known: known}
		}},
		{"supervised, normalised", func(c *neuralnmf.Config) {
			c.Supervision = &neuralnmf.Supervision{Labels: labels, Classes: 9, Known: known}
			c.Normalize = true
		}},
		{"energy", func(c *neuralnmf.Config) { c.Loss = neuralnmf.Energy }},
		{"data mask", func(c *neuralnmf.Config) { c.DataMask = mask }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := neuralnmf.Config{Ranks: []int{9, 4}, Epochs: 15, Tol: -1, Optimizer: neuralnmf.Adam, Seed: 4, Restarts: 1}
			tc.edit(&cfg)
			m, err := neuralnmf.Train(x, cfg)
			require.NoError(t, err)
			diff := m.Reconstruction()
			tensor.Sub(diff, x, diff)
			want := math.Sqrt(tensor.SqNorm(diff) / tensor.SqNorm(x))
			got := m.History.RelError[len(m.History.RelError)-1]
			require.InEpsilon(t, want, got, 1e-9)
		})
	}
}

// Training is deterministic given a seed, whatever the number of workers
// and of cores (dense and sparse X, semi-supervised so that every op is exercised): the
// NNLS solves and their gradients do not depend on how columns are shared
// out among goroutines.
func TestTrainingIsDeterministic(t *testing.T) {
	// N·k·M above 2·2¹⁹, so that the solves use two goroutines.
	x := tensor.Uniform(300, 600, 0, 1, tensor.NewRand(8))
	for i := range x.Data { // sparse enough for the sparse path to matter
		if i%3 != 0 {
			x.Data[i] = 0
		}
	}
	labels := make([]int, x.Cols)
	known := make([]bool, x.Cols)
	for j := range labels {
		labels[j], known[j] = j%3, j%2 == 0
	}
	train := func(sparse bool, workers, procs int) *neuralnmf.Model {
		if procs > 0 {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		}
		cfg := neuralnmf.Config{Ranks: []int{6, 3}, Init: neuralnmf.RandomInit, Restarts: 1, Epochs: 8, Tol: -1, Seed: 3, Workers: workers,
			Supervision: &neuralnmf.Supervision{Labels: labels, Classes: 3, Known: known}}
		var m *neuralnmf.Model
		var err error
		if sparse {
			m, err = neuralnmf.Train(tensor.SparseFromDense(x), cfg)
		} else {
			m, err = neuralnmf.Train(x, cfg)
		}
		require.NoError(t, err)
		return m
	}
	for _, sparse := range []bool{false, true} {
		ref := train(sparse, 1, 0)
		// workers, GOMAXPROCS (0: unchanged); the last run on one core
		// makes every product and distance serial.
		for _, run := range [][2]int{{2, 0}, {2, 0}, {5, 0}, {0, 1}} {
			m := train(sparse, run[0], run[1])
			require.Equal(t, ref.History.Loss, m.History.Loss, "sparse=%v run %v", sparse, run)
			for l := range ref.A {
				require.Equal(t, ref.A[l].Data, m.A[l].Data, "sparse=%v run %v layer %d", sparse, run, l)
			}
		}
	}
}

// A CustomLoss that reads no A or S cannot train: Train says so instead of
// running epochs with zero gradients.
func TestCustomLossWithoutTheAs(t *testing.T) {
	x := tensor.Uniform(6, 8, 0, 1, tensor.NewRand(1))
	_, err := neuralnmf.Train(x, neuralnmf.Config{Ranks: []int{2}, Epochs: 5, Seed: 1,
		CustomLoss: func(t *autograd.Tape, f *neuralnmf.Forward) *autograd.Var {
			return ops.Sum(ops.Hadamard(f.X, f.X))
		}})
	require.ErrorIs(t, err, neuralnmf.ErrConfig)
	require.ErrorContains(t, err, "the loss depends on no A")
}

// The rank rules come back typed (issue 67), so that a command names its
// flag without restating them; Validate says before any work what Train
// would refuse.
func TestConfigErrorNamesFieldAndLayer(t *testing.T) {
	for _, tc := range []struct {
		ranks []int
		layer int
	}{{[]int{20}, 1}, {[]int{4, 6}, 2}, {[]int{4, 0}, 2}} {
		err := neuralnmf.Config{Ranks: tc.ranks}.Validate(12, 30)
		var ce *neuralnmf.ConfigError
		require.ErrorAs(t, err, &ce, "%v", tc.ranks)
		require.ErrorIs(t, err, neuralnmf.ErrConfig)
		require.Equal(t, "Ranks", ce.Field)
		require.Equal(t, tc.layer, ce.Layer, "%v", tc.ranks)
		x := tensor.New(12, 30)
		x.Set(0, 0, 1)
		_, terr := neuralnmf.Train(x, neuralnmf.Config{Ranks: tc.ranks})
		require.EqualError(t, terr, err.Error(), "Train refuses what Validate does")
	}
	require.NoError(t, neuralnmf.Config{Ranks: []int{6, 3}}.Validate(12, 30))
}

// The model's S are the forward pass at its final A: equal to Transform's
// solve of the training data to rounding, whether the fit ends at its
// start (one epoch, whose forward pass the model keeps), at the epoch cap,
// by convergence, or after steps the safeguard rejected (LR 10¹²).
func TestModelSIsTheForwardPassOfItsA(t *testing.T) {
	x := synthetic.X()
	sp := tensor.SparseFromDense(randmat.Sparse(300, 200, 0.1, tensor.NewRand(4)))
	cases := []struct {
		name string
		x    neuralnmf.Data
		cfg  neuralnmf.Config
	}{
		{"the start is the fit, sparse", sp, neuralnmf.Config{Ranks: []int{6}, Init: neuralnmf.NNDSVDInit, Seed: 1}},
		{"the start is the fit, dense", x, neuralnmf.Config{Ranks: []int{5}, Init: neuralnmf.NNDSVDInit, Seed: 1}},
		{"epoch cap", x, neuralnmf.Config{Ranks: []int{9, 4}, Epochs: 15, Seed: 2}},
		{"converged, sparse", sp, neuralnmf.Config{Ranks: []int{6, 3}, Seed: 3}},
		{"rejected steps", x, neuralnmf.Config{Ranks: []int{9, 4, 2}, Init: neuralnmf.RandomInit, Restarts: 1, Optimizer: neuralnmf.GD, LR: 1e12, Epochs: 40, Seed: 3}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := neuralnmf.Train(c.x, c.cfg)
			require.NoError(t, err)
			s, err := m.Transform(c.x)
			require.NoError(t, err)
			for l := range s {
				scale := tensor.MaxAbs(s[l])
				for i, v := range s[l].Data {
					require.InDelta(t, v, m.S[l].Data[i], 1e-9*scale, "layer %d, entry %d (%s)", l+1, i, m.History.Stopped)
				}
			}
			if c.name == "rejected steps" {
				require.Positive(t, m.History.Backtracks)
			}
		})
	}
}
