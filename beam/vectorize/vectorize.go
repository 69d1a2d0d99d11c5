// Package vectorize turns documents split over shard files into TF-IDF
// shards with Apache Beam: the matrices `neuralnmf vectorize` makes of the
// concatenated documents, cut at the shards' boundaries, the same floats.
//
// Two pipelines: the first counts each shard's words (text.Count), adds the
// counts per word over the shards (a combine; integer sums, so the result
// does not depend on how a runner splits or orders the work), drops the
// words the document-frequency bounds drop, and writes the rest in
// buckets; the driver then fits the vocabulary and IDF from them
// (text.FitCounts, the code text.Fit runs) and writes the vectoriser; the
// second pipeline transforms each shard with it (text.Vectorizer.Transform)
// into its own Matrix Market file. Out ends with:
//
//	docs-00000.mtx.gz …  one shard's words × documents matrix, in the documents' order,
//	                     the vectoriser's Fingerprint in a header comment
//	vocab.txt            the word of each row
//	vectorizer.json      the vectoriser (neuralnmf vectorize -save's format)
package vectorize

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neuralnmf/neuralnmf/beam/internal/files"
	"github.com/neuralnmf/neuralnmf/beam/internal/sink"
	"github.com/neuralnmf/neuralnmf/matio"
	"github.com/neuralnmf/neuralnmf/tensor"
	"github.com/neuralnmf/neuralnmf/text"
)

func init() {
	beam.RegisterType(reflect.TypeOf((*Task)(nil)).Elem())
	beam.RegisterType(reflect.TypeOf((*Stat)(nil)).Elem())
	beam.RegisterType(reflect.TypeOf((*Entry)(nil)).Elem())
	register.DoFn4x1[context.Context, Task, func(string, Stat), func(int), error](&countFn{})
	register.Emitter2[string, Stat]()
	register.Emitter1[int]()
	register.Function2x1(addStat)
	register.Function2x1(addInt)
	register.DoFn4x0[string, Stat, int, func(int, Entry)](&boundFn{})
	register.Emitter2[int, Entry]()
	register.DoFn4x1[context.Context, int, func(*Entry) bool, func(string), error](&writeBucketFn{})
	register.Iter1[Entry]()
	register.DoFn3x1[context.Context, int, func(string), error](&writeDocsFn{})
	register.DoFn3x1[context.Context, Task, func(string), error](&transformFn{})
	register.Emitter1[string]()
}

// Options configures a run.
type Options struct {
	// Docs are the document files, in order: JSON Lines or CSV files
	// (optionally .gz), as text.Source reads them, local or on a
	// filesystem Beam knows (gs://, copied to a local temporary file by
	// the worker that reads it).
	Docs []string
	// Field is the JSON member or CSV column of the text ("text" if empty).
	Field string
	// Text are the vectoriser's options.
	Text text.Options
	// Out is the output directory: new, empty, or holding an interrupted
	// run of the same Options (which is then done again).
	Out string
}

// File names in Out.
const (
	VocabName      = "vocab.txt"
	VectorizerName = "vectorizer.json"
	recordName     = ".neuralnmf-beam-vectorize.json"
	tmpName        = ".neuralnmf-beam-vectorize.tmp"
	beamTmpName    = ".neuralnmf-beam-vectorize.beam"
)

// TempDir is where a command keeps the temporary files of Beam's runs
// for Out (a local one): inside it, so that a killed run leaves them
// nowhere else, a resumed run reuses them, and the end (or Abandon)
// removes them.
func TempDir(out string) string { return files.Join(out, beamTmpName) }

