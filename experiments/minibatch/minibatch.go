// Package minibatch is the protocol that chose mini-batch training's
// defaults (neuralnmf.DefaultBatchSize, the learning rate and its schedule
// for Config.BatchSize), kept so that anyone can rerun it:
//
//	NEURALNMF_MINIBATCH=1 go test -run Select -v -timeout 60m ./experiments/minibatch/
//
// For each data set it draws one start (HNMF of a random sample of
// columns), trains full-batch from it to convergence (the package
// defaults), and trains every candidate for 1 to 5 passes from the same
// start. A candidate is scored by its relative error after Passes passes
// divided by the full-batch model's (below 1: mini-batch fits better), and
// by the share of the full-batch improvement over the start that it
// recovers. The choice (Choose) uses the validation sets only: generated
// hierarchies (dense and document-like, 2 and 3 layers) on the
// validation seeds, and one half of the 20 Newsgroups training posts. The
// other half, the whole training set and the test seeds report the
// choice.
package minibatch

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/neuralnmf/neuralnmf/experiments/defaults"
	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/models/ssnmf"
	"github.com/neuralnmf/neuralnmf/optim"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// Passes is the budget of the issue: within 1 % of full batch in at most
// five passes over the documents.
const Passes = 5

// Families are the generated data sets: larger M than the full-batch
// protocol's, so that a pass has several batches.
var Families = []defaults.Family{
	{Name: "dense-2L-10,5", N: 200, M: 5000, Ranks: []int{10, 5}, Noise: 0.1},
	{Name: "dense-3L-12,6,3-unbal", N: 150, M: 4000, Ranks: []int{12, 6, 3}, Noise: 0.3, Unbalanced: true},
	{Name: "docs-2L-20,5", N: 3000, M: 6000, Ranks: []int{20, 5}, DocLen: 80},
	{Name: "docs-3L-16,8,4-unbal", N: 4000, M: 5000, Ranks: []int{16, 8, 4}, DocLen: 50, Unbalanced: true},
}

// ValidationSeeds choose; TestSeeds report.
var (
	ValidationSeeds = []uint64{1, 2}
	TestSeeds       = []uint64{101, 102}
)

// Candidate is a mini-batch configuration: batch size, Adam's relative
// learning rate and the factor by which it is multiplied after every pass
// (1: constant).
type Candidate struct {
	BatchSize int
	LR        float64
	PassDecay float64
}

func (c Candidate) String() string {
	return fmt.Sprintf("batch %d, lr %g, ×%g per pass", c.BatchSize, c.LR, c.PassDecay)
}

// Config is c's neuralnmf.Config for m columns, ranks and a start.
func (c Candidate) Config(ranks []int, start []*tensor.Dense, seed uint64, passes int) neuralnmf.Config {
	return neuralnmf.Config{Ranks: ranks, Seed: seed, BatchSize: c.BatchSize, LR: c.LR, Epochs: passes, Tol: -1,
		Init: neuralnmf.GivenInit, InitA: start, Decay: optim.StepDecay{Every: 1, Factor: c.PassDecay}}
}

// Candidates are the configurations compared.
func Candidates() []Candidate {
	var out []Candidate
	for _, b := range []int{250, 1000} {
		for _, lr := range []float64{0.01, 0.03, 0.1} {
			for _, d := range []float64{1, 0.7, 0.5} {
				out = append(out, Candidate{b, lr, d})
			}
		}
	}
	return out
}

// Data is one data set of the protocol.
type Data struct {
	Name  string
	X     *tensor.Sparse
	Ranks []int
	Seed  uint64
}

// Generated returns family f on seed as sparse data.
func Generated(f defaults.Family, seed uint64) Data {
	return Data{Name: f.Name, X: tensor.SparseFromDense(defaults.Generate(f, seed)), Ranks: f.Ranks, Seed: seed}
}

// Start is HNMF (one start per layer, seed) of sample columns of x drawn
// at random with seed.
func Start(x *tensor.Sparse, ranks []int, sample int, seed uint64) ([]*tensor.Dense, error) {
	cols := tensor.NewRand(seed ^ 0x5a5a).Perm(x.Cols)[:min(sample, x.Cols)]
	sort.Ints(cols)
	s := x.SelectColumns(cols)
	h, err := ssnmf.HNMFSparse(s, ranks, nil, &ssnmf.Options{Seed: seed})
	if err != nil {
		return nil, err
	}
	return h.A, nil
}

