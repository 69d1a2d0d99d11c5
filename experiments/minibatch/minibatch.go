// Package minibatch is the protocol that chose mini-batch training's
// defaults (neuralnmf.DefaultBatchSize, the BatchUpdate of A⁽⁰⁾ and its
// Forget factor, the start), kept so that anyone can rerun it:
//
//	NEURALNMF_MINIBATCH=1 go test -run Select -v -timeout 90m ./experiments/minibatch/
//
// For each data set it draws one sample of columns and factorises it as
// each candidate start does (HNMF by multiplicative updates, NNDSVD; a
// random start draws no sample), trains full-batch to convergence (the
// package defaults) from the HNMF and the NNDSVD starts and keeps the
// better, and trains every candidate for 1 to 5 passes from its start. A
// candidate is scored by its relative error after Passes passes divided
// by the full-batch model's (below 1: mini-batch fits better). The choice
// (Choose) uses the validation sets only: generated hierarchies (dense and
// document-like, 2 and 3 layers), generated corpora of 50,000 words (2
// layers) and 60,000 words (1 layer) on the validation seeds, and one half
// of the 20 Newsgroups training posts. The other half, the whole training
// set and the test seeds (with corpora of 100,000 words too, 1 and 2
// layers) report the choice.
//
// The first run of this protocol compared 18 Adam schedules from the HNMF
// start (select-gradient.log, report-gradient.log); the second added the
// running-statistics update and the NNDSVD and random starts
// (select-starts.log, stopped before its last corpus, and
// report-starts.log); the third added the hnmf-best start and the
// one-layer corpora (select.log, report.log).
//
// The logs of its runs, which the comments here and docs/ cite by name,
// are in results/experiments/minibatch/.
package minibatch