// Abandon removes what Run wrote into Out, for a run that failed for its
// input or options and so would fail again: the record (which would
// refuse any other run into Out), the temporary files, and the outputs
// written so far. Only names Run writes are removed; Out itself stays.
func Abandon(ctx context.Context, opt Options) error {
	for _, g := range []string{files.Join(opt.Out, tmpName) + "/*", files.Join(opt.Out, VectorizerName), files.Join(opt.Out, VocabName),
		files.Join(opt.Out, "docs-*.mtx.gz"), files.Join(opt.Out, recordName)} {
		if err := removeGlob(ctx, g); err != nil {
			return err
		}
	}
	if files.Local(opt.Out) {
		out := strings.TrimPrefix(opt.Out, "file://")
		_ = os.Remove(filepath.Join(out, tmpName))
		_ = os.RemoveAll(filepath.Join(out, beamTmpName))
	}
	return nil
}

// ShardName is the name in Out of the matrix of shard i of n.
func ShardName(i, n int) string {
	width := max(5, len(fmt.Sprint(n-1)))
	return fmt.Sprintf("docs-%0*d.mtx.gz", width, i)
}

// FingerprintKey names the comment line of a shard's Matrix Market header
// that carries the fingerprint of the vectoriser that made it:
// "% neuralnmf-vectorizer <Fingerprint>". train -vectorizer refuses a
// vectoriser whose fingerprint is not its shards'.
const FingerprintKey = "neuralnmf-vectorizer"

// Fingerprint identifies a vectoriser: the first 16 bytes of the SHA-256
// of its JSON encoding, in hex. Two vectorisers with the same words, IDF
// and options have the same fingerprint; any other difference changes it.
func Fingerprint(v *text.Vectorizer) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16]), nil
}

// Task is one shard of documents in a pipeline.
type Task struct {
	Index        int
	Path, Field  string
	Options, Out string // the text.Options as JSON; Out as Options.Out
	Buckets      int
}

// Stat is one word's counts in some documents.
type Stat struct{ DF, TF int64 }

// Entry is one word's counts, in a bucket.
type Entry struct {
	Word   string
	DF, TF int64
}

// Check refuses options that cannot run: no documents, a format text.Source
// does not read, an Out that holds files other than an interrupted run of
// the same options.
func Check(ctx context.Context, opt Options) error {
	if len(opt.Docs) == 0 {
		return errors.New("vectorize: no document files")
	}
	for _, d := range opt.Docs {
		if !readable(d) {
			return fmt.Errorf("vectorize: %s: want a JSON Lines (.jsonl, .json, .ndjson) or CSV (.csv) file, optionally .gz", d)
		}
	}
	if opt.Out == "" {
		return errors.New("vectorize: no output directory")
	}
	if files.Local(opt.Out) {
		if st, err := os.Stat(strings.TrimPrefix(opt.Out, "file://")); err == nil && !st.IsDir() {
			return fmt.Errorf("vectorize: output directory %s is a file: give a new or empty directory", opt.Out)
		}
	}
	own, err := ownRun(ctx, opt)
	if err != nil || own {
		return err
	}
	there, err := files.List(ctx, files.Join(opt.Out, "*"))
	if err != nil {
		return fmt.Errorf("vectorize: %w", err)
	}
	if len(there) > 0 {
		return fmt.Errorf("vectorize: output directory %s holds files (%s): give a new or empty one", opt.Out, there[0])
	}
	return nil
}

// readable reports whether p's name is of a format text.Source reads from
// one file.
func readable(p string) bool {
	name := strings.TrimSuffix(strings.ToLower(p), ".gz")
	for _, ext := range []string{".jsonl", ".json", ".ndjson", ".csv"} {
		if strings.HasSuffix(name, ext) {
			return true
		}
	}
	return false
}

func record(opt Options) []byte {
	b, _ := json.Marshal(opt)
	return b
}

// ownRun reports whether Out holds the record of a run of opt.
func ownRun(ctx context.Context, opt Options) (bool, error) {
	there, same, err := files.Record(ctx, files.Join(opt.Out, recordName), record(opt))
	switch {
	case err != nil:
		return false, fmt.Errorf("vectorize: %w", err)
	case there && !same:
		return false, fmt.Errorf("vectorize: output directory %s holds an interrupted run of other documents or options: give another one, or delete it", opt.Out)
	}
	return there, nil
}

