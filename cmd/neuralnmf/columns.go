package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"iter"
	"slices"
	"strconv"
	"strings"

	"github.com/neuralnmf/neuralnmf/matio"
	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/tensor"
	"github.com/neuralnmf/neuralnmf/text"
)

// docFlags are the flags of a command that reads documents: the text
// field, and the fields holding each document's label and id.
type docFlags struct {
	field, labelField, idField *string
}

// addDocFlags adds -field, and -label-field and -id-field where the
// command uses them (label, id).
func addDocFlags(fs *flag.FlagSet, label, id bool) docFlags {
	d := docFlags{field: fs.String("field", "text", "JSON member or CSV column holding each document's text")}
	empty := ""
	d.labelField, d.idField = &empty, &empty
	if label {
		d.labelField = fs.String("label-field", "", "JSON member or CSV column holding each document's class name (empty or missing: unknown), instead of -labels")
	}
	if id {
		d.idField = fs.String("id-field", "", "JSON member or CSV column holding each document's id, written with the results (a document without one is named by file:line)")
	}
	return d
}

// source returns the documents at path with the fields the flags name.
func (d docFlags) source(path string) text.Source {
	src := text.Source{Path: path, Field: *d.field}
	for _, f := range []string{*d.labelField, *d.idField} {
		if f != "" {
			src.Extra = append(src.Extra, f)
		}
	}
	return src
}

// docInfo collects, while documents are read, each one's name (its id, or
// file:line) and label field.
type docInfo struct {
	names  []string
	labels []string // "" unknown; nil without -label-field
}

// texts yields the texts of src and records each document's info. Labels
// and ids are trimmed of surrounding space; one of only space is unknown
// (the label) or absent (the id). A -label-field or -id-field that no
// document has is an error at the end (a typo would otherwise make every
// label unknown, or name every row file:line).
func (di *docInfo) texts(src text.Source, d docFlags) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		ids, labelled := 0, 0
		for doc, err := range src.Documents() {
			if err == nil {
				name := doc.Name
				if id := strings.TrimSpace(doc.Extra[*d.idField]); *d.idField != "" && id != "" {
					name = id
					ids++
				}
				di.names = append(di.names, name)
				if *d.labelField != "" {
					l := strings.TrimSpace(doc.Extra[*d.labelField])
					if _, ok := doc.Extra[*d.labelField]; ok {
						labelled++
					}
					di.labels = append(di.labels, l)
				}
			}
			if !yield(doc.Text, err) || err != nil {
				return
			}
		}
		for _, f := range []struct {
			flag, field string
			found       int
		}{{"-id-field", *d.idField, ids}, {"-label-field", *d.labelField, labelled}} {
			if f.field != "" && f.found == 0 && len(di.names) > 0 {
				yield("", fmt.Errorf("%s %q: none of the %d documents of %s has it (names are case-sensitive)", f.flag, f.field, len(di.names), src.Path))
				return
			}
		}
	}
}

// classNamesOf returns the distinct non-empty labels in order: numeric
// order when every one is an integer (so "2" < "10"), else sorted.
func classNamesOf(labels []string) []string {
	var names []string
	seen := map[string]bool{}
	numeric := true
	for _, l := range labels {
		if l == "" || seen[l] {
			continue
		}
		seen[l] = true
		names = append(names, l)
		if _, err := strconv.Atoi(l); err != nil {
			numeric = false
		}
	}
	if numeric {
		slices.SortFunc(names, func(a, b string) int {
			x, _ := strconv.Atoi(a)
			y, _ := strconv.Atoi(b)
			return x - y
		})
	} else {
		slices.Sort(names)
	}
	return names
}

// labelIDs maps label names to class numbers by names ("" is unknown, -1).
// Labels not among names are unknown too; they are returned, distinct, so
// that the caller can say so.
func labelIDs(labels, names []string) (ids []int, unknown []string) {
	index := map[string]int{}
	for p, n := range names {
		index[n] = p
	}
	ids = make([]int, len(labels))
	seen := map[string]bool{}
	for i, l := range labels {
		p, ok := index[l]
		if !ok {
			p = -1
			if l != "" && !seen[l] {
				seen[l] = true
				unknown = append(unknown, l)
			}
		}
		ids[i] = p
	}
	return ids, unknown
}

