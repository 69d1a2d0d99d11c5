package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/matio"
	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// TestStopwordsEnglish: -stopwords english drops scikit-learn's English
// stop words; a file still works.
func TestStopwordsEnglish(t *testing.T) {
	dir := t.TempDir()
	writePosts(t, dir)
	p := func(n string) string { return filepath.Join(dir, n) }
	code, _, errOut := cli(t, "vectorize", "-text", p("posts.jsonl"), "-field", "body", "-stopwords", "english", "-o", p("X.mtx"), "-vocab", p("vocab.txt"))
	require.Equal(t, 0, code, errOut)
	vocab, err := os.ReadFile(p("vocab.txt"))
	require.NoError(t, err)
	words := strings.Fields(string(vocab))
	require.Len(t, words, 12)
	require.NotContains(t, words, "the")
	require.NotContains(t, words, "and")
}

// TestVectorizeOutputs: outputs that name one file, or an extension
// vectorize cannot write, are refused before any work.
func TestVectorizeOutputs(t *testing.T) {
	dir := t.TempDir()
	writePosts(t, dir)
	p := func(n string) string { return filepath.Join(dir, n) }
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-o", p("X.mtx"), "-save", p("X.mtx")}, "-o and -save both name"},
		{[]string{"-o", p("X.mtx"), "-vocab", p("v.txt"), "-names", p("v.txt")}, "-vocab and -names both name"},
		{[]string{"-o", p("X.csv")}, "want a Matrix Market file"},
		{[]string{"-o", p("X")}, "want a Matrix Market file"},
	} {
		args := append([]string{"vectorize", "-text", p("posts.jsonl"), "-field", "body"}, tc.args...)
		code, _, errOut := cli(t, args...)
		require.Equal(t, exitUsage, code, "%v", tc.args)
		require.Contains(t, errOut, tc.want)
		for _, f := range []string{"X.mtx", "X.csv", "X", "v.txt"} {
			_, err := os.Stat(p(f))
			require.ErrorIs(t, err, os.ErrNotExist, "%v wrote %s", tc.args, f)
		}
	}
	code, _, errOut := cli(t, "vectorize", "-text", p("posts.jsonl"), "-field", "body", "-o", p("X.MTX.GZ"))
	require.Equal(t, 0, code, errOut)
	// -max-features says how its ties differ from scikit-learn's.
	_, _, help := cli(t, "vectorize", "--help")
	require.Contains(t, help, "ties at the cut go to the alphabetically first, where scikit-learn's unstable sort may keep others")
}

// writeLabelledPosts writes 40 posts about two subjects as JSON Lines with
// an id, a topic name (empty for every fifth) and, for post 40, no word of
// the vocabulary.
func writeLabelledPosts(t *testing.T, path string) {
	subjects := [][]string{
		{"engine", "wheel", "brake", "motor", "tyre", "gear"},
		{"planet", "orbit", "rocket", "launch", "moon", "star"},
	}
	var b strings.Builder
	for d := 0; d < 40; d++ {
		s := subjects[d%2]
		body := strings.Join([]string{s[d%6], s[(d+1)%6], s[(d+3)%6], "the"}, " ")
		topic := []string{"cars", "space"}[d%2]
		if d%5 == 4 {
			topic = ""
		}
		if d == 39 {
			body = "the and of it" // stop words only
		}
		fmt.Fprintf(&b, `{"id":"post-%d","body":%q,"topic":%q}`+"\n", d+1, body, topic)
	}
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
}

// fitLabelledPosts writes the posts of writeLabelledPosts to posts and
// fits a 3,2 model to them, labelled by their topic, saved to model.
func fitLabelledPosts(t *testing.T, posts, model string) {
	writeLabelledPosts(t, posts)
	code, _, errOut := cli(t, "fit", "-text", posts, "-field", "body", "-label-field", "topic", "-ranks", "3,2", "-o", model, "-quiet")
	require.Equal(t, 0, code, errOut)
}

