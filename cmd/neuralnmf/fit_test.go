package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/matio"
	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/tensor"
)

func cli(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// writeData writes a small block-structured X (as sparse .mtx and dense
// .csv), labels, a label mask and a vocabulary.
func writeData(t *testing.T, dir string) {
	rng := tensor.NewRand(3)
	x := tensor.New(12, 20)
	for j := 0; j < 20; j++ {
		block := j / 10
		for i := 0; i < 12; i++ {
			if i/6 == block {
				x.Set(i, j, 1+rng.Float64())
			} else if rng.Float64() < 0.2 {
				x.Set(i, j, 0.1*rng.Float64())
			}
		}
	}
	f, err := os.Create(filepath.Join(dir, "x.mtx"))
	require.NoError(t, err)
	require.NoError(t, matio.WriteMatrixMarket(f, &matio.Matrix{Sparse: tensor.SparseFromDense(x)}))
	f.Close()
	f, err = os.Create(filepath.Join(dir, "x.csv"))
	require.NoError(t, err)
	require.NoError(t, matio.WriteCSV(f, x))
	f.Close()
	var labels, mask, vocab strings.Builder
	for j := 0; j < 20; j++ {
		labels.WriteString([]string{"0\n", "1\n"}[j/10])
		mask.WriteString([]string{"1\n", "0\n"}[j%4/3])
	}
	for i := 0; i < 12; i++ {
		vocab.WriteString([]string{"alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta", "iota", "kappa", "lambda", "mu"}[i] + "\n")
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "y.txt"), []byte(labels.String()), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "known.txt"), []byte(mask.String()), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "vocab.txt"), []byte(vocab.String()), 0o644))
}

func TestFitTransformTopicsHeatmap(t *testing.T) {
	dir := t.TempDir()
	writeData(t, dir)
	p := func(n string) string { return filepath.Join(dir, n) }
	for _, x := range []string{"x.mtx", "x.csv"} {
		code, out, errOut := cli(t, "fit", "-x", p(x), "-ranks", "4,2", "-labels", p("y.txt"), "-label-mask", p("known.txt"),
			"-epochs", "60", "-o", p("m.nnmf"), "-quiet")
		require.Equal(t, 0, code, errOut)
		require.Contains(t, out, "accuracy 1.000")
		require.Empty(t, errOut, "-quiet")
	}
	code, out, errOut := cli(t, "transform", "-model", p("m.nnmf"), "-x", p("x.mtx"), "-o", p("s.csv"))
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "wrote S2, the layer-2 weights of 20 columns (2×20)")
	s, err := matio.ReadMatrix(p("s.csv"))
	require.NoError(t, err)
	r, c := s.Dims()
	require.Equal(t, [2]int{2, 20}, [2]int{r, c})

	code, out, errOut = cli(t, "topics", "-model", p("m.nnmf"), "-vocab", p("vocab.txt"), "-n", "3")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "Layer 1 (4 topics)")
	require.Contains(t, out, "Layer 2 (2 topics)")
	// The two supertopics are the two blocks of features.
	first := map[string]bool{"alpha": true, "beta": true, "gamma": true, "delta": true, "eps": true, "zeta": true}
	var l2 []string
	for _, line := range strings.Split(out[strings.Index(out, "Layer 2"):], "\n")[1:3] {
		l2 = append(l2, strings.Fields(line)[2])
	}
	require.NotEqual(t, first[strings.TrimSuffix(l2[0], ",")], first[strings.TrimSuffix(l2[1], ",")], "layer-2 topics split the blocks: %v", l2)

	for _, mat := range []string{"A1", "A2", "S2"} {
		code, _, errOut = cli(t, "heatmap", "-model", p("m.nnmf"), "-matrix", mat, "-o", p(mat+".png"))
		require.Equal(t, 0, code, errOut)
		st, err := os.Stat(p(mat + ".png"))
		require.NoError(t, err)
		require.Greater(t, st.Size(), int64(100))
	}
}

