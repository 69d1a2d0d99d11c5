package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/neuralnmf/neuralnmf/experiments/news20"
	"github.com/neuralnmf/neuralnmf/matio"
	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/optim"
	"github.com/neuralnmf/neuralnmf/plot"
	"github.com/neuralnmf/neuralnmf/tensor"
	"github.com/neuralnmf/neuralnmf/text"
)

func runFit(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("fit", flag.ContinueOnError)
	xPath := fs.String("x", "", "data matrix X, features × samples: .mtx, .mtx.gz (sparse or dense), .csv or .csv.gz (this or -text is required)")
	textPath := fs.String("text", "", "documents instead of -x: .jsonl or .csv (optionally .gz) or a directory of .txt files, vectorised as 'neuralnmf vectorize' does (its flags apply); the vectoriser is saved in the model")
	ranksFlag := fs.String("ranks", "", "decreasing layer ranks, e.g. 10,6 (required)")
	out := fs.String("o", "", "output model file (required)")
	loss := fs.String("loss", "reconstruction", "reconstruction or energy")
	labelsPath := fs.String("labels", "", "file of one class per sample, 0..P-1, or -1 for unknown; enables supervision")
	maskPath := fs.String("label-mask", "", "file of one 0/1 per sample marking which labels to use (default: the non-negative ones)")
	dataMask := fs.String("data-mask", "", "N×M 0/1 matrix of known entries of a dense X (.mtx or .csv)")
	lambda := fs.Float64("lambda", 0, "weight λ of the supervision term (0: set it from -balance at the start)")
	balance := fs.Float64("balance", 0, fmt.Sprintf("with -lambda 0, λ makes the label term start at this times the reconstruction term (0: the library default, %g)", neuralnmf.DefaultBalance))
	classifier := fs.String("classifier", neuralnmf.DefaultClassifier.Resolved().String(), "supervision: ce (cross-entropy of a trained linear classifier B) or ls (the paper's least squares, B = (Z∘Y)S†)")
	epochs := fs.Int("epochs", 1000, "maximum epochs")
	optimizer := fs.String("optimizer", "adam", "adam or gd (projected gradient descent, the paper's Algorithm 1)")
	lr := fs.Float64("lr", 0, "learning rate (default 0.01 for adam, relative to A's scale; 1e-3 for gd)")
	decayEvery := fs.Int("decay-every", 0, "multiply the learning rate by -decay every this many epochs (0: never)")
	decay := fs.Float64("decay", 0.5, "learning-rate decay factor")
	initFlag := fs.String("init", "hnmf", "initialisation: hnmf (HNMF by multiplicative updates from -init-restarts random starts per layer), nndsvd (HNMF by HALS from NNDSVDa starts, deterministic) or random")
	initRestarts := fs.Int("init-restarts", 0, "random starts per layer for -init hnmf; the best is kept (0: the library default, 1)")
	restarts := fs.Int("restarts", 0, "initialisations (seeds -seed+1000r) trained 50 epochs each; the lowest loss is trained on (0: the library default, 1)")
	tol := fs.Float64("tol", 0, fmt.Sprintf("stop when the loss fell by less than this (relative) over -window epochs (0: the library default, %g; negative: never)", neuralnmf.DefaultTol))
	window := fs.Int("window", 0, fmt.Sprintf("epochs over which -tol is measured (0: the library default, %d)", neuralnmf.DefaultWindow))
	algorithm1 := fs.Bool("algorithm1", false, "run the paper's Algorithm 1 as written: projected gradient descent with the fixed step -lr, no safeguard, no topic resets, one start, all -epochs unless -tol is given")
	seed := fs.Uint64("seed", 1, "random seed")
	normalize := fs.Bool("normalize", false, "divide every squared term of the loss by its number of entries (the authors' code's scaling)")
	preset := fs.String("preset", "", "a named configuration of the 20 Newsgroups experiment: paper, authors-unsup or authors-semi (flags given explicitly override it)")
	quiet := fs.Bool("quiet", false, "no progress output")
	tf := addTextFlags(fs)
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: neuralnmf fit -x X.mtx -ranks 10,6 -o model.nnmf [flags]\n       neuralnmf fit -text posts.jsonl -ranks 10,6 -o model.nnmf [flags]\n\nTrains a Neural NMF model on X (columns are samples), or on the TF-IDF matrix of documents, and saves it.\n\nFlags:\n")
		fs.PrintDefaults()
		fmt.Fprintln(stderr, "\n"+exitCodesHelp)
	}
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if (*xPath == "") == (*textPath == "") || *ranksFlag == "" || *out == "" {
		return usageError{errors.New("-ranks, -o and one of -x and -text are required")}
	}
	if *textPath == "" {
		if err := rejectFlags(fs, append(tf.names(), "field"), "applies to -text documents only"); err != nil {
			return err
		}
	}
	topt, err := tf.options()
	if err != nil {
		return err
	}
	if *labelsPath == "" {
		if err := rejectFlags(fs, []string{"lambda", "balance", "label-mask", "classifier"}, "needs -labels"); err != nil {
			return err
		}
	}
	if flagSet(fs, "decay") && !(*decay > 0 && *decay <= 1) {
		return usageError{fmt.Errorf("-decay is %v: want a factor in (0, 1]", *decay)}
	}
	if flagSet(fs, "decay") && *decayEvery <= 0 {
		return usageError{errors.New("-decay needs -decay-every (the number of epochs between decays)")}
	}
	if !(*lambda >= 0) || math.IsInf(*lambda, 0) {
		return usageError{fmt.Errorf("-lambda is %v: want 0 (balanced) or a positive weight", *lambda)}
	}
	if !(*balance >= 0) || math.IsInf(*balance, 0) {
		return usageError{fmt.Errorf("-balance is %v: want a positive ratio (0: the default %g)", *balance, neuralnmf.DefaultBalance)}
	}
	ranks, err := parseRanks(*ranksFlag)
	if err != nil {
		return usageError{err}
	}
	if err := checkOutput("-o", *out, input{"-x", *xPath}, input{"-text", *textPath}, input{"-stopwords", tf.stopwordsFile()}, input{"-labels", *labelsPath}, input{"-label-mask", *maskPath}, input{"-data-mask", *dataMask}); err != nil {
		return err
	}
	if *window < 0 {
		return usageError{fmt.Errorf("-window is %d: want 0 (the default) or a number of epochs", *window)}
	}
	if math.IsNaN(*tol) || math.IsInf(*tol, 0) {
		return usageError{fmt.Errorf("-tol is %v: want a finite number", *tol)}
	}
	if *algorithm1 && flagSet(fs, "optimizer") && *optimizer != "gd" {
		return usageError{errors.New("-algorithm1 is projected gradient descent: drop -optimizer or give -optimizer gd")}
	}
	cfg := neuralnmf.Config{Ranks: ranks, Epochs: *epochs, LR: *lr, Seed: *seed, InitRestarts: *initRestarts, Restarts: *restarts,
		Decay: optim.StepDecay{Every: *decayEvery, Factor: *decay}, Normalize: *normalize, Tol: *tol, Window: *window, Algorithm1: *algorithm1}
	if cfg.Loss, err = choose("loss", *loss, choice[neuralnmf.Loss]{"reconstruction", neuralnmf.Reconstruction},
		choice[neuralnmf.Loss]{"energy", neuralnmf.Energy}); err != nil {
		return err
	}
	if cfg.Optimizer, err = choose("optimizer", *optimizer, choice[neuralnmf.Optimizer]{"adam", neuralnmf.Adam},
		choice[neuralnmf.Optimizer]{"gd", neuralnmf.GD}); err != nil {
		return err
	}
	if *algorithm1 {
		cfg.Optimizer = neuralnmf.GD
	}
	if cfg.Init, err = choose("init", *initFlag, choice[neuralnmf.Init]{"hnmf", neuralnmf.HNMFInit}, choice[neuralnmf.Init]{"nndsvd", neuralnmf.NNDSVDInit},
		choice[neuralnmf.Init]{"random", neuralnmf.RandomInit}); err != nil {
		return err
	}
	classifierKind, err := choose("classifier", *classifier, classifiers()...)
	if err != nil {
		return err
	}
	lambdaVal := *lambda
	var presetNote string
	if *preset != "" {
		nc, err := choose("preset", *preset, choice[news20.NeuralConfig]{"paper", news20.PaperLoss},
			choice[news20.NeuralConfig]{"authors-unsup", news20.DefaultUnsupervised}, choice[news20.NeuralConfig]{"authors-semi", news20.DefaultSemiSupervised})
		if err != nil {
			return err
		}
		p := nc.Config(*seed, 0)
		p.Ranks, p.DataMask = ranks, nil
		// Flags given explicitly override the preset.
		var overridden []string
		set := func(name string, apply func()) {
			if flagSet(fs, name) {
				apply()
				overridden = append(overridden, "-"+name)
			}
		}
		set("epochs", func() { p.Epochs = cfg.Epochs })
		set("lr", func() { p.LR = cfg.LR })
		set("init-restarts", func() { p.InitRestarts = cfg.InitRestarts })
		set("restarts", func() { p.Restarts = cfg.Restarts })
		set("decay-every", func() { p.Decay = cfg.Decay })
		set("loss", func() { p.Loss = cfg.Loss })
		set("normalize", func() { p.Normalize = cfg.Normalize })
		set("optimizer", func() { p.Optimizer = cfg.Optimizer })
		set("init", func() { p.Init = cfg.Init })
		set("tol", func() { p.Tol = cfg.Tol })
		set("window", func() { p.Window = cfg.Window })
		set("algorithm1", func() { p.Algorithm1, p.Optimizer = cfg.Algorithm1, cfg.Optimizer })
		if !flagSet(fs, "lambda") {
			lambdaVal = nc.Lambda
		} else {
			overridden = append(overridden, "-lambda")
		}
		if !flagSet(fs, "classifier") {
			classifierKind = nc.Classifier
		} else {
			overridden = append(overridden, "-classifier")
		}
		cfg = p
		presetNote = fmt.Sprintf("preset %s: %s\n", *preset, nc.Describe(*labelsPath != ""))
		if len(overridden) > 0 {
			presetNote += fmt.Sprintf("overridden by %s as given\n", strings.Join(overridden, ", "))
		}
	}
	if *epochs < 1 || *initRestarts < 0 || *restarts < 0 {
		return usageError{errors.New("-epochs must be at least 1, -init-restarts and -restarts at least 0")}
	}
	var prog *fitProgress
	if !*quiet {
		prog = newFitProgress(stderr)
	}
	var x *matio.Matrix
	var vec []byte
	if *textPath != "" {
		prog.phase("reading and vectorising " + *textPath)
		v, xs, err := fitText(*textPath, *tf.field, topt)
		if err != nil {
			return err
		}
		if vec, err = json.Marshal(v); err != nil {
			return err
		}
		x, *xPath = &matio.Matrix{Sparse: xs}, *textPath
	} else {
		prog.phase("reading " + *xPath)
		if x, err = readData(*xPath); err != nil {
			return err
		}
	}
	_, m := x.Dims()
	if *labelsPath != "" {
		labels, err := matio.ReadLabelsFile(*labelsPath)
		if err != nil {
			return err
		}
		if len(labels) != m {
			return fmt.Errorf("%s: %d labels for the %d columns of %s", *labelsPath, len(labels), m, *xPath)
		}
		classes, err := neuralnmf.CheckLabels(labels)
		if err != nil {
			return fmt.Errorf("%s: %w", *labelsPath, err)
		}
		known := make([]bool, m)
		for i, l := range labels {
			known[i] = l >= 0
		}
		if *maskPath != "" {
			mask, err := matio.ReadLabelsFile(*maskPath)
			if err != nil {
				return err
			}
			if len(mask) != m {
				return fmt.Errorf("%s: %d entries for the %d columns of %s", *maskPath, len(mask), m, *xPath)
			}
			for i, v := range mask {
				if v != 0 && v != 1 {
					return fmt.Errorf("%s: entry %d is %d, want 0 or 1", *maskPath, i+1, v)
				}
				if v == 1 && labels[i] < 0 {
					return fmt.Errorf("%s: sample %d is marked known but its label is %d", *maskPath, i+1, labels[i])
				}
				known[i] = v == 1
			}
		}
		if classes < 2 {
			return fmt.Errorf("%s: need labels of at least 2 classes", *labelsPath)
		}
		cfg.Supervision = &neuralnmf.Supervision{Labels: labels, Classes: classes, Known: known, Lambda: lambdaVal, Balance: *balance, Classifier: classifierKind}
	}
	if *dataMask != "" {
		w, err := matio.ReadMatrix(*dataMask)
		if err != nil {
			return err
		}
		cfg.DataMask = w.ToDense()
	}
	if prog != nil {
		r := cfg.Resolved()
		prog.configure(r)
		starts := 0
		cfg.Phase = func(name string) {
			if name == "start" {
				starts++
				prog.phase(startPhase(r, starts))
			}
		}
		cfg.Progress = prog.epoch
		fmt.Fprintln(stderr, describeConfig(cfg))
	}
	var model *neuralnmf.Model
	if x.Sparse != nil {
		model, err = neuralnmf.TrainSparse(x.Sparse, cfg)
	} else {
		model, err = neuralnmf.Train(x.Dense, cfg)
	}
	prog.finish()
	if err != nil {
		return err
	}
	model.Vectorizer = vec
	if err := model.Save(*out); err != nil {
		return err
	}
	fmt.Fprint(stdout, presetNote)
	fmt.Fprintln(stdout, describeConfig(cfg))
	h := model.History
	n := len(h.Loss)
	fmt.Fprintf(stdout, "trained %d epochs (%s): loss %.6g, relative error %.6f", n, h.Stopped, h.Loss[n-1], h.RelError[n-1])
	if !math.IsNaN(h.Accuracy[n-1]) {
		fmt.Fprintf(stdout, ", train accuracy %.3f (on the labels used)", h.Accuracy[n-1])
	}
	if !math.IsNaN(h.HeldOutAccuracy[n-1]) {
		fmt.Fprintf(stdout, ", held-out accuracy %.3f (labelled columns not marked known)", h.HeldOutAccuracy[n-1])
	}
	if h.Resets+h.Collinear > 0 {
		fmt.Fprintf(stdout, "\nre-initialised %d dead and %d collinear topics during training", h.Resets, h.Collinear)
	}
	fmt.Fprintf(stdout, "\nwrote %s\n", *out)
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