// TestLabelFieldWorkflow: labels and ids come from the documents; the
// model keeps the class names; predict scores and writes ids; documents
// with no word of the vocabulary are marked.
func TestLabelFieldWorkflow(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	writeLabelledPosts(t, p("posts.jsonl"))
	code, out, errOut := cli(t, "fit", "-text", p("posts.jsonl"), "-field", "body", "-label-field", "topic", "-stopwords", "english",
		"-ranks", "4,2", "-o", p("m.nnmf"), "-quiet")
	require.Equal(t, 0, code, errOut)
	// The summary describes the fit the model is: the supervised one with
	// its classifier, or the unsupervised one that the chosen classifier
	// reads, without.
	require.Regexp(t, `^the model: the (supervised fit refitted on all known labels; configuration: .*-classifier ce|unsupervised fit \(trained without the labels\) with the classifier chosen below; configuration: -ranks 4,2)`, out)
	m, err := neuralnmf.Load(p("m.nnmf"))
	require.NoError(t, err)
	require.Equal(t, []string{"cars", "space"}, m.ClassNames)

	code, out, errOut = cli(t, "predict", "-model", p("m.nnmf"), "-text", p("posts.jsonl"), "-field", "body", "-label-field", "topic", "-id-field", "id", "-o", p("pred.csv"))
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, "1 of 40 documents have no word of the model's vocabulary (post-40): their class is written as -1")
	require.Contains(t, out, "accuracy 1.0000 (32 of 32 labelled columns)")
	require.Regexp(t, `cars\s+1\.000\s+1\.000\s+16`, out)
	require.Regexp(t, `space\s+1\.000\s+1\.000\s+16`, out)
	require.Regexp(t, `confusion matrix[^\n]*\n\s+cars\s+space\ncars\s+16\s+0\nspace\s+0\s+16\n`, out)
	pred, err := os.ReadFile(p("pred.csv"))
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(pred)), "\n")
	require.Equal(t, "id,class,class_name,score_0,score_1", lines[0])
	require.True(t, strings.HasPrefix(lines[1], "post-1,0,cars,"), lines[1])
	require.True(t, strings.HasPrefix(lines[2], "post-2,1,space,"), lines[2])
	require.Equal(t, "post-40,-1,,,", lines[40], "no prediction, no scores (issue 66, item 8)")

	// transform: ids in a table, the empty document named.
	code, _, errOut = cli(t, "transform", "-model", p("m.nnmf"), "-text", p("posts.jsonl"), "-field", "body", "-id-field", "id", "-o", p("s.csv"))
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, "(post-40): their S is 0")
	s, err := os.ReadFile(p("s.csv"))
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(s), "id,topic_1,topic_2\npost-1,"))

	// A wrong label name is not scored, and said.
	require.NoError(t, os.WriteFile(p("other.jsonl"), []byte(`{"body":"engine wheel","topic":"boats"}`+"\n"+`{"body":"rocket moon","topic":"space"}`+"\n"), 0o644))
	code, out, errOut = cli(t, "predict", "-model", p("m.nnmf"), "-text", p("other.jsonl"), "-field", "body", "-label-field", "topic", "-o", p("pred2.csv"))
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, `1 label(s) the model does not have ("boats")`)
	require.Contains(t, out, "accuracy 1.0000 (1 of 1 labelled columns)")

	// The report takes class names from the model.
	code, _, errOut = cli(t, "report", "-model", p("m.nnmf"), "-o", p("r.html"))
	require.Equal(t, 0, code, errOut)
}

// TestPredictScoresLabelsFile: -labels on predict prints the scores and
// still writes the predictions.
func TestPredictScoresLabelsFile(t *testing.T) {
	dir := t.TempDir()
	writeData(t, dir)
	p := func(n string) string { return filepath.Join(dir, n) }
	code, _, errOut := cli(t, "fit", "-x", p("x.mtx"), "-ranks", "4,2", "-labels", p("y.txt"), "-label-mask", p("known.txt"), "-o", p("m.nnmf"), "-quiet")
	require.Equal(t, 0, code, errOut)
	code, out, errOut := cli(t, "predict", "-model", p("m.nnmf"), "-x", p("x.mtx"), "-labels", p("y.txt"), "-o", p("pred.csv"))
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "accuracy 1.0000 (20 of 20 labelled columns)")
	require.Contains(t, out, "confusion matrix")
	_, err := os.Stat(p("pred.csv"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(p("bad.txt"), []byte(strings.Repeat("7\n", 20)), 0o644))
	code, _, errOut = cli(t, "predict", "-model", p("m.nnmf"), "-x", p("x.mtx"), "-labels", p("bad.txt"), "-o", p("pred3.csv"))
	require.Equal(t, exitData, code)
	require.Contains(t, errOut, "-labels "+p("bad.txt")+": line 1 is 7: want a class 0..1 of the model")
}