// Run vectorises opt's documents with two pipelines, each run by run (a
// Beam runner's execution), and returns the vectoriser. Call Check first.
// Out gets a record of the run before any pipeline, so that the same
// Options given again after an interruption redo the run in it; the end
// removes the record and the temporary files.
func Run(ctx context.Context, opt Options, run func(context.Context, *beam.Pipeline) error) (*text.Vectorizer, error) {
	if err := files.WriteWhole(ctx, files.Join(opt.Out, recordName), record(opt)); err != nil {
		return nil, fmt.Errorf("vectorize: %w", err)
	}
	tmp := files.Join(opt.Out, tmpName)
	if err := removeGlob(ctx, files.Join(tmp, "*")); err != nil {
		return nil, err
	}
	o, err := json.Marshal(opt.Text)
	if err != nil {
		return nil, err
	}
	tasks := make([]Task, len(opt.Docs))
	for i, d := range opt.Docs {
		tasks[i] = Task{Index: i, Path: d, Field: opt.Field, Options: string(o), Out: opt.Out, Buckets: min(len(opt.Docs), 256)}
	}
	p, s := beam.NewPipelineWithRoot()
	addCount(s.Scope("neuralnmf.vectorize.count"), tasks)
	if err := run(ctx, p); err != nil {
		return nil, err
	}
	c, err := readCounts(ctx, tmp)
	if err != nil {
		return nil, err
	}
	if err := opt.Text.CheckBounds(c.Docs); err != nil {
		return nil, fmt.Errorf("vectorize: %w", err)
	}
	v, err := text.FitCounts(c, opt.Text)
	if err != nil {
		return nil, fmt.Errorf("vectorize: %w", err)
	}
	vb, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	if err := files.WriteWhole(ctx, files.Join(opt.Out, VectorizerName), append(vb, '\n')); err != nil {
		return nil, fmt.Errorf("vectorize: %w", err)
	}
	if err := files.WriteWhole(ctx, files.Join(opt.Out, VocabName), []byte(strings.Join(v.Vocab, "\n")+"\n")); err != nil {
		return nil, fmt.Errorf("vectorize: %w", err)
	}
	p, s = beam.NewPipelineWithRoot()
	s = s.Scope("neuralnmf.vectorize.transform")
	// One bundle per shard: the Reshuffle ends the fusion of the list with
	// the work (see train's Beam.Shares).
	sink.Drain(s, beam.ParDo(s, &transformFn{Out: opt.Out, N: len(tasks)}, beam.Reshuffle(s, beam.CreateList(s, tasks))))
	if err := run(ctx, p); err != nil {
		return nil, err
	}
	if err := removeGlob(ctx, files.Join(tmp, "*")); err != nil {
		return nil, err
	}
	if files.Local(tmp) {
		_ = os.Remove(strings.TrimPrefix(tmp, "file://"))
		_ = os.RemoveAll(strings.TrimPrefix(TempDir(opt.Out), "file://"))
	}
	if err := files.Remove(ctx, files.Join(opt.Out, recordName)); err != nil {
		return nil, fmt.Errorf("vectorize: %w", err)
	}
	return v, nil
}

// addCount adds the counting pipeline: each shard's counts, added per word
// (a combine), bounded by document frequency, written in buckets of words
// (by a hash of the word) with the number of documents.
func addCount(s beam.Scope, tasks []Task) {
	words, docs := beam.ParDo2(s, &countFn{}, beam.Reshuffle(s, beam.CreateList(s, tasks)))
	total := beam.Combine(s, addInt, docs)
	summed := beam.CombinePerKey(s, addStat, words)
	o := tasks[0]
	kept := beam.ParDo(s, &boundFn{Options: o.Options, Buckets: o.Buckets}, summed, beam.SideInput{Input: total})
	written := beam.ParDo(s, &writeBucketFn{Out: o.Out}, beam.GroupByKey(s, kept))
	sink.Drain(s, beam.Flatten(s, written, beam.ParDo(s, &writeDocsFn{Out: o.Out}, total)))
}

func addStat(a, b Stat) Stat { return Stat{a.DF + b.DF, a.TF + b.TF} }
func addInt(a, b int) int    { return a + b }

