package main

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/matio"
	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// writeCorpus writes a 2-group block corpus of m columns (groups in
// random order) as a column-sorted .mtx.gz, the same entries in reverse
// order as a plain .mtx, and the groups as labels.
func writeCorpus(t *testing.T, dir string, m int) {
	rng := tensor.NewRand(9)
	x := tensor.New(30, m)
	y := make([]string, m)
	for j := 0; j < m; j++ {
		g := rng.IntN(2)
		y[j] = fmt.Sprint(g)
		for i := 0; i < 30; i++ {
			if i/15 == g {
				x.Set(i, j, 1+rng.Float64())
			} else if rng.Float64() < 0.1 {
				x.Set(i, j, 0.1*rng.Float64())
			}
		}
	}
	sp := tensor.SparseFromDense(x)
	require.NoError(t, matio.WriteAtomic(filepath.Join(dir, "x.mtx"), func(f *os.File) error {
		return matio.WriteMatrixMarket(f, &matio.Matrix{Sparse: sp})
	}))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "y.txt"), []byte(strings.Join(y, "\n")+"\n"), 0o644))
	// The same entries, last column first: not streamable.
	lines := strings.Split(strings.TrimSpace(string(must(os.ReadFile(filepath.Join(dir, "x.mtx"))))), "\n")
	body := lines[2:]
	for i, j := 0, len(body)-1; i < j; i, j = i+1, j-1 {
		body[i], body[j] = body[j], body[i]
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "rev.mtx"), []byte(strings.Join(append(lines[:2], body...), "\n")+"\n"), 0o644))
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func readCSV(t *testing.T, path string) [][]string {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	recs, err := csv.NewReader(bufio.NewReader(f)).ReadAll()
	require.NoError(t, err)
	return recs
}

// The streamed workflow: an unsorted file is refused with the convert
// command, convert sorts it, fit -batch-size streams it (and with labels),
// transform and predict -batch-size stream new columns into CSV rows that
// equal the in-memory commands' results.
func TestStreamedWorkflow(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	writeCorpus(t, dir, 1500)
	code, _, errOut := cli(t, "fit", "-x", p("rev.mtx"), "-ranks", "4,2", "-batch-size", "100", "-o", p("m.nnmf"), "-quiet")
	require.Equal(t, exitData, code)
	require.Contains(t, errOut, "entries are not sorted by column")
	require.Contains(t, errOut, "neuralnmf convert -x "+p("rev.mtx"))
	code, out, errOut := cli(t, "convert", "-x", p("rev.mtx"), "-o", p("sorted.mtx.gz"), "-memory", "1")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "sorted by column")

	code, out, errOut = cli(t, "fit", "-x", p("sorted.mtx.gz"), "-ranks", "4,2", "-batch-size", "100", "-labels", p("y.txt"), "-o", p("m.nnmf"), "-quiet")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "passes of mini-batches")
	require.Contains(t, out, "train accuracy 1.000")

	// Streamed transform and predict equal the in-memory commands.
	code, _, errOut = cli(t, "transform", "-model", p("m.nnmf"), "-x", p("x.mtx"), "-batch-size", "64", "-o", p("s.csv"))
	require.Equal(t, 0, code, errOut)
	code, _, errOut = cli(t, "transform", "-model", p("m.nnmf"), "-x", p("x.mtx"), "-o", p("s_whole.csv"))
	require.Equal(t, 0, code, errOut)
	rows, whole := readCSV(t, p("s.csv")), readCSV(t, p("s_whole.csv"))
	require.Equal(t, []string{"column", "topic_1", "topic_2"}, rows[0])
	require.Len(t, rows, 1501)
	for j := 1; j <= 1500; j++ {
		require.Equal(t, fmt.Sprint(j), rows[j][0])
		for i := 0; i < 2; i++ {
			require.Equal(t, whole[i][j-1], rows[j][i+1], "column %d, topic %d", j, i+1)
		}
	}
	code, out, errOut = cli(t, "predict", "-model", p("m.nnmf"), "-x", p("x.mtx"), "-batch-size", "64", "-labels", p("y.txt"), "-o", p("pred.csv"))
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "accuracy 1.0000 (1500 of 1500 labelled columns)")
	code, _, errOut = cli(t, "predict", "-model", p("m.nnmf"), "-x", p("x.mtx"), "-o", p("pred_whole.csv"))
	require.Equal(t, 0, code, errOut)
	require.Equal(t, readCSV(t, p("pred_whole.csv")), readCSV(t, p("pred.csv")))

	code, _, errOut = cli(t, "transform", "-model", p("m.nnmf"), "-x", p("x.mtx"), "-batch-size", "64", "-o", p("s.mtx"))
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "-batch-size streams a .mtx or .mtx.gz -x into a .csv -o")
}

