package scale_test

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/experiments/scale"
)

// The bar of issue 52: at most this share of scikit-learn's whole-process
// time, on 2 cores.
const timeRatio = 0.7

// setup builds the neuralnmf command and returns it, scikit-learn's
// script, python and a directory for the corpora (NEURALNMF_SCALE_DIR, kept
// between runs, or a temporary one).
func setup(t *testing.T) (bin, script, python, dir string) {
	if os.Getenv("NEURALNMF_SCALE") == "" {
		t.Skip("set NEURALNMF_SCALE=1 (and install python3-sklearn) to run the scale suite")
	}
	python = os.Getenv("PYTHON")
	if python == "" {
		python = "/usr/bin/python3"
	}
	require.NoError(t, exec.Command(python, "-c", "import sklearn").Run(), "needs scikit-learn for %s (apt-get install python3-sklearn)", python)
	dir = os.Getenv("NEURALNMF_SCALE_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	require.NoError(t, os.MkdirAll(dir, 0o755))
	bin = filepath.Join(t.TempDir(), "neuralnmf")
	out, err := exec.Command("go", "build", "-o", bin, "../../cmd/neuralnmf").CombinedOutput()
	require.NoError(t, err, "%s", out)
	script, err = filepath.Abs("../../bench/sklearn/nmf_fit.py")
	require.NoError(t, err)
	return bin, script, python, dir
}

var rankSets = []string{"20", "20,10", "50,20,10"}

// firstRank returns the first rank of a -ranks value.
func firstRank(r string) int {
	var k int
	fmt.Sscanf(strings.Split(r, ",")[0], "%d", &k)
	return k
}

// canon is the run a setting makes: with one layer the HALS start is the
// fit whatever the tolerance, so those settings are one run.
func canon(s scale.Setting, ranks string) scale.Setting {
	if s.Init == "nndsvd" && !strings.Contains(ranks, ",") {
		s.Tol = 0
	}
	return s
}

func candidateRules() []scale.Rule {
	var rules []scale.Rule
	// The first run (select-1.log, before the layers after the first were
	// also started by multiplicative updates) also had HALSFrom 1e8 and
	// TolFrom 1e8 and never; those met the bar on at most 9 of 18 cases
	// and are left out, as is HALSFrom 3e7 after the second
	// (select-2.log: at most 12 of 18). The third run (select.log) adds
	// corpora of prose, where X of 2e6 to 1e7 decide between 2e6 and 1e7,
	// which the generated corpora (all above 1e7) left tied.
	for _, h := range []float64{1e6, 2e6, 5e6, 1e7} {
		for _, tw := range []float64{3e5, 1e6, 1e7} {
			rules = append(rules, scale.Rule{HALSFrom: h, TolFrom: tw})
		}
	}
	return rules
}

// runCases runs, on every corpus and set of ranks, scikit-learn and ours
// under the settings the rules need (each once), alternating.
func runCases(t *testing.T, bin, script, python string, paths map[string]string, names []string, rules []scale.Rule) []scale.Case {
	var cases []scale.Case
	for _, name := range names {
		p := paths[name]
		for _, ranks := range rankSets {
			_, _, entries, work, err := scale.Size(p, firstRank(ranks))
			require.NoError(t, err)
			c := scale.Case{Corpus: name, Ranks: ranks, Work: work, Entries: entries, Ours: map[scale.Setting]scale.Result{}}
			c.Sklearn, err = scale.RunSklearn(python, script, p, ranks)
			require.NoError(t, err)
			t.Logf("%-22s ranks %-9s work %.2e  scikit-learn %7.2f s  rel. error %.6f", name, ranks, work, c.Sklearn.Seconds, c.Sklearn.RelErr)
			var settings []scale.Setting
			seen := map[scale.Setting]bool{}
			for _, r := range rules {
				s := canon(r.Setting(work), ranks)
				if !seen[s] {
					seen[s] = true
					settings = append(settings, s)
				}
			}
			for _, s := range settings {
				res, err := scale.RunOurs(bin, p, ranks, s)
				require.NoError(t, err)
				c.Ours[s] = res
				t.Logf("%-22s ranks %-9s %-26s %7.2f s  rel. error %.6f  %4d epochs (%s)  ratio %.2f%s", name, ranks, s, res.Seconds, res.RelErr, res.Epochs, res.Stopped,
					res.Seconds/c.Sklearn.Seconds, map[bool]string{true: "  meets the bar"}[scale.Bar(res, c.Sklearn, timeRatio)])
			}
			// Let each rule find its setting under the canonical name.
			for _, r := range rules {
				s := r.Setting(work)
				c.Ours[s] = c.Ours[canon(s, ranks)]
			}
			cases = append(cases, c)
		}
	}
	return cases
}

// TestSelect chooses the library's halsWork and tolWork on the
// validation corpora (generated, seeds 11 and 12 at 10⁴ documents, 11 at
// 10⁵; and the corpora of prose in NEURALNMF_SCALE_VALIDATION_TEXT, Matrix
// Market files, comma-separated: the run that chose had man-whole,
// godoc-whole, manuals-passages and manuals-passages-quarter of
// experiments/corpora, none of them a report corpus): the rule that meets
// the bar on the most cases, ties to the one that changes the small-data
// defaults least. About 30 minutes on 2 cores; the log of the run that
// chose is select.log.
func TestSelect(t *testing.T) {
	bin, script, python, dir := setup(t)
	paths := map[string]string{}
	var names []string
	for _, c := range scale.Generated([]uint64{11, 12}, false) {
		if strings.HasPrefix(c.Name, "g100k") && c.Spec.Seed != 11 {
			continue
		}
		p, err := scale.WriteCorpus(c, dir)
		require.NoError(t, err)
		paths[c.Name] = p
		names = append(names, c.Name)
	}
	names = append(names, textCorpora(paths, "NEURALNMF_SCALE_VALIDATION_TEXT")...)
	rules := candidateRules()
	cases := runCases(t, bin, script, python, paths, names, rules)
	for _, r := range rules {
		met, scored := r.Score(cases, timeRatio)
		t.Logf("%-40s meets the bar on %2d of %2d cases", r, met, scored)
	}
	best, met, scored := scale.Choose(rules, cases, timeRatio)
	t.Logf("chosen: %s (%d of %d cases)", best, met, scored)
}

// TestReport runs the default fit (the library's rules as they are)
// beside scikit-learn on the report corpora: generated with seed 101 (and
// 10⁶ documents with NEURALNMF_SCALE_LARGE=1), and the corpora of prose
// in NEURALNMF_SCALE_TEXT (Matrix Market files, comma-separated). The log
// of the run README and docs/benchmarks.md quote is report.log.
func TestReport(t *testing.T) {
	bin, script, python, dir := setup(t)
	paths := map[string]string{}
	var names []string
	for _, c := range scale.Generated([]uint64{101}, os.Getenv("NEURALNMF_SCALE_LARGE") != "") {
		p, err := scale.WriteCorpus(c, dir)
		require.NoError(t, err)
		paths[c.Name] = p
		names = append(names, c.Name)
	}
	names = append(names, textCorpora(paths, "NEURALNMF_SCALE_TEXT")...)
	sort.Strings(names)
	var met, all int
	for _, name := range names {
		for _, ranks := range rankSets {
			if strings.HasPrefix(name, "g1m") && ranks == "50,20,10" {
				continue // scikit-learn's NMF(50) of 10⁶ documents takes about 20 minutes
			}
			_, cols, _, work, err := scale.Size(paths[name], firstRank(ranks))
			require.NoError(t, err)
			sk, err := scale.RunSklearn(python, script, paths[name], ranks)
			require.NoError(t, err)
			ours, err := scale.RunOurs(bin, paths[name], ranks, scale.Setting{})
			require.NoError(t, err)
			ok := scale.Bar(ours, sk, timeRatio)
			all++
			if ok {
				met++
			}
			t.Logf("| %s | %d | %s | %.2e | %.2f s, %.6f | %.2f s, %.6f | %.2f | %s |", name, cols, ranks, work, ours.Seconds, ours.RelErr, sk.Seconds, sk.RelErr,
				ours.Seconds/sk.Seconds, map[bool]string{true: "yes", false: "no"}[ok])
		}
	}
	t.Logf("the default meets the bar (error at most scikit-learn's, time at most %.1f×) on %d of %d cases", timeRatio, met, all)
}

// textCorpora adds the Matrix Market files listed in the environment
// variable env (comma-separated) to paths under their base names and
// returns those names.
func textCorpora(paths map[string]string, env string) []string {
	var names []string
	for _, p := range strings.Split(os.Getenv(env), ",") {
		if p != "" {
			name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(p), ".gz"), ".mtx")
			paths[name] = p
			names = append(names, name)
		}
	}
	return names
}

