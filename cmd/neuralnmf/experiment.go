package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/neuralnmf/neuralnmf/matio"
	"github.com/neuralnmf/neuralnmf/paper/news20"
)

func runExperiment(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
			fmt.Fprintln(stderr, "Usage: neuralnmf experiment 20news [flags]\n\nRun 'neuralnmf experiment 20news --help' for its flags.")
			return nil
		}
		return usageError{fmt.Errorf("name an experiment: 20news")}
	}
	if args[0] != "20news" {
		return usageError{fmt.Errorf("unknown experiment %q: want 20news", args[0])}
	}
	fs := flag.NewFlagSet("experiment 20news", flag.ContinueOnError)
	data := fs.String("data", "../shared/data/20news", "directory of the 20 Newsgroups data (paper_subset/, …)")
	trials := fs.Int("trials", 10, "trials per setting (the paper used 10)")
	seed := fs.Uint64("seed", 0, "base random seed; trial t uses seed+t")
	epochs := fs.Int("epochs", 0, "Neural NMF training epochs (if not given: 300 unsupervised, 100 semi-supervised; 300 with -loss paper)")
	lambda := fs.Float64("lambda", news20.DefaultSemiSupervised.Lambda, "weight λ of Neural NMF's supervision term (10 with -loss paper)")
	initRestarts := fs.Int("init-restarts", 1, "HNMF starts per layer where Neural NMF starts from HNMF")
	restarts := fs.Int("restarts", 1, "Neural NMF initialisations, each trained 50 epochs; the lowest loss is kept")
	loss := fs.String("loss", "authors", "Neural NMF objective: authors (the authors' per-entry-normalised energy loss; Adam from HNMF unsupervised, their gradient descent from random factors semi-supervised) or paper (‖X − A⁽⁰⁾A⁽¹⁾S⁽¹⁾‖², Adam from HNMF in both settings)")
	classifier := fs.String("classifier", "ls", "supervision term: ls (the paper's least squares, B = (Z∘Y)S† in the graph) or ce (cross-entropy of a trained linear classifier)")
	out := fs.String("o", "neuralnmf-20news", "directory for keywords.txt and a1_heatmap.png")
	fs.StringVar(out, "out", "neuralnmf-20news", "the former name of -o (kept for this release)")
	testPerGroup := fs.Int("test-per-group", 100, "also score every run on this many unseen test posts per group (raw/test_10groups.jsonl.gz; 0: not)")
	testSeed := fs.Uint64("test-seed", 0, "seed of the draw of the test posts")
	quiet := fs.Bool("quiet", false, "no progress output")
	validate := fs.Bool("validate", false, "instead of the table, rerun the validation that chose the Neural NMF defaults: every candidate configuration trained with 500 of the 750 known labels and scored on the other 250 (never on the 250 evaluation documents), seeds 0…trials−1 (8 if -trials is not given)")
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: neuralnmf experiment 20news [flags]

Reproduces the paper's 20 Newsgroups experiment (Table 2): 2 layers, ranks 10
and 6, unsupervised and semi-supervised with 75 % of the labels, accuracy per
layer on the 250 unlabelled documents, for HNMF and Neural NMF, beside the
paper's values, with a converged HNMF and a one-layer NMF baseline; the same
on unseen test posts (which the paper did not use), put into the paper's
TF-IDF space by 'neuralnmf vectorize's vectoriser; then the top-10 keywords per topic at each layer and a heatmap
of A⁽¹⁾ (how 10 subtopics combine into 6 supertopics) from one semi-supervised
Neural NMF run.

With -validate it reruns the validation that chose the Neural NMF defaults
instead (about 15 minutes on 2 cores), and prints each candidate's validation
accuracy and which one the one-standard-error rule chooses.

