package semisup

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
)

// Corpora are the corpora of the suite (experiments/corpora). The choice
// reads the validation splits of ChoiceCorpora only; javadoc (the largest,
// 19 classes) and pydoc (12 classes of docstrings, median 21 words) are
// kept out of it and only reported, as corpora no choice has seen.
var (
	Corpora       = []string{"godoc", "info", "man", "javadoc", "pydoc"}
	ChoiceCorpora = []string{"godoc", "info", "man"}
)

// cell is one corpus and label fraction.
type cell struct {
	corpus string
	frac   float64
}

// Summary is a method's mean and standard deviation of accuracy over
// seeds in one corpus and fraction.
type Summary struct {
	Mean, SD float64
	N        int
}

func (s Summary) String() string {
	if s.N == 0 {
		return "    –      "
	}
	return fmt.Sprintf("%.3f ± %.3f", s.Mean, s.SD)
}

// Table is runs grouped by corpus, fraction and method.
type Table map[cell]map[string]Summary

// Summarise groups runs into a Table.
func Summarise(runs []Run) Table {
	acc := map[cell]map[string][]float64{}
	for _, r := range runs {
		c := cell{r.Corpus, r.Fraction}
		if acc[c] == nil {
			acc[c] = map[string][]float64{}
		}
		acc[c][r.Method] = append(acc[c][r.Method], r.Accuracy)
	}
	t := Table{}
	for c, ms := range acc {
		t[c] = map[string]Summary{}
		for m, v := range ms {
			t[c][m] = meanSD(v)
			if strings.HasPrefix(m, "unsupervised + read-out, layer ") {
				if b, ok := t[c][UnsupervisedName]; !ok || t[c][m].Mean > b.Mean {
					t[c][UnsupervisedName] = t[c][m]
				}
			}
		}
	}
	return t
}

func meanSD(v []float64) Summary {
	var s, ss float64
	for _, x := range v {
		s += x
	}
	mean := s / float64(len(v))
	for _, x := range v {
		ss += (x - mean) * (x - mean)
	}
	sd := 0.0
	if len(v) > 1 {
		sd = math.Sqrt(ss / float64(len(v)-1))
	}
	return Summary{Mean: mean, SD: sd, N: len(v)}
}

// Choose returns the candidate the defaults take, and why: among the
// candidates whose mean accuracy is nowhere (no corpus, no fraction) more
// than 0.01 below the unsupervised baseline's, the one with the highest
// accuracy averaged over every corpus and fraction; if none qualifies,
// the one whose worst margin over the baseline is largest.
func Choose(t Table, cands []Candidate) (Candidate, string) {
	type score struct {
		c        Candidate
		avg, min float64
	}
	var scores []score
	for _, c := range cands {
		s := score{c: c, min: math.Inf(1)}
		n := 0
		for _, ms := range t {
			m, ok := ms[c.Name]
			if !ok {
				continue
			}
			s.avg += m.Mean
			n++
			if u, ok := ms[UnsupervisedName]; ok {
				s.min = math.Min(s.min, m.Mean-u.Mean)
			}
		}
		s.avg /= float64(max(n, 1))
		scores = append(scores, s)
	}
	sort.SliceStable(scores, func(i, j int) bool {
		qi, qj := scores[i].min >= -0.01, scores[j].min >= -0.01
		if qi != qj {
			return qi
		}
		if qi {
			return scores[i].avg > scores[j].avg
		}
		return scores[i].min > scores[j].min
	})
	var why strings.Builder
	for _, s := range scores {
		fmt.Fprintf(&why, "  %-26s mean accuracy %.4f, worst margin over the unsupervised baseline %+.4f\n", s.c.Name, s.avg, s.min)
	}
	return scores[0].c, why.String()
}

// WriteTable writes one block per corpus: a row per method, a column per
// fraction, mean ± sd over seeds.
func WriteTable(w io.Writer, t Table, methods []string) {
	corpora := map[string]bool{}
	for c := range t {
		corpora[c.corpus] = true
	}
	var names []string
	for c := range corpora {
		names = append(names, c)
	}
	sort.Strings(names)
	width := len("labels known")
	for _, m := range methods {
		width = max(width, len(m))
	}
	for _, name := range names {
		fmt.Fprintf(w, "\n%s\n%-*s", name, width, "labels known")
		for _, f := range Fractions {
			fmt.Fprintf(w, "  %13s", fmt.Sprintf("%g %%", 100*f))
		}
		fmt.Fprintln(w)
		for _, m := range methods {
			fmt.Fprintf(w, "%-*s", width, m)
			for _, f := range Fractions {
				fmt.Fprintf(w, "  %13s", t[cell{name, f}][m])
			}
			fmt.Fprintln(w)
		}
	}
}

// WriteVerdict says, for each corpus and fraction, whether method's mean
// meets the bars: at least the best of our unsupervised read-out
// (best layer) and scikit-learn's NMF + read-out, minus 0.005, at every
// fraction; at 5 % at least the best of LogisticRegression (C by CV),
// LabelSpreading and SelfTraining(LogReg); at 30 % and 100 % within 0.01
// of it (issue 53's bars). A bar whose baselines did not run is not judged.
func WriteVerdict(w io.Writer, t Table, method string) {
	var cells []cell
	for c := range t {
		cells = append(cells, c)
	}
	sort.Slice(cells, func(i, j int) bool {
		if cells[i].corpus != cells[j].corpus {
			return cells[i].corpus < cells[j].corpus
		}
		return cells[i].frac < cells[j].frac
	})
	best := func(ms map[string]Summary, names ...string) (float64, string) {
		b, name := math.Inf(-1), ""
		for _, n := range names {
			if s, ok := ms[n]; ok && s.Mean > b {
				b, name = s.Mean, n
			}
		}
		return b, name
	}
	fmt.Fprintf(w, "\n%s against the bars:\n", method)
	for _, c := range cells {
		ms := t[c]
		m, ok := ms[method]
		if !ok {
			continue
		}
		var verdicts []string
		if b, name := best(ms, UnsupervisedName, SklearnNMFName); name != "" {
			v := "meets"
			if m.Mean < b-0.005 {
				v = fmt.Sprintf("MISSES by %.3f", b-0.005-m.Mean)
			}
			verdicts = append(verdicts, fmt.Sprintf("NMF read-outs %.3f (%s): %s", b, name, v))
		}
		if b, name := best(ms, LogRegCVName, SpreadingName, SelfTrainingName); name != "" {
			bar, what := b, "at least"
			if c.frac > 0.05 {
				bar, what = b-0.01, "within 0.01 of"
			}
			v := "meets"
			if m.Mean < bar {
				v = fmt.Sprintf("MISSES by %.3f", bar-m.Mean)
			}
			verdicts = append(verdicts, fmt.Sprintf("%s %.3f (%s): %s", what, b, name, v))
		}
		fmt.Fprintf(w, "  %-8s %3.0f %%  %.3f; %s\n", c.corpus, 100*c.frac, m.Mean, strings.Join(verdicts, "; "))
	}
}
