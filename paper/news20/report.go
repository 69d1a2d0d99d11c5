package news20

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/plot"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// Paper holds Table 2 of the paper: accuracy of layer 1 / layer 2.
var Paper = map[string][2]float64{
	"HNMF unsupervised":          {0.593, 0.507},
	"HNMF semi-supervised":       {0.593, 0.546},
	"Neural NMF unsupervised":    {0.604, 0.532},
	"Neural NMF semi-supervised": {0.690, 0.654},
}

// Rows lists the table's rows in order. The "HNMF converged" rows are not
// in the paper: a fully converged HNMF (ssnmf's defaults), scored on the
// same 250 documents as Neural NMF.
var Rows = []string{NMFRow, "HNMF unsupervised", "HNMF converged unsupervised", "Neural NMF unsupervised",
	"HNMF semi-supervised", "HNMF converged semi-supervised", "Neural NMF semi-supervised"}

// NMFRow is the one-layer baseline's row: NMF of rank 10 in the layer-1
// column and a separate NMF of rank 6 in the layer-2 column.
const NMFRow = "NMF, one layer (rank 10 | 6)"

// Options configures Run.
type Options struct {
	Trials int
	Seed   uint64
	// Unsupervised and SemiSupervised configure Neural NMF in each setting;
	// a zero value means DefaultUnsupervised or DefaultSemiSupervised.
	Unsupervised, SemiSupervised NeuralConfig
	// Test, if not nil, is scored too (TestAccuracy).
	Test *TestSet
	// Progress, if not nil, is called after each finished run.
	Progress func(done, total int, elapsed time.Duration)
}

// Report is the outcome of Run.
type Report struct {
	Trials int
	// Acc[row][trial] is the per-layer accuracy of a run.
	Acc map[string][][2]float64
	// TestAcc[row][trial] is the per-layer accuracy on Options.Test (nil
	// without one).
	TestAcc map[string][][2]float64
	Test    *TestSet
	// Example is trial 1's semi-supervised Neural NMF run (keywords, heatmap).
	Example *Result
	Elapsed time.Duration
	// Unsupervised and SemiSupervised are the Neural NMF configurations of
	// the run.
	Unsupervised, SemiSupervised NeuralConfig
}

// Run runs every (row, trial) on all cores: HNMF and Neural NMF, unsupervised
// and semi-supervised, seeds Seed+trial.
func Run(d *Data, o Options) (*Report, error) {
	if o.Trials < 1 {
		return nil, fmt.Errorf("news20: Trials is %d, want at least 1", o.Trials)
	}
	if o.Seed+uint64(o.Trials)-1 > math.MaxUint32 {
		return nil, fmt.Errorf("news20: Seed %d with %d trials: the HNMF seeds NumPy's generator and must stay below 2³²", o.Seed, o.Trials)
	}
	type job struct {
		row   string
		trial int
	}
	var jobs []job
	for t := 0; t < o.Trials; t++ {
		for _, r := range Rows {
			jobs = append(jobs, job{r, t})
		}
	}
	if o.Unsupervised == (NeuralConfig{}) {
		o.Unsupervised = DefaultUnsupervised
	}
	if o.SemiSupervised == (NeuralConfig{}) {
		o.SemiSupervised = DefaultSemiSupervised
	}
	rep := &Report{Trials: o.Trials, Acc: map[string][][2]float64{}, Unsupervised: o.Unsupervised, SemiSupervised: o.SemiSupervised, Test: o.Test}
	if o.Test != nil {
		rep.TestAcc = map[string][][2]float64{}
	}
	for _, r := range Rows {
		rep.Acc[r] = make([][2]float64, o.Trials)
		if o.Test != nil {
			rep.TestAcc[r] = make([][2]float64, o.Trials)
		}
	}
	var err error
	rep.Elapsed, err = runJobs(len(jobs), o.Progress, func(i int) (func(), error) {
		j := jobs[i]
		semi := strings.HasSuffix(j.row, "semi-supervised")
		seed := o.Seed + uint64(j.trial)
		var r *Result
		var err error
		switch {
		case j.row == NMFRow:
			r, err = NMF(d, seed, o.Test)
		case strings.HasPrefix(j.row, "HNMF converged"):
			r, err = ConvergedHNMF(d, semi, seed)
		case strings.HasPrefix(j.row, "HNMF"):
			r, _, err = HNMF(d, semi, uint32(seed))
		default:
			nc := o.Unsupervised
			if semi {
				nc = o.SemiSupervised
			}
			r, err = Neural(d, semi, seed, nc, 1)
		}
		if err == nil && o.Test != nil && j.row != NMFRow {
			r.TestAcc, err = TestAccuracy(r, d, o.Test)
		}
		if err != nil {
			return nil, fmt.Errorf("%s, trial %d: %w", j.row, j.trial+1, err)
		}
		return func() {
			rep.Acc[j.row][j.trial] = r.Acc
			if o.Test != nil {
				rep.TestAcc[j.row][j.trial] = r.TestAcc
			}
			if j.row == "Neural NMF semi-supervised" && j.trial == 0 {
				rep.Example = r
			}
		}, nil
	})
	return rep, err
}