// Every command that takes a model takes one from a streamed fit, which
// keeps no S, or refuses with a usage error naming what it lacks; report
// works on one, with and without its documents.
func TestStreamedModelEverywhere(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	writeCorpus(t, dir, 600)
	code, _, errOut := cli(t, "fit", "-x", p("x.mtx"), "-ranks", "4,2", "-batch-size", "100", "-labels", p("y.txt"), "-o", p("m.nnmf"), "-quiet")
	require.Equal(t, 0, code, errOut)
	m, err := neuralnmf.Load(p("m.nnmf"))
	require.NoError(t, err)
	require.Empty(t, m.S, "a streamed model keeps no S")
	var vocab strings.Builder
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&vocab, "w%d\n", i)
	}
	require.NoError(t, os.WriteFile(p("v.txt"), []byte(vocab.String()), 0o644))
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"export", "-matrix", "S1", "-o", p("s1.csv")}, exitUsage, "-matrix S1: the model keeps no S (it was trained with fit -batch-size, which streams its columns); it has A1..A2 and B"},
		{[]string{"heatmap", "-matrix", "S2", "-o", p("s2.png")}, exitUsage, "-matrix S2: the model keeps no S"},
		{[]string{"export", "-matrix", "A2", "-o", p("a2.csv")}, 0, "wrote A2 (4×2)"},
		{[]string{"export", "-matrix", "B", "-o", p("b.csv")}, 0, "wrote B (2×2)"},
		{[]string{"heatmap", "-matrix", "A1", "-o", p("a1.png")}, 0, "wrote"},
		{[]string{"topics", "-vocab", p("v.txt")}, 0, "w17"},
		{[]string{"transform", "-x", p("x.mtx"), "-o", p("s.csv")}, 0, "wrote S2"},
		{[]string{"predict", "-x", p("x.mtx"), "-o", p("pred.csv")}, 0, "wrote"},
		{[]string{"report", "-o", p("bare.html")}, 0, "wrote"},
		{[]string{"report", "-labels", p("y.txt"), "-o", p("nolab.html")}, exitUsage, "keeps no S (it was trained with fit -batch-size): give its documents with -x or -text to score labels"},
		{[]string{"report", "-x", p("x.mtx"), "-labels", p("y.txt"), "-o", p("full.html")}, 0, "wrote"},
	} {
		args := append([]string{tc.args[0], "-model", p("m.nnmf")}, tc.args[1:]...)
		code, out, errOut := cli(t, args...)
		require.Equal(t, tc.code, code, "%v: %s", tc.args, errOut)
		require.Contains(t, out+errOut, tc.want, "%v", tc.args)
	}
	bare, err := os.ReadFile(p("bare.html"))
	require.NoError(t, err)
	require.Contains(t, string(bare), "shares of documents are not shown")
	full, err := os.ReadFile(p("full.html"))
	require.NoError(t, err)
	require.Contains(t, string(full), "2 layers of ranks 4, 2")
	require.Contains(t, string(full), "30 features × 600 documents")
	require.Contains(t, string(full), "confusion")
	require.Regexp(t, `model's classifier</td><td class="num">(0\.9[5-9]\d|1\.000)<`, string(full))

	// A model that keeps its S refuses -x: the report would ignore it.
	code, _, errOut = cli(t, "fit", "-x", p("x.mtx"), "-ranks", "4,2", "-o", p("whole.nnmf"), "-quiet")
	require.Equal(t, 0, code, errOut)
	code, _, errOut = cli(t, "report", "-model", p("whole.nnmf"), "-x", p("x.mtx"), "-o", p("w.html"))
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "keeps its training columns' S")
}

