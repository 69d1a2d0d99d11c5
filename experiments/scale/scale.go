// Package scale is the scale suite of the defaults (issue 52): the default
// `neuralnmf fit` beside scikit-learn's NMF (one layer) and HNMF (an NMF of
// the previous layer's document weights, per layer) on corpora of 10⁴ to
// 10⁶ documents, each run a whole process on the same Matrix Market file,
// alternated, timed and scored by the relative error ‖X − reconstruction‖/‖X‖.
//
// Its tests (opt-in: NEURALNMF_SCALE=1; scikit-learn from Debian's
// python3-sklearn) choose the size rules of the defaults on validation
// corpora and report them on others: the library's halsWork, from which X is
// large enough that the default start is HALS from NNDSVDa, and
// tolWork, from which the stopping tolerance grows with X
// (its unexported sizedTol). The corpora are generated (internal/gencorpus: a
// planted hierarchy of groups and topics, Zipf words and background) or
// built from prose (experiments/corpora, 20 Newsgroups).
//
// The logs of its runs, which the comments here and docs/ cite by name,
// are in results/experiments/scale/.
package scale

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/neuralnmf/neuralnmf/internal/gencorpus"
	"github.com/neuralnmf/neuralnmf/matio"
	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
)

// Corpus is a generated corpus of the suite.
type Corpus struct {
	Name string
	Spec gencorpus.Spec
}

// Generated returns the generated corpora for the given seeds: 10⁴ and
// 10⁵ documents, with vocabularies of 2·10⁴ to 10⁵ words, 5 groups of 4
// topics (the benchmark's shape) or 8 groups of 6 with longer documents
// and more background; with large, 10⁶ documents too.
func Generated(seeds []uint64, large bool) []Corpus {
	shapes := []struct {
		name string
		spec gencorpus.Spec
	}{
		{"g10k-20k-5x4", gencorpus.Spec{Words: 20000, Docs: 10000, Groups: 5, TopicsPerGroup: 4, DocLen: 100, Mix: 0.3, Background: 0.1}},
		{"g10k-50k-8x6", gencorpus.Spec{Words: 50000, Docs: 10000, Groups: 8, TopicsPerGroup: 6, DocLen: 200, Mix: 0.2, Background: 0.3}},
		{"g100k-50k-5x4", gencorpus.Spec{Words: 50000, Docs: 100000, Groups: 5, TopicsPerGroup: 4, DocLen: 100, Mix: 0.3, Background: 0.1}},
		{"g100k-100k-8x6", gencorpus.Spec{Words: 100000, Docs: 100000, Groups: 8, TopicsPerGroup: 6, DocLen: 150, Mix: 0.2, Background: 0.3}},
	}
	if large {
		shapes = append(shapes, struct {
			name string
			spec gencorpus.Spec
		}{"g1m-100k-5x4", gencorpus.Spec{Words: 100000, Docs: 1000000, Groups: 5, TopicsPerGroup: 4, DocLen: 100, Mix: 0.3, Background: 0.1}})
	}
	var out []Corpus
	for _, seed := range seeds {
		for _, s := range shapes {
			sp := s.spec
			sp.Seed = seed
			out = append(out, Corpus{Name: fmt.Sprintf("%s-s%d", s.name, seed), Spec: sp})
		}
	}
	return out
}

// WriteCorpus writes c as dir/NAME.mtx.gz (unless it exists) and returns
// its path.
func WriteCorpus(c Corpus, dir string) (string, error) {
	p := filepath.Join(dir, c.Name+".mtx.gz")
	if _, err := os.Stat(p); err == nil {
		return p, nil
	}
	g, err := gencorpus.New(c.Spec)
	if err != nil {
		return "", err
	}
	_, err = gencorpus.Write(g, p, 0, c.Spec.Docs)
	return p, err
}

// Size returns the rows, columns and entries of the Matrix Market file p
// and the work of a fit of first-layer rank k on it (entries × k: what
// the library's halsWork and tolWork are compared with).
func Size(p string, k int) (rows, cols, entries int, work float64, err error) {
	r, err := matio.OpenColumns(p)
	if err != nil {
		return 0, 0, 0, 0, err
	}
	defer r.Close()
	rows, cols = r.Dims()
	entries = r.NNZ()
	return rows, cols, entries, float64(entries) * float64(k), nil
}

// Setting is how a run of ours is made: the start (-init hnmf or nndsvd)
// and the stopping tolerance (0: the library's; else -tol).
type Setting struct {
	Init string
	Tol  float64
}

func (s Setting) String() string {
	if s.Tol == 0 {
		return "-init " + s.Init
	}
	return fmt.Sprintf("-init %s -tol %.3g", s.Init, s.Tol)
}

// Result is one whole-process run.
type Result struct {
	Seconds, RelErr float64
	Epochs          int
	Stopped         string
}

var (
	relRe     = regexp.MustCompile(`relative error ([0-9.]+)`)
	trainedRe = regexp.MustCompile(`trained (\d+) epochs \(([^:)]*)`)
)