// countFn counts one shard's words and emits each word's counts and the
// shard's number of documents.
type countFn struct{}

func (countFn) ProcessElement(ctx context.Context, t Task, emit func(string, Stat), docs func(int)) error {
	var o text.Options
	if err := json.Unmarshal([]byte(t.Options), &o); err != nil {
		return err
	}
	local, done, err := localCopy(ctx, t.Path)
	if err != nil {
		return err
	}
	defer done()
	c, err := text.Count(text.Source{Path: local, Field: t.Field}.Texts(), o)
	if err != nil {
		return fmt.Errorf("%s%s", files.InputError, strings.ReplaceAll(err.Error(), local, t.Path))
	}
	if c.Docs == 0 {
		return fmt.Errorf("%svectorize: %s holds no documents: its shard would have none to train on; leave it out of -docs", files.InputError, t.Path)
	}
	for i, w := range c.Words {
		emit(w, Stat{int64(c.DF[i]), c.TF[i]})
	}
	docs(c.Docs)
	return nil
}

// boundFn drops the words the document-frequency bounds drop (of n, the
// side input, documents) and keys the rest by their bucket.
type boundFn struct {
	Options string
	Buckets int

	o *text.Options
}

func (f *boundFn) ProcessElement(word string, st Stat, n int, emit func(int, Entry)) {
	if f.o == nil {
		f.o = new(text.Options)
		if err := json.Unmarshal([]byte(f.Options), f.o); err != nil {
			panic(err) // written by Run from a text.Options
		}
	}
	if !f.o.InBounds(int(st.DF), n) {
		return
	}
	h := fnv.New32a()
	h.Write([]byte(word))
	emit(int(h.Sum32()%uint32(f.Buckets)), Entry{word, st.DF, st.TF})
}

func bucketName(b int) string { return fmt.Sprintf("bucket-%05d.json", b) }

const docsName = "docs.json"

// writeBucketFn writes one bucket's words with their counts.
type writeBucketFn struct{ Out string }

func (f *writeBucketFn) ProcessElement(ctx context.Context, b int, entries func(*Entry) bool, emit func(string)) error {
	var es []Entry
	var e Entry
	for entries(&e) {
		es = append(es, e)
	}
	raw, err := json.Marshal(es)
	if err != nil {
		return err
	}
	name := bucketName(b)
	if err := files.WriteWhole(ctx, files.Join(files.Join(f.Out, tmpName), name), raw); err != nil {
		return fmt.Errorf("vectorize: %w", err)
	}
	emit(name)
	return nil
}

// writeDocsFn writes the number of documents.
type writeDocsFn struct{ Out string }

func (f *writeDocsFn) ProcessElement(ctx context.Context, n int, emit func(string)) error {
	if err := files.WriteWhole(ctx, files.Join(files.Join(f.Out, tmpName), docsName), []byte(fmt.Sprint(n))); err != nil {
		return fmt.Errorf("vectorize: %w", err)
	}
	emit(docsName)
	return nil
}

// readCounts reads the buckets and the number of documents back into one
// Counts, its words sorted.
func readCounts(ctx context.Context, tmp string) (*text.Counts, error) {
	raw, err := files.Read(ctx, files.Join(tmp, docsName))
	if err != nil {
		return nil, fmt.Errorf("vectorize: %w", err)
	}
	c := &text.Counts{}
	if _, err := fmt.Sscan(string(raw), &c.Docs); err != nil {
		return nil, fmt.Errorf("vectorize: %s: %w", docsName, err)
	}
	paths, err := files.List(ctx, files.Join(tmp, "bucket-*.json"))
	if err != nil {
		return nil, fmt.Errorf("vectorize: %w", err)
	}
	// The buckets' words are disjoint: gathered, then sorted once.
	var es []Entry
	for _, p := range paths {
		raw, err := files.Read(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("vectorize: %w", err)
		}
		var b []Entry
		if err := json.Unmarshal(raw, &b); err != nil {
			return nil, fmt.Errorf("vectorize: %s: %w", p, err)
		}
		es = append(es, b...)
	}
	slices.SortFunc(es, func(x, y Entry) int { return strings.Compare(x.Word, y.Word) })
	for _, e := range es {
		c.Words, c.DF, c.TF = append(c.Words, e.Word), append(c.DF, int(e.DF)), append(c.TF, e.TF)
	}
	if err := c.Check(); err != nil {
		return nil, fmt.Errorf("vectorize: %w", err)
	}
	return c, nil
}