// columnFlags are the inputs of transform and predict: a model, and new
// columns as a matrix (-x) or documents (-text).
type columnFlags struct {
	model, x, text *string
	docs           docFlags
}

// addColumnFlags adds -model (described by modelHelp), -x, -text and the
// document flags (-label-field with label, -id-field with id).
func addColumnFlags(fs *flag.FlagSet, modelHelp string, label, id bool) columnFlags {
	return columnFlags{
		model: fs.String("model", "", modelHelp),
		x:     fs.String("x", "", "new columns, with the training data's rows (this or -text is required)"),
		text:  fs.String("text", "", "new documents instead of -x (.jsonl, .csv or a directory of .txt files), vectorised by the model's saved vectoriser (models trained with fit -text)"),
		docs:  addDocFlags(fs, label, id),
	}
}

// check validates the inputs and the output out (-o) before any work: one
// of -x and -text, -model and -o given, no document flag without -text,
// and out none of the inputs (nor of more, such as -labels).
func (c columnFlags) check(fs *flag.FlagSet, out string, more ...input) error {
	if err := oneInput(*c.x, *c.text); err != nil {
		return err
	}
	if *c.model == "" || out == "" {
		return usageError{errors.New("-model and -o are required")}
	}
	if *c.text == "" {
		if err := rejectFlags(fs, []string{"field", "label-field", "id-field"}, "applies to -text documents only"); err != nil {
			return err
		}
	}
	return checkOutput("-o", out, append([]input{{"-x", *c.x}, {"-text", *c.text}, {"-model", *c.model}}, more...)...)
}

// loadModel loads -model (neuralnmf.Load refuses a model with an all-zero
// A, which would map every column to 0).
func (c columnFlags) loadModel() (*neuralnmf.Model, error) {
	return loadModel(*c.model)
}

// read reads the new columns for model m.
func (c columnFlags) read(m *neuralnmf.Model, stderr io.Writer) (*newColumns, error) {
	return readColumns(*c.x, *c.text, c.docs, *c.model, m, stderr)
}

// oneInput checks that exactly one of -x and -text is given.
func oneInput(xPath, textPath string) error {
	switch {
	case xPath != "" && textPath != "":
		return usageError{errors.New("-x and -text were both given: give one (a matrix or documents)")}
	case xPath == "" && textPath == "":
		return usageError{errors.New("one of -x (a matrix) and -text (documents) is required")}
	}
	return nil
}

// newColumns are the new columns of transform and predict, read from a
// matrix file or from documents.
type newColumns struct {
	x *matio.Matrix
	// from names their file and flag ("-x FILE" or "-text FILE").
	from string
	// names names each column: a document's id or file:line, or its
	// 1-based column number.
	names []string
	// labels are the -label-field values ("" unknown), or nil.
	labels []string
	// empty marks the columns with no entry: a document with no word of
	// the model's vocabulary, or a zero column of X.
	empty []bool
}

// readColumns reads the new columns of transform and predict: the matrix
// at xPath, or the documents at textPath put into the space of the model's
// vectoriser.
func readColumns(xPath, textPath string, d docFlags, modelPath string, m *neuralnmf.Model, stderr io.Writer) (*newColumns, error) {
	c := &newColumns{}
	if textPath != "" {
		v, err := modelVectorizer(modelPath, m)
		if err != nil {
			return nil, err
		}
		var info docInfo
		xs, err := v.Transform(info.texts(d.source(textPath), d))
		if err != nil {
			return nil, err
		}
		if xs.Cols == 0 {
			return nil, fmt.Errorf("-text %s holds no documents", textPath)
		}
		c.x, c.from, c.names, c.labels = &matio.Matrix{Sparse: xs}, "-text "+textPath, info.names, info.labels
	} else {
		x, err := readData(xPath, "-x", stderr)
		if err != nil {
			return nil, err
		}
		c.x, c.from = x, "-x "+xPath
		_, cols := x.Dims()
		for j := 0; j < cols; j++ {
			c.names = append(c.names, strconv.Itoa(j+1))
		}
	}
	c.empty = emptyColumns(c.x)
	return c, nil
}