// TestReportShowsTrainingCurve: a saved model keeps its training curve, so
// the report shows every epoch, not "Trained 1 epochs".
func TestReportShowsTrainingCurve(t *testing.T) {
	dir := t.TempDir()
	writeData(t, dir)
	p := func(n string) string { return filepath.Join(dir, n) }
	code, _, errOut := cli(t, "fit", "-x", p("x.mtx"), "-ranks", "4,2", "-epochs", "30", "-tol", "-1", "-o", p("m.nnmf"), "-quiet")
	require.Equal(t, 0, code, errOut)
	code, _, errOut = cli(t, "report", "-model", p("m.nnmf"), "-o", p("r.html"))
	require.Equal(t, 0, code, errOut)
	page, err := os.ReadFile(p("r.html"))
	require.NoError(t, err)
	require.Contains(t, string(page), "Trained 30 epochs")
	require.Contains(t, string(page), `aria-label="training curve"`)
}

// TestMatrixWarningsAndRefusals: duplicate Matrix Market entries are
// summed and said; a negative -decay-every and a model whose A is all zero
// are refused.
func TestMatrixWarningsAndRefusals(t *testing.T) {
	dir := t.TempDir()
	writeData(t, dir)
	p := func(n string) string { return filepath.Join(dir, n) }
	mm := "%%MatrixMarket matrix coordinate real general\n3 4 6\n1 1 1\n2 2 1\n3 3 1\n1 4 1\n1 1 2\n1 4 0.5\n"
	require.NoError(t, os.WriteFile(p("dup.mtx"), []byte(mm), 0o644))
	code, _, errOut := cli(t, "fit", "-x", p("dup.mtx"), "-ranks", "2", "-epochs", "5", "-o", p("d.nnmf"), "-quiet")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, "-x "+p("dup.mtx")+": 2 entries repeat the row and column of an earlier one; they were summed into it")

	code, _, errOut = cli(t, "fit", "-x", p("x.mtx"), "-ranks", "2", "-decay-every", "-5", "-o", p("n.nnmf"))
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "-decay-every is -5")

	m, err := neuralnmf.Train(tensor.Uniform(6, 5, 0, 1, tensor.NewRand(1)), neuralnmf.Config{Ranks: []int{2}, Epochs: 3})
	require.NoError(t, err)
	for i := range m.A[0].Data {
		m.A[0].Data[i] = 0
	}
	// An all-zero A is no model: it is neither saved nor (crafted) read by
	// any command (TestModelFileCrafted).
	require.ErrorContains(t, m.Save(p("zero.nnmf")), "layer 1: A is all zero, so every column maps to S = 0")
	_, err = os.Stat(p("zero.nnmf"))
	require.ErrorIs(t, err, os.ErrNotExist)
}

// TestRankMessages: rank errors name the flag, count layers from 1 and
// state the bound the check applies.
func TestRankMessages(t *testing.T) {
	dir := t.TempDir()
	writeData(t, dir) // 12 × 20
	p := func(n string) string { return filepath.Join(dir, n) }
	xWide := filepath.Join(dir, "wide.csv")
	var b strings.Builder
	for i := 0; i < 12; i++ {
		b.WriteString("1,2,3,4,5\n")
	}
	require.NoError(t, os.WriteFile(xWide, []byte(b.String()), 0o644)) // 12 × 5
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-x", p("x.mtx"), "-ranks", "6,8"}, "-ranks: ranks must decrease, but layer 2's 8 follows 6"},
		{[]string{"-x", p("x.mtx"), "-ranks", "13"}, "layer 1's rank 13 is above the 12 rows (features) of the data; want at most 12"},
		{[]string{"-x", xWide, "-ranks", "8"}, "layer 1's rank 8 is above the 5 columns (samples) of the data, which -init hnmf factorises; want at most 5, or give -init random (then at most 12, the rows)"},
		// The bound said is the one that applies: not 12, then refusing 12.
		{[]string{"-x", xWide, "-ranks", "13"}, "want at most 5, or give -init random (then at most 12, the rows)"},
		{[]string{"-x", xWide, "-ranks", "13", "-init", "random"}, "layer 1's rank 13 is above the 12 rows (features) of the data; want at most 12"},
	} {
		code, _, errOut := cli(t, append(append([]string{"fit"}, tc.args...), "-o", p("m.nnmf"), "-quiet")...)
		require.Equal(t, exitUsage, code, "%v", tc.args)
		require.Contains(t, errOut, tc.want)
		require.NotContains(t, errOut, "RandomInit")
	}
	code, _, errOut := cli(t, "fit", "-x", xWide, "-ranks", "8", "-init", "random", "-epochs", "3", "-o", p("m.nnmf"), "-quiet")
	require.Equal(t, 0, code, errOut)
}