func loadModel(path string) (*neuralnmf.Model, error) {
	if path == "" {
		return nil, usageError{errors.New("-model is required")}
	}
	return neuralnmf.Load(path)
}

func runTransform(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("transform", flag.ContinueOnError)
	modelPath := fs.String("model", "", "model file from 'neuralnmf fit' (required)")
	xPath := fs.String("x", "", "new columns, with the training data's rows (this or -text is required)")
	textPath, field := textInputFlags(fs)
	layer := fs.Int("layer", 0, "layer whose S to write, 1..L (default: the last)")
	out := fs.String("o", "", "output file for S: .csv or .mtx (required)")
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: neuralnmf transform -model m.nnmf -x X.mtx -o S.csv [flags]\n\nRuns new columns through a saved model (forward pass only) and writes S of one layer.\n\nFlags:\n")
		fs.PrintDefaults()
		fmt.Fprintln(stderr, "\n"+exitCodesHelp)
	}
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if (*xPath == "") == (*textPath == "") || *out == "" {
		return usageError{errors.New("-o and one of -x and -text are required")}
	}
	if !strings.HasSuffix(*out, ".csv") && !strings.HasSuffix(*out, ".mtx") {
		return usageError{fmt.Errorf("-o %s: want a .csv or .mtx file (gzip is not written)", *out)}
	}
	if err := checkOutput("-o", *out, input{"-x", *xPath}, input{"-text", *textPath}, input{"-model", *modelPath}); err != nil {
		return err
	}
	m, err := loadModel(*modelPath)
	if err != nil {
		return err
	}
	L := len(m.A)
	if *layer == 0 {
		*layer = L
	}
	if *layer < 1 || *layer > L {
		return usageError{fmt.Errorf("-layer %d: the model has layers 1..%d", *layer, L)}
	}
	x, xName, err := readColumns(*xPath, *textPath, *field, *modelPath, m)
	if err != nil {
		return err
	}
	*xPath = xName
	var s []*tensor.Dense
	if x.Sparse != nil {
		s, err = m.TransformSparse(x.Sparse)
	} else {
		s, err = m.Transform(x.Dense)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", *xPath, err)
	}
	if err := writeMatrix(*out, s[*layer-1]); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote S of layer %d (%d×%d) to %s\n", *layer, s[*layer-1].Rows, s[*layer-1].Cols, *out)
	return nil
}

