package main

import (
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/neuralnmf/neuralnmf/classify"
	"github.com/neuralnmf/neuralnmf/datasets/synthetic"
	"github.com/neuralnmf/neuralnmf/internal/parallel"
	"github.com/neuralnmf/neuralnmf/matio"
	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/models/ssnmf"
	"github.com/neuralnmf/neuralnmf/plot"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// The paper's Table 1: relative error / accuracy, [supervision][layers-1][method].
var paperTable = [3][3][3][2]float64{
	{{{0.053, 0.111}, {0.031, 0.111}, {0.029, 1}}, {{0.399, 0.222}, {0.414, 0.222}, {0.310, 0.995}}, {{0.860, 0.356}, {0.838, 0.356}, {0.492, 1}}},
	{{{0.049, 0.933}, {0.031, 0.947}, {0.042, 1}}, {{0.374, 0.926}, {0.394, 0.911}, {0.305, 1}}, {{0.676, 0.930}, {0.733, 0.930}, {0.496, 0.990}}},
	{{{0.052, 0.960}, {0.042, 0.962}, {0.042, 1}}, {{0.311, 0.984}, {0.310, 0.984}, {0.307, 1}}, {{0.495, 1}, {0.494, 1}, {0.498, 1}}},
}

var (
	supervisions = []string{"unsupervised", "semi-supervised", "supervised"}
	methodNames  = []string{"HNMF", "Deep NMF (reconstructed)", "Neural NMF"}
	layerRanks   = [][]int{{9}, {9, 4}, {9, 4, 2}}
	layerClasses = []int{9, 4, 2}
)

type demoOptions struct {
	trials, epochs, restarts int
	nnmfRestarts             int
	seed                     uint64
	out                      string
	quiet                    bool
}

type job struct{ trial, sup, layers, method int }

type outcome struct {
	relErr, acc, heldOut float64 // heldOut: semi-supervised only
	recon                *tensor.Dense
}

func runDemo(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	var o demoOptions
	fs.IntVar(&o.trials, "trials", 4, "trials per setting (the paper used 25)")
	fs.IntVar(&o.epochs, "epochs", 1000, "maximum Neural NMF training epochs")
	fs.IntVar(&o.restarts, "restarts", 10, "HNMF starts per layer (for HNMF, Deep NMF and Neural NMF's initialisation)")
	fs.IntVar(&o.nnmfRestarts, "nnmf-restarts", 2, "Neural NMF initialisations, each trained 50 epochs; the lowest loss is kept")
	fs.Uint64Var(&o.seed, "seed", 1, "base random seed; trial t uses seed+t")
	fs.StringVar(&o.out, "o", "neuralnmf-demo", "directory for figures and results.csv")
	oldOut := fs.String("out", "", "the former name of -o (kept for this release; -o wins)")
	fs.BoolVar(&o.quiet, "quiet", false, "no progress output")
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: neuralnmf demo [flags]

Reproduces the Neural NMF paper's synthetic experiment (Table 1, Figures 2
and 3) on the embedded 87×90 matrix: 1, 2 and 3 layers (ranks 9; 9-4; 9-4-2)
× unsupervised / semi-supervised (40 labelled columns) / supervised × HNMF,
Deep NMF (reconstructed) and Neural NMF. Prints the table of relative
reconstruction error / accuracy beside the paper's values and writes
fig2.png, fig3.png and results.csv to -o.

Flags:
`)
		fs.PrintDefaults()
		fmt.Fprintln(stderr, "\n"+exitCodesHelp)
	}
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	switch {
	case flagSet(fs, "out") && flagSet(fs, "o") && *oldOut != o.out:
		return usageError{fmt.Errorf("-o %s and -out %s name two directories: give -o alone (-out is its former name)", o.out, *oldOut)}
	case flagSet(fs, "out"):
		o.out = *oldOut
	}
	if o.trials < 1 {
		return usageError{fmt.Errorf("-trials %d: want at least 1", o.trials)}
	}
	if o.epochs < 1 {
		return usageError{fmt.Errorf("-epochs %d: want at least 1", o.epochs)}
	}
	if o.restarts < 1 {
		return usageError{fmt.Errorf("-restarts %d: want at least 1", o.restarts)}
	}
	if o.nnmfRestarts < 1 {
		return usageError{fmt.Errorf("-nnmf-restarts %d: want at least 1", o.nnmfRestarts)}
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return fmt.Errorf("-o %s: %w", o.out, err)
	}
	x := synthetic.X()
	res, err := runJobs(x, o, stderr)
	if err != nil {
		return err
	}
	printTable(stdout, res, o)
	if err := writeFigures(x, res, o.out); err != nil {
		return err
	}
	if err := writeCSV(filepath.Join(o.out, "results.csv"), res, o); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nWrote %s, %s and %s.\n", filepath.Join(o.out, "fig2.png"), filepath.Join(o.out, "fig3.png"), filepath.Join(o.out, "results.csv"))
	return nil
}

// runJobs runs every (trial, setting, method) on all cores. Each job has its
// own seed, so the results do not depend on scheduling.
func runJobs(x *tensor.Dense, o demoOptions, stderr io.Writer) (map[job]outcome, error) {
	var jobs []job
	for t := 0; t < o.trials; t++ {
		for s := range supervisions {
			for l := range layerRanks {
				for m := range methodNames {
					jobs = append(jobs, job{t, s, l, m})
				}
			}
		}
	}
	res := make(map[job]outcome, len(jobs))
	var mu sync.Mutex
	var firstErr error
	prog := newProgress(stderr, len(jobs), o.quiet)
	parallel.ForChunks(len(jobs), 1, runtime.GOMAXPROCS(0), func(_, i, _ int) {
		j := jobs[i]
		out, err := runJob(x, j, o)
		mu.Lock()
		defer mu.Unlock()
		if err != nil && firstErr == nil {
			firstErr = fmt.Errorf("%s, %s, %d layer(s), trial %d: %w", methodNames[j.method], supervisions[j.sup], j.layers+1, j.trial+1, err)
		}
		res[j] = out
		prog.done()
	})
	prog.finish()
	return res, firstErr
}

func runJob(x *tensor.Dense, j job, o demoOptions) (outcome, error) {
	ranks := layerRanks[j.layers]
	classes := layerClasses[j.layers]
	labels, err := synthetic.Labels(classes)
	if err != nil {
		return outcome{}, err
	}
	var known []bool
	switch j.sup {
	case 1:
		if known, err = synthetic.Known(40); err != nil {
			return outcome{}, err
		}
	case 2:
		known = make([]bool, len(labels))
		for i := range known {
			known[i] = true
		}
	}
	seed := o.seed + uint64(j.trial)
	var lab *ssnmf.Labels
	if known != nil {
		y, _ := tensor.OneHot(labels, classes)
		lab = &ssnmf.Labels{Y: y, Z: tensor.ColumnMask(classes, known), Lambda: 1}
	}
	var recon, sTop, b *tensor.Dense
	switch j.method {
	case 0, 1:
		opts := ssnmf.Options{Seed: seed, Restarts: o.restarts}
		var h *ssnmf.Hierarchy
		if j.method == 0 {
			h, err = ssnmf.HNMF(x, ranks, lab, &opts)
		} else {
			h, err = ssnmf.DeepNMF(x, ranks, lab, &ssnmf.DeepOptions{Options: opts})
		}
		if err != nil {
			return outcome{}, err
		}
		recon, sTop, b = h.Reconstruction(), h.S[len(h.S)-1], h.B
	case 2:
		cfg := neuralnmf.Config{Ranks: ranks, Init: neuralnmf.HNMFInit, InitRestarts: o.restarts, Restarts: o.nnmfRestarts,
			Optimizer: neuralnmf.Adam, Epochs: o.epochs, Seed: seed, Workers: 1}
		if known != nil {
			// The paper's least-squares term, its weight set so that it
			// starts equal to the reconstruction term (Balance 1; see
			// neuralnmf.Supervision.Lambda).
			cfg.Supervision = &neuralnmf.Supervision{Labels: labels, Classes: classes, Known: known, Classifier: neuralnmf.LeastSquares, Balance: 1}
		}
		m, err := neuralnmf.Train(x, cfg)
		if err != nil {
			return outcome{}, err
		}
		recon, sTop, b = m.Reconstruction(), m.S[len(m.S)-1], m.B
	}
	out := outcome{recon: recon, heldOut: math.NaN()}
	d := tensor.New(x.Rows, x.Cols)
	tensor.Sub(d, x, recon)
	out.relErr = tensor.Norm(d) / tensor.Norm(x)
	if b == nil { // unsupervised: least-squares read-out with all labels
		out.acc = classify.ReadoutAccuracy(sTop, labels, classes)
	} else {
		pred := classify.Predict(b, sTop)
		out.acc = classify.Accuracy(pred, labels)
		if j.sup == 1 {
			_, heldOut := classify.SplitLabels(labels, known)
			out.heldOut = classify.Accuracy(pred, heldOut)
		}
	}
	return out, nil
}

func mean(res map[job]outcome, trials, s, l, m int, f func(outcome) float64) float64 {
	var sum float64
	for t := 0; t < trials; t++ {
		sum += f(res[job{t, s, l, m}])
	}
	return sum / float64(trials)
}

// stats is the spread of one cell over trials.
type stats struct{ sd, min, max float64 }

func spread(res map[job]outcome, trials, s, l, m int, f func(outcome) float64) stats {
	st := stats{min: math.Inf(1), max: math.Inf(-1)}
	mu := mean(res, trials, s, l, m, f)
	var sq float64
	for t := 0; t < trials; t++ {
		v := f(res[job{t, s, l, m}])
		sq += (v - mu) * (v - mu)
		st.min, st.max = math.Min(st.min, v), math.Max(st.max, v)
	}
	if trials > 1 {
		st.sd = math.Sqrt(sq / float64(trials-1))
	}
	return st
}

// writeGrid writes the header and one row per supervision and depth, with
// cell(s, l, m) for each method in a column of the given width.
func writeGrid(w io.Writer, width int, cell func(s, l, m int) string) {
	fmt.Fprintf(w, "%-16s %-6s", "supervision", "layers")
	for _, m := range methodNames {
		fmt.Fprintf(w, " %-*s", width, m)
	}
	fmt.Fprintln(w)
	for s, sn := range supervisions {
		for l := range layerRanks {
			fmt.Fprintf(w, "%-16s %-6d", sn, l+1)
			for m := range methodNames {
				fmt.Fprintf(w, " %-*s", width, cell(s, l, m))
			}
			fmt.Fprintln(w)
		}
	}
}

func printTable(w io.Writer, res map[job]outcome, o demoOptions) {
	fmt.Fprintf(w, "Neural NMF paper, synthetic data (87×90), mean of %d trial(s).\n", o.trials)
	fmt.Fprintf(w, "Each cell: relative error / accuracy, ours then [paper's].\n\n")
	writeGrid(w, 29, func(s, l, m int) string {
		e := mean(res, o.trials, s, l, m, func(r outcome) float64 { return r.relErr })
		a := mean(res, o.trials, s, l, m, func(r outcome) float64 { return r.acc })
		p := paperTable[s][l][m]
		return fmt.Sprintf("%.4f/%.3f [%.3f/%.3g]", e, a, p[0], p[1])
	})
	if o.trials > 1 {
		fmt.Fprintf(w, "\nSpread over the %d trials: relative error sd [min–max] / accuracy sd [min–max]; * every trial gave the same error and accuracy (to 1e-6).\n", o.trials)
		writeGrid(w, 38, func(s, l, m int) string {
			es := spread(res, o.trials, s, l, m, func(r outcome) float64 { return r.relErr })
			as := spread(res, o.trials, s, l, m, func(r outcome) float64 { return r.acc })
			mark := ""
			if es.max-es.min <= 1e-6 && as.max-as.min <= 1e-6 {
				mark = "*"
			}
			return fmt.Sprintf("%.4f [%.4f–%.4f] / %.3f [%.3f–%.3f]%s", es.sd, es.min, es.max, as.sd, as.min, as.max, mark)
		})
	}
	fmt.Fprintf(w, "\nSemi-supervised accuracy on the 50 unlabelled columns only:\n")
	for l := range layerRanks {
		fmt.Fprintf(w, "%-16s %-6d", "semi-supervised", l+1)
		for m := range methodNames {
			fmt.Fprintf(w, " %-29s", fmt.Sprintf("%.3f", mean(res, o.trials, 1, l, m, func(r outcome) float64 { return r.heldOut })))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprint(w, `
Relative error is ‖X − A⁽⁰⁾⋯A⁽ᴸ⁾S⁽ᴸ⁾‖/‖X‖. Accuracy is the share of all 90
columns whose argmax(B·S⁽ᴸ⁾) is their class (9, 4 or 2 classes for 1, 2 or 3
layers). Semi-supervised and supervised runs use each method's own B: SSNMF's
learned B for HNMF and Deep NMF, the closed form (Z∘Y)(S⁽ᴸ⁾)† for Neural NMF.
Neural NMF's λ is its default, which gives the reconstruction and label
terms equal weight at the start of training. Unsupervised runs have no B; their accuracy is that of a least-squares
read-out B = Y·(S⁽ᴸ⁾)† fitted with all labels, which measures how linearly the
classes can be read off the representation. The paper's unsupervised HNMF and
Deep NMF accuracies (0.111/0.222/0.356) are the share of class 0, i.e. B = 0;
we do not reproduce that artefact. Deep NMF has no public code; see
ssnmf.DeepNMF for what the reconstruction assumes.
`)
	if spread := maxSpread(res, o.trials); o.trials > 1 && spread < 1e-6 {
		fmt.Fprintf(w, "\nEvery trial gave the same result (to 1e-6): with %d HNMF starts per layer and\n%d Neural NMF initialisations, each seed reaches the same optimum.\n", o.restarts, o.nnmfRestarts)
	}
}

// maxSpread is the largest difference between trials of any setting's error.
func maxSpread(res map[job]outcome, trials int) float64 {
	var spread float64
	for j, r := range res {
		if j.trial == 0 {
			for t := 1; t < trials; t++ {
				spread = math.Max(spread, math.Abs(res[job{t, j.sup, j.layers, j.method}].relErr-r.relErr))
			}
		}
	}
	return spread
}

func writeFigures(x *tensor.Dense, res map[job]outcome, dir string) error {
	figs := []struct {
		name, what  string
		sup, layers int
	}{
		{"fig2.png", "unsupervised, ranks 9-4 (rank-4 approximations)", 0, 1},
		{"fig3.png", "semi-supervised, ranks 9-4-2 (rank-2 approximations)", 1, 2},
	}
	for _, f := range figs {
		panels := []plot.Panel{{Title: "original X", M: x, RowLabel: "features", ColLabel: "samples"}}
		for m, name := range methodNames {
			r := res[job{0, f.sup, f.layers, m}].recon
			panels = append(panels, plot.Panel{Title: name, M: r, RowLabel: "features", ColLabel: "samples"})
		}
		img, err := plot.Heatmaps(panels, &plot.Options{VMin: 0, VMax: tensor.MaxAbs(x),
			Title: "Reconstructions of the paper's synthetic 87×90 data, " + f.what + ", trial 1", BarLabel: "entry of X"})
		if err != nil {
			return err
		}
		if err := plot.WritePNG(filepath.Join(dir, f.name), img); err != nil {
			return err
		}
	}
	return nil
}

func writeCSV(path string, res map[job]outcome, o demoOptions) error {
	return matio.WriteAtomic(path, func(f *os.File) error {
		w := csv.NewWriter(f)
		_ = w.Write([]string{"trial", "supervision", "layers", "method", "rel_error", "accuracy", "heldout_accuracy"})
		for t := 0; t < o.trials; t++ {
			for s, sn := range supervisions {
				for l := range layerRanks {
					for m, mn := range methodNames {
						r := res[job{t, s, l, m}]
						_ = w.Write([]string{fmt.Sprint(t + 1), sn, fmt.Sprint(l + 1), mn,
							fmt.Sprintf("%.6f", r.relErr), fmt.Sprintf("%.6f", r.acc), fmtNaN(r.heldOut)})
					}
				}
			}
		}
		w.Flush()
		return w.Error()
	})
}

func fmtNaN(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return fmt.Sprintf("%.6f", v)
}

// progress reports finished jobs with an ETA on stderr: rewritten in place on
// a terminal, a line every 10 % otherwise.
type progress struct {
	unit        string // "runs" by default
	w           io.Writer
	total, n    int
	start       time.Time
	quiet, tty  bool
	lastPercent int
}

func newProgress(w io.Writer, total int, quiet bool) *progress {
	return &progress{w: w, total: total, start: time.Now(), quiet: quiet, tty: isTerminal(w)}
}

// isTerminal reports whether w is a terminal, where a progress line can be
// rewritten in place.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func (p *progress) done() {
	p.n++
	if p.quiet {
		return
	}
	el := time.Since(p.start)
	eta := time.Duration(float64(el) / float64(p.n) * float64(p.total-p.n))
	unit := p.unit
	if unit == "" {
		unit = "runs"
	}
	line := fmt.Sprintf("%d/%d %s, %s elapsed, ETA %s", p.n, p.total, unit, el.Round(time.Second), eta.Round(time.Second))
	if p.tty {
		fmt.Fprintf(p.w, "\r%s%s", line, strings.Repeat(" ", 4))
		return
	}
	if pct := 100 * p.n / p.total; pct/10 > p.lastPercent/10 || p.n == p.total {
		p.lastPercent = pct
		fmt.Fprintln(p.w, line)
	}
}

func (p *progress) finish() {
	if !p.quiet && p.tty {
		fmt.Fprintln(p.w)
	}
}