// TestTopicsFormatsAndExport: topics as text, CSV and JSON with weights;
// export writes any matrix by the names heatmap uses.
func TestTopicsFormatsAndExport(t *testing.T) {
	dir := t.TempDir()
	writeData(t, dir)
	p := func(n string) string { return filepath.Join(dir, n) }
	code, _, errOut := cli(t, "fit", "-x", p("x.mtx"), "-ranks", "4,2", "-labels", p("y.txt"), "-o", p("m.nnmf"), "-quiet")
	require.Equal(t, 0, code, errOut)
	m, err := neuralnmf.Load(p("m.nnmf"))
	require.NoError(t, err)

	code, out, errOut := cli(t, "topics", "-model", p("m.nnmf"), "-vocab", p("vocab.txt"), "-n", "3", "-format", "csv")
	require.Equal(t, 0, code, errOut)
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	require.NoError(t, err)
	require.Equal(t, []string{"layer", "topic", "rank", "word", "weight"}, rows[0])
	require.Len(t, rows, 1+(4+2)*3)
	top := neuralnmf.LayerTopics(m.A)[1]
	w, err := strconv.ParseFloat(rows[1+4*3][4], 64)
	require.NoError(t, err)
	require.Equal(t, []string{"2", "1", "1"}, rows[1+4*3][:3])
	best := 0.0
	for i := 0; i < top.Rows; i++ {
		best = max(best, top.At(i, 0))
	}
	require.Equal(t, best, w, "the weight is the entry of A1·A2")

	code, out, errOut = cli(t, "topics", "-model", p("m.nnmf"), "-vocab", p("vocab.txt"), "-n", "2", "-format", "json")
	require.Equal(t, 0, code, errOut)
	var layers []struct {
		Layer  int
		Topics []struct {
			Topic int
			Words []struct {
				Word   string
				Weight float64
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &layers))
	require.Len(t, layers, 2)
	require.Len(t, layers[1].Topics, 2)
	require.Len(t, layers[1].Topics[0].Words, 2)

	code, _, errOut = cli(t, "topics", "-model", p("m.nnmf"), "-vocab", p("vocab.txt"), "-format", "xml")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, `-format is "xml": want text or csv or json`)

	for _, tc := range []struct {
		name string
		want *tensor.Dense
	}{{"A1", m.A[0]}, {"a2", m.A[1]}, {"S2", m.S[1]}, {"B", m.B}} {
		code, out, errOut := cli(t, "export", "-model", p("m.nnmf"), "-matrix", tc.name, "-o", p(tc.name+".csv"))
		require.Equal(t, 0, code, errOut)
		require.Contains(t, out, strings.ToUpper(tc.name))
		got, err := matio.ReadMatrix(p(tc.name + ".csv"))
		require.NoError(t, err)
		require.Equal(t, tc.want.Data, got.Dense.Data, tc.name)
	}
	code, out, errOut = cli(t, "heatmap", "-model", p("m.nnmf"), "-matrix", "A2", "-o", p("a2.png"))
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "A2 (4×2)")
	code, _, errOut = cli(t, "export", "-model", p("m.nnmf"), "-matrix", "A3", "-o", p("a3.csv"))
	require.Equal(t, exitUsage, code)
	require.Regexp(t, `-matrix "A3": the model has A1..A2, S1..S2(, B and BX| and B)\n`, errOut)
}