// transformFn writes one shard's matrix with the vectoriser in Out.
type transformFn struct {
	Out string
	N   int

	v  *text.Vectorizer
	fp string
}

func (f *transformFn) Setup(ctx context.Context) error {
	raw, err := files.Read(ctx, files.Join(f.Out, VectorizerName))
	if err != nil {
		return fmt.Errorf("vectorize: %w", err)
	}
	f.v = new(text.Vectorizer)
	if err := json.Unmarshal(raw, f.v); err != nil {
		return err
	}
	f.fp, err = Fingerprint(f.v)
	return err
}

func (f *transformFn) ProcessElement(ctx context.Context, t Task, emit func(string)) error {
	local, done, err := localCopy(ctx, t.Path)
	if err != nil {
		return err
	}
	defer done()
	x, err := f.v.Transform(text.Source{Path: local, Field: t.Field}.Texts())
	if err != nil {
		return fmt.Errorf("%s%s", files.InputError, strings.ReplaceAll(err.Error(), local, t.Path))
	}
	b, err := encode(x, f.fp)
	if err != nil {
		return err
	}
	name := ShardName(t.Index, f.N)
	if err := files.WriteWhole(ctx, files.Join(f.Out, name), b); err != nil {
		return fmt.Errorf("vectorize: %w", err)
	}
	emit(name)
	return nil
}

// encode writes x as gzipped Matrix Market (fastest level, as neuralnmf
// vectorize writes .mtx.gz), with the vectoriser's fingerprint fp in a
// comment line after the banner (FingerprintKey).
func encode(x *tensor.Sparse, fp string) ([]byte, error) {
	var mm bytes.Buffer
	if err := matio.WriteMatrixMarket(&mm, &matio.Matrix{Sparse: x}); err != nil {
		return nil, err
	}
	banner, rest, _ := bytes.Cut(mm.Bytes(), []byte("\n"))
	var buf bytes.Buffer
	z, err := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	if err != nil {
		return nil, err
	}
	if _, err := fmt.Fprintf(z, "%s\n%% %s %s\n", banner, FingerprintKey, fp); err != nil {
		return nil, err
	}
	if _, err := z.Write(rest); err != nil {
		return nil, err
	}
	if err := z.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// localCopy returns a local path holding p's bytes: p itself when local,
// else a temporary copy with p's base name (its format is read from the
// name), removed by done.
func localCopy(ctx context.Context, p string) (local string, done func(), err error) {
	if files.Local(p) {
		return strings.TrimPrefix(p, "file://"), func() {}, nil
	}
	dir, err := os.MkdirTemp("", "neuralnmf-beam-docs-")
	if err != nil {
		return "", nil, err
	}
	done = func() { os.RemoveAll(dir) }
	r, err := files.Open(ctx, p)
	if err != nil {
		done()
		return "", nil, fmt.Errorf("vectorize: %s: %w", p, err)
	}
	defer r.Close()
	local = filepath.Join(dir, path.Base(p))
	f, err := os.Create(local)
	if err == nil {
		_, err = io.Copy(f, r)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		done()
		return "", nil, fmt.Errorf("vectorize: %s: %w", p, err)
	}
	return local, done, nil
}

// removeGlob removes the files glob matches (files.RemoveGlob), its
// error said as the package's.
func removeGlob(ctx context.Context, glob string) error {
	if err := files.RemoveGlob(ctx, glob); err != nil {
		return fmt.Errorf("vectorize: %w", err)
	}
	return nil
}