// unusedFeatures counts, for a KL model, what of the new columns x the
// model cannot fit: its columns with an entry in a feature (row) the
// model gives no weight, and those features. They are left out of the
// divergence (neuralnmf.Model.UnusedFeatures); for the other losses
// nothing is left out and unusedFeatures finds none.
type unusedFeatures struct {
	rows      []int // the model's unused features
	cols      int   // columns that use one
	firstCols []int // the first few (0-based, in the order seen)
	used      map[int]bool
}

func newUnusedFeatures(m *neuralnmf.Model) *unusedFeatures {
	u := &unusedFeatures{used: map[int]bool{}}
	if m.Loss() == neuralnmf.KL {
		u.rows = m.UnusedFeatures()
	}
	return u
}

// add counts the columns of x, the first of which is column first.
func (u *unusedFeatures) add(first int, x *matio.Matrix) {
	if len(u.rows) == 0 {
		return
	}
	xs := x.Sparse
	if xs == nil {
		xs = tensor.SparseFromDense(x.Dense)
	}
	mark := map[int]bool{}
	for _, r := range u.rows {
		mark[r] = true
	}
	for _, j := range neuralnmf.ColumnsUsing(xs, u.rows) {
		if u.cols++; len(u.firstCols) < 5 {
			u.firstCols = append(u.firstCols, first+j)
		}
		for p := xs.ColPtr[j]; p < xs.ColPtr[j+1]; p++ {
			if r := xs.RowIdx[p]; mark[r] {
				u.used[r] = true
			}
		}
	}
}

// warn says on stderr what was left out, naming the columns by names
// (nil: 1-based numbers) and the features 1-based.
func (u *unusedFeatures) warn(stderr io.Writer, names []string, total int) {
	if u.cols == 0 {
		return
	}
	var cols []string
	for _, j := range u.firstCols {
		if names != nil {
			cols = append(cols, names[j])
		} else {
			cols = append(cols, strconv.Itoa(j+1))
		}
	}
	if u.cols > len(cols) {
		cols = append(cols, "…")
	}
	var rows []int
	for r := range u.used {
		rows = append(rows, r)
	}
	slices.Sort(rows)
	var feats []string
	for i, r := range rows {
		if i == 5 {
			feats = append(feats, "…")
			break
		}
		feats = append(feats, strconv.Itoa(r+1))
	}
	fmt.Fprintf(stderr, "warning: %d of %d columns (%s) have entries in %d feature(s) (rows %s) that were zero in all of the model's training data: a KL model gives them no weight, so their divergence is infinite for any S; those entries were left out and each column's S fits its other entries\n",
		u.cols, total, strings.Join(cols, ", "), len(rows), strings.Join(feats, ", "))
}

// emptyColumns marks the columns of x without a non-zero entry (a stored
// zero is none).
func emptyColumns(x *matio.Matrix) []bool {
	_, cols := x.Dims()
	empty := make([]bool, cols)
	for j := range empty {
		if s := x.Sparse; s != nil { // no stored entry, or only stored zeros
			_, vals := s.Column(j)
			empty[j] = !slices.ContainsFunc(vals, func(v float64) bool { return v != 0 })
			continue
		}
		empty[j] = true
		for i := 0; i < x.Dense.Rows && empty[j]; i++ {
			empty[j] = x.Dense.At(i, j) == 0
		}
	}
	return empty
}

// warnEmpty says on stderr how many columns are empty, naming the first
// few, and what the command writes for them.
func (c *newColumns) warnEmpty(stderr io.Writer, what string) int {
	var first []string
	n := 0
	for j, e := range c.empty {
		if e {
			if n++; len(first) < 5 {
				first = append(first, c.names[j])
			}
		}
	}
	if n > 0 {
		kind := "documents have no word of the model's vocabulary"
		if strings.HasPrefix(c.from, "-x ") {
			kind = "columns are all zero"
		}
		more := ""
		if n > len(first) {
			more = ", …"
		}
		fmt.Fprintf(stderr, "warning: %d of %d %s (%s%s): %s\n", n, len(c.empty), kind, strings.Join(first, ", "), more, what)
	}
	return n
}