// TestReportLabelsAndTallHeatmap: report label errors name the labels,
// not the output; labels come from the documents too; a tall A1 is drawn
// as its topics' top words.
func TestReportLabelsAndTallHeatmap(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	fitLabelledPosts(t, p("posts.jsonl"), p("m.nnmf"))
	require.NoError(t, os.WriteFile(p("gap.txt"), []byte(strings.Repeat("0\n5\n", 20)), 0o644))
	code, _, errOut := cli(t, "report", "-model", p("m.nnmf"), "-labels", p("gap.txt"), "-o", p("r.html"))
	require.Equal(t, exitData, code)
	require.Contains(t, errOut, "-labels "+p("gap.txt")+": class(es)")
	require.NotContains(t, errOut, "r.html")
	code, _, errOut = cli(t, "report", "-model", p("m.nnmf"), "-text", p("posts.jsonl"), "-field", "body", "-label-field", "topic", "-o", p("r.html"))
	require.Equal(t, 0, code, errOut)
	page, err := os.ReadFile(p("r.html"))
	require.NoError(t, err)
	require.Contains(t, string(page), `<th class="name">1 space</th>`, "class names from the model")

	// A 300-word vocabulary: A1 is drawn as the top words of its topics.
	rng := tensor.NewRand(5)
	x := tensor.Uniform(300, 40, 0, 1, rng)
	m, err := neuralnmf.Train(x, neuralnmf.Config{Ranks: []int{4}, Epochs: 3})
	require.NoError(t, err)
	require.NoError(t, m.Save(p("tall.nnmf")))
	var vocab strings.Builder
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&vocab, "word%03d\n", i)
	}
	require.NoError(t, os.WriteFile(p("vocab.txt"), []byte(vocab.String()), 0o644))
	code, out, errOut := cli(t, "heatmap", "-model", p("tall.nnmf"), "-vocab", p("vocab.txt"), "-matrix", "A1", "-o", p("a1.png"))
	require.Equal(t, 0, code, errOut)
	require.Regexp(t, `A1: the top 5 words of each of its 4 topics \(\d+ of 300 rows\)`, out)
	f, err := os.Open(p("a1.png"))
	require.NoError(t, err)
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	require.NoError(t, err)
	require.GreaterOrEqual(t, cfg.Height, 5*14, "one 14-px text line per named row")
	require.Greater(t, cfg.Width, 60, "not a strip")
}

// TestEmptyAndFieldMessages: empty inputs and a missing text field are
// said in the command line's terms.
func TestEmptyAndFieldMessages(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	fitLabelledPosts(t, p("posts.jsonl"), p("m.nnmf"))
	require.NoError(t, os.WriteFile(p("empty.jsonl"), nil, 0o644))
	require.NoError(t, os.WriteFile(p("empty.mtx"), nil, 0o644))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-text", p("empty.jsonl"), "-field", "body"}, "-text " + p("empty.jsonl") + " holds no documents"},
		{[]string{"-x", p("empty.mtx")}, "empty file"},
		{[]string{"-text", p("posts.jsonl")}, `no "text" member (give the member or column that holds the text with -field NAME)`},
	} {
		code, _, errOut := cli(t, append(append([]string{"predict", "-model", p("m.nnmf")}, tc.args...), "-o", p("out.csv"))...)
		require.Equal(t, exitData, code, "%v", tc.args)
		require.Contains(t, errOut, tc.want)
	}
}

// TestDivergedAlgorithm1Message: a diverging -algorithm1 run names the
// flags to change, not Go fields.
func TestDivergedAlgorithm1Message(t *testing.T) {
	dir := t.TempDir()
	writeData(t, dir)
	p := func(n string) string { return filepath.Join(dir, n) }
	code, _, errOut := cli(t, "fit", "-x", p("x.mtx"), "-ranks", "4", "-algorithm1", "-lr", "1e300", "-epochs", "50", "-o", p("m.nnmf"), "-quiet")
	require.Equal(t, exitData, code, errOut)
	require.Contains(t, errOut, "give a smaller -lr")
	require.NotContains(t, errOut, "LR =")
}

// -labels numbers the classes; against a model whose classes have names
// the error says so and how to use the names.
func TestPredictLabelsAgainstNamedClasses(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	fitLabelledPosts(t, p("posts.jsonl"), p("m.nnmf"))
	x := p("x.mtx")
	code, _, errOut := cli(t, "vectorize", "-text", p("posts.jsonl"), "-field", "body", "-o", x)
	require.Equal(t, 0, code, errOut)
	require.NoError(t, os.WriteFile(p("y.txt"), []byte(strings.Repeat("3\n", 40)), 0o644))
	code, _, errOut = cli(t, "predict", "-model", p("m.nnmf"), "-x", x, "-labels", p("y.txt"), "-o", p("pred.csv"))
	require.Equal(t, exitData, code, errOut)
	require.Contains(t, errOut, `line 1 is 3: want a class 0..1 of the model, or -1 for unknown (the model names its classes "cars", "space": -labels takes their numbers 0..1 in that order; or give documents with -text and -label-field to use the names)`)
}

