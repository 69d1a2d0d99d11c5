package news20_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/classify"
	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/models/semisup"
	"github.com/neuralnmf/neuralnmf/paper/news20"
)

const dataDir = "../../../shared/data/20news"

func load(t *testing.T) *news20.Data {
	d, err := news20.Load(dataDir)
	if err != nil {
		t.Skipf("20 Newsgroups data not available: %v", err)
	}
	return d
}

func TestLoad(t *testing.T) {
	d := load(t)
	require.Equal(t, 45534, d.X.Rows)
	require.Equal(t, 1000, d.X.Cols)
	known := 0
	for _, k := range d.KnownNNMF {
		if k {
			known++
		}
	}
	require.Equal(t, 750, known, "75 % of the labels")
	require.Len(t, d.Vocab, 45534)
	require.Equal(t, "computers", d.SuperNames[0])
}

// One trial of each setting runs and gives accuracies above chance (1/6).
func TestOneTrial(t *testing.T) {
	if testing.Short() {
		t.Skip("runs four factorisations of the 20 Newsgroups matrix")
	}
	d := load(t)
	un, semi := news20.DefaultUnsupervised, news20.DefaultSemiSupervised
	un.Epochs, semi.Epochs = 30, 30
	rep, err := news20.Run(d, news20.Options{Trials: 1, Unsupervised: un, SemiSupervised: semi})
	require.NoError(t, err)
	for _, row := range news20.Rows {
		for l, a := range rep.Mean(row) {
			require.Greater(t, a, 0.3, "%s layer %d", row, l+1)
		}
	}
	words := news20.TopWords(rep.Example.A[0], d.Vocab, 10)
	require.Len(t, words, 10)
	// A cross-entropy classifier runs too.
	nc := un
	nc.Lambda, nc.Classifier = 1, neuralnmf.CrossEntropy
	r, err := news20.Neural(d, true, 0, nc, 0)
	require.NoError(t, err)
	require.Greater(t, r.Acc[1], 0.3)
}

// The paper's Table 2 protocol, 10 trials, checked against the issue's
// targets: HNMF within ±0.02 of the paper (it reproduces it exactly; see
// TestHNMFMatchesReference), Neural NMF at least the paper's accuracy.
// Opt-in: NEURALNMF_20NEWS=1 (about 1.5 minutes on 2 cores).
func TestTable2Targets(t *testing.T) {
	if os.Getenv("NEURALNMF_20NEWS") == "" {
		t.Skip("set NEURALNMF_20NEWS=1 to run the 10-trial 20 Newsgroups protocol")
	}
	d := load(t)
	rep, err := news20.Run(d, news20.Options{Trials: 10})
	require.NoError(t, err)
	rep.WriteTable(testWriter{t})
	for _, row := range []string{"HNMF unsupervised", "HNMF semi-supervised"} {
		m, p := rep.Mean(row), news20.Paper[row]
		for l := range m {
			require.InDelta(t, p[l], m[l], 0.02, "%s layer %d", row, l+1)
		}
	}
	for _, row := range []string{"Neural NMF unsupervised", "Neural NMF semi-supervised"} {
		m, p := rep.Mean(row), news20.Paper[row]
		for l := range m {
			require.GreaterOrEqual(t, m[l], p[l], "%s layer %d", row, l+1)
		}
	}
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p))
	return len(p), nil
}

// The test posts are drawn per group, in the paper's space, and the
// one-layer and hierarchical models classify them above chance.
func TestUnseenPosts(t *testing.T) {
	if testing.Short() {
		t.Skip("fits the vectoriser and factorises the 20 Newsgroups matrix")
	}
	d := load(t)
	ts, err := news20.LoadTestSet(dataDir, d, 20, 1)
	require.NoError(t, err)
	require.Equal(t, 200, ts.X.Cols)
	require.Equal(t, len(d.Vocab), ts.X.Rows)
	count := map[int]int{}
	for _, s := range ts.Super {
		count[s]++
	}
	// Supergroups hold 2, 1, 2, 2, 2 and 1 groups.
	require.Equal(t, map[int]int{0: 40, 1: 20, 2: 40, 3: 40, 4: 40, 5: 20}, count)
	again, err := news20.LoadTestSet(dataDir, d, 20, 1)
	require.NoError(t, err)
	require.Equal(t, ts.X, again.X, "the draw is fixed by the seed")

	r, err := news20.NMF(d, 0, ts)
	require.NoError(t, err)
	for l := range 2 {
		require.Greater(t, r.TestAcc[l], 0.3, "NMF layer %d", l+1)
	}
	h, err := news20.ConvergedHNMF(d, false, 0)
	require.NoError(t, err)
	acc, err := news20.TestAccuracy(h, d, ts)
	require.NoError(t, err)
	for l := range 2 {
		require.Greater(t, acc[l], 0.3, "HNMF layer %d", l+1)
	}
}

// TestDefaultSemiSupervised scores what `fit -labels` does with no preset
// on the paper's matrix: semisup.TrainChoosing with the library's default
// Supervision (classifier, balance) and the 750 known labels, ranks 10,6, three seeds; its
// classifier on the 250 evaluation documents and on 100 unseen test posts
// per group (LoadTestSet's sample, seed 0, as `neuralnmf experiment
// 20news` draws it). It prints the accuracies and checks only that they
// are above chance (1/6); README quotes them. Opt-in: NEURALNMF_20NEWS=1.
func TestDefaultSemiSupervised(t *testing.T) {
	if os.Getenv("NEURALNMF_20NEWS") == "" {
		t.Skip("set NEURALNMF_20NEWS=1 to run on the 20 Newsgroups data")
	}
	d := load(t)
	ts, err := news20.LoadTestSet(dataDir, d, 100, 0)
	require.NoError(t, err)
	for _, seed := range []uint64{1, 2, 3} {
		m, ch, err := semisup.TrainChoosing(d.X, neuralnmf.Config{Ranks: news20.Ranks, Seed: seed,
			Supervision: &neuralnmf.Supervision{Labels: d.Super, Classes: news20.Classes, Known: d.KnownNNMF}}, nil)
		require.NoError(t, err)
		for i, c := range ch.Candidates {
			t.Logf("seed %d: %-64s scored %.3f on %d, held-out %.3f%s", seed, c.Name, c.Accuracy, c.Scored, c.HeldOutAccuracy, map[bool]string{true: " (chosen)"}[i == ch.Chosen])
		}
		pred, _, err := m.Scores(d.X, m.S)
		require.NoError(t, err)
		_, held := classify.SplitLabels(d.Super, d.KnownNNMF)
		eval := classify.Accuracy(pred, held)
		tp, _, err := m.Classify(ts.X)
		require.NoError(t, err)
		test := classify.Accuracy(tp, ts.Super)
		t.Logf("seed %d: %d epochs (%s), evaluation documents %.3f, unseen test posts %.3f", seed, len(m.History.Loss), m.History.Stopped, eval, test)
		require.Greater(t, eval, 0.3)
		require.Greater(t, test, 0.3)
	}
}
