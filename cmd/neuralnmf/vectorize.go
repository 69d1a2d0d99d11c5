package main

import (
	"compress/gzip"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"iter"
	"os"
	"strings"

	"github.com/neuralnmf/neuralnmf/internal/textflags"
	"github.com/neuralnmf/neuralnmf/matio"
	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/tensor"
	"github.com/neuralnmf/neuralnmf/text"
)

// textFlags are the vectoriser's options (package textflags, shared with
// neuralnmf-beam vectorize), used by vectorize and fit -text.
type textFlags struct{ textflags.Flags }

func addTextFlags(fs *flag.FlagSet) textFlags { return textFlags{textflags.Add(fs)} }

// names lists the flags of the vectoriser's options (not -field).
func (t textFlags) names() []string { return t.Names() }

// stopwordsFile returns the path of the -stopwords file, or "" when the
// flag names the built-in list.
func (t textFlags) stopwordsFile() string { return t.StopWordsFile() }

// options returns the vectoriser options the flags say; a bad value is a
// usageError.
func (t textFlags) options() (text.Options, error) {
	o, err := t.Options()
	if textflags.IsUsage(err) {
		return o, usageError{err}
	}
	return o, err
}

// fitText fits a vectoriser to docs and returns it with the documents'
// matrix; an empty input or vocabulary is said with from, which names the
// documents.
func fitText(from string, docs iter.Seq2[string, error], o text.Options) (*text.Vectorizer, *tensor.Sparse, error) {
	v, x, err := text.Fit(docs, o)
	if errors.Is(err, text.ErrNoDocuments) || errors.Is(err, text.ErrNoWords) {
		return nil, nil, fmt.Errorf("%s: %w", from, err)
	}
	if u := textflags.CrossedBounds(err); u != nil {
		return nil, nil, usageError{fmt.Errorf("%s: %w", from, u)}
	}
	return v, x, err
}

// modelVectorizer decodes the vectoriser stored in a model, or says that
// the model has none.
func modelVectorizer(path string, m *neuralnmf.Model) (*text.Vectorizer, error) {
	if m.Vectorizer == nil {
		return nil, fmt.Errorf("%s was trained on a matrix, not on text: it has no vocabulary (train it with fit -text)", path)
	}
	var v text.Vectorizer
	if err := json.Unmarshal(m.Vectorizer, &v); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &v, nil
}

func runVectorize(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("vectorize", flag.ContinueOnError)
	docs := fs.String("text", "", "documents: .jsonl or .csv (optionally .gz), or a directory of .txt files (required), as fit's and transform's -text")
	oldDocs := fs.String("docs", "", "the former name of -text (kept for this release)")
	out := fs.String("o", "", "output words × documents matrix, Matrix Market: .mtx, or .mtx.gz gzipped (required)")
	vocabOut := fs.String("vocab", "", "output vocabulary file, one word per line (row i of the matrix is line i)")
	save := fs.String("save", "", "output vectoriser file (JSON: options, vocabulary, IDF), to put new documents in the same space later")
	load := fs.String("vectorizer", "", "put the documents in the space of this saved vectoriser instead of fitting one")
	names := fs.String("names", "", "output file naming the document of each column, one per line")
	tf := addTextFlags(fs)
	docFields := addDocFlags(fs, false, false)
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: neuralnmf vectorize -text posts.jsonl -o X.mtx [-vocab vocab.txt] [-save vec.json] [flags]

Turns documents into a words × documents TF-IDF matrix exactly as
scikit-learn's TfidfVectorizer does with its defaults (lowercase, tokens of
two or more Unicode word characters, smooth IDF, L2-normalised documents),
with options for stop words, document-frequency bounds, a vocabulary size,
sublinear tf, plain counts and the 20 Newsgroups cleaning. With -vectorizer
it uses a saved vocabulary and IDF instead of fitting them.