// textInputFlags adds -text and -field to a command that reads new columns.
func textInputFlags(fs *flag.FlagSet) (textPath, field *string) {
	return fs.String("text", "", "new documents instead of -x (.jsonl, .csv or a directory of .txt files), vectorised by the model's saved vectoriser (models trained with fit -text)"),
		fs.String("field", "text", "JSON member or CSV column holding each document's text, with -text")
}

// readColumns reads the new columns of transform and predict: the matrix
// at xPath, or the documents at textPath put into the space of the model's
// vectoriser. It returns the columns and the name of their file.
func readColumns(xPath, textPath, field, modelPath string, m *neuralnmf.Model) (*matio.Matrix, string, error) {
	if textPath != "" {
		v, err := modelVectorizer(modelPath, m)
		if err != nil {
			return nil, "", err
		}
		xs, err := v.Transform(text.Source{Path: textPath, Field: field}.Texts())
		if err != nil {
			return nil, "", err
		}
		return &matio.Matrix{Sparse: xs}, textPath, nil
	}
	x, err := readData(xPath)
	return x, xPath, err
}

func writeMatrix(path string, d *tensor.Dense) error {
	base := strings.TrimSuffix(path, ".gz")
	if strings.HasSuffix(path, ".gz") {
		return fmt.Errorf("%s: writing gzip is not supported; drop .gz", path)
	}
	switch {
	case strings.HasSuffix(base, ".csv"):
		return matio.WriteAtomic(path, func(f *os.File) error { return matio.WriteCSV(f, d) })
	case strings.HasSuffix(base, ".mtx"):
		return matio.WriteAtomic(path, func(f *os.File) error { return matio.WriteMatrixMarket(f, &matio.Matrix{Dense: d}) })
	}
	return usageError{fmt.Errorf("%s: want a .csv or .mtx output file", path)}
}