// Baseline is full-batch training of a data set from the start.
type Baseline struct {
	Start, Full float64 // relative errors of the start and of the full-batch model
	Epochs      int
	Seconds     float64
}

// Run is one candidate on one data set.
type Run struct {
	Data, Candidate string
	// RelErr[p] is the relative error after p+1 passes.
	RelErr  []float64
	Seconds float64 // for Passes passes
	Base    Baseline
}

// Ratio is the relative error after Passes passes over the full-batch one.
func (r Run) Ratio() float64 { return r.RelErr[len(r.RelErr)-1] / r.Base.Full }

// Recovered is the share of the full-batch improvement over the start that
// the candidate has after Passes passes (above 1: it went further).
func (r Run) Recovered() float64 {
	return (r.Base.Start - r.RelErr[len(r.RelErr)-1]) / (r.Base.Start - r.Base.Full)
}

// StartSample is the number of columns the start factorises: the largest
// candidate batch, as the mini-batch start does.
const StartSample = 1000

// Full trains full-batch (the package defaults) from start.
func Full(d Data, start []*tensor.Dense) (Baseline, error) {
	t0 := time.Now()
	m, err := neuralnmf.TrainSparse(d.X, neuralnmf.Config{Ranks: d.Ranks, Seed: d.Seed, Init: neuralnmf.GivenInit, InitA: start})
	if err != nil {
		return Baseline{}, err
	}
	return Baseline{Start: m.History.RelError[0], Full: m.History.FinalRelError, Epochs: len(m.History.Loss), Seconds: time.Since(t0).Seconds()}, nil
}

// Evaluate trains c from start for 1..Passes passes.
func Evaluate(d Data, start []*tensor.Dense, c Candidate, base Baseline) (Run, error) {
	r := Run{Data: d.Name, Candidate: c.String(), Base: base}
	for p := 1; p <= Passes; p++ {
		t0 := time.Now()
		m, err := neuralnmf.TrainSparse(d.X, c.Config(d.Ranks, start, d.Seed, p))
		if err != nil {
			return r, fmt.Errorf("%s, %s, %d passes: %w", d.Name, c, p, err)
		}
		r.RelErr = append(r.RelErr, m.History.FinalRelError)
		r.Seconds = time.Since(t0).Seconds()
	}
	return r, nil
}

// Summary is a candidate's numbers over runs.
type Summary struct {
	Candidate               string
	MeanRatio, SDRatio, Max float64
	MeanRecovered, MinRecov float64
	Runs                    int
}

// Summarise groups runs by candidate, in the order of names.
func Summarise(runs []Run, names []string) []Summary {
	var out []Summary
	for _, n := range names {
		s := Summary{Candidate: n, Max: math.Inf(-1), MinRecov: math.Inf(1)}
		var ratios []float64
		for _, r := range runs {
			if r.Candidate != n {
				continue
			}
			ratios = append(ratios, r.Ratio())
			s.Max = math.Max(s.Max, r.Ratio())
			s.MeanRecovered += r.Recovered()
			s.MinRecov = math.Min(s.MinRecov, r.Recovered())
		}
		s.Runs = len(ratios)
		s.MeanRatio, s.SDRatio = meanSD(ratios)
		s.MeanRecovered /= float64(max(s.Runs, 1))
		out = append(out, s)
	}
	return out
}

func meanSD(v []float64) (float64, float64) {
	var m, q float64
	for _, x := range v {
		m += x
	}
	m /= float64(max(len(v), 1))
	for _, x := range v {
		q += (x - m) * (x - m)
	}
	if len(v) < 2 {
		return m, 0
	}
	return m, math.Sqrt(q / float64(len(v)-1))
}

// Choose picks, among the candidates whose worst ratio is within 1 %
// (the bar), the one with the lowest mean ratio; if none is
// within 1 % everywhere, the one with the lowest worst ratio.
func Choose(sums []Summary) Summary {
	best := -1
	for i, s := range sums {
		if s.Max > 1.01 {
			continue
		}
		if best < 0 || s.MeanRatio < sums[best].MeanRatio {
			best = i
		}
	}
	if best >= 0 {
		return sums[best]
	}
	for i, s := range sums {
		if best < 0 || s.Max < sums[best].Max {
			best = i
		}
	}
	return sums[best]
}

// Default is the candidate the package defaults stand for.
func Default() Candidate {
	return Candidate{BatchSize: neuralnmf.DefaultBatchSize, LR: neuralnmf.DefaultBatchLR, PassDecay: neuralnmf.DefaultBatchDecay}
}
