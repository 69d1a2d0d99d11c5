package semisup_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/classify"
	"github.com/neuralnmf/neuralnmf/experiments/corpora"
	"github.com/neuralnmf/neuralnmf/experiments/semisup"
	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	choice "github.com/neuralnmf/neuralnmf/models/semisup"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// corpusDir is NEURALNMF_CORPORA, the directory the corpora were built into;
// the tests that need it are skipped without it.
func corpusDir(t *testing.T) string {
	dir := os.Getenv("NEURALNMF_CORPORA")
	if dir == "" {
		t.Skip("set NEURALNMF_CORPORA=DIR after go run ./experiments/corpora/build -out DIR")
	}
	return dir
}

// eachSplit prepares every corpus of names (or of NEURALNMF_ONLY) for the
// validation split (report false) or the test split and calls run on it;
// run passes each finished run to emit, which logs it at once (so that a
// long run cut short still shows what it measured) and keeps it.
func eachSplit(t *testing.T, names []string, report bool, run func(sp *semisup.Split, emit func(semisup.Run))) []semisup.Run {
	dir := corpusDir(t)
	if only := os.Getenv("NEURALNMF_ONLY"); only != "" {
		names = strings.Split(only, ",")
	}
	var runs []semisup.Run
	for _, name := range names {
		c, err := corpora.Read(dir, name)
		require.NoError(t, err)
		sp, err := semisup.Prepare(c, report)
		require.NoError(t, err)
		t.Log(sp.Describe())
		run(sp, func(r semisup.Run) {
			t.Logf("%-8s %3.0f %% seed %3d  %-34s %.3f  %4d epochs  %5.1f s", r.Corpus, 100*r.Fraction, r.Seed, r.Method, r.Accuracy, r.Epochs, r.Seconds)
			runs = append(runs, r)
		})
	}
	return runs
}

// sklearn runs scikit-learn's baselines on sp when NEURALNMF_SKLEARN is set.
func sklearn(t *testing.T, sp *semisup.Split, seeds []uint32, emit func(semisup.Run)) {
	if os.Getenv("NEURALNMF_SKLEARN") == "" {
		return
	}
	tmp := filepath.Join(t.TempDir(), sp.Corpus)
	require.NoError(t, semisup.WriteBaselineInputs(tmp, sp, seeds))
	runs, err := semisup.SklearnBaselines(semisup.BaselineScript, tmp, sp.Corpus, seeds)
	require.NoError(t, err)
	for _, r := range runs {
		emit(r)
	}
}

// neural runs the unsupervised baseline and the candidates on sp, every
// seed and fraction (NEURALNMF_FRACTIONS, default semisup.Fractions), all
// from the seed's shared HNMF start.
func neural(t *testing.T, sp *semisup.Split, seeds []uint32, cands []semisup.Candidate, emit func(semisup.Run)) {
	fracs := envFractions(t)
	for _, seed := range seeds {
		start, err := semisup.Start(sp, seed)
		require.NoError(t, err)
		for _, frac := range fracs {
			known := corpora.Known(sp.YTrain, frac, seed)
			rs, err := semisup.Unsupervised(sp, known, seed, start)
			require.NoError(t, err)
			for _, r := range rs {
				r.Fraction = frac
				emit(r)
			}
			for _, c := range cands {
				r, ch, err := c.SemiChoice(sp, known, seed, start)
				require.NoError(t, err)
				r.Fraction = frac
				emit(r)
				if ch != nil && ch.Chosen >= 0 {
					best := ch.Candidates[ch.Chosen]
					t.Logf("%-8s %3.0f %% seed %3d  %s chose %s: %s", sp.Corpus, 100*frac, seed, c.Name, best.Kind, best.Name)
				}
			}
		}
	}
}

// suite runs scikit-learn's baselines (with NEURALNMF_SKLEARN=1), the
// unsupervised baseline and the candidates on every corpus of names.
func suite(t *testing.T, names []string, report bool, seeds []uint32, cands []semisup.Candidate) []semisup.Run {
	return eachSplit(t, names, report, func(sp *semisup.Split, emit func(semisup.Run)) {
		sklearn(t, sp, seeds, emit)
		neural(t, sp, seeds, cands, emit)
	})
}

func methods(cands []semisup.Candidate) []string {
	m := []string{semisup.UnsupervisedLayerName(2), semisup.UnsupervisedLayerName(1), semisup.UnsupervisedName, semisup.SklearnNMFName, semisup.LogRegName, semisup.LogRegCVName, semisup.SpreadingName, semisup.SelfTrainingName}
	for _, c := range cands {
		m = append(m, c.Name)
	}
	return m
}

