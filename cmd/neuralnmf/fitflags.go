package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/models/semisup"
	"github.com/neuralnmf/neuralnmf/optim"
	"github.com/neuralnmf/neuralnmf/paper/news20"
)

// fitFlags are the flags of fit.
type fitFlags struct {
	fs                                                                       *flag.FlagSet
	xPath, textPath, ranks, out, loss, labelsPath, maskPath, dataMask        *string
	classifier, optimizer, initFlag, preset, batchUpdate                     *string
	lambda, balance, lr, decay, tol, forget, holdOut                         *float64
	alphaS, alphaA, l1Ratio                                                  *float64
	epochs, decayEvery, initRestarts, initIters, restarts, window, batchSize *int
	patience, readoutLayer, folds                                            *int
	candidates, prior                                                        *string
	algorithm1, normalize, quiet, choose                                     *bool
	seed                                                                     *uint64
	text                                                                     textFlags
	docs                                                                     docFlags
}

func newFitFlags(stderr io.Writer) *fitFlags {
	fs := flag.NewFlagSet("fit", flag.ContinueOnError)
	f := &fitFlags{fs: fs,
		xPath:        fs.String("x", "", "data matrix X, features × samples: .mtx, .mtx.gz (sparse or dense), .csv or .csv.gz (this or -text is required)"),
		textPath:     fs.String("text", "", "documents instead of -x: .jsonl or .csv (optionally .gz) or a directory of .txt files, vectorised as 'neuralnmf vectorize' does (its flags apply); the vectoriser is saved in the model"),
		ranks:        fs.String("ranks", "", "decreasing layer ranks, e.g. 10,6 (required)"),
		out:          fs.String("o", "", "output model file (required)"),
		loss:         fs.String("loss", "reconstruction", "reconstruction (the paper's: every layer fits X), energy (every layer fits the loadings before it, as HNMF: more general broad topics, docs/quality.md), or kl (the generalised Kullback–Leibler divergence, for counts: every layer a KL layer, started by KL-HNMF from NNDSVDa; not with labels, -data-mask, -alpha-s, -alpha-a or -batch-size)"),
		labelsPath:   fs.String("labels", "", "file of one class per sample, 0..P-1, or -1 (or an empty line) for unknown; enables supervision"),
		maskPath:     fs.String("label-mask", "", "file of one 0/1 per sample marking which labels to use (default: the non-negative ones)"),
		dataMask:     fs.String("data-mask", "", "N×M 0/1 matrix of known entries of a dense X (.mtx or .csv)"),
		lambda:       fs.Float64("lambda", 0, "weight λ of the supervision term (0: set it from -balance at the start)"),
		balance:      fs.Float64("balance", 0, fmt.Sprintf("with -lambda 0, λ makes the label term start at this times the reconstruction term (0: the library default, %g)", neuralnmf.DefaultBalance)),
		classifier:   fs.String("classifier", neuralnmf.DefaultClassifier.String(), "supervision: ce (cross-entropy of a trained linear classifier B) or ls (the paper's least squares, B = (Z∘Y)S†)"),
		epochs:       fs.Int("epochs", 0, fmt.Sprintf("maximum epochs, or passes over the samples with -batch-size (0: the library default, 1000 epochs or %d passes)", neuralnmf.DefaultBatchEpochs)),
		batchSize:    fs.Int("batch-size", 0, fmt.Sprintf("train by mini-batches of this many samples (0: all at once). A column-sorted coordinate -x .mtx or .mtx.gz is streamed, never read whole; see docs/minibatch.md. Library defaults with it: -batch-update statistics -forget %g for the first layer, -lr %g × %g after every pass for the others, -tol %g over -window %d pass", neuralnmf.DefaultForget, neuralnmf.DefaultBatchLR, neuralnmf.DefaultBatchDecay, neuralnmf.DefaultBatchTol, neuralnmf.DefaultBatchWindow)),
		batchUpdate:  fs.String("batch-update", "", "with -batch-size, how a step updates the first layer's A: statistics (a HALS sweep over running sums of the batches, as online NMF) or gradient (an Adam step; the other layers always take one) (default: the library's, statistics)"),
		forget:       fs.Float64("forget", 0, fmt.Sprintf("with -batch-update statistics, the factor on the running sums over one pass, in (0, 1] (0: the library default, %g)", neuralnmf.DefaultForget)),
		optimizer:    fs.String("optimizer", "adam", "adam or gd (projected gradient descent, the paper's Algorithm 1)"),
		lr:           fs.Float64("lr", 0, "learning rate (default 0.01 for adam, relative to A's scale; 1e-3 for gd)"),
		decayEvery:   fs.Int("decay-every", 0, "multiply the learning rate by -decay every this many epochs (0: never)"),
		decay:        fs.Float64("decay", 0.5, "learning-rate decay factor"),
		initFlag:     fs.String("init", "", fmt.Sprintf("initialisation: hnmf (HNMF by multiplicative updates from -init-restarts random starts per layer), nndsvd (HNMF by HALS from NNDSVDa starts, deterministic), hnmf-best (HNMF by multiplicative updates and by HALS from the same starts, the lower error kept) or random (default: sized to X, nndsvd on large X and for one layer of a sparse X, hnmf otherwise (docs/defaults.md); with -batch-size, %s)", neuralnmf.DefaultBatchInit)),
		initRestarts: fs.Int("init-restarts", 0, "random starts per layer for -init hnmf, or of the multiplicative updates of the layers after the first for -init nndsvd; the best is kept (0: sized to X, as the library does: up to 10 where a start is cheap, 1 on large data)"),
		initIters:    fs.Int("init-iters", 0, "at most this many updates per layer of each HNMF start (0: the library's 1000); fewer cut the start's time on a large corpus at the same reconstruction error, but can change the topics a classifier reads"),
		restarts:     fs.Int("restarts", 0, "initialisations (seeds -seed+1000r) trained 50 epochs each; the lowest loss is trained on (0: sized to X, as the library does: 2 where a start is cheapest, else 1)"),
		tol:          fs.Float64("tol", 0, fmt.Sprintf("stop when the loss fell by less than this (relative) over -window epochs (0: the library default, %g; negative: never)", neuralnmf.DefaultTol)),
		window:       fs.Int("window", 0, fmt.Sprintf("epochs over which -tol is measured (0: the library default, %d)", neuralnmf.DefaultWindow)),
		algorithm1:   fs.Bool("algorithm1", false, "run the paper's Algorithm 1 as written: projected gradient descent with the fixed step -lr, no safeguard, no topic resets, one start, all -epochs unless -tol is given"),
		seed:         fs.Uint64("seed", 1, "random seed"),
		normalize:    fs.Bool("normalize", false, "divide every squared term of the loss by its number of entries (the authors' code's scaling)"),
		alphaS:       fs.Float64("alpha-s", 0, "elastic-net penalty on the documents' weights S, scikit-learn NMF's alpha_W: every layer solves min ½‖input − A·S‖² + α(ρ·ΣS + ½(1−ρ)‖S‖²) over S ≥ 0, α = this × the input's rows (as scikit-learn scales by its features); predict and transform solve the same (0: none)"),
		alphaA:       fs.Float64("alpha-a", 0, "elastic-net penalty on the topics A, scikit-learn NMF's alpha_H: adds 2·this·M·(ρ·ΣA + ½(1−ρ)‖A‖²) for every layer's A to the loss (0: none)"),
		l1Ratio:      fs.Float64("l1-ratio", 0, "ρ of -alpha-s and -alpha-a, scikit-learn's l1_ratio, in [0, 1]: 1 is a pure ℓ₁ penalty, 0 a pure ridge"),
		preset:       fs.String("preset", "", "a named configuration of the 20 Newsgroups experiment: paper, authors-unsup or authors-semi (flags given explicitly override it)"),
		quiet:        fs.Bool("quiet", false, "no progress output"),
		choose:       fs.Bool("choose", true, "with labels, choose for this data on held-out known labels between the supervised fit, read-outs of the supervised and the unsupervised topics, and logistic regressions on the words (see -candidates), and refit the best on all known labels, so that labels do not make the model worse than ignoring them (-choose=false: the supervised fit as configured, the paper's way; off with -batch-size, -algorithm1 and -preset)"),
		candidates:   fs.String("candidates", "", candidatesHelp()),
		prior:        fs.String("prior", "", fmt.Sprintf("with -choose, the kind of candidate kept unless another beats it on the labels both were scored on by more than two standard errors of the paired difference (a kind of -candidates; none: the highest accuracy; cross-validated: the best candidate that needs no supervised fit; default %v)", semisup.DefaultPrior)),
		readoutLayer: fs.Int("readout-layer", 0, "with -choose, the one layer whose topics the read-out candidates read (0: each layer)"),
		patience:     fs.Int("patience", 0, fmt.Sprintf("with -choose, stop a supervised validation fit when its held-out accuracy has not risen for this many epochs, or when rising at its rate over this many epochs it could not reach another candidate's, and refit the chosen one for as many epochs (0: the library default, %d; -1: no early stop)", semisup.DefaultPatience)),
		folds:        fs.Int("folds", 0, fmt.Sprintf("with -choose, the folds of the known labels on which the candidates that need no supervised fit are cross-validated, the held-out share one of them (0: the library default, %d)", semisup.DefaultFolds)),
		holdOut:      fs.Float64("hold-out", 0, fmt.Sprintf("with -choose, the share of each class's known labels held out to choose on (0: the library default, %.3g)", semisup.DefaultHoldOut)),
	}
	f.text = addTextFlags(fs)
	f.docs = addDocFlags(fs, true, false)
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: neuralnmf fit -x X.mtx -ranks 10,6 -o model.nnmf [flags]
       neuralnmf fit -text posts.jsonl [-label-field topic] -ranks 10,6 -o model.nnmf [flags]

Trains a Neural NMF model on X (columns are samples), or on the TF-IDF
matrix of documents, and saves it. Labels (-labels, or -label-field with
-text) make it semi-supervised: unknown labels are -1, or empty/missing.

`)
		printSections(stderr, fs, fitSections)
		fmt.Fprintln(stderr, "\n"+exitCodesHelp)
	}
	return f
}

// fitSections are fit's flags in the sections of its --help, which follow
// the library's Config: the data, the model, its start, the stopping rule,
// mini-batches, the labels and the choice, the output.
var fitSections = []flagSection{
	{"Data", []string{"x", "text", "field", "data-mask", "stopwords", "min-df", "max-df", "max-features", "counts", "sublinear-tf", "no-idf", "no-smooth-idf", "norm", "keep-case", "newsgroups"}},
	{"Model", []string{"ranks", "loss", "normalize", "alpha-s", "alpha-a", "l1-ratio", "preset"}},
	{"Start", []string{"init", "init-restarts", "init-iters", "restarts", "seed"}},
	{"Training and stopping", []string{"optimizer", "lr", "decay", "decay-every", "epochs", "tol", "window", "algorithm1"}},
	{"Mini-batches (corpora that do not fit)", []string{"batch-size", "batch-update", "forget"}},
	{"Labels", []string{"labels", "label-field", "label-mask", "classifier", "lambda", "balance"}},
	{"The choice with labels (-choose)", []string{"choose", "candidates", "prior", "readout-layer", "patience", "folds", "hold-out"}},
	{"Output", []string{"o", "quiet"}},
}

// flagSection is a titled group of a command's flags in its --help.
type flagSection struct {
	title string
	names []string
}

// printSections writes fs's flags to w as flag.PrintDefaults does, section
// by section; a flag of fs in no section comes last, under "Other" (a test
// keeps that empty).
func printSections(w io.Writer, fs *flag.FlagSet, sections []flagSection) {
	placed := map[string]bool{}
	print := func(title string, names []string) {
		sub := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
		sub.SetOutput(w)
		for _, n := range names {
			if f := fs.Lookup(n); f != nil {
				sub.Var(f.Value, f.Name, f.Usage)
				sub.Lookup(n).DefValue = f.DefValue
				placed[n] = true
			}
		}
		fmt.Fprintf(w, "\n%s:\n", title)
		sub.PrintDefaults()
	}
	for _, sec := range sections {
		print(sec.title, sec.names)
	}
	var rest []string
	fs.VisitAll(func(f *flag.Flag) {
		if !placed[f.Name] {
			rest = append(rest, f.Name)
		}
	})
	if len(rest) > 0 {
		print("Other", rest)
	}
}

// check validates the flags by themselves, before any file is read.
func (f *fitFlags) check() error {
	fs := f.fs
	if err := oneInput(*f.xPath, *f.textPath); err != nil {
		return err
	}
	if *f.ranks == "" || *f.out == "" {
		return usageError{errors.New("-ranks and -o are required")}
	}
	if *f.textPath == "" {
		if err := rejectFlags(fs, append(f.text.names(), "field", "label-field"), "applies to -text documents only"); err != nil {
			return err
		}
	}
	if *f.labelsPath != "" && *f.docs.labelField != "" {
		return usageError{errors.New("-labels and -label-field both give the labels: give one")}
	}
	if *f.labelsPath == "" && *f.docs.labelField == "" {
		if err := rejectFlags(fs, []string{"lambda", "balance", "label-mask", "classifier"}, "needs -labels or -label-field"); err != nil {
			return err
		}
	}
	labelled := *f.labelsPath != "" || *f.docs.labelField != ""
	choosing := labelled && *f.choose && *f.batchSize == 0 && !*f.algorithm1 && *f.preset == ""
	const choiceOff = "(-labels or -label-field), and the choice is off with -choose=false, -batch-size, -algorithm1 and -preset"
	switch {
	case flagSet(fs, "l1-ratio") && *f.alphaS == 0 && *f.alphaA == 0:
		return usageError{errors.New("-l1-ratio is the mix of the penalties' ℓ₁ and ℓ₂ parts: give -alpha-s or -alpha-a with it")}
	case (flagSet(fs, "hold-out") || flagSet(fs, "folds")) && !choosing:
		return usageError{errors.New("-hold-out and -folds apply to -choose with labels " + choiceOff)}
	case flagSet(fs, "patience") && !choosing:
		return usageError{errors.New("-patience applies to -choose with labels " + choiceOff)}
	case (flagSet(fs, "candidates") || flagSet(fs, "readout-layer") || flagSet(fs, "prior")) && !choosing:
		return usageError{errors.New("-candidates, -readout-layer and -prior apply to -choose with labels " + choiceOff)}
	case flagSet(fs, "decay") && !(*f.decay > 0 && *f.decay <= 1):
		return usageError{fmt.Errorf("-decay is %v: want a factor in (0, 1]", *f.decay)}
	case *f.decayEvery < 0:
		return usageError{fmt.Errorf("-decay-every is %d: want a number of epochs, or 0 for no decay", *f.decayEvery)}
	case flagSet(fs, "decay") && *f.decayEvery == 0:
		return usageError{errors.New("-decay needs -decay-every (the number of epochs between decays)")}
	case !(*f.lambda >= 0) || math.IsInf(*f.lambda, 0):
		return usageError{fmt.Errorf("-lambda is %v: want 0 (balanced) or a positive weight", *f.lambda)}
	case !(*f.balance >= 0) || math.IsInf(*f.balance, 0):
		return usageError{fmt.Errorf("-balance is %v: want a positive ratio (0: the default %g)", *f.balance, neuralnmf.DefaultBalance)}
	case *f.window < 0:
		return usageError{fmt.Errorf("-window is %d: want 0 (the default) or a number of epochs", *f.window)}
	case math.IsNaN(*f.tol) || math.IsInf(*f.tol, 0):
		return usageError{fmt.Errorf("-tol is %v: want a finite number", *f.tol)}
	case *f.holdOut != 0 && !(*f.holdOut > 0 && *f.holdOut < 1):
		return usageError{fmt.Errorf("-hold-out is %v: want a share in (0, 1) (0: the default)", *f.holdOut)}
	case flagSet(fs, "choose") && *f.choose && (*f.batchSize > 0 || *f.algorithm1 || *f.preset != ""):
		return usageError{errors.New("-choose trains several full-batch fits: it does not combine with -batch-size, -algorithm1 or -preset")}
	case *f.folds != 0 && *f.folds < 2:
		return usageError{fmt.Errorf("-folds is %d: want at least 2 (0: the default)", *f.folds)}
	case *f.patience < -1:
		return usageError{fmt.Errorf("-patience is %d: want a number of epochs, 0 (the default) or -1 (none)", *f.patience)}
	case *f.algorithm1 && *f.restarts > 1:
		return usageError{fmt.Errorf("-algorithm1 trains one start, as the paper's Algorithm 1 does: drop -restarts %d, or drop -algorithm1 for the default training, which takes restarts", *f.restarts)}
	case *f.algorithm1 && flagSet(fs, "optimizer") && *f.optimizer != "gd":
		return usageError{errors.New("-algorithm1 is projected gradient descent: drop -optimizer or give -optimizer gd")}
	case (flagSet(fs, "epochs") && *f.epochs < 1) || *f.initRestarts < 0 || *f.initIters < 0 || *f.restarts < 0:
		return usageError{errors.New("-epochs must be at least 1, -init-restarts, -init-iters and -restarts at least 0")}
	case *f.batchSize < 0:
		return usageError{fmt.Errorf("-batch-size is %d: want a number of samples, or 0 to train on all at once", *f.batchSize)}
	case *f.batchSize == 0 && (flagSet(fs, "batch-update") || flagSet(fs, "forget")):
		return usageError{errors.New("-batch-update and -forget apply to mini-batch training: give -batch-size")}
	case !(*f.forget >= 0 && *f.forget <= 1):
		return usageError{fmt.Errorf("-forget is %v: want a factor in (0, 1] (0: the default %g)", *f.forget, neuralnmf.DefaultForget)}
	case *f.batchSize > 0 && (*f.algorithm1 || *f.restarts > 1 || *f.dataMask != ""):
		return usageError{errors.New("-batch-size does not combine with -algorithm1, -restarts above 1 or -data-mask")}
	case !(*f.lr >= 0) || math.IsInf(*f.lr, 0):
		return usageError{fmt.Errorf("-lr is %v: want a positive step (0: the default)", *f.lr)}
	}
	return checkOutput("-o", *f.out, input{"-x", *f.xPath}, input{"-text", *f.textPath}, input{"-stopwords", f.text.stopwordsFile()},
		input{"-labels", *f.labelsPath}, input{"-label-mask", *f.maskPath}, input{"-data-mask", *f.dataMask})
}

// config returns the training configuration the flags say (a -preset
// overridden by the flags given), without the data-dependent parts, and
// the note describing the preset.
func (f *fitFlags) config() (neuralnmf.Config, string, error) {
	ranks, err := parseRanks(*f.ranks)
	if err != nil {
		return neuralnmf.Config{}, "", usageError{err}
	}
	cfg := neuralnmf.Config{Ranks: ranks, Epochs: *f.epochs, LR: *f.lr, Seed: *f.seed, InitRestarts: *f.initRestarts, InitIters: *f.initIters, Restarts: *f.restarts,
		Decay: optim.StepDecay{Every: *f.decayEvery, Factor: *f.decay}, BatchSize: *f.batchSize, Forget: *f.forget, Normalize: *f.normalize, Tol: *f.tol, Window: *f.window, Algorithm1: *f.algorithm1,
		AlphaS: *f.alphaS, AlphaA: *f.alphaA, L1Ratio: *f.l1Ratio}
	if *f.batchUpdate != "" {
		if cfg.BatchUpdate, err = choose("batch-update", *f.batchUpdate, choice[neuralnmf.BatchUpdate]{"statistics", neuralnmf.Statistics},
			choice[neuralnmf.BatchUpdate]{"gradient", neuralnmf.Gradient}); err != nil {
			return cfg, "", err
		}
	}
	if cfg.Loss, err = choose("loss", *f.loss, choice[neuralnmf.Loss]{"reconstruction", neuralnmf.Reconstruction},
		choice[neuralnmf.Loss]{"energy", neuralnmf.Energy}, choice[neuralnmf.Loss]{"kl", neuralnmf.KL}); err != nil {
		return cfg, "", err
	}
	if cfg.Optimizer, err = choose("optimizer", *f.optimizer, choice[neuralnmf.Optimizer]{"adam", neuralnmf.Adam},
		choice[neuralnmf.Optimizer]{"gd", neuralnmf.GD}); err != nil {
		return cfg, "", err
	}
	if *f.algorithm1 {
		cfg.Optimizer = neuralnmf.GD
	}
	if *f.initFlag != "" {
		if cfg.Init, err = choose("init", *f.initFlag, choice[neuralnmf.Init]{"hnmf", neuralnmf.HNMFInit}, choice[neuralnmf.Init]{"nndsvd", neuralnmf.NNDSVDInit},
			choice[neuralnmf.Init]{"hnmf-best", neuralnmf.HNMFBestInit}, choice[neuralnmf.Init]{"random", neuralnmf.RandomInit}); err != nil {
			return cfg, "", err
		}
	}
	// Supervision holds λ and the classifier until the labels are read.
	sup := &neuralnmf.Supervision{Lambda: *f.lambda, Balance: *f.balance}
	if sup.Classifier, err = choose("classifier", *f.classifier, classifiers()...); err != nil {
		return cfg, "", err
	}
	cfg.Supervision = sup
	if *f.preset == "" {
		return cfg, "", nil
	}
	return f.applyPreset(cfg)
}

// applyPreset returns the -preset's configuration with the flags given
// explicitly applied over it, and a note saying which.
func (f *fitFlags) applyPreset(cfg neuralnmf.Config) (neuralnmf.Config, string, error) {
	nc, err := choose("preset", *f.preset, choice[news20.NeuralConfig]{"paper", news20.PaperLoss},
		choice[news20.NeuralConfig]{"authors-unsup", news20.DefaultUnsupervised}, choice[news20.NeuralConfig]{"authors-semi", news20.DefaultSemiSupervised})
	if err != nil {
		return cfg, "", err
	}
	p := nc.Config(*f.seed, 0)
	p.Ranks, p.DataMask = cfg.Ranks, nil
	sup := *cfg.Supervision
	var overridden []string
	set := func(name string, apply func()) {
		if flagSet(f.fs, name) {
			apply()
			overridden = append(overridden, "-"+name)
		}
	}
	set("epochs", func() { p.Epochs = cfg.Epochs })
	set("lr", func() { p.LR = cfg.LR })
	set("init-restarts", func() { p.InitRestarts = cfg.InitRestarts })
	set("init-iters", func() { p.InitIters = cfg.InitIters })
	set("restarts", func() { p.Restarts = cfg.Restarts })
	set("decay-every", func() { p.Decay = cfg.Decay })
	set("loss", func() { p.Loss = cfg.Loss })
	set("normalize", func() { p.Normalize = cfg.Normalize })
	set("optimizer", func() { p.Optimizer = cfg.Optimizer })
	set("init", func() { p.Init = cfg.Init })
	set("tol", func() { p.Tol = cfg.Tol })
	set("window", func() { p.Window = cfg.Window })
	set("algorithm1", func() { p.Algorithm1, p.Optimizer = cfg.Algorithm1, cfg.Optimizer })
	if !flagSet(f.fs, "lambda") {
		sup.Lambda = nc.Lambda
	} else {
		overridden = append(overridden, "-lambda")
	}
	if !flagSet(f.fs, "classifier") {
		sup.Classifier = nc.Classifier
	} else {
		overridden = append(overridden, "-classifier")
	}
	p.Supervision = &sup
	labelled := *f.labelsPath != "" || *f.docs.labelField != ""
	note := fmt.Sprintf("preset %s: %s\n", *f.preset, nc.Describe(labelled))
	if len(overridden) > 0 {
		note += fmt.Sprintf("overridden by %s as given\n", strings.Join(overridden, ", "))
	}
	return p, note, nil
}

// checkCandidates refuses a -prior or -readout-layer that the kinds of
// -candidates would make no use of (nothing is dropped silently).
func checkCandidates(o *semisup.ChooseOptions, candidates, prior string) error {
	kinds := o.Kinds
	if kinds == nil {
		kinds = semisup.DefaultKinds()
		names := make([]string, len(kinds))
		for i, k := range kinds {
			names[i] = k.String()
		}
		candidates = strings.Join(names, ",") + " (the default)"
	}
	if o.Prior != 0 && o.Prior != semisup.NoPrior && o.Prior != semisup.CrossValidated && !slices.Contains(kinds, o.Prior) {
		return usageError{fmt.Errorf("-prior %s is not among -candidates %s: add it there, or give another prior", prior, candidates)}
	}
	if o.Kinds == nil {
		return nil
	}
	if o.Layer > 0 && !slices.Contains(o.Kinds, semisup.SupervisedReadout) && !slices.Contains(o.Kinds, semisup.UnsupervisedReadout) {
		return usageError{fmt.Errorf("-readout-layer %d chooses the layer of the read-out candidates, and -candidates %s has none (readout, supervised-readout)", o.Layer, candidates)}
	}
	return nil
}

func parseRanks(s string) ([]int, error) {
	var ranks []int
	for _, f := range strings.Split(s, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || k < 1 {
			return nil, fmt.Errorf("-ranks %q: %q is not a positive integer", s, f)
		}
		ranks = append(ranks, k)
	}
	return ranks, nil
}

// candidatesHelp is -candidates' help, from semisup's table of kinds.
func candidatesHelp() string {
	var def, all []string
	for _, k := range semisup.DefaultKinds() {
		def = append(def, k.String())
	}
	for _, k := range semisup.Kinds() {
		h := k.String() + " (" + k.Help()
		if needs := k.Needs(); len(needs) > 0 {
			names := make([]string, len(needs))
			for i, n := range needs {
				names[i] = n.String()
			}
			h += "; it needs " + strings.Join(names, " and ") + " too"
		}
		all = append(all, h+")")
	}
	return "with -choose, the kinds of candidate compared, comma-separated (default: " + strings.Join(def, ",") + "): " +
		strings.Join(all, ", ") + "; the regressions' C by cross-validation on the known labels. One kind pins the choice"
}