// Labels and ids from documents: equal JSON numbers are one class, a label
// of only space is unknown, a field no document has is an error (for ids
// as for labels), and -algorithm1 refuses -restarts it would ignore.
func TestDocumentFieldsNotSilent(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	var b strings.Builder
	words := [][]string{{"engine", "wheel", "brake", "motor"}, {"planet", "orbit", "rocket", "moon"}}
	labels := [][]string{{`1`, `1.0`, `1e0`, `" "`}, {`2`, `2.0`, `2`, `2`}}
	for d := 0; d < 24; d++ {
		g := d % 2
		fmt.Fprintf(&b, `{"id":"d%d","body":"%s %s %s","topic":%s}`+"\n", d, words[g][d%4], words[g][(d+1)%4], words[g][(d+2)%4], labels[g][d/2%4])
	}
	require.NoError(t, os.WriteFile(p("docs.jsonl"), []byte(b.String()), 0o644))
	code, _, errOut := cli(t, "fit", "-text", p("docs.jsonl"), "-field", "body", "-label-field", "topic", "-ranks", "3,2", "-o", p("m.nnmf"), "-quiet")
	require.Equal(t, 0, code, errOut)
	m, err := neuralnmf.Load(p("m.nnmf"))
	require.NoError(t, err)
	require.Equal(t, []string{"1", "2"}, m.ClassNames, "1, 1.0 and 1e0 are one class; a label of one space is unknown")

	for _, args := range [][]string{
		{"transform", "-model", p("m.nnmf"), "-text", p("docs.jsonl"), "-field", "body", "-id-field", "ID", "-o", p("s.csv")},
		{"predict", "-model", p("m.nnmf"), "-text", p("docs.jsonl"), "-field", "body", "-id-field", "ID", "-o", p("s.csv")},
		{"predict", "-model", p("m.nnmf"), "-text", p("docs.jsonl"), "-field", "body", "-label-field", "Topic", "-o", p("s.csv")},
	} {
		code, _, errOut = cli(t, args...)
		require.Equal(t, exitData, code, "%v: %s", args, errOut)
		require.Contains(t, errOut, "none of the 24 documents of "+p("docs.jsonl")+" has it", args)
		_, err := os.Stat(p("s.csv"))
		require.ErrorIs(t, err, os.ErrNotExist)
	}
	code, _, errOut = cli(t, "fit", "-text", p("docs.jsonl"), "-field", "body", "-ranks", "3,2", "-algorithm1", "-restarts", "3", "-o", p("a.nnmf"))
	require.Equal(t, exitUsage, code, errOut)
	require.Contains(t, errOut, "-algorithm1 trains one start")
}

// fit -labels chooses on held-out known labels and says what and how far
// to trust it; -choose=false is the supervised fit as configured; the
// flags that cannot combine are refused.
func TestFitChoosesWithLabels(t *testing.T) {
	dir := t.TempDir()
	writeData(t, dir)
	p := func(n string) string { return filepath.Join(dir, n) }
	code, out, errOut := cli(t, "fit", "-x", p("x.mtx"), "-ranks", "4,2", "-labels", p("y.txt"), "-o", p("m.nnmf"))
	require.Equal(t, 0, code, errOut)
	// The progress says which fit each epoch belongs to, and the summary
	// which fit the model is.
	// Each fit's configuration is what the library reported it ran.
	require.Regexp(t, `\nfit: the unsupervised fit, labels not used[^\n]*\nconfiguration: -ranks 4,2, -init hnmf \(10 random start\(s\) per layer\)[^\n]*-loss reconstruction, -restarts 2`, errOut)
	require.Regexp(t, `\nfit: supervised \(ce, balance 0\.3\): validation fit[^\n]*\nconfiguration: -ranks 4,2[^\n]*-classifier ce -balance 0\.3`, errOut)
	require.Contains(t, errOut, "\nfit: the unsupervised fit, labels not used")
	require.Contains(t, errOut, "\nfit: supervised (ce, balance 0.3): validation fit on the known labels outside the held-out fold")
	require.Regexp(t, `(^|\n)the model: the (unsupervised fit \(trained without the labels\) with the classifier chosen below|supervised fit refitted on all known labels); configuration: -ranks 4,2`, out)
	if strings.Contains(out, "the model: the unsupervised fit") {
		require.NotContains(t, strings.SplitN(out, "\n", 2)[0], "-classifier", "the unsupervised fit's configuration has no classifier")
	}
	require.Regexp(t, `labels: chose .+ on 20 known labels, cross-validated in 3 folds \(a supervised fit on the 6 of one fold, held out\):`, out)
	require.Regexp(t, `\n  supervised \(ce, balance 0\.3\), \d+ epochs(, early stop)?\s+-\s+[01]\.\d{3}`, out)
	require.Regexp(t, `\n  unsupervised \+ read-out of layer 1\s+[01]\.\d{3}\s+[01]\.\d{3}`, out)
	require.Contains(t, out, "<- chosen, refitted on all known labels")
	m, err := neuralnmf.Load(p("m.nnmf"))
	require.NoError(t, err)
	require.NotNil(t, m.B)

	code, out, errOut = cli(t, "fit", "-x", p("x.mtx"), "-ranks", "4,2", "-labels", p("y.txt"), "-choose=false", "-o", p("m.nnmf"), "-quiet")
	require.Equal(t, 0, code, errOut)
	require.NotContains(t, out, "labels: chose")
	require.Contains(t, out, "train accuracy")
	for _, tc := range []struct{ args, want string }{
		{"-batch-size 10 -choose", "-choose trains several full-batch fits"},
		{"-hold-out 1.5", "-hold-out is 1.5"},
		{"-folds 1", "-folds is 1"},
		{"-choose=false -folds 4", "-hold-out and -folds apply to -choose with labels"},
		{"-choose=false -hold-out 0.2", "-hold-out and -folds apply to -choose with labels"},
		{"-choose=false -patience 5", "-patience applies to -choose with labels"},
		{"-patience -2", "-patience is -2"},
	} {
		args := append([]string{"fit", "-x", p("x.mtx"), "-ranks", "4,2", "-labels", p("y.txt"), "-o", p("n.nnmf")}, strings.Fields(tc.args)...)
		code, _, errOut := cli(t, args...)
		require.Equal(t, exitUsage, code, tc.args)
		require.Contains(t, errOut, tc.want)
	}
}