// TestSelect chooses the semi-supervised defaults on the validation splits
// of semisup.ChoiceCorpora (seeds semisup.ValidationSeeds) and prints the
// table and the choice. Opt-in: NEURALNMF_CORPORA=DIR, with -timeout 60m
// (21 minutes on 2 cores; logs select.log and select-choose1.log).
// NEURALNMF_CANDIDATES="NAME;NAME" runs only the candidates so named (the
// names hold commas); TestSelectFromLogs then weighs runs of several
// processes together.
func TestSelect(t *testing.T) {
	corpusDir(t)
	cands := semisup.Candidates()
	if only := os.Getenv("NEURALNMF_CANDIDATES"); only != "" {
		names := strings.Split(only, ";") // names hold commas
		cands = slices.DeleteFunc(cands, func(c semisup.Candidate) bool { return !slices.Contains(names, c.Name) })
		require.NotEmpty(t, cands, "NEURALNMF_CANDIDATES=%s names no candidate", only)
	}
	runs := suite(t, semisup.ChoiceCorpora, false, semisup.ValidationSeeds, cands)
	logChoice(t, runs, cands)
}

// TestReport scores the default `fit -labels` on the test split of every
// corpus (seeds semisup.TestSeeds) beside the baselines, and says in which
// corpus and fraction it is below the best of them. Opt-in:
// NEURALNMF_CORPORA=DIR, with -timeout 60m (27 minutes on 2 cores);
// NEURALNMF_SKLEARN=1 adds scikit-learn's baselines.
func TestReport(t *testing.T) {
	corpusDir(t)
	logReport(t, suite(t, semisup.Corpora, true, semisup.TestSeeds, []semisup.Candidate{semisup.Default()}))
}

// logReport logs the table of runs and the default's verdict against the
// issue's bars.
func logReport(t *testing.T, runs []semisup.Run) {
	def := semisup.Default()
	table := semisup.Summarise(runs)
	var b strings.Builder
	semisup.WriteTable(&b, table, methods([]semisup.Candidate{def}))
	semisup.WriteVerdict(&b, table, def.Name)
	t.Log(b.String())
}

// logChoice logs the table of runs and which of cands semisup.Choose
// takes, and why.
func logChoice(t *testing.T, runs []semisup.Run, cands []semisup.Candidate) {
	table := semisup.Summarise(runs)
	var b strings.Builder
	semisup.WriteTable(&b, table, methods(cands))
	chosen, why := semisup.Choose(table, cands)
	fmt.Fprintf(&b, "\nchosen: %s\n%s", chosen.Name, why)
	t.Log(b.String())
}

// TestBaselines runs only scikit-learn's baselines on the test splits
// (NEURALNMF_SKLEARN=1 and NEURALNMF_CORPORA=DIR): 24 minutes for one seed
// on the five corpora on 2 cores, most of it javadoc
// (report-sklearn103.log). NEURALNMF_SEEDS=103,104 runs other seeds.
func TestBaselines(t *testing.T) {
	corpusDir(t)
	if os.Getenv("NEURALNMF_SKLEARN") == "" {
		t.Skip("set NEURALNMF_SKLEARN=1 (needs python3-sklearn)")
	}
	seeds := envSeeds(t, semisup.TestSeeds)
	runs := eachSplit(t, semisup.Corpora, true, func(sp *semisup.Split, emit func(semisup.Run)) {
		sklearn(t, sp, seeds, emit)
	})
	var b strings.Builder
	semisup.WriteTable(&b, semisup.Summarise(runs), []string{semisup.SklearnNMFName, semisup.LogRegName, semisup.LogRegCVName, semisup.SpreadingName, semisup.SelfTrainingName})
	t.Log(b.String())
}

// runLine is a run as eachSplit logs it.
var runLine = regexp.MustCompile(`semisup_test\.go:\d+: (\S+)\s+(\d+) % seed\s+(\d+)  (.+?)\s+(\d\.\d{3})\s+(\d+) epochs\s+([\d.]+) s$`)

// TestReportFromLogs rebuilds the report's table and verdict from the runs
// logged by TestReport processes (NEURALNMF_REPORT_LOGS=FILE,FILE,…), so
// that corpora run in separate processes, or a run cut short, still give
// one table. A run logged twice (same corpus, fraction, seed and method)
// counts once, the last one read.
func TestReportFromLogs(t *testing.T) {
	files := os.Getenv("NEURALNMF_REPORT_LOGS")
	if files == "" {
		t.Skip("set NEURALNMF_REPORT_LOGS=FILE,... to rebuild the report from TestReport logs")
	}
	runs := runsFromLogs(t, files)
	logReport(t, runs)
}