Flags:
`)
		fs.PrintDefaults()
		fmt.Fprintln(stderr, "\n"+exitCodesHelp)
	}
	if err := parseFlags(fs, args[1:], stderr); err != nil {
		return err
	}
	if *trials < 1 || (flagSet(fs, "epochs") && *epochs < 1) || !(*lambda >= 0) || *initRestarts < 1 || *restarts < 1 {
		return usageError{fmt.Errorf("-trials, -epochs, -init-restarts and -restarts must be at least 1 and -lambda at least 0")}
	}
	if *validate {
		if err := rejectFlags(fs, []string{"seed", "epochs", "lambda", "init-restarts", "restarts", "loss", "classifier", "o", "out", "test-per-group", "test-seed"},
			"has no effect with -validate, which runs its own candidate configurations"); err != nil {
			return err
		}
		seeds := 8
		if flagSet(fs, "trials") {
			seeds = *trials
		}
		if seeds < 2 {
			return usageError{fmt.Errorf("-trials is %d; -validate needs at least 2 seeds", seeds)}
		}
		d, err := news20.Load(*data)
		if err != nil {
			return fmt.Errorf("loading -data %s: %w", *data, err)
		}
		opt := news20.ValidateOptions{Seeds: seeds}
		var finish func()
		opt.Progress, finish = runProgress(stderr, seeds*len(news20.Candidates), *quiet)
		defer finish()
		v, err := news20.Validate(d, opt)
		if err != nil {
			return err
		}
		v.WriteTable(stdout)
		return nil
	}
	if *testPerGroup < 0 {
		return usageError{fmt.Errorf("-test-per-group is %d: want 0 (no test posts) or more", *testPerGroup)}
	}
	paper, err := choose("loss", *loss, choice[bool]{"authors", false}, choice[bool]{"paper", true})
	if err != nil {
		return err
	}
	un, semi := news20.DefaultUnsupervised, news20.DefaultSemiSupervised
	if paper {
		un, semi = news20.PaperLoss, news20.PaperLoss
	}
	if semi.Classifier, err = choose("classifier", *classifier, classifiers()...); err != nil {
		return err
	}
	if flagSet(fs, "epochs") {
		un.Epochs, semi.Epochs = *epochs, *epochs
	}
	if flagSet(fs, "lambda") {
		semi.Lambda = *lambda
	}
	un.InitRestarts, un.Restarts, semi.InitRestarts, semi.Restarts = *initRestarts, *restarts, *initRestarts, *restarts
	d, err := news20.Load(*data)
	if err != nil {
		return fmt.Errorf("loading -data %s: %w", *data, err)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return fmt.Errorf("-o %s: %w", *out, err)
	}
	opt := news20.Options{Trials: *trials, Seed: *seed, Unsupervised: un, SemiSupervised: semi}
	if *testPerGroup > 0 {
		if opt.Test, err = news20.LoadTestSet(*data, d, *testPerGroup, *testSeed); err != nil {
			return fmt.Errorf("test posts (-test-per-group 0 skips them): %w", err)
		}
	}
	var finish func()
	opt.Progress, finish = runProgress(stderr, len(news20.Rows)**trials, *quiet)
	defer finish()
	rep, err := news20.Run(d, opt)
	if err != nil {
		return err
	}
	rep.WriteTable(stdout)
	kw := filepath.Join(*out, "keywords.txt")
	if err := matio.WriteAtomic(kw, func(f *os.File) error {
		fmt.Fprintln(f, "Semi-supervised Neural NMF, trial 1: top 10 words per topic.")
		news20.WriteKeywords(f, rep.Example, d.Vocab)
		return nil
	}); err != nil {
		return err
	}
	news20.WriteKeywords(stdout, rep.Example, d.Vocab)
	hm := filepath.Join(*out, "a1_heatmap.png")
	if err := news20.WriteHeatmap(hm, rep.Example); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nWrote %s and %s.\n", kw, hm)
	return nil
}

// flagSet reports whether the flag name was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// rejectFlags returns a usage error naming the first of names that was set
// on the command line, followed by why; nil if none was.
func rejectFlags(fs *flag.FlagSet, names []string, why string) error {
	for _, name := range names {
		if flagSet(fs, name) {
			return usageError{fmt.Errorf("-%s %s", name, why)}
		}
	}
	return nil
}

// runProgress returns a progress callback for total runs (nil when quiet)
// and the function that ends the progress line.
func runProgress(w io.Writer, total int, quiet bool) (func(done, total int, elapsed time.Duration), func()) {
	if quiet {
		return nil, func() {}
	}
	prog := newProgress(w, total, false)
	return func(int, int, time.Duration) { prog.done() }, prog.finish
}
