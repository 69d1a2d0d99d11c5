package minibatch_test

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/experiments/minibatch"
	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/tensor"
	"github.com/neuralnmf/neuralnmf/text"
)

// news20 returns the bundled 20 Newsgroups training posts as TF-IDF (the
// README walkthrough's vectoriser) and its two halves, split at random.
func news20(t *testing.T) (all, valid, test minibatch.Data) {
	path := filepath.Join("..", "..", "..", "shared", "data", "20news", "raw", "train_10groups.jsonl.gz")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("no 20 Newsgroups posts at %s", path)
	}
	_, x, err := text.Fit(text.Source{Path: path}.Texts(), text.Options{Newsgroups: true, StopWords: text.EnglishStopWords(), MinDF: text.Docs(5)})
	require.NoError(t, err)
	perm := tensor.NewRand(20).Perm(x.Cols)
	half := func(cols []int) *tensor.Sparse {
		sort.Ints(cols)
		return x.SelectColumns(cols)
	}
	ranks := []int{20, 10}
	return minibatch.Data{Name: "20news-train", X: x, Ranks: ranks, Seed: 1},
		minibatch.Data{Name: "20news-half-1", X: half(perm[:x.Cols/2]), Ranks: ranks, Seed: 1},
		minibatch.Data{Name: "20news-half-2", X: half(perm[x.Cols/2:]), Ranks: ranks, Seed: 1}
}

// vocabularies returns the corpora of minibatch.Vocabularies on seeds:
// those that validate, or all.
func vocabularies(t *testing.T, validating bool, seeds []uint64) []minibatch.Data {
	var out []minibatch.Data
	for v, spec := range minibatch.Vocabularies {
		if validating && !spec.Validate {
			continue
		}
		for _, s := range seeds {
			d, err := minibatch.Vocabulary(v, s)
			require.NoError(t, err)
			out = append(out, d)
		}
	}
	return out
}

// generated returns every generated family at every seed, families first.
func generated(seeds []uint64) []minibatch.Data {
	var out []minibatch.Data
	for _, f := range minibatch.Families {
		for _, s := range seeds {
			out = append(out, minibatch.Generated(f, s))
		}
	}
	return out
}

func optIn(t *testing.T) {
	if os.Getenv("NEURALNMF_MINIBATCH") == "" {
		t.Skip("set NEURALNMF_MINIBATCH=1 to rerun the choice of the mini-batch defaults")
	}
}

// startsAndBaseline factorises d's sample as every start does (but the
// random one) and trains full batch from those factorisations.
func startsAndBaseline(t *testing.T, d minibatch.Data) (map[neuralnmf.Init][]*tensor.Dense, minibatch.Baseline) {
	starts := map[neuralnmf.Init][]*tensor.Dense{}
	for _, init := range minibatch.Starts {
		start, err := minibatch.Start(d.X, d.Ranks, minibatch.StartSample, d.Seed, init)
		require.NoError(t, err)
		starts[init] = start
	}
	base, err := minibatch.Full(d, starts)
	require.NoError(t, err)
	return starts, base
}

// run evaluates cands on every data set and logs each run.
func run(t *testing.T, sets []minibatch.Data, cands []minibatch.Candidate) []minibatch.Run {
	var runs []minibatch.Run
	for _, d := range sets {
		starts, base := startsAndBaseline(t, d)
		t.Logf("%-24s seed %3d  %d×%d  HNMF start %.5f  full batch %.5f (from the %s start, %d epochs, %.2f s)", d.Name, d.Seed, d.X.Rows, d.X.Cols, base.Start, base.Full, base.From, base.Epochs, base.Seconds)
		for _, c := range cands {
			r, err := minibatch.Evaluate(d, starts[c.Start], c, base)
			require.NoError(t, err)
			runs = append(runs, r)
			t.Logf("    %-30s passes 1..%d: %.5f  ratio %.5f  recovered %6.2f  %.2f s (%.2f of full batch's time)", c, minibatch.Passes, r.RelErr, r.Ratio(), r.Recovered(), r.Seconds, r.Seconds/base.Seconds)
		}
	}
	return runs
}

// TestSelect reruns the choice on the validation sets.
func TestSelect(t *testing.T) {
	optIn(t)
	_, valid, _ := news20(t)
	sets := []minibatch.Data{valid}
	sets = append(sets, generated(minibatch.ValidationSeeds)...)
	sets = append(sets, vocabularies(t, true, minibatch.ValidationSeeds)...)
	cands := minibatch.Candidates()
	var names []string
	for _, c := range cands {
		names = append(names, c.String())
	}
	sums := minibatch.Summarise(run(t, sets, cands), names)
	t.Logf("%-30s  ratio to full batch after %d passes: mean ± sd, worst; improvement recovered: mean, least", "candidate (validation)", minibatch.Passes)
	for _, s := range sums {
		t.Logf("%-30s  %.5f ± %.5f  worst %.5f   recovered %.2f, least %.2f  (%d runs)", s.Candidate, s.MeanRatio, s.SDRatio, s.Max, s.MeanRecovered, s.MinRecov, s.Runs)
	}
	t.Logf("chosen: %s", minibatch.Choose(sums).Candidate)
}

// TestReport runs the chosen defaults (the zero Config with BatchSize
// DefaultBatchSize) on the sets the choice did not see.
func TestReport(t *testing.T) {
	optIn(t)
	all, _, test := news20(t)
	sets := []minibatch.Data{test, all}
	sets = append(sets, generated(minibatch.TestSeeds)...)
	sets = append(sets, vocabularies(t, false, minibatch.TestSeeds)...)
	c := minibatch.Default()
	runs := run(t, sets, []minibatch.Candidate{c})
	sums := minibatch.Summarise(runs, []string{c.String()})
	s := sums[0]
	t.Logf("defaults (%s) on the report sets: ratio %.5f ± %.5f, worst %.5f; recovered %.2f, least %.2f (%d runs)", s.Candidate, s.MeanRatio, s.SDRatio, s.Max, s.MeanRecovered, s.MinRecov, s.Runs)
	require.LessOrEqual(t, s.Max, 1.01, "within 1 %% of full batch in %d passes", minibatch.Passes)
}
