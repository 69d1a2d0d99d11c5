package minibatch

import (
	"fmt"
	"math"
	"time"

	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/nnls"
	"github.com/neuralnmf/neuralnmf/optim"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// The step structure of distributed training (issue 40): a mini-batch step
// is a global exchange of the first layer's statistics (about 40 MB at
// 10⁵ words and rank 50), so the 4·10⁵ steps of a pass at batch 250 cannot
// each be synchronised across machines. Structure is one way to spend a
// pass's exchanges:
//
//   - Steps > 0: Steps synchronous steps per pass, each over M/Steps
//     documents (Steps = 1: one step per pass, its statistics summed over
//     every document), the package's mini-batch defaults otherwise;
//   - Shards > 0: every shard of M/Shards documents runs one local pass of
//     the package's default mini-batch training from the current A's, and
//     the shards' A's are averaged, weighted by their documents, once per
//     pass (as gensim's distributed LDA merges its workers' models).
//
// Exchanges is the number of global exchanges a pass needs. LR,
// PassDecay and Forget, when not zero, replace the mini-batch defaults'
// Adam rate, its factor per pass and the statistics' forgetting factor
// per pass for a Steps structure: with 16 steps a pass instead of the
// hundreds of batch-250 mini-batches, larger and slower-decaying steps may
// suit (probed on validation seeds 5 and 6 of the generated families: a
// scratch test, not kept; the choice below is ChooseStructure's, on every
// validation set).
type Structure struct {
	Name                  string
	Steps, Shards         int
	LR, PassDecay, Forget float64
}

// Exchanges returns the global exchanges per pass.
func (s Structure) Exchanges() int {
	if s.Shards > 0 {
		return 1
	}
	return s.Steps
}

// Structures are the step structures compared, the fewest exchanges
// first; the last is the package's one-machine default (batch 250), for
// reference only (ChooseStructure never picks it).
var Structures = []Structure{
	{Name: "one step per pass", Steps: 1},
	{Name: "16 shards, one local pass each, averaged", Shards: 16},
	{Name: "4 steps per pass", Steps: 4},
	{Name: "16 steps per pass", Steps: 16},
	{Name: "16 steps, rate 0.3 ×0.8/pass, forget 0.05", Steps: 16, LR: 0.3, PassDecay: 0.8, Forget: 0.05},
	{Name: "16 steps, rate 0.3 constant, forget 0.05", Steps: 16, LR: 0.3, PassDecay: 1, Forget: 0.05},
	{Name: "batch 250 (one machine)", Steps: -1},
}

// StructureRun is one structure on one data set: the relative error of the
// whole X after each pass.
type StructureRun struct {
	Data, Structure string
	RelErr          []float64
	Seconds         float64
	Base            Baseline
}

// Ratio is the relative error after Passes passes over the full-batch one.
func (r StructureRun) Ratio() float64 { return r.RelErr[len(r.RelErr)-1] / r.Base.Full }

// passLR is the Adam rate of the layers after the first in pass p (from
// 1): the mini-batch default 0.1, halved after every pass.
func passLR(p int) float64 { return 0.1 * math.Pow(0.5, float64(p-1)) }

// EvaluateStructure runs s from start (the hnmf-best start of the sample,
// the mini-batch default) for 1..Passes passes.
func EvaluateStructure(d Data, start []*tensor.Dense, s Structure, base Baseline) (StructureRun, error) {
	r := StructureRun{Data: d.Name, Structure: s.Name, Base: base}
	t0 := time.Now()
	if s.Shards > 0 {
		a := cloneAll(start)
		shards := shardColumns(d.X.Cols, s.Shards)
		for p := 1; p <= Passes; p++ {
			merged := make([]*tensor.Dense, len(a))
			for l, al := range a {
				merged[l] = tensor.New(al.Rows, al.Cols)
			}
			for i, cols := range shards {
				x := d.X.SelectColumns(cols)
				cfg := neuralnmf.Config{Ranks: d.Ranks, Seed: d.Seed + uint64(i), BatchSize: neuralnmf.DefaultBatchSize, Epochs: 1, Tol: -1,
					Init: neuralnmf.GivenInit, InitA: a, LR: passLR(p), Decay: optim.StepDecay{Every: 1, Factor: 1}}
				m, err := neuralnmf.Train(x, cfg)
				if err != nil {
					return r, fmt.Errorf("%s, %s, pass %d, shard %d: %w", d.Name, s.Name, p, i, err)
				}
				w := float64(len(cols)) / float64(d.X.Cols)
				for l := range merged {
					tensor.AddScaled(merged[l], w, m.A[l])
				}
			}
			a = merged
			e, err := RelError(d.X, a)
			if err != nil {
				return r, err
			}
			r.RelErr = append(r.RelErr, e)
		}
		r.Seconds = time.Since(t0).Seconds()
		return r, nil
	}
	batch := neuralnmf.DefaultBatchSize
	if s.Steps > 0 {
		batch = (d.X.Cols + s.Steps - 1) / s.Steps
	}
	c := Default()
	c.BatchSize = batch
	if s.LR > 0 {
		c.LR = s.LR
	}
	if s.PassDecay > 0 {
		c.PassDecay = s.PassDecay
	}
	if s.Forget > 0 {
		c.Forget = s.Forget
	}
	for p := 1; p <= Passes; p++ {
		t0 = time.Now()
		m, err := neuralnmf.Train(d.X, c.Config(d.Ranks, start, d.Seed, p))
		if err != nil {
			return r, fmt.Errorf("%s, %s, %d passes: %w", d.Name, s.Name, p, err)
		}
		r.RelErr = append(r.RelErr, m.History.FinalRelError)
		r.Seconds = time.Since(t0).Seconds()
	}
	return r, nil
}

// shardColumns splits 0..m−1 into n contiguous shards of nearly equal size,
// as shard files laid out in column order are.
func shardColumns(m, n int) [][]int {
	var out [][]int
	for i := 0; i < n; i++ {
		lo, hi := i*m/n, (i+1)*m/n
		cols := make([]int, 0, hi-lo)
		for j := lo; j < hi; j++ {
			cols = append(cols, j)
		}
		out = append(out, cols)
	}
	return out
}

func cloneAll(a []*tensor.Dense) []*tensor.Dense {
	out := make([]*tensor.Dense, len(a))
	for i, m := range a {
		out[i] = m.Clone()
	}
	return out
}

// RelError is ‖X − A⁽⁰⁾⋯A⁽ᴸ⁾S⁽ᴸ⁾‖/‖X‖ with every S the NNLS layer of its
// input, for the A's a.
func RelError(x *tensor.Sparse, a []*tensor.Dense) (float64, error) {
	res, err := nnls.SolveSparse(a[0], x, nil)
	if err != nil {
		return 0, err
	}
	s := res.S
	for _, al := range a[1:] {
		r, err := nnls.Solve(al, s, nil)
		if err != nil {
			return 0, err
		}
		s = r.S
	}
	p := neuralnmf.LayerTopics(a)[len(a)-1]
	return math.Sqrt(math.Max(x.SqDist(p, s), 0) / x.SqNorm()), nil
}

// StructureSummary is a structure's numbers over runs.
type StructureSummary struct {
	Structure               Structure
	MeanRatio, SDRatio, Max float64
	Runs                    int
}

// SummariseStructures groups runs by structure, in the order of Structures.
func SummariseStructures(runs []StructureRun) []StructureSummary {
	var out []StructureSummary
	for _, s := range Structures {
		sum := StructureSummary{Structure: s, Max: math.Inf(-1)}
		var ratios []float64
		for _, r := range runs {
			if r.Structure == s.Name {
				ratios = append(ratios, r.Ratio())
				sum.Max = math.Max(sum.Max, r.Ratio())
			}
		}
		sum.Runs = len(ratios)
		sum.MeanRatio, sum.SDRatio = meanSD(ratios)
		out = append(out, sum)
	}
	return out
}

// ChooseStructure picks, among the distributed structures (not the
// one-machine reference) whose worst ratio is within 1 % of full batch
// (the bar), the one with the fewest exchanges per pass, the lower
// mean ratio between equals; if none is within 1 % everywhere, the one
// with the lowest worst ratio.
func ChooseStructure(sums []StructureSummary) StructureSummary {
	best := -1
	for i, s := range sums {
		if s.Structure.Steps < 0 || s.Max > 1.01 {
			continue
		}
		if best < 0 || s.Structure.Exchanges() < sums[best].Structure.Exchanges() ||
			s.Structure.Exchanges() == sums[best].Structure.Exchanges() && s.MeanRatio < sums[best].MeanRatio {
			best = i
		}
	}
	if best >= 0 {
		return sums[best]
	}
	for i, s := range sums {
		if s.Structure.Steps >= 0 && (best < 0 || s.Max < sums[best].Max) {
			best = i
		}
	}
	return sums[best]
}
