package neuralnmf_test

import (
	"fmt"
	"math"
	"strings"

	"github.com/neuralnmf/neuralnmf/autograd"
	"github.com/neuralnmf/neuralnmf/classify"
	"github.com/neuralnmf/neuralnmf/datasets/synthetic"
	"github.com/neuralnmf/neuralnmf/gradcheck"
	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/ops"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// Two-layer Neural NMF of the paper's synthetic data, initialised from the
// best of several HNMF starts.
func ExampleTrain() {
	x := synthetic.X()
	m, err := neuralnmf.Train(x, neuralnmf.Config{
		Ranks:        []int{9, 4},
		Init:         neuralnmf.HNMFInit,
		InitRestarts: 10,
		Restarts:     2,
		Optimizer:    neuralnmf.Adam,
		Seed:         1,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	h := m.History
	fmt.Println("error below the paper's 0.310:", h.RelError[len(h.RelError)-1] < 0.310)
	labels, _ := synthetic.Labels(4)
	fmt.Printf("4-class read-out accuracy %.2f\n", classify.ReadoutAccuracy(m.S[1], labels, 4))
	// Output:
	// error below the paper's 0.310: true
	// 4-class read-out accuracy 1.00
}

// A custom loss: the reconstruction of the top layer plus an ℓ₁ penalty on
// S⁽ᴸ⁾, built from ops; the tape differentiates it.
func ExampleConfig_customLoss() {
	x := synthetic.X()
	m, err := neuralnmf.Train(x, neuralnmf.Config{
		Ranks: []int{9}, Init: neuralnmf.HNMFInit, Optimizer: neuralnmf.Adam, Epochs: 50, Seed: 1,
		CustomLoss: func(t *autograd.Tape, f *neuralnmf.Forward) *autograd.Var {
			rec := ops.FrobeniusLoss(f.X, ops.MatMul(f.A[0], f.S[0]))
			return ops.Add(rec, ops.Scale(ops.Sum(f.S[0]), 0.01))
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(m.History.Loss) == 50, m.History.Loss[49] < m.History.Loss[0])
	// Output: true true
}

// A custom loss that keeps the labels: an ℓ₁ penalty on S⁽ᴸ⁾ added to the
// reconstruction, and the built-in supervision term added by
// Forward.AddSupervision (its λ balanced against the custom loss).
func ExampleForward_AddSupervision() {
	x := synthetic.X()
	labels, _ := synthetic.Labels(9)
	m, err := neuralnmf.Train(x, neuralnmf.Config{
		Ranks: []int{9}, Epochs: 100, Seed: 1,
		Supervision: &neuralnmf.Supervision{Labels: labels, Classes: 9},
		CustomLoss: func(t *autograd.Tape, f *neuralnmf.Forward) *autograd.Var {
			rec := ops.FrobeniusLoss(f.X, ops.MatMul(f.A[0], f.S[0]))
			return f.AddSupervision(ops.Add(rec, ops.Scale(ops.Sum(f.S[0]), 0.01)))
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("λ > 0: %v, training accuracy %.2f\n", m.History.Lambda > 0, m.History.Accuracy[len(m.History.Accuracy)-1])
	// Output: λ > 0: true, training accuracy 1.00
}

// The paper's accuracy protocol: fit the read-out on the known labels,
// score the held-out columns. Here S⁽ᴸ⁾ separates the classes, so
// B = Y·S† = I/2 and every column is predicted right.
func ExampleReadout() {
	s, _ := tensor.FromRows([][]float64{{1, 0, 1, 0}, {0, 1, 0, 1}})
	labels := []int{0, 1, 0, 1}
	known := []bool{true, true, false, false}
	seen, heldOut := classify.SplitLabels(labels, known)
	pred, err := classify.Readout(s, seen, 2)
	if err != nil {
		panic(err)
	}
	fmt.Println(seen, heldOut, pred)
	fmt.Printf("held-out accuracy %.2f\n", classify.Accuracy(pred, heldOut))
	// Output:
	// [0 1 -1 -1] [-1 -1 0 1] [0 1 0 1]
	// held-out accuracy 1.00
}

// The paper's Algorithm 1 as written: projected gradient descent with a
// fixed step for a fixed number of epochs, with none of the safeguards of
// the default training. Here from the paper's random start on its
// synthetic data, one layer.
func ExampleConfig_algorithm1() {
	x := synthetic.X()
	m, err := neuralnmf.Train(x, neuralnmf.Config{
		Ranks:      []int{9},
		Init:       neuralnmf.RandomInit,
		Algorithm1: true,
		LR:         1e-4,
		Epochs:     200,
		Seed:       1,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	h := m.History
	fmt.Println("epochs:", len(h.Loss))
	fmt.Println("stopped:", h.Stopped)
	fmt.Println("loss fell:", h.Loss[len(h.Loss)-1] < h.Loss[0])
	// Output:
	// epochs: 200
	// stopped: max epochs: stopped at the cap of 200 epochs
	// loss fell: true
}

// The stopping rule: training ends when the loss fell by less than Tol
// (relative) over the last Window epochs, and History.Stopped says so.
func ExampleConfig_stopping() {
	x := synthetic.X()
	m, err := neuralnmf.Train(x, neuralnmf.Config{Ranks: []int{9, 4}, Tol: 1e-3, Window: 5, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	h := m.History
	n := len(h.Loss)
	fmt.Println(strings.HasPrefix(h.Stopped, "converged: relative decrease"))
	fmt.Println("rule met:", (h.Loss[n-6]-h.Loss[n-1])/h.Loss[n-6] <= 1e-3)
	// Output:
	// true
	// rule met: true
}

// Train reports what it runs through Config.Phase: the configuration it
// resolved for this X (here the starts it sized to a small matrix, where
// a start costs milliseconds), before each start and before training.
func ExampleStage() {
	x := tensor.New(30, 40)
	rng := tensor.NewRand(1)
	for i := range x.Data {
		x.Data[i] = rng.Float64()
	}
	cfg := neuralnmf.Config{Ranks: []int{4}, Epochs: 5, Seed: 1}
	cfg.Phase = func(s neuralnmf.Stage) {
		if s.Name == "start" && s.Restart == 1 {
			fmt.Printf("start %d of %d: init %v, %d start(s) per layer, tolerance %g\n", s.Restart, s.Run.Restarts, s.Run.Init, s.Run.InitRestarts, s.Run.Tol)
		}
	}
	if _, err := neuralnmf.Train(x, cfg); err != nil {
		fmt.Println(err)
	}
	// Output:
	// start 1 of 2: init hnmf, 10 start(s) per layer, tolerance 0.0001
}

// A CustomLoss checked by gradcheck as written: the generalised KL
// divergence of X from a two-layer reconstruction, through both NNLS
// layers, dense and sparse.
func ExampleForwardLoss() {
	x := tensor.Uniform(8, 10, 0.1, 1, tensor.NewRand(1))
	kl := func(t *autograd.Tape, f *neuralnmf.Forward) *autograd.Var {
		rec := ops.MatMul(f.A[0], ops.MatMul(f.A[1], f.S[1]))
		if f.X == nil {
			return ops.SparseKLLoss(f.XSparse, f.A[0], ops.MatMul(f.A[1], f.S[1]))
		}
		return ops.KLDivergence(f.X, rec)
	}
	as := []*tensor.Dense{tensor.Uniform(8, 3, 0.1, 1, tensor.NewRand(2)), tensor.Uniform(3, 2, 0.1, 1, tensor.NewRand(3))}
	_, err := gradcheck.Check(neuralnmf.ForwardLoss(x, kl), as, nil)
	fmt.Println("dense:", err)
	_, err = gradcheck.Check(neuralnmf.ForwardLoss(tensor.SparseFromDense(x), kl), as, nil)
	fmt.Println("sparse:", err)
	// Output:
	// dense: <nil>
	// sparse: <nil>
}

// Word counts under the generalised Kullback–Leibler divergence: every
// layer a KL layer, started by KL-HNMF from NNDSVDa.
func ExampleConfig_kl() {
	rng := tensor.NewRand(3)
	y := tensor.MatMul(false, false, tensor.Uniform(30, 3, 0, 2, rng), tensor.Uniform(3, 40, 0, 1, rng))
	x := tensor.New(30, 40) // counts: the model rounded
	for i, v := range y.Data {
		x.Data[i] = math.Round(v)
	}
	m, err := neuralnmf.Train(x, neuralnmf.Config{Ranks: []int{3, 2}, Loss: neuralnmf.KL, Epochs: 30})
	if err != nil {
		fmt.Println(err)
		return
	}
	h := m.History.Loss
	fmt.Println("divergence fell:", h[len(h)-1] < h[0])
	s, err := m.Transform(x) // KL layers again, on any counts
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("layers:", len(s), "topics:", s[0].Rows, s[1].Rows)
	// Output:
	// divergence fell: true
	// layers: 2 topics: 3 2
}

// scikit-learn's elastic-net penalty on the documents' weights S
// (its alpha_W and l1_ratio) inside every layer: the layers' S become
// sparser, and Transform solves the same penalised problems.
func ExampleConfig_elasticNet() {
	x := synthetic.X()
	share := func(d *tensor.Dense) float64 {
		z := 0
		for _, v := range d.Data {
			if v == 0 {
				z++
			}
		}
		return float64(z) / float64(len(d.Data))
	}
	cfg := neuralnmf.Config{Ranks: []int{9}, Epochs: 50, Seed: 1}
	plain, err := neuralnmf.Train(x, cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg.AlphaS, cfg.L1Ratio = 0.001, 0.9 // α = 0.001 × 87 rows
	pen, err := neuralnmf.Train(x, cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := pen.Transform(x)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("sparser S:", share(pen.S[0]) > share(plain.S[0]))
	diff := 0.0
	for i, v := range s[0].Data {
		diff = max(diff, math.Abs(v-pen.S[0].Data[i]))
	}
	fmt.Println("Transform gives the training S:", diff < 1e-9)
	// Output:
	// sparser S: true
	// Transform gives the training S: true
}

// Sharded training as a distributed driver runs it: every step, each
// shard computes its share from the current A's and its slice of the
// step's columns; the driver adds the shares in shard order, takes the
// step, and could checkpoint the trainer's bytes after it (here they are
// decoded back, as a resumed driver would).
func ExampleShardedTrainer() {
	x := tensor.SparseFromDense(synthetic.X()) // 87 × 90
	const shards, steps = 3, 2
	// slice[s][j]: shard s's columns of step j.
	slice := make([][]*tensor.Sparse, shards)
	for s := range shards {
		for j := range steps {
			var cols []int
			for c := s*30 + j*15; c < s*30+(j+1)*15; c++ {
				cols = append(cols, c)
			}
			slice[s] = append(slice[s], x.SelectColumns(cols))
		}
	}
	cfg := neuralnmf.Config{Ranks: []int{9, 4}, Epochs: 4, Tol: -1, Seed: 1}
	tr, err := neuralnmf.NewShardedTrainer(cfg, x.Rows, x.Cols, steps, x) // the start factorises the sample, here all of X
	if err != nil {
		fmt.Println(err)
		return
	}
	for !tr.Done() {
		_, j := tr.Next()
		var total *neuralnmf.Share
		for s := range shards { // on a cluster: one worker a shard
			sh, err := neuralnmf.StepShare(tr.A(), slice[s][j], 0)
			if err != nil {
				fmt.Println(err)
				return
			}
			if total == nil {
				total = sh
			} else if err := total.Add(sh); err != nil {
				fmt.Println(err)
				return
			}
		}
		if err := tr.Step(total); err != nil {
			fmt.Println(err)
			return
		}
		checkpoint, _ := tr.MarshalBinary()
		if tr, err = neuralnmf.UnmarshalShardedTrainer(checkpoint, 0); err != nil {
			fmt.Println(err)
			return
		}
	}
	final, _ := neuralnmf.EvalShare(tr.A(), x, 0)
	m, err := tr.Model(final)
	if err != nil {
		fmt.Println(err)
		return
	}
	h := m.History
	fmt.Println("passes:", len(h.Loss))
	fmt.Println("below the first pass's error:", h.FinalRelError < h.RelError[0])
	// Output:
	// passes: 4
	// below the first pass's error: true
}