func runTopics(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("topics", flag.ContinueOnError)
	modelPath := fs.String("model", "", "model file from 'neuralnmf fit' (required)")
	vocabPath := fs.String("vocab", "", "vocabulary: one word per line, line i naming row i of X (required unless the model was trained with fit -text)")
	n := fs.Int("n", 10, "words per topic")
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: neuralnmf topics -model m.nnmf -vocab vocab.txt [flags]\n\nPrints the top words of each topic at each layer; layer ℓ's topics are the columns of A⁽⁰⁾⋯A⁽ˡ⁾.\n\nFlags:\n")
		fs.PrintDefaults()
		fmt.Fprintln(stderr, "\n"+exitCodesHelp)
	}
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if *n < 1 {
		return usageError{errors.New("-n must be at least 1")}
	}
	m, err := loadModel(*modelPath)
	if err != nil {
		return err
	}
	var vocab []string
	if *vocabPath == "" {
		v, err := modelVectorizer(*modelPath, m)
		if err != nil {
			return usageError{fmt.Errorf("-vocab is required: %w", err)}
		}
		vocab, *vocabPath = v.Vocab, *modelPath
	} else {
		if vocab, err = readWordList(*vocabPath); err != nil {
			return err
		}
	}
	if len(vocab) != m.A[0].Rows {
		return fmt.Errorf("%s: %d words, but the model has %d features", *vocabPath, len(vocab), m.A[0].Rows)
	}
	for l, topics := range neuralnmf.LayerTopics(m.A) {
		fmt.Fprintf(stdout, "Layer %d (%d topics):\n", l+1, topics.Cols)
		for j, ws := range neuralnmf.TopWords(topics, vocab, *n) {
			fmt.Fprintf(stdout, "  topic %-3d %s\n", j+1, strings.Join(ws, ", "))
		}
	}
	return nil
}