func TestCLIErrors(t *testing.T) {
	dir := t.TempDir()
	writeData(t, dir)
	p := func(n string) string { return filepath.Join(dir, n) }
	require.NoError(t, os.WriteFile(p("bad.mtx"), []byte("%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1\n"), 0o644))
	require.NoError(t, os.WriteFile(p("neg.csv"), []byte("1,2\n-1,3\n"), 0o644))
	require.NoError(t, os.WriteFile(p("bad.nnmf"), []byte("NNMFMODL garbage"), 0o644))
	require.NoError(t, os.WriteFile(p("short.txt"), []byte("0\n1\n"), 0o644))
	labels20 := func(name string, set map[int]string) {
		var b strings.Builder
		for i := 0; i < 20; i++ {
			l, ok := set[i]
			if !ok {
				l = fmt.Sprint(i % 2)
			}
			b.WriteString(l + "\n")
		}
		require.NoError(t, os.WriteFile(p(name), []byte(b.String()), 0o644))
	}
	labels20("huge.txt", map[int]string{4: "1000000000"}) // would be 10⁹ classes
	labels20("gap.txt", map[int]string{0: "0", 1: "5"})   // 0,1 and 5: 2..4 empty
	labels20("minus2.txt", map[int]string{2: "-2"})
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"fit", "-x", p("bad.mtx"), "-ranks", "2", "-o", p("o.nnmf")}, 1, "bad.mtx:3: malformed input: row index 3 out of range 1..2"},
		{[]string{"fit", "-x", p("neg.csv"), "-ranks", "1", "-o", p("o.nnmf")}, 1, "neg.csv: row 2, column 1 is -1: X must be nonnegative"},
		{[]string{"fit", "-x", p("missing.mtx"), "-ranks", "2", "-o", p("o.nnmf")}, 1, "no such file"},
		{[]string{"fit", "-x", p("x.mtx"), "-ranks", "4,x", "-o", p("o.nnmf")}, 2, `"x" is not a positive integer`},
		{[]string{"fit", "-x", p("x.mtx"), "-ranks", "20", "-o", p("o.nnmf")}, 2, "-ranks: layer 1's rank 20 is above the 12 rows (features) of the data; want at most 12"},
		// Flags that would be silently ignored are usage errors.
		{[]string{"fit", "-x", p("x.mtx"), "-ranks", "2", "-lambda", "5", "-o", p("o.nnmf")}, 2, "-lambda needs -labels"},
		{[]string{"fit", "-x", p("x.mtx"), "-ranks", "2", "-label-mask", p("short.txt"), "-o", p("o.nnmf")}, 2, "-label-mask needs -labels"},
		{[]string{"fit", "-x", p("x.mtx"), "-ranks", "2", "-balance", "0.5", "-o", p("o.nnmf")}, 2, "-balance needs -labels"},
		{[]string{"fit", "-x", p("x.mtx"), "-ranks", "2", "-labels", p("short.txt"), "-balance", "-1", "-o", p("o.nnmf")}, 2, "-balance is -1: want a positive ratio"},
		{[]string{"fit", "-x", p("x.mtx"), "-ranks", "2", "-decay", "-1", "-decay-every", "5", "-o", p("o.nnmf")}, 2, "-decay is -1: want a factor in (0, 1]"},
		{[]string{"fit", "-x", p("x.mtx"), "-ranks", "2", "-decay", "0.5", "-o", p("o.nnmf")}, 2, "-decay needs -decay-every"},
		{[]string{"fit", "-x", p("x.mtx"), "-ranks", "2", "-forget", "0.5", "-o", p("o.nnmf")}, 2, "apply to mini-batch training: give -batch-size"},
		{[]string{"fit", "-x", p("x.mtx"), "-ranks", "2", "-batch-size", "5", "-forget", "2", "-o", p("o.nnmf")}, 2, "-forget is 2: want a factor in (0, 1]"},
		{[]string{"fit", "-x", p("x.mtx"), "-ranks", "2", "-batch-size", "5", "-batch-update", "sgd", "-o", p("o.nnmf")}, 2, "batch-update"},
		{[]string{"fit", "-x", p("x.mtx"), "-ranks", "2", "-labels", p("short.txt"), "-o", p("o.nnmf")}, 1, "2 labels for the 20 columns"},
		{[]string{"fit", "-ranks", "2"}, 2, "one of -x (a matrix) and -text (documents) is required"},
		{[]string{"fit", "-x", p("x.mtx"), "-ranks", "2", "-window", "-1", "-o", p("o.nnmf")}, 2, "-window is -1"},
		{[]string{"fit", "-x", p("x.mtx"), "-ranks", "2", "-tol", "NaN", "-o", p("o.nnmf")}, 2, "-tol is NaN: want a finite number"},
		{[]string{"fit", "-x", p("x.mtx"), "-ranks", "2", "-algorithm1", "-optimizer", "adam", "-o", p("o.nnmf")}, 2, "-algorithm1 is projected gradient descent"},
		{[]string{"fit", "-x", p("x.mtx"), "-ranks", "2", "-init", "svd", "-o", p("o.nnmf")}, 2, `-init is "svd": want hnmf or nndsvd or hnmf-best or random`},
		{[]string{"fit", "-x", p("x.mtx"), "-ranks", "2", "-preset", "mine", "-o", p("o.nnmf")}, 2, `-preset is "mine": want paper or authors-unsup or authors-semi`},
		{[]string{"fit", "-x", p("x.mtx"), "-ranks", "2", "-labels", p("huge.txt"), "-o", p("o.nnmf")}, 1, "label 1000000000 of column 5: more classes than the 20 columns"},
		{[]string{"fit", "-x", p("x.mtx"), "-ranks", "2", "-labels", p("gap.txt"), "-o", p("o.nnmf")}, 1, "class(es) [2 3 4] of 0..5 have no labelled column"},
		{[]string{"fit", "-x", p("x.mtx"), "-ranks", "2", "-labels", p("minus2.txt"), "-o", p("o.nnmf")}, 1, "label -2 of column 3: want -1 (unknown)"},
		{[]string{"transform", "-model", p("bad.nnmf"), "-x", p("x.mtx"), "-o", p("s.csv")}, 1, "invalid model file"},
		{[]string{"heatmap", "-model", p("bad.nnmf"), "-o", p("h.png")}, 1, "invalid model file"},
		{[]string{"topics", "-model", p("missing.nnmf"), "-vocab", p("vocab.txt")}, 1, "no such file"},
		{[]string{"experiment", "nope"}, 2, `unknown experiment "nope"`},
		{[]string{"experiment", "20news", "-loss", "mine", "-data", p("none")}, 2, `-loss is "mine": want authors or paper`},
		{[]string{"experiment", "20news", "-classifier", "svm", "-data", p("none")}, 2, `-classifier is "svm": want ls or ce`},
		{[]string{"experiment", "20news", "-data", p("none"), "-o", p("out20")}, 1, "loading -data"},
	}
	xBefore, err := os.ReadFile(p("x.mtx"))
	require.NoError(t, err)
	require.NoError(t, os.Symlink(p("x.mtx"), p("link.mtx")))
	require.NoError(t, os.Mkdir(p("adir"), 0o755))
	cases = append(cases, []struct {
		args []string
		code int
		msg  string
	}{
		// No command may overwrite its own input, and the output path is
		// checked before any work.
		{[]string{"fit", "-x", p("x.mtx"), "-ranks", "2", "-o", p("x.mtx")}, 2, "-o " + p("x.mtx") + " is also the input -x"},
		{[]string{"fit", "-x", p("x.mtx"), "-ranks", "2", "-o", p("link.mtx")}, 2, "is also the input -x"},
		{[]string{"fit", "-x", p("x.mtx"), "-ranks", "2", "-o", p("nodir/m.nnmf")}, 2, "does not exist"},
		{[]string{"fit", "-x", p("x.mtx"), "-ranks", "2", "-o", p("adir")}, 2, "is a directory"},
		{[]string{"transform", "-model", p("bad.nnmf"), "-x", p("x.mtx"), "-o", p("x.mtx")}, 2, "is also the input -x"},
		{[]string{"transform", "-model", p("bad.nnmf"), "-x", p("x.mtx"), "-o", p("s.csv.gz")}, 2, "want a .csv or .mtx file"},
	}...)
	for _, tc := range cases {
		code, out, errOut := cli(t, tc.args...)
		require.Equal(t, tc.code, code, "%v: %s%s", tc.args, out, errOut)
		require.Contains(t, errOut, tc.msg, "%v", tc.args)
	}
	xAfter, err := os.ReadFile(p("x.mtx"))
	require.NoError(t, err)
	require.Equal(t, xBefore, xAfter, "the input is intact")
	_, err = os.Stat(p("o.nnmf"))
	require.ErrorIs(t, err, os.ErrNotExist, "a failed fit writes no model file")
	for _, c := range []string{"demo", "fit", "transform", "predict", "topics", "heatmap"} {
		code, _, errOut := cli(t, c, "--help")
		require.Equal(t, 0, code, c)
		require.Contains(t, errOut, "Usage: neuralnmf "+c, c)
		require.Contains(t, errOut, "Exit codes: 0 success; 1 an input file", c)
	}
}