// Mean returns the mean accuracy of a row per layer.
func (r *Report) Mean(row string) [2]float64 {
	m0, _, _, _ := layerStats(r.Acc[row], 0)
	m1, _, _, _ := layerStats(r.Acc[row], 1)
	return [2]float64{m0, m1}
}

// Spread returns the sample standard deviation and the range over trials
// of a row's accuracy at layer l (0 or 1).
func (r *Report) Spread(row string, l int) (sd, lo, hi float64) {
	_, sd, lo, hi = layerStats(r.Acc[row], l)
	return sd, lo, hi
}

// WriteTable writes the accuracy table beside the paper's values.
func (r *Report) WriteTable(w io.Writer) {
	fmt.Fprintf(w, "20 Newsgroups (45,534 words × 1,000 documents, 10 groups in 6 supergroups), mean of %d trial(s).\n", r.Trials)
	fmt.Fprintf(w, "Accuracy on the 250 unlabelled documents against the 6 supergroups, per layer (ranks 10 and 6).\n\n")
	fmt.Fprintf(w, "%-31s %-16s %-16s %-22s %-22s\n", "", "layer 1 [paper]", "layer 2 [paper]", "layer 1 sd [min–max]", "layer 2 sd [min–max]")
	for _, row := range Rows {
		m, p := r.Mean(row), Paper[row]
		cell := func(l int) string {
			if _, ok := Paper[row]; !ok {
				return fmt.Sprintf("%.3f [—]", m[l])
			}
			return fmt.Sprintf("%.3f [%.3f]", m[l], p[l])
		}
		fmt.Fprintf(w, "%-31s %-16s %-16s", row, cell(0), cell(1))
		for l := 0; l < 2; l++ {
			sd, lo, hi := r.Spread(row, l)
			fmt.Fprintf(w, " %-22s", fmt.Sprintf("%.3f [%.3f–%.3f]", sd, lo, hi))
		}
		fmt.Fprintln(w)
	}
	if r.Test != nil {
		fmt.Fprintf(w, "\nAccuracy on %d unseen test posts (%d per group, drawn with seed %d; the paper did not use them),\n", len(r.Test.Super), r.Test.PerGroup, r.Test.Seed)
		fmt.Fprintf(w, "put in the paper's TF-IDF space by the vectoriser fitted on the training posts; read-out fitted on\nthe row's labelled training documents.\n\n")
		fmt.Fprintf(w, "%-31s %-30s %-30s\n", "", "layer 1 mean ± sd [min–max]", "layer 2 mean ± sd [min–max]")
		for _, row := range Rows {
			fmt.Fprintf(w, "%-31s", row)
			for l := 0; l < 2; l++ {
				m, sd, lo, hi := layerStats(r.TestAcc[row], l)
				fmt.Fprintf(w, " %-30s", fmt.Sprintf("%.3f ± %.3f [%.3f–%.3f]", m, sd, lo, hi))
			}
			fmt.Fprintln(w)
		}
	}
	fmt.Fprint(w, `
Each layer's accuracy: B = (Y∘L)·S† fitted on the 750 labelled documents (Y the
one-hot supergroups, L the label mask), prediction argmax(B·S), scored on the
other 250. HNMF is the paper's notebook run for run: NumPy's generator seeded
with the trial's seed (0-9 by default) for each layer's U(0,1) start, the
float32 X in the notebook's column order, ssnmf 1.0.3's multiplicative updates
stopped when the error's decrease falls below 1e-4 of the first error, SSNMF
with λ = 15 at layer 2 when semi-supervised; seeds 0-9 give the paper's HNMF
rows exactly. The two notebooks used different label masks, so the HNMF rows
are scored on the 250 documents unlabelled in the HNMF notebook and the Neural
NMF rows on the 250 unlabelled in the Neural NMF notebook. The HNMF converged
rows (not in the paper) run ssnmf's own defaults to convergence (λ = 15 when
semi-supervised) and are scored on the Neural NMF rows' 250 documents, so
they compare with Neural NMF on the same set; so is the one-layer NMF
baseline (two separate NMFs of ranks 10 and 6, ssnmf's defaults).

`)
	fmt.Fprintln(w, wrap("Neural NMF, unsupervised: "+r.Unsupervised.Describe(false), 80))
	fmt.Fprintln(w)
	fmt.Fprintln(w, wrap("Neural NMF, semi-supervised: "+r.SemiSupervised.Describe(true), 80))
	fmt.Fprintf(w, "\nTime for all runs: %s on %d core(s).\n", r.Elapsed.Round(time.Second), runtime.GOMAXPROCS(0))
}