// readData reads the data matrix at path (named by flag) and checks that it
// is nonnegative, as the models require. Entries of a Matrix Market file
// given twice are summed, as scipy does, and stderr says so.
func readData(path, flag string, stderr io.Writer) (*matio.Matrix, error) {
	x, err := matio.ReadMatrix(path)
	if err != nil {
		return nil, err
	}
	if err := checkNonnegative(path, x); err != nil {
		return nil, err
	}
	warnDuplicates(stderr, flag+" "+path, x.Duplicates)
	return x, nil
}

// warnDuplicates says, if n > 0, that n entries of the input from were
// summed into an earlier entry at their position.
func warnDuplicates(w io.Writer, from string, n int) {
	if n > 0 {
		fmt.Fprintf(w, "warning: %s: %d entries repeat the row and column of an earlier one; they were summed into it (as scipy.io.mmread does)\n", from, n)
	}
}

// checkNonnegative reports the first negative entry of a data matrix read
// from path, by its 1-based row and column, with what to do: the models
// factorise nonnegative data.
func checkNonnegative(path string, x *matio.Matrix) error {
	return matio.CheckNonnegative(path, x)
}

// readTrueLabels reads -labels for cols columns (of from): each a class of
// model m, or -1.
func readTrueLabels(labelsPath string, cols int, from string, m *neuralnmf.Model) ([]int, error) {
	y, err := matio.ReadLabelsFile(labelsPath)
	if err != nil {
		return nil, err
	}
	if len(y) != cols {
		return nil, fmt.Errorf("-labels %s: %d labels for the %d columns of %s", labelsPath, len(y), cols, from)
	}
	for i, l := range y {
		if l < -1 || l >= m.B.Rows {
			named := ""
			if m.ClassNames != nil {
				named = fmt.Sprintf(" (the model names its classes %s: -labels takes their numbers 0..%d in that order; or give documents with -text and -label-field to use the names)", quoteList(m.ClassNames, 10), m.B.Rows-1)
			}
			return nil, fmt.Errorf("-labels %s: line %d is %d: want a class 0..%d of the model, or -1 for unknown%s", labelsPath, i+1, l, m.B.Rows-1, named)
		}
	}
	if !slices.ContainsFunc(y, func(l int) bool { return l >= 0 }) {
		return nil, errors.New("no column has a known label of the model's classes: nothing to score")
	}
	return y, nil
}

// trueLabels returns the true class of each new column for scoring, from
// -labels (a file of class numbers) or -label-field (class names mapped
// through the model's), or nil when neither is given. Labels the model
// does not know are unknown (-1); stderr says so.
func trueLabels(labelsPath string, c *newColumns, m *neuralnmf.Model, stderr io.Writer) ([]int, error) {
	var y []int
	switch {
	case labelsPath != "":
		var err error
		if y, err = readTrueLabels(labelsPath, len(c.empty), c.from, m); err != nil {
			return nil, err
		}
	case c.labels != nil:
		var unknown []string
		y, unknown = labelIDs(c.labels, classNames(m))
		if len(unknown) > 0 {
			fmt.Fprintf(stderr, "warning: %d label(s) the model does not have (%s); their documents are not scored\n", len(unknown), quoteList(unknown, 5))
		}
	}
	if y != nil && !slices.ContainsFunc(y, func(l int) bool { return l >= 0 }) {
		return nil, errors.New("no column has a known label of the model's classes: nothing to score")
	}
	return y, nil
}

// quoteList quotes the first n items of s, with "…" if there are more.
func quoteList(s []string, n int) string {
	q := make([]string, 0, n+1)
	for i, v := range s {
		if i == n {
			q = append(q, "…")
			break
		}
		q = append(q, strconv.Quote(v))
	}
	return strings.Join(q, ", ")
}

// classifyColumns predicts the class of each new column with the model's
// classifier, and returns the scores B·S of the last layer.
func classifyColumns(m *neuralnmf.Model, x *matio.Matrix) ([]int, *tensor.Dense, error) {
	if x.Sparse != nil {
		return m.Classify(x.Sparse)
	}
	return m.Classify(x.Dense)
}

// forward runs the new columns through the model.
func forward(m *neuralnmf.Model, x *matio.Matrix) ([]*tensor.Dense, error) {
	if x.Sparse != nil {
		return m.Transform(x.Sparse)
	}
	return m.Transform(x.Dense)
}