// -preset reproduces the 20 Newsgroups experiment's configurations from
// the command line: authors-semi trains the authors' normalised objective
// with their large-step projected GD; a flag given explicitly overrides it.
func TestFitPreset(t *testing.T) {
	dir := t.TempDir()
	writeData(t, dir)
	p := func(n string) string { return filepath.Join(dir, n) }
	code, out, errOut := cli(t, "fit", "-x", p("x.mtx"), "-ranks", "4,2", "-labels", p("y.txt"), "-preset", "authors-semi", "-epochs", "15", "-quiet", "-o", p("m.nnmf"))
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "preset authors-semi: 100 epochs of projected gradient descent (step 1e+10")
	require.Contains(t, out, "the authors' objective")
	require.Contains(t, out, "overridden by -epochs as given")
	require.Contains(t, out, "trained 15 epochs")
	require.Contains(t, out, "-tol 1e-07 (relative) over -window 10 epochs", "the presets keep the stopping rule they were validated with")
	// The stopping rule's flags override a preset too, and say so.
	code, out, errOut = cli(t, "fit", "-x", p("x.mtx"), "-ranks", "4,2", "-preset", "paper", "-tol", "0.5", "-window", "2", "-quiet", "-o", p("m.nnmf"))
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "overridden by -tol, -window as given")
	require.Contains(t, out, "-tol 0.5 (relative) over -window 2 epochs")
	require.Contains(t, out, "trained 3 epochs (")
}