func runHeatmap(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("heatmap", flag.ContinueOnError)
	modelPath := fs.String("model", "", "model file from 'neuralnmf fit' (required)")
	which := fs.String("matrix", "A1", "matrix to draw: A1..AL or S1..SL (layer numbers from 1)")
	out := fs.String("o", "", "output PNG file (required)")
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: neuralnmf heatmap -model m.nnmf -matrix A2 -o a2.png\n\nDraws one A⁽ˡ⁾ or S⁽ˡ⁾ of a saved model as a PNG heatmap with labelled axes.\n\nFlags:\n")
		fs.PrintDefaults()
		fmt.Fprintln(stderr, "\n"+exitCodesHelp)
	}
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if *out == "" || filepath.Ext(*out) != ".png" {
		return usageError{errors.New("-o must name a .png file")}
	}
	if err := checkOutput("-o", *out, input{"-model", *modelPath}); err != nil {
		return err
	}
	m, err := loadModel(*modelPath)
	if err != nil {
		return err
	}
	L := len(m.A)
	kind, num := "", 0
	if len(*which) >= 2 {
		kind = strings.ToUpper((*which)[:1])
		num, err = strconv.Atoi((*which)[1:])
	}
	if err != nil || (kind != "A" && kind != "S") || num < 1 || num > L {
		return usageError{fmt.Errorf("-matrix %q: want A1..A%d or S1..S%d", *which, L, L)}
	}
	d, rowLabel, colLabel := m.A[num-1], "features", fmt.Sprintf("layer-%d topics", num)
	if num > 1 {
		rowLabel = fmt.Sprintf("layer-%d topics", num-1)
	}
	if kind == "S" {
		d, rowLabel, colLabel = m.S[num-1], fmt.Sprintf("layer-%d topics", num), "samples"
	}
	ranks := make([]string, L)
	for l, a := range m.A {
		ranks[l] = strconv.Itoa(a.Cols)
	}
	title := fmt.Sprintf("Neural NMF model %s (ranks %s): %s%d", filepath.Base(*modelPath), strings.Join(ranks, ","), kind, num)
	img, err := plot.Heatmaps([]plot.Panel{{Title: fmt.Sprintf("%s%d (%d×%d)", kind, num, d.Rows, d.Cols), M: d, RowLabel: rowLabel, ColLabel: colLabel}},
		&plot.Options{Title: title, BarLabel: fmt.Sprintf("entry of %s%d", kind, num)})
	if err != nil {
		return err
	}
	if err := plot.WritePNG(*out, img); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s\n", *out)
	return nil
}