Flags:
`)
		fs.PrintDefaults()
		fmt.Fprintln(stderr, "\n"+exitCodesHelp)
	}
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	switch {
	case flagSet(fs, "docs") && flagSet(fs, "text") && *docs != *oldDocs:
		return usageError{fmt.Errorf("-text %s and -docs %s name two inputs: give -text alone (-docs is its former name)", *docs, *oldDocs)}
	case flagSet(fs, "docs"):
		*docs = *oldDocs
	}
	if *docs == "" || *out == "" {
		return usageError{errors.New("-text and -o are required")}
	}
	if *load != "" {
		if err := rejectFlags(fs, append(tf.names(), "save"), "has no effect with -vectorizer, whose options are saved in it"); err != nil {
			return err
		}
	}
	o, err := tf.options()
	if err != nil {
		return err
	}
	ins := []input{{"-text", *docs}, {"-stopwords", tf.stopwordsFile()}, {"-vectorizer", *load}}
	outs := []input{{"-o", *out}, {"-vocab", *vocabOut}, {"-save", *save}, {"-names", *names}}
	if err := distinctOutputs(outs...); err != nil {
		return err
	}
	for _, p := range outs {
		if p.path == "" {
			continue
		}
		if err := checkOutput(p.flag, p.path, ins...); err != nil {
			return err
		}
	}
	if !matio.IsMatrixMarket(*out) {
		return usageError{fmt.Errorf("-o %s: want a Matrix Market file, .mtx or .mtx.gz (a TF-IDF matrix is sparse; fit, transform and predict read it)", *out)}
	}
	var v *text.Vectorizer
	var x *tensor.Sparse
	if *load != "" {
		b, err := os.ReadFile(*load)
		if err != nil {
			return err
		}
		v = new(text.Vectorizer)
		if err := json.Unmarshal(b, v); err != nil {
			return fmt.Errorf("-vectorizer %s: not a vectorizer file (one written by vectorize -save): %w", *load, err)
		}
		if x, err = v.Transform(text.Source{Path: *docs, Field: *docFields.field}.Texts()); err != nil {
			return err
		}
	} else if v, x, err = fitText(*docs, text.Source{Path: *docs, Field: *docFields.field}.Texts(), o); err != nil {
		return err
	}
	if err := writeSparse(*out, x); err != nil {
		return err
	}
	if *vocabOut != "" {
		if err := matio.WriteAtomic(*vocabOut, func(f *os.File) error {
			_, err := io.WriteString(f, strings.Join(v.Vocab, "\n")+"\n")
			return err
		}); err != nil {
			return err
		}
	}
	if *save != "" {
		if err := matio.WriteAtomic(*save, func(f *os.File) error { return json.NewEncoder(f).Encode(v) }); err != nil {
			return err
		}
	}
	if *names != "" {
		if err := matio.WriteAtomic(*names, func(f *os.File) error {
			for d, err := range (text.Source{Path: *docs, Field: *docFields.field}).Documents() {
				if err != nil {
					return err
				}
				fmt.Fprintln(f, d.Name)
			}
			return nil
		}); err != nil {
			return err
		}
	}
	empty := 0
	for j := 0; j < x.Cols; j++ {
		if x.ColPtr[j] == x.ColPtr[j+1] {
			empty++
		}
	}
	fmt.Fprintf(stdout, "%d documents × %d words, %d non-zeros (%d documents without any word of the vocabulary); wrote %s\n",
		x.Cols, x.Rows, x.NNZ(), empty, *out)
	return nil
}

// writeSparse writes x as Matrix Market to path, gzipped (fastest level)
// when path ends in .gz, atomically.
func writeSparse(path string, x *tensor.Sparse) error {
	return matio.WriteAtomic(path, func(f *os.File) error {
		m := &matio.Matrix{Sparse: x}
		if !strings.HasSuffix(path, ".gz") {
			return matio.WriteMatrixMarket(f, m)
		}
		// Fastest compression: a TF-IDF matrix of 10⁷ entries is 250 MB of
		// text, which the default level takes about 20 s to compress.
		z, err := gzip.NewWriterLevel(f, gzip.BestSpeed)
		if err != nil {
			return err
		}
		if err := matio.WriteMatrixMarket(z, m); err != nil {
			return err
		}
		return z.Close()
	})
}