// A stream that begins with 1,200 empty columns trains as the same file
// does in memory: the start sees the columns that hold data. An all-zero
// stream is refused. Repeated entries are reported however far the start
// read (they were counted only on the start's partial pass).
func TestStreamedFitEmptyStartAndRepeats(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	writeCorpus(t, dir, 600)
	raw := string(must(os.ReadFile(p("x.mtx"))))
	lines := strings.Split(strings.TrimSpace(raw), "\n")
	var dims [3]int
	_, err := fmt.Sscan(lines[1], &dims[0], &dims[1], &dims[2])
	require.NoError(t, err)
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n%d %d %d\n", lines[0], dims[0], dims[1]+1200, dims[2]+2)
	for k, l := range lines[2:] {
		var i, j int
		var v float64
		_, err := fmt.Sscan(l, &i, &j, &v)
		require.NoError(t, err)
		fmt.Fprintf(&b, "%d %d %v\n", i, j+1200, v)
		if k == len(lines[2:])-1 {
			fmt.Fprintf(&b, "%d %d 0.5\n%d %d 0.5\n", i, j+1200, i, j+1200) // two repeats at the very end
		}
	}
	require.NoError(t, os.WriteFile(p("late.mtx"), []byte(b.String()), 0o644))
	code, out, errOut := cli(t, "fit", "-x", p("late.mtx"), "-ranks", "4,2", "-batch-size", "100", "-o", p("m.nnmf"))
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, "-x "+p("late.mtx")+": 2 entries repeat the row and column of an earlier one")
	re := regexp.MustCompile(`relative error ([0-9.]+)`)
	got := re.FindStringSubmatch(out)
	require.NotNil(t, got, out)
	streamed := must(strconv.ParseFloat(got[1], 64))
	code, out, errOut = cli(t, "fit", "-x", p("late.mtx"), "-ranks", "4,2", "-o", p("whole.nnmf"))
	require.Equal(t, 0, code, errOut)
	whole := must(strconv.ParseFloat(re.FindStringSubmatch(out)[1], 64))
	require.Less(t, streamed, 1.1*whole, "streamed %v, in memory %v", streamed, whole)
	code, _, errOut = cli(t, "transform", "-model", p("m.nnmf"), "-x", p("x.mtx"), "-o", p("s.csv"))
	require.Equal(t, 0, code, errOut)

	require.NoError(t, os.WriteFile(p("zero.mtx"), []byte("%%MatrixMarket matrix coordinate real general\n5 3000 0\n"), 0o644))
	code, _, errOut = cli(t, "fit", "-x", p("zero.mtx"), "-ranks", "2", "-batch-size", "100", "-o", p("z.nnmf"))
	require.Equal(t, exitData, code, errOut)
	require.Contains(t, errOut, "X is all zero")
	_, err = os.Stat(p("z.nnmf"))
	require.ErrorIs(t, err, os.ErrNotExist)
}