import (
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"time"

	"github.com/neuralnmf/neuralnmf/experiments/defaults"
	"github.com/neuralnmf/neuralnmf/internal/gencorpus"
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

// StructureValidationSeeds choose the step structure (TestSelectStructure)
// on the generated families: more seeds than ValidationSeeds, because the
// choice is by the worst ratio, and on the near-exact dense family (full
// batch's relative error 0.016) the ratio varies between seeds by more
// than the 1 % bar's margin (report seed 102: 1.0136 for 4 steps per pass,
// 1.0077 even for the one-machine default; validation seeds 1 and 2:
// 1.0027 and 1.0024). StructureTestSeeds report the choice on seeds
// neither choice nor earlier reports saw.
var (
	StructureValidationSeeds = []uint64{1, 2, 3, 4, 5, 6}
	StructureTestSeeds       = []uint64{201, 202}
)

// Candidate is a mini-batch configuration: batch size, the start (HNMF by
// multiplicative updates or NNDSVD, of the same sample of columns) and the
// update of A⁽⁰⁾: Adam's relative learning rate and the factor by which it
// is multiplied after every pass (1: constant), or the running statistics
// and the factor by which they are multiplied over a pass.
type Candidate struct {
	BatchSize int
	Start     neuralnmf.Init
	Update    neuralnmf.BatchUpdate
	LR        float64
	PassDecay float64
	Forget    float64
}

func (c Candidate) String() string {
	if c.Update == neuralnmf.Statistics {
		return fmt.Sprintf("batch %d, %s start, statistics ×%g per pass", c.BatchSize, c.Start, c.Forget)
	}
	return fmt.Sprintf("batch %d, %s start, gradient lr %g ×%g per pass", c.BatchSize, c.Start, c.LR, c.PassDecay)
}

// Config is c's neuralnmf.Config for ranks, trained from start (ignored
// for a RandomInit start, which the package draws).
func (c Candidate) Config(ranks []int, start []*tensor.Dense, seed uint64, passes int) neuralnmf.Config {
	cfg := neuralnmf.Config{Ranks: ranks, Seed: seed, BatchSize: c.BatchSize, LR: c.LR, Epochs: passes, Tol: -1,
		Init: neuralnmf.GivenInit, InitA: start, Decay: optim.StepDecay{Every: 1, Factor: c.PassDecay},
		BatchUpdate: c.Update, Forget: c.Forget}
	if c.Start == neuralnmf.RandomInit {
		cfg.Init, cfg.InitA = neuralnmf.RandomInit, nil
	}
	return cfg
}

// Starts are the starts compared: HNMF (by multiplicative updates),
// NNDSVD (HNMF by HALS from NNDSVDa) and the better of HNMF by
// multiplicative updates and by HALS (hnmf-best) of a sample of columns,
// and uniform random A's.
var Starts = []neuralnmf.Init{neuralnmf.HNMFInit, neuralnmf.NNDSVDInit, neuralnmf.HNMFBestInit, neuralnmf.RandomInit}

// Candidates are the configurations compared. Of the Adam (Gradient)
// updates only the step and schedule that won the first run of this
// protocol (select-gradient.log: 18 of them, from the HNMF start) are
// kept, and not from a random start, which that step cannot fix in five
// passes.
func Candidates() []Candidate {
	var out []Candidate
	for _, b := range []int{250, 1000} {
		for _, st := range Starts {
			if st != neuralnmf.RandomInit {
				out = append(out, Candidate{BatchSize: b, Start: st, Update: neuralnmf.Gradient, LR: 0.1, PassDecay: 0.5, Forget: 1})
			}
			for _, f := range []float64{0.1, 0.3, 0.7} {
				out = append(out, Candidate{BatchSize: b, Start: st, Update: neuralnmf.Statistics, LR: 0.1, PassDecay: 0.5, Forget: f})
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

// Vocabularies are generated corpora (package gencorpus) whose vocabulary
// is much larger than the start's sample of documents uses: the regime of
// large corpora, where the start sees a fraction of the words. Spec.Seed
// is set per run; Ranks are the planted groups and topics, or the topics
// alone for one layer (the shape scikit-learn's MiniBatchNMF fits). Those
// that Validate choose (ValidationSeeds); all report (TestSeeds). The
// 100,000-word ones are gencorpus.Default's shape with 16,000 documents,
// the benchmark's, and report only.
var Vocabularies = []struct {
	Name     string
	Spec     gencorpus.Spec
	Ranks    []int
	Validate bool
}{
	{"vocab-50k-16,4", gencorpus.Spec{Words: 50000, Docs: 8000, Groups: 4, TopicsPerGroup: 4, DocLen: 60, Mix: 0.3, Background: 0.15}, []int{16, 4}, true},
	{"vocab-60k-18", gencorpus.Spec{Words: 60000, Docs: 8000, Groups: 6, TopicsPerGroup: 3, DocLen: 80, Mix: 0.3, Background: 0.1}, []int{18}, true},
	{"vocab-100k-20,5", gencorpus.Spec{Words: 100000, Docs: 16000, Groups: 5, TopicsPerGroup: 4, DocLen: 100, Mix: 0.3, Background: 0.1}, []int{20, 5}, false},
	{"vocab-100k-20", gencorpus.Spec{Words: 100000, Docs: 16000, Groups: 5, TopicsPerGroup: 4, DocLen: 100, Mix: 0.3, Background: 0.1}, []int{20}, false},
}

// Vocabulary returns corpus v (an index of Vocabularies) on seed, read
// whole.
func Vocabulary(v int, seed uint64) (Data, error) {
	spec := Vocabularies[v].Spec
	spec.Seed = seed
	c, err := gencorpus.New(spec)
	if err != nil {
		return Data{}, err
	}
	var blocks []*tensor.Sparse
	for {
		b, err := c.Next(1000)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Data{}, err
		}
		blocks = append(blocks, b)
	}
	return Data{Name: Vocabularies[v].Name, X: tensor.ConcatColumns(blocks), Ranks: Vocabularies[v].Ranks, Seed: seed}, nil
}

// Generated returns family f on seed as sparse data.
func Generated(f defaults.Family, seed uint64) Data {
	return Data{Name: f.Name, X: tensor.SparseFromDense(defaults.Generate(f, seed)), Ranks: f.Ranks, Seed: seed}
}

// Start is HNMF (one start per layer, seed; by multiplicative updates for
// HNMFInit, by HALS from NNDSVDa for NNDSVDInit, the lower error through
// the hierarchy of multiplicative updates and HALS for HNMFBestInit, as
// neuralnmf's own start) of sample columns of x drawn at random with seed.
// It is nil for RandomInit, which the package draws itself.
func Start(x *tensor.Sparse, ranks []int, sample int, seed uint64, init neuralnmf.Init) ([]*tensor.Dense, error) {
	if init == neuralnmf.RandomInit {
		return nil, nil
	}
	cols := tensor.NewRand(seed ^ 0x5a5a).Perm(x.Cols)[:min(sample, x.Cols)]
	sort.Ints(cols)
	s := x.SelectColumns(cols)
	opts := []*ssnmf.Options{{Seed: seed}}
	switch init {
	case neuralnmf.NNDSVDInit:
		opts = []*ssnmf.Options{{Seed: seed, Solver: ssnmf.HALS, Start: ssnmf.NNDSVDAStart}}
	case neuralnmf.HNMFBestInit:
		opts = append(opts, &ssnmf.Options{Seed: seed, Solver: ssnmf.HALS})
	}
	var best []*tensor.Dense
	bestErr := math.Inf(1)
	for _, opt := range opts {
		h, err := ssnmf.HNMFSparse(s, ranks, nil, opt)
		if err != nil {
			return nil, err
		}
		last := len(h.A) - 1
		if e := s.SqDist(neuralnmf.LayerTopics(h.A)[last], h.S[last]); e < bestErr {
			best, bestErr = h.A, e
		}
	}
	return best, nil
}

// Baseline is full-batch training of a data set: the best of the models
// trained from the starts of the sample (HNMF, NNDSVD and hnmf-best), so
// that a candidate is measured against full-batch quality, not against a
// start that full batch cannot leave either.
type Baseline struct {
	Start   float64 // relative error of the HNMF start of the sample
	Full    float64 // of the better full-batch model
	From    neuralnmf.Init
	Epochs  int
	Seconds float64
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

// Recovered is the share of the improvement from the HNMF start to the
// full-batch model that the candidate has after Passes passes (above 1:
// it went further).
func (r Run) Recovered() float64 {
	return (r.Base.Start - r.RelErr[len(r.RelErr)-1]) / (r.Base.Start - r.Base.Full)
}

// StartSample is the number of columns the start factorises: the largest
// candidate batch, as the mini-batch start does.
const StartSample = 1000

// Full trains full-batch (the package defaults) from each of starts (by
// Init) that is not nil and keeps the best; Start is the error of
// starts[HNMFInit].
func Full(d Data, starts map[neuralnmf.Init][]*tensor.Dense) (Baseline, error) {
	b := Baseline{Full: math.Inf(1)}
	for _, init := range Starts {
		start := starts[init]
		if start == nil {
			continue
		}
		t0 := time.Now()
		m, err := neuralnmf.Train(d.X, neuralnmf.Config{Ranks: d.Ranks, Seed: d.Seed, Init: neuralnmf.GivenInit, InitA: start})
		if err != nil {
			return Baseline{}, err
		}
		if init == neuralnmf.HNMFInit {
			b.Start = m.History.RelError[0]
		}
		if m.History.FinalRelError < b.Full {
			b.Full, b.From, b.Epochs, b.Seconds = m.History.FinalRelError, init, len(m.History.Loss), time.Since(t0).Seconds()
		}
	}
	return b, nil
}

// Evaluate trains c from start for 1..Passes passes.
func Evaluate(d Data, start []*tensor.Dense, c Candidate, base Baseline) (Run, error) {
	r := Run{Data: d.Name, Candidate: c.String(), Base: base}
	for p := 1; p <= Passes; p++ {
		t0 := time.Now()
		m, err := neuralnmf.Train(d.X, c.Config(d.Ranks, start, d.Seed, p))
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
	r := ranDefaults()
	return Candidate{BatchSize: r.BatchSize, Start: r.Init, Update: r.BatchUpdate, LR: r.LR, PassDecay: r.Decay.Factor, Forget: r.Forget}
}

// ranDefaults returns the configuration that mini-batch training reports
// it runs (Config.Phase) when given only the ranks and the batch size: a
// tiny fit of one pass, whose Stage carries the resolved defaults.
func ranDefaults() neuralnmf.Config {
	x := tensor.New(4, 2*neuralnmf.DefaultBatchSize)
	rng := tensor.NewRand(1)
	for i := range x.Data {
		x.Data[i] = rng.Float64()
	}
	var r neuralnmf.Config
	cfg := neuralnmf.Config{Ranks: []int{2}, BatchSize: neuralnmf.DefaultBatchSize, Epochs: 1,
		Phase: func(s neuralnmf.Stage) { r = s.Run }}
	if _, err := neuralnmf.Train(x, cfg); err != nil {
		panic(err) // a fixed tiny fit: a failure is a bug
	}
	r.Epochs = 0 // as the defaults have it
	r.Phase = nil
	return r
}