// writeMarked writes, as NAME.mtx and NAME-y.txt, columns whose class is
// marked only by a weak entry in one of four marker rows beside three
// strong topics that every column mixes (see the model package's
// TestTrainChoosingReadsTheWords); every other label unknown when half.
func writeMarked(t *testing.T, dir, name string, seed uint64, half bool) {
	rng := tensor.NewRand(seed)
	x := tensor.New(40, 160)
	var labels strings.Builder
	for j := 0; j < 160; j++ {
		y := rng.IntN(4)
		for k := 0; k < 3; k++ {
			w := rng.Float64()
			for i := 12 * k; i < 12*k+12; i++ {
				x.Set(i, j, w*(1+0.2*rng.Float64()))
			}
		}
		x.Set(36+y, j, 0.3)
		if half && j%2 == 1 {
			y = -1
		}
		fmt.Fprintln(&labels, y)
	}
	f, err := os.Create(filepath.Join(dir, name+".mtx"))
	require.NoError(t, err)
	require.NoError(t, matio.WriteMatrixMarket(f, &matio.Matrix{Sparse: tensor.SparseFromDense(x)}))
	require.NoError(t, f.Close())
	require.NoError(t, os.WriteFile(filepath.Join(dir, name+"-y.txt"), []byte(labels.String()), 0o644))
}