// The rule of Choose: most cases met, then the larger HALSFrom, then the
// larger TolFrom.
func TestChooseRule(t *testing.T) {
	sk := scale.Result{Seconds: 10, RelErr: 0.5}
	fast := scale.Result{Seconds: 5, RelErr: 0.5}
	slow := scale.Result{Seconds: 9, RelErr: 0.5}
	c := scale.Case{Work: 5e6, Sklearn: sk, Ours: map[scale.Setting]scale.Result{
		{Init: "nndsvd", Tol: 1e-4}: fast, {Init: "hnmf", Tol: 1e-4}: slow,
	}}
	rules := []scale.Rule{{HALSFrom: 1e6, TolFrom: math.Inf(1)}, {HALSFrom: 2e6, TolFrom: math.Inf(1)}, {HALSFrom: 1e7, TolFrom: math.Inf(1)}}
	best, met, scored := scale.Choose(rules, []scale.Case{c}, timeRatio)
	require.Equal(t, 2e6, best.HALSFrom, "the larger of the two that meet it; 1e7 keeps the slow start")
	require.Equal(t, [2]int{1, 1}, [2]int{met, scored})
	require.True(t, scale.Bar(fast, sk, 0.7))
	require.False(t, scale.Bar(scale.Result{Seconds: 5, RelErr: 0.50001}, sk, 0.7), "an error 2e-5 above")
}