// predict writes, for every column, the class the model predicts and the
// scores; on the training columns it agrees with the model's own
// predictions, and the file reads back as a CSV with a header.
func TestPredict(t *testing.T) {
	dir := t.TempDir()
	writeData(t, dir)
	p := func(n string) string { return filepath.Join(dir, n) }
	code, _, errOut := cli(t, "fit", "-x", p("x.mtx"), "-ranks", "4,2", "-labels", p("y.txt"), "-epochs", "30", "-quiet", "-o", p("m.nnmf"))
	require.Equal(t, 0, code, errOut)
	code, out, errOut := cli(t, "predict", "-model", p("m.nnmf"), "-x", p("x.mtx"), "-o", p("pred.csv"))
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "wrote predicted classes of 20 columns (2 classes)")
	m, err := neuralnmf.Load(p("m.nnmf"))
	require.NoError(t, err)
	f, err := os.Open(p("pred.csv"))
	require.NoError(t, err)
	defer f.Close()
	d, err := matio.ReadCSV(f, "pred.csv")
	require.NoError(t, err)
	require.Equal(t, 20, d.Rows)
	require.Equal(t, 2+2, d.Cols)
	x, err := matio.ReadMatrix(p("x.mtx"))
	require.NoError(t, err)
	want, _, err := m.Classify(x.Sparse) // the library on the same columns
	require.NoError(t, err)
	for j := 0; j < 20; j++ {
		require.Equal(t, float64(j+1), d.At(j, 0))
		require.Equal(t, float64(want[j]), d.At(j, 1), "column %d", j+1)
	}
	// An unsupervised model cannot predict.
	code, _, _ = cli(t, "fit", "-x", p("x.mtx"), "-ranks", "4,2", "-epochs", "3", "-quiet", "-o", p("u.nnmf"))
	require.Equal(t, 0, code)
	code, _, errOut = cli(t, "predict", "-model", p("u.nnmf"), "-x", p("x.mtx"), "-o", p("u.csv"))
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "trained without labels, so it cannot predict")
}

