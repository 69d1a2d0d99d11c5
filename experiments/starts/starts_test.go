// Package starts measures what fewer updates of the HNMF start
// (neuralnmf.Config.InitIters) cost and save on a large X: on the
// validation splits of the text corpora of experiments/corpora, it trains
// the default unsupervised Neural NMF (ranks 2P, P) from starts of 1000,
// 300, 100 and 30 updates per layer and logs each start's updates and
// time, the fit's epochs and time, and its final relative error
// (start.log). From 100 updates the error was the same as from 1000 at a
// tenth of the start's time; but the default fit -labels on the test split
// of man at 5 % known labels scored 0.697 / 0.681 / 0.654 (seeds
// 101–103) from such starts against 0.729 / 0.686 / 0.719 from starts of
// 1000 (classify.log), so the default start keeps 1000.
package starts

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/experiments/corpora"
	"github.com/neuralnmf/neuralnmf/experiments/semisup"
	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/models/ssnmf"
)

// TestStartUpdates logs the table of start.log. Opt-in:
// NEURALNMF_CORPORA=DIR (go run ./experiments/corpora/build -out DIR),
// about 8 minutes on 2 cores with javadoc.
func TestStartUpdates(t *testing.T) {
	dir := os.Getenv("NEURALNMF_CORPORA")
	if dir == "" {
		t.Skip("set NEURALNMF_CORPORA=DIR, the corpora of experiments/corpora")
	}
	for _, name := range []string{"pydoc", "man", "javadoc"} {
		c, err := corpora.Read(dir, name)
		require.NoError(t, err)
		sp, err := semisup.Prepare(c, false)
		require.NoError(t, err)
		t.Logf("%s: %d×%d, %d non-zeros, ranks %v", name, sp.XTrain.Rows, sp.XTrain.Cols, len(sp.XTrain.Val), sp.Ranks())
		for _, iters := range []int{1000, 300, 100, 30} {
			for _, seed := range semisup.ValidationSeeds {
				t0 := time.Now()
				h, err := ssnmf.HNMFSparse(sp.XTrain, sp.Ranks(), nil, &ssnmf.Options{Seed: uint64(seed), Restarts: 1, MaxIter: iters})
				require.NoError(t, err)
				startSecs := time.Since(t0).Seconds()
				t0 = time.Now()
				m, err := neuralnmf.Train(sp.XTrain, neuralnmf.Config{Ranks: sp.Ranks(), Init: neuralnmf.GivenInit, InitA: h.A, Seed: uint64(seed)})
				require.NoError(t, err)
				t.Logf("%-8s at most %4d updates, seed %d: start %v updates %6.2f s; fit %4d epochs %6.2f s; relative error %.5f",
					name, iters, seed, h.Iterations, startSecs, len(m.History.Loss), time.Since(t0).Seconds(), m.History.FinalRelError)
			}
		}
	}
}

// TestStartUpdatesClassify logs the default fit -labels on the test split
// of man at 5 % known labels (seeds 101–103, semisup's protocol) from
// starts of 1000 and of 100 updates (classify.log). Opt-in:
// NEURALNMF_CORPORA=DIR, about 5 minutes on 2 cores.
func TestStartUpdatesClassify(t *testing.T) {
	dir := os.Getenv("NEURALNMF_CORPORA")
	if dir == "" {
		t.Skip("set NEURALNMF_CORPORA=DIR, the corpora of experiments/corpora")
	}
	c, err := corpora.Read(dir, "man")
	require.NoError(t, err)
	sp, err := semisup.Prepare(c, true)
	require.NoError(t, err)
	for _, seed := range []uint32{101, 102, 103} {
		known := corpora.Known(sp.YTrain, 0.05, seed)
		for _, iters := range []int{1000, 100} {
			h, err := ssnmf.HNMFSparse(sp.XTrain, sp.Ranks(), nil, &ssnmf.Options{Seed: uint64(seed), Restarts: 1, MaxIter: iters})
			require.NoError(t, err)
			r, err := semisup.Default().Semi(sp, known, seed, h.A)
			require.NoError(t, err)
			t.Logf("man 5 %% seed %d, start of at most %4d updates: default fit -labels %.3f", seed, iters, r.Accuracy)
		}
	}
}