// TestSelectFromLogs chooses, as TestSelect does, among Candidates and
// EarlierCandidates from the runs logged by TestSelect processes
// (NEURALNMF_SELECT_LOGS=FILE,FILE,…, later runs of a key winning), so
// that a new rule is weighed against the logged runs of rules whose code
// is gone.
func TestSelectFromLogs(t *testing.T) {
	files := os.Getenv("NEURALNMF_SELECT_LOGS")
	if files == "" {
		t.Skip("set NEURALNMF_SELECT_LOGS=FILE,... to choose from TestSelect logs")
	}
	runs := runsFromLogs(t, files)
	cands := slices.Concat(semisup.EarlierCandidates, semisup.Candidates())
	logChoice(t, runs, cands)
}

// runsFromLogs reads the runs that eachSplit logged in the comma-separated
// files; a run logged twice (same corpus, fraction, seed and method)
// counts once, the last one read.
func runsFromLogs(t *testing.T, files string) []semisup.Run {
	type key struct {
		corpus string
		frac   float64
		seed   uint32
		method string
	}
	byKey := map[key]semisup.Run{}
	var order []key
	for _, f := range strings.Split(files, ",") {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, line := range strings.Split(string(b), "\n") {
			m := runLine.FindStringSubmatch(strings.TrimRight(line, " "))
			if m == nil {
				continue
			}
			pct, _ := strconv.Atoi(m[2])
			seed, _ := strconv.Atoi(m[3])
			acc, _ := strconv.ParseFloat(m[5], 64)
			epochs, _ := strconv.Atoi(m[6])
			secs, _ := strconv.ParseFloat(m[7], 64)
			r := semisup.Run{Corpus: m[1], Fraction: float64(pct) / 100, Seed: uint32(seed), Method: strings.TrimSpace(m[4]), Accuracy: acc, Epochs: epochs, Seconds: secs}
			k := key{r.Corpus, r.Fraction, r.Seed, r.Method}
			if _, ok := byKey[k]; !ok {
				order = append(order, k)
			}
			byKey[k] = r
		}
	}
	require.NotEmpty(t, order, "no run lines in %s", files)
	var runs []semisup.Run
	for _, k := range order {
		runs = append(runs, byKey[k])
	}
	return runs
}

// TestCandidates shows how well the choice's scores on the known labels
// rank its candidates: for each corpus (NEURALNMF_ONLY), seed
// (NEURALNMF_SEEDS, default semisup.TestSeeds) and fraction
// (NEURALNMF_FRACTIONS, default semisup.Fractions) of the test split, it
// runs the default choice and then every kind of candidate pinned, and
// logs each one's scores on the known labels beside its accuracy on the
// scored documents. NEURALNMF_SPLIT=validation reads the validation split
// of semisup.ChoiceCorpora instead (seeds semisup.ValidationSeeds), the
// split to study before changing the choice. Opt-in: NEURALNMF_CORPORA=DIR.
// A diagnosis, not a choice: nothing is chosen on these numbers.
func TestCandidates(t *testing.T) {
	corpusDir(t)
	report, names, seeds := true, semisup.Corpora, envSeeds(t, semisup.TestSeeds)
	if os.Getenv("NEURALNMF_SPLIT") == "validation" {
		report, names, seeds = false, semisup.ChoiceCorpora, envSeeds(t, semisup.ValidationSeeds)
	}
	fracs := envFractions(t)
	kinds := []choice.Kind{0, choice.UnsupervisedReadout, choice.Words, choice.TopicsWords, choice.SpreadWords}
	eachSplit(t, names, report, func(sp *semisup.Split, _ func(semisup.Run)) {
		for _, seed := range seeds {
			start, err := semisup.Start(sp, seed)
			require.NoError(t, err)
			for _, frac := range fracs {
				known := corpora.Known(sp.YTrain, frac, seed)
				for _, k := range kinds {
					opt := &choice.ChooseOptions{}
					pinned := "the default choice"
					if k != 0 {
						opt.Kinds, pinned = []choice.Kind{k}, "pinned to "+k.String()
					}
					r, ch, err := semisup.Candidate{Name: pinned, Choose: opt}.SemiChoice(sp, known, seed, start)
					require.NoError(t, err)
					t.Logf("%s %3.0f %% seed %d, %s: %.3f on the scored documents", sp.Corpus, 100*frac, seed, pinned, r.Accuracy)
					for i, c := range ch.Candidates {
						mark := ""
						if i == ch.Chosen {
							mark = "  <- chosen"
						}
						t.Logf("    %-80s %.3f on %d known labels, %.3f on the %d held out%s", c.Name, c.Accuracy, c.Scored, c.HeldOutAccuracy, ch.HeldOut, mark)
					}
				}
			}
		}
	})
}