// Where only the words tell the classes, fit -labels chooses a logistic
// regression on them and says so; predict, in memory and streamed, scores
// unseen columns through it alike; -words=false keeps to topics.
func TestFitChoosesTheWords(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	writeMarked(t, dir, "train", 3, true)
	writeMarked(t, dir, "test", 4, false)
	code, out, errOut := cli(t, "fit", "-x", p("train.mtx"), "-ranks", "3", "-labels", p("train-y.txt"), "-o", p("m.nnmf"), "-quiet")
	require.Equal(t, 0, code, errOut)
	require.Regexp(t, `labels: chose (logistic regression on the words|unsupervised layer-1 topics \+ words|labels spread by 7 nearest neighbours)`, out)
	require.Regexp(t, `the model's classifier reads the words.*: train accuracy (0\.9\d\d|1\.000)`, out)
	code, out, errOut = cli(t, "predict", "-model", p("m.nnmf"), "-x", p("test.mtx"), "-labels", p("test-y.txt"), "-o", p("pred.csv"))
	require.Equal(t, 0, code, errOut)
	require.Regexp(t, `accuracy (0\.9\d{3}|1\.0000)`, out)
	inMemory, err := os.ReadFile(p("pred.csv"))
	require.NoError(t, err)
	code, _, errOut = cli(t, "predict", "-model", p("m.nnmf"), "-x", p("test.mtx"), "-batch-size", "7", "-o", p("pred2.csv"))
	require.Equal(t, 0, code, errOut)
	streamed, err := os.ReadFile(p("pred2.csv"))
	require.NoError(t, err)
	require.Equal(t, string(inMemory), string(streamed))
	code, _, errOut = cli(t, "export", "-model", p("m.nnmf"), "-matrix", "BX", "-o", p("bx.csv"))
	require.Equal(t, 0, code, errOut)
	bx, err := os.ReadFile(p("bx.csv"))
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(bx)), "\n")
	require.Len(t, lines, 4, "a row per class: %s", lines[0])
	require.Len(t, strings.Split(lines[0], ","), 40, "a column per row of X")
	code, out, errOut = cli(t, "export", "-model", p("m.nnmf"), "-matrix", "intercept", "-o", p("ic.csv"))
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "Intercept (4×1)")
	m, err := neuralnmf.Load(p("m.nnmf"))
	require.NoError(t, err)
	ic, err := matio.ReadMatrix(p("ic.csv"))
	require.NoError(t, err)
	require.Equal(t, m.Intercept.Data, ic.Dense.Data)

	// With the spread labels as the prior, the table marks it; the words
	// still win here, clearly.
	code, out, errOut = cli(t, "fit", "-x", p("train.mtx"), "-ranks", "3", "-labels", p("train-y.txt"), "-prior", "spread", "-o", p("m.nnmf"), "-quiet")
	require.Equal(t, 0, code, errOut)
	require.Regexp(t, `labels spread by 7 nearest neighbours.*\(the prior\)`, out)
	code, out, errOut = cli(t, "fit", "-x", p("train.mtx"), "-ranks", "3", "-labels", p("train-y.txt"), "-candidates", "supervised, readout", "-o", p("m.nnmf"), "-quiet")
	require.Equal(t, 0, code, errOut)
	require.NotContains(t, out, "logistic")
	require.Contains(t, out, "supervised (ce, balance 0.3)")
	code, out, errOut = cli(t, "fit", "-x", p("train.mtx"), "-ranks", "3", "-labels", p("train-y.txt"), "-candidates", "readout", "-readout-layer", "1", "-o", p("m.nnmf"), "-quiet")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "labels: chose unsupervised + read-out of layer 1")
	require.NotContains(t, out, "supervised (")
	// The self-trained regression, pinned as the prior, says what it is
	// and what the model reads.
	code, out, errOut = cli(t, "fit", "-x", p("train.mtx"), "-ranks", "3", "-labels", p("train-y.txt"), "-candidates", "topics+words,self-trained", "-prior", "self-trained", "-o", p("m.nnmf"), "-quiet")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "labels: chose unsupervised layer-1 topics + words, logistic (C")
	require.Contains(t, out, "self-trained on the unknown documents")
	require.Regexp(t, `the model's classifier reads the words and layer 1's topics \(logistic regression with the C chosen for it, self-trained on the documents whose labels are unknown, its last fit to scikit-learn 1\.2's tolerance or the iteration cap\): train accuracy (0\.9\d\d|1\.000)`, out)
	code, out, errOut = cli(t, "fit", "-x", p("train.mtx"), "-ranks", "3", "-labels", p("train-y.txt"), "-candidates", "words,self-trained-words", "-prior", "self-trained-words", "-o", p("m.nnmf"), "-quiet")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "labels: chose logistic regression on the words (C")
	require.Regexp(t, `the model's classifier reads the words \(logistic regression with the C chosen for it, self-trained on the documents whose labels are unknown, its last fit to scikit-learn 1\.2's tolerance or the iteration cap\): train accuracy (0\.9\d\d|1\.000)`, out)
	for _, tc := range []struct{ args, want string }{
		{"-choose=false -candidates words", "-candidates, -readout-layer and -prior apply to -choose with labels"},
		{"-prior lasso", `-prior lasso: unknown prior "lasso"`},
		{"-candidates lasso", `unknown kind of candidate "lasso"`},
		{"-candidates self-trained", "self-trained without topics+words"},
		{"-candidates self-trained-words", "self-trained-words without words"},
		{"-readout-layer 2", "-readout-layer is 2: want 0 (each layer) or 1..1"},
	} {
		args := append([]string{"fit", "-x", p("train.mtx"), "-ranks", "3", "-labels", p("train-y.txt"), "-o", p("n.nnmf")}, strings.Fields(tc.args)...)
		code, _, errOut := cli(t, args...)
		require.NotZero(t, code, tc.args)
		require.Contains(t, errOut, tc.want, tc.args)
		_, err := os.Stat(p("n.nnmf"))
		require.ErrorIs(t, err, os.ErrNotExist, tc.args)
	}
}