// RunOurs runs `bin fit -x x -ranks ranks` with the setting's flags (and
// extra ones) as a whole process and returns its time, relative error and
// how training ended.
func RunOurs(bin, x, ranks string, s Setting, extra ...string) (Result, error) {
	dir, err := os.MkdirTemp("", "scale-")
	if err != nil {
		return Result{}, err
	}
	defer os.RemoveAll(dir)
	args := []string{"fit", "-x", x, "-ranks", ranks, "-o", filepath.Join(dir, "m.nnmf"), "-quiet"}
	if s.Init != "" {
		args = append(args, "-init", s.Init)
	}
	if s.Tol != 0 {
		args = append(args, "-tol", strconv.FormatFloat(s.Tol, 'g', -1, 64))
	}
	args = append(args, extra...)
	t0 := time.Now()
	out, err := exec.Command(bin, args...).CombinedOutput()
	secs := time.Since(t0).Seconds()
	if err != nil {
		return Result{}, fmt.Errorf("%s %s: %w\n%s", bin, strings.Join(args, " "), err, out)
	}
	r := Result{Seconds: secs}
	if m := relRe.FindSubmatch(out); m != nil {
		r.RelErr, _ = strconv.ParseFloat(string(m[1]), 64)
	}
	if m := trainedRe.FindSubmatch(out); m != nil {
		r.Epochs, _ = strconv.Atoi(string(m[1]))
		r.Stopped = string(m[2])
	}
	return r, nil
}

// RunSklearn runs bench/sklearn/nmf_fit.py (scikit-learn's NMF, or its
// HNMF for several ranks) with python as a whole process.
func RunSklearn(python, script, x, ranks string) (Result, error) {
	t0 := time.Now()
	out, err := exec.Command(python, script, x, ranks).CombinedOutput()
	secs := time.Since(t0).Seconds()
	if err != nil {
		return Result{}, fmt.Errorf("%s %s: %w\n%s", script, ranks, err, out)
	}
	m := relRe.FindSubmatch(out)
	if m == nil {
		return Result{}, fmt.Errorf("%s: no relative error in %q", script, bytes.TrimSpace(out))
	}
	e, _ := strconv.ParseFloat(string(m[1]), 64)
	return Result{Seconds: secs, RelErr: e}, nil
}

// Case is one corpus at one set of ranks: scikit-learn's run and ours
// under each setting.
type Case struct {
	Corpus  string
	Ranks   string
	Work    float64 // entries × first rank
	Entries int
	Sklearn Result
	Ours    map[Setting]Result
}

// Bar reports whether r meets the bar of issue 52 against scikit-learn's
// s: an error at most s's (1e-5 relative tolerance) in at most ratio times
// its time.
func Bar(r, s Result, ratio float64) bool {
	return r.RelErr <= s.RelErr*(1+1e-5) && r.Seconds <= ratio*s.Seconds
}

// Rule is a candidate size rule of the defaults: the HALS start from work
// HALSFrom on (math.Inf(1): never), the tolerance sized from TolFrom on
// (math.Inf(1): never).
type Rule struct {
	HALSFrom, TolFrom float64
}

func (r Rule) String() string {
	f := func(v float64) string {
		if math.IsInf(v, 1) {
			return "never"
		}
		return fmt.Sprintf("%.0e", v)
	}
	return fmt.Sprintf("HALS from %s, tol sized from %s", f(r.HALSFrom), f(r.TolFrom))
}

// Setting returns the run a rule makes on a case of the given work and
// first rank: the setting whose flags give what the library's defaults
// with HALSFrom and TolFrom set to the rule's would do.
func (r Rule) Setting(work float64) Setting {
	s := Setting{Init: "hnmf", Tol: neuralnmf.DefaultTol}
	if work >= r.HALSFrom {
		s.Init = "nndsvd"
	}
	if work > r.TolFrom {
		s.Tol = neuralnmf.DefaultTol * work / r.TolFrom
	}
	return s
}

// Score counts the cases where the rule's run meets the bar (and the cases
// it could be scored on: those with scikit-learn's run and the rule's).
func (r Rule) Score(cases []Case, ratio float64) (met, scored int) {
	for _, c := range cases {
		res, ok := c.Ours[r.Setting(c.Work)]
		if !ok || c.Sklearn.Seconds == 0 {
			continue
		}
		scored++
		if Bar(res, c.Sklearn, ratio) {
			met++
		}
	}
	return met, scored
}

// Choose returns the rule that meets the bar on the most cases it was
// scored on (all of them scored: a rule that leaves a case unmeasured is
// not chosen), ties to the one that keeps the small-data defaults on the
// most data (the larger HALSFrom, then the larger TolFrom: the defaults
// chosen in experiments/defaults change least).
func Choose(rules []Rule, cases []Case, ratio float64) (Rule, int, int) {
	best, bestMet, bestScored := Rule{}, -1, 0
	for _, r := range rules {
		met, scored := r.Score(cases, ratio)
		if scored == 0 {
			continue
		}
		better := met > bestMet ||
			met == bestMet && (r.HALSFrom > best.HALSFrom || r.HALSFrom == best.HALSFrom && r.TolFrom > best.TolFrom)
		if better {
			best, bestMet, bestScored = r, met, scored
		}
	}
	return best, bestMet, bestScored
}