// envFractions is NEURALNMF_FRACTIONS (comma-separated), or
// semisup.Fractions.
func envFractions(t *testing.T) []float64 {
	only := os.Getenv("NEURALNMF_FRACTIONS")
	if only == "" {
		return semisup.Fractions
	}
	var fracs []float64
	for _, s := range strings.Split(only, ",") {
		f, err := strconv.ParseFloat(s, 64)
		require.NoError(t, err, "NEURALNMF_FRACTIONS")
		fracs = append(fracs, f)
	}
	return fracs
}

// envSeeds is NEURALNMF_SEEDS (comma-separated), or def.
func envSeeds(t *testing.T, def []uint32) []uint32 {
	only := os.Getenv("NEURALNMF_SEEDS")
	if only == "" {
		return def
	}
	var seeds []uint32
	for _, s := range strings.Split(only, ",") {
		n, err := strconv.ParseUint(s, 10, 32)
		require.NoError(t, err, "NEURALNMF_SEEDS")
		seeds = append(seeds, uint32(n))
	}
	return seeds
}

// TestEnsembles asks whether averaging the scores of two or three of the
// choice's regressions (each kind pinned, as TestCandidates runs them)
// would beat the choice at 5 % known labels, on the validation split of
// semisup.ChoiceCorpora (seeds semisup.ValidationSeeds). Opt-in:
// NEURALNMF_CORPORA=DIR, about 4 minutes on 2 cores (log
// ensembles-validation.log). A diagnosis for the next change to the
// choice, not a choice.
func TestEnsembles(t *testing.T) {
	corpusDir(t)
	pinned := []choice.Kind{choice.Words, choice.TopicsWords, choice.SpreadWords}
	eachSplit(t, semisup.ChoiceCorpora, false, func(sp *semisup.Split, _ func(semisup.Run)) {
		for _, seed := range semisup.ValidationSeeds {
			start, err := semisup.Start(sp, seed)
			require.NoError(t, err)
			known := corpora.Known(sp.YTrain, 0.05, seed)
			scores := map[choice.Kind]*tensor.Dense{}
			acc := map[choice.Kind]float64{}
			for _, k := range append([]choice.Kind{0}, pinned...) {
				opt := &choice.ChooseOptions{}
				if k != 0 {
					opt.Kinds = []choice.Kind{k}
				}
				sup := &neuralnmf.Supervision{Labels: sp.YTrain, Classes: len(sp.Classes), Known: known}
				cfg := neuralnmf.Config{Ranks: sp.Ranks(), Init: neuralnmf.GivenInit, InitA: start, Seed: uint64(seed), Supervision: sup}
				m, _, err := choice.TrainChoosing(sp.XTrain, cfg, opt)
				require.NoError(t, err)
				pred, sc, err := m.Classify(sp.XEval)
				require.NoError(t, err)
				scores[k], acc[k] = sc, classify.Accuracy(pred, sp.YEval)
			}
			// ens scores the sum of the kinds' scores (their logits).
			ens := func(ks ...choice.Kind) float64 {
				P, M := scores[ks[0]].Rows, scores[ks[0]].Cols
				pred := make([]int, M)
				for j := range M {
					best := math.Inf(-1)
					for p := range P {
						var v float64
						for _, k := range ks {
							v += scores[k].At(p, j)
						}
						if v > best {
							pred[j], best = p, v
						}
					}
				}
				return classify.Accuracy(pred, sp.YEval)
			}
			t.Logf("%s 5 %% seed %d: the choice %.3f; words %.3f, topics+words %.3f, spread %.3f; averaged: words+spread %.3f, topics+words+spread %.3f, all three %.3f",
				sp.Corpus, seed, acc[0], acc[choice.Words], acc[choice.TopicsWords], acc[choice.SpreadWords],
				ens(choice.Words, choice.SpreadWords), ens(choice.TopicsWords, choice.SpreadWords), ens(pinned...))
		}
	})
}