// fit names each phase on stderr as it begins, reports training epochs
// against the stopping rule, and prints the configuration it ran (the
// resolved defaults, in flag terms) and why it stopped.
func TestFitProgressAndConfiguration(t *testing.T) {
	dir := t.TempDir()
	writeData(t, dir)
	p := func(n string) string { return filepath.Join(dir, n) }
	code, out, errOut := cli(t, "fit", "-x", p("x.mtx"), "-ranks", "2", "-o", p("m.nnmf"))
	require.Equal(t, 0, code, errOut)
	x, err := matio.ReadMatrix(p("x.mtx"))
	require.NoError(t, err)
	// The starts are sized to X (docs/defaults.md): the most, 10 starts
	// per layer and 2 restarts, while one start's multiply-adds (entries
	// times the first rank) are at most a tenth of the budget of 5e5.
	require.LessOrEqual(t, len(x.Sparse.Val)*2, 50000)
	starts, restarts := 10, 2
	startLine, capEpochs, restartsFlag := fmt.Sprintf("start: HNMF of X by multiplicative updates, %d random start(s) per layer", starts), 1000, ""
	if restarts > 1 {
		startLine = fmt.Sprintf("start 1 of %d: HNMF of X by multiplicative updates, %d random start(s) per layer", restarts, starts)
		capEpochs, restartsFlag = 1000+50*(restarts-1), fmt.Sprintf(", -restarts %d (50 epochs each)", restarts)
	}
	for _, want := range []string{"reading " + p("x.mtx"), startLine, fmt.Sprintf("training: epoch 1 (cap %d)", capEpochs), "done in"} {
		require.Contains(t, errOut, want)
	}
	require.Less(t, strings.Index(errOut, "reading"), strings.Index(errOut, "start"), "phases in order")
	require.Less(t, strings.Index(errOut, "start"), strings.Index(errOut, "training:"), "phases in order")
	require.Contains(t, out, fmt.Sprintf("configuration: -ranks 2, -init hnmf (%d random start(s) per layer), -optimizer adam -lr 0.01, -loss reconstruction%s; stops when the loss falls by less than -tol %g (relative) over -window %d epochs, or at -epochs 1000, -seed 1", starts, restartsFlag, neuralnmf.DefaultTol, neuralnmf.DefaultWindow))
	require.Regexp(t, `trained \d+ epochs \((converged|no progress): `, out)

	// Algorithm 1 runs its epochs with the fixed step; restarts are
	// announced one by one and the cap counts their burn-in.
	code, out, errOut = cli(t, "fit", "-x", p("x.mtx"), "-ranks", "2", "-algorithm1", "-lr", "1e-4", "-epochs", "7", "-o", p("m.nnmf"))
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "-algorithm1 (fixed-step projected gradient descent, no safeguard), -optimizer gd -lr 0.0001")
	require.Contains(t, out, "runs -epochs 7 (no tolerance)")
	require.Contains(t, out, "trained 7 epochs (max epochs: stopped at the cap of 7 epochs)")
	code, _, errOut = cli(t, "fit", "-x", p("x.mtx"), "-ranks", "2", "-restarts", "3", "-epochs", "60", "-tol", "-1", "-o", p("m.nnmf"))
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, "start 3 of 3: HNMF of X")
	require.Contains(t, errOut, "(cap 160)") // 60 + 2 burn-ins of 50
	require.Contains(t, errOut, "training: epoch 160 (cap 160)", "the last epoch is shown")

	code, _, errOut = cli(t, "fit", "-x", p("x.mtx"), "-ranks", "2", "-quiet", "-o", p("m.nnmf"))
	require.Equal(t, 0, code, errOut)
	require.Empty(t, errOut)
}

// fit --help groups its flags in sections that follow the library's
// Config (issue 67), and every flag is in one: none falls to "Other".
func TestFitHelpSections(t *testing.T) {
	code, _, errOut := cli(t, "fit", "--help")
	require.Equal(t, 0, code)
	last := -1
	for _, sec := range fitSections {
		i := strings.Index(errOut, "\n"+sec.title+":\n")
		require.Greater(t, i, last, "section %q, in order", sec.title)
		last = i
	}
	require.NotContains(t, errOut, "\nOther:\n", "a flag in no section")
	f := newFitFlags(io.Discard)
	seen := map[string]string{}
	for _, sec := range fitSections {
		for _, n := range sec.names {
			require.NotNil(t, f.fs.Lookup(n), "section %q names -%s, not a flag of fit", sec.title, n)
			require.Empty(t, seen[n], "-%s is in %q and %q", n, seen[n], sec.title)
			seen[n] = sec.title
		}
	}
}