// Streamed commands check their inputs before work and write nothing on
// failure; their errors name the file's line and 1-based positions, not a
// block's, and are not blamed on writing the output.
func TestStreamedInputErrors(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	writeCorpus(t, dir, 600)
	code, _, errOut := cli(t, "fit", "-x", p("x.mtx"), "-ranks", "4,2", "-batch-size", "100", "-labels", p("y.txt"), "-o", p("m.nnmf"), "-quiet")
	require.Equal(t, 0, code, errOut)
	y := string(must(os.ReadFile(p("y.txt"))))
	require.NoError(t, os.WriteFile(p("short.txt"), []byte(y[:strings.LastIndex(strings.TrimSpace(y), "\n")+1]), 0o644))
	for _, labels := range []string{p("missing.txt"), p("short.txt")} {
		code, _, errOut = cli(t, "predict", "-model", p("m.nnmf"), "-x", p("x.mtx"), "-batch-size", "64", "-labels", labels, "-o", p("pred.csv"))
		require.Equal(t, exitData, code, errOut)
		_, err := os.Stat(p("pred.csv"))
		require.ErrorIs(t, err, os.ErrNotExist, "-labels %s: predict wrote its output and then failed", labels)
	}
	require.Contains(t, errOut, "599 labels for the 600 columns")

	// A negative entry on line 40 and a huge one: named where they are.
	lines := strings.Split(string(must(os.ReadFile(p("x.mtx")))), "\n")
	neg := slices.Clone(lines)
	f := strings.Fields(neg[39])
	neg[39] = f[0] + " " + f[1] + " -2.5"
	require.NoError(t, os.WriteFile(p("neg.mtx"), []byte(strings.Join(neg, "\n")), 0o644))
	huge := slices.Clone(lines)
	g := strings.Fields(huge[len(huge)/2])
	huge[len(huge)/2] = g[0] + " " + g[1] + " 1e300"
	require.NoError(t, os.WriteFile(p("huge.mtx"), []byte(strings.Join(huge, "\n")), 0o644))
	for _, args := range [][]string{
		{"fit", "-x", p("neg.mtx"), "-ranks", "4,2", "-batch-size", "100", "-o", p("n.nnmf"), "-quiet"},
		{"transform", "-model", p("m.nnmf"), "-x", p("neg.mtx"), "-batch-size", "64", "-o", p("s.csv")},
		{"predict", "-model", p("m.nnmf"), "-x", p("neg.mtx"), "-batch-size", "64", "-o", p("s.csv")},
	} {
		code, _, errOut = cli(t, args...)
		require.Equal(t, exitData, code, errOut)
		require.Contains(t, errOut, p("neg.mtx")+":40: a negative entry: row "+f[0]+", column "+f[1]+" is -2.5 (Neural NMF factorises nonnegative data", args[0])
		require.NotContains(t, errOut, "writing")
	}
	code, _, errOut = cli(t, "fit", "-x", p("huge.mtx"), "-ranks", "4,2", "-batch-size", "100", "-o", p("h.nnmf"), "-quiet")
	require.Equal(t, exitData, code, errOut)
	require.Contains(t, errOut, "largest entry is 1e+300")
	require.Contains(t, errOut, "(column "+g[1]+")")
	require.NotContains(t, errOut, "NaN")
	// Past the start's sample (the first 1,000 columns), mid-stream.
	dir2 := t.TempDir()
	writeCorpus(t, dir2, 1500)
	lines = strings.Split(strings.TrimSpace(string(must(os.ReadFile(filepath.Join(dir2, "x.mtx"))))), "\n")
	g = strings.Fields(lines[len(lines)-1])
	lines[len(lines)-1] = g[0] + " " + g[1] + " 1e300"
	require.NoError(t, os.WriteFile(p("late-huge.mtx"), []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	code, _, errOut = cli(t, "fit", "-x", p("late-huge.mtx"), "-ranks", "4,2", "-batch-size", "100", "-o", p("h.nnmf"), "-quiet")
	require.Equal(t, exitData, code, errOut)
	require.Contains(t, errOut, "largest entry is 1e+300")
	require.Contains(t, errOut, "(column 1500)")
	require.NotContains(t, errOut, "NaN")

	// An absurd -memory is bounded, not overflowed.
	code, out, errOut := cli(t, "convert", "-x", p("x.mtx"), "-o", p("c.mtx"), "-memory", "9223372036854775807")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "in memory")
	// An empty matrix is said to be empty, not blamed on -ranks.
	require.NoError(t, os.WriteFile(p("empty.mtx"), []byte("%%MatrixMarket matrix coordinate real general\n0 6 0\n"), 0o644))
	code, _, errOut = cli(t, "fit", "-x", p("empty.mtx"), "-ranks", "2", "-o", p("e.nnmf"), "-quiet")
	require.Equal(t, exitData, code, errOut)
	require.Contains(t, errOut, "is empty (0×6)")
}