// TopWords is neuralnmf.TopWords.
func TopWords(a *tensor.Dense, vocab []string, n int) [][]string {
	return neuralnmf.TopWords(a, vocab, n)
}

// WriteKeywords writes the top-10 words of each topic at each layer of res;
// layer ℓ's topics are the columns of A⁽⁰⁾⋯A⁽ˡ⁾.
func WriteKeywords(w io.Writer, res *Result, vocab []string) {
	for l, topics := range neuralnmf.LayerTopics(res.A) {
		words := TopWords(topics, vocab, 10)
		fmt.Fprintf(w, "\nLayer %d (%d topics), top 10 words:\n", l+1, len(words))
		for j, ws := range words {
			fmt.Fprintf(w, "  topic %-2d %s\n", j+1, strings.Join(ws, ", "))
		}
	}
}

// WriteHeatmap draws A⁽¹⁾ (10 subtopics × 6 supertopics) of res as a PNG.
func WriteHeatmap(path string, res *Result) error {
	img, err := plot.Heatmaps([]plot.Panel{{Title: "A(1): subtopics -> supertopics", M: res.A[1], RowLabel: "layer-1 topics", ColLabel: "layer-2 topics"}},
		&plot.Options{Cell: 28, Title: "Semi-supervised Neural NMF, 20 Newsgroups, ranks 10,6, trial 1", BarLabel: "weight"})
	if err != nil {
		return err
	}
	return plot.WritePNG(path, img)
}

// wrap breaks text into lines of at most width runes at spaces.
func wrap(text string, width int) string {
	var b strings.Builder
	n := 0
	for i, word := range strings.Fields(text) {
		l := utf8.RuneCountInString(word)
		if i > 0 && n+1+l > width {
			b.WriteByte('\n')
			n = 0
		} else if i > 0 {
			b.WriteByte(' ')
			n++
		}
		b.WriteString(word)
		n += l
	}
	return b.String()
}
