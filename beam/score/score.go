// Package score runs a trained Neural NMF model over sharded documents as
// an Apache Beam pipeline: each element is one shard file (a Matrix Market
// matrix of features × documents, .mtx or .mtx.gz), and each is
// transformed on its own (neuralnmf.Model.Transform, the forward pass
// of `neuralnmf transform`) and written as one output file, so the
// pipeline scales with the runner's workers and its result does not depend
// on how the runner splits or orders the work: every output is what the
// single-process transform of its shard writes, bit for bit (Shard is that
// transform, and the tests compare).
//
// Files go through Beam's filesystem layer (package
// github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem), so local paths
// and the cloud storage whose filesystem package the program imports work
// alike: the neuralnmf-beam command imports gs:// (Google Cloud Storage)
// and local paths only. A program of its own can add s3:// by importing
// Beam's filesystem/s3 package (which brings the AWS SDK). Each output is written whole
// (files.WriteWhole: a local one under a temporary name of its own,
// renamed when complete; a cloud object appears when its upload ends), so
// a reader never sees a partial file; a retried shard rewrites its own
// output. A run interrupted after Begin resumes when started again: the
// outputs it wrote are kept and only the other shards are scored.
//
// This package is its own Go module (github.com/neuralnmf/neuralnmf/beam),
// so the library and the neuralnmf command keep their size, dependencies
// and build time.
package score

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neuralnmf/neuralnmf/beam/internal/files"
	"github.com/neuralnmf/neuralnmf/matio"
	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/tensor"
)

func init() {
	register.DoFn3x1[context.Context, string, func(string), error](&scoreFn{})
	register.Emitter1[string]()
}

// Options configures Add.
type Options struct {
	// Model is the model file from `neuralnmf fit`.
	Model string
	// Shards are the input files, features × documents each, with the
	// model's features as rows.
	Shards []string
	// Out is the output directory; OutputPath names each shard's file in
	// it. It must hold none of them yet (Check).
	Out string
	// Layer is the layer whose S is written, 1..L; 0 means the last.
	Layer int
}

// OutputPath returns the output file of shard in the directory out: the
// shard's base name without .mtx or .mtx.gz, then ".S<layer>.mtx".
func OutputPath(out, shard string, layer int) string {
	base := path.Base(shard)
	base = strings.TrimSuffix(strings.TrimSuffix(base, ".gz"), ".mtx")
	return strings.TrimSuffix(out, "/") + "/" + fmt.Sprintf("%s.S%d.mtx", base, layer)
}

// Check validates opt before a pipeline is built: the model reads, its
// layer exists, the shards are distinct .mtx or .mtx.gz files whose
// headers declare the model's rows (only their headers are read) and
// whose outputs do not collide, and none of the outputs exists yet unless
// Out holds an unfinished run of the same model, layer and shards (Begin's
// record), whose outputs are its own and complete: the pipeline writes only
// files of its own. It returns the resolved layer (1..L).
func Check(ctx context.Context, opt Options) (int, error) {
	m, raw, err := readModel(ctx, opt.Model)
	if err != nil {
		return 0, err
	}
	layer := opt.Layer
	if layer == 0 {
		layer = len(m.A)
	}
	if layer < 1 || layer > len(m.A) {
		return 0, fmt.Errorf("score: Layer is %d; the model has layers 1..%d", opt.Layer, len(m.A))
	}
	if len(opt.Shards) == 0 {
		return 0, fmt.Errorf("score: no shards")
	}
	if opt.Out == "" {
		return 0, fmt.Errorf("score: Out is empty")
	}
	seen := map[string]string{}
	for _, s := range opt.Shards {
		if !strings.HasSuffix(s, ".mtx") && !strings.HasSuffix(s, ".mtx.gz") {
			return 0, fmt.Errorf("score: shard %s: want a .mtx or .mtx.gz file", s)
		}
		o := OutputPath(opt.Out, s, layer)
		if prev, ok := seen[o]; ok {
			return 0, fmt.Errorf("score: shards %s and %s would both write %s", prev, s, o)
		}
		seen[o] = s
	}
	for _, s := range opt.Shards {
		h, err := files.MatrixHeader(ctx, s)
		if err != nil {
			return 0, fmt.Errorf("score: %w", err)
		}
		if h.Rows != m.A[0].Rows {
			return 0, fmt.Errorf("score: shard %s has %d rows (features); the model was trained on %d", s, h.Rows, m.A[0].Rows)
		}
	}
	mine, err := ownRun(ctx, opt, raw, layer)
	if err != nil {
		return 0, err
	}
	if mine {
		return layer, nil
	}
	existing, err := files.List(ctx, strings.TrimSuffix(opt.Out, "/")+"/*")
	if err != nil {
		return 0, fmt.Errorf("score: Out: %w", err)
	}
	for _, e := range existing {
		if s, ok := seen[e]; ok {
			return 0, fmt.Errorf("score: %s (the output of %s) exists; write to a new directory", e, s)
		}
		if path.Base(e) == recordName {
			return 0, fmt.Errorf("score: %s holds an unfinished run of another model, layer or shards (%s); finish it with its own command, or write to a new directory", opt.Out, e)
		}
	}
	return layer, nil
}

// recordName is the file in Out that marks an unfinished run (Begin).
const recordName = ".neuralnmf-beam-score.json"

// record is what Begin records of a run.
type record struct {
	Model  string // the model file's SHA-256
	Layer  int
	Shards []string
}

func recordOf(raw []byte, layer int, shards []string) []byte {
	sum := sha256.Sum256(raw)
	b, _ := json.Marshal(record{Model: hex.EncodeToString(sum[:]), Layer: layer, Shards: shards})
	return b
}

// ownRun reports whether Out holds the record of a run of this model,
// layer and shards.
func ownRun(ctx context.Context, opt Options, raw []byte, layer int) (bool, error) {
	_, same, err := files.Record(ctx, files.Join(opt.Out, recordName), recordOf(raw, layer, opt.Shards))
	if err != nil {
		return false, fmt.Errorf("score: %w", err)
	}
	return same, nil
}

// Begin records in Out that a run of opt (checked by Check, which
// returned layer) has started, so that the same run started again after an
// interruption resumes (Pending) instead of being refused, and returns the
// shards whose outputs are still to write. End removes the record.
func Begin(ctx context.Context, opt Options, layer int) (pending []string, err error) {
	_, raw, err := readModel(ctx, opt.Model)
	if err != nil {
		return nil, err
	}
	mine, err := ownRun(ctx, opt, raw, layer)
	if err != nil {
		return nil, err
	}
	if !mine {
		if err := files.WriteWhole(ctx, files.Join(opt.Out, recordName), recordOf(raw, layer, opt.Shards)); err != nil {
			return nil, fmt.Errorf("score: %w", err)
		}
		return opt.Shards, nil
	}
	for _, s := range opt.Shards {
		ok, err := files.Exists(ctx, OutputPath(opt.Out, s, layer))
		if err != nil {
			return nil, fmt.Errorf("score: %w", err)
		}
		if !ok {
			pending = append(pending, s)
		}
	}
	return pending, nil
}

// End removes Begin's record from Out once every output is written.
func End(ctx context.Context, opt Options) error {
	return files.Remove(ctx, files.Join(opt.Out, recordName))
}

// Add adds the scoring of opt.Shards to s and returns the PCollection of
// the output files written. Call Check first; Add expects its layer.
func Add(s beam.Scope, opt Options, layer int) beam.PCollection {
	s = s.Scope("neuralnmf.score")
	// A Reshuffle ends the fusion of the list with the scoring, so that a
	// runner spreads the shards over its workers (see train's Beam.Shares).
	shards := beam.Reshuffle(s, beam.CreateList(s, opt.Shards))
	return beam.ParDo(s, &scoreFn{Model: opt.Model, Out: opt.Out, Layer: layer}, shards)
}

// scoreFn transforms one shard per element with the model, read once per
// worker in Setup.
type scoreFn struct {
	Model string
	Out   string
	Layer int

	m *neuralnmf.Model
}

func (f *scoreFn) Setup(ctx context.Context) error {
	m, _, err := readModel(ctx, f.Model)
	if err != nil {
		return err
	}
	f.m = m
	return nil
}

func (f *scoreFn) ProcessElement(ctx context.Context, shard string, emit func(string)) error {
	fs, err := filesystem.New(ctx, shard)
	if err != nil {
		return fmt.Errorf("score: %s: %w", shard, err)
	}
	defer fs.Close()
	r, err := fs.OpenRead(ctx, shard)
	if err != nil {
		return fmt.Errorf("score: %w", err)
	}
	s, err := Shard(f.m, r, shard, f.Layer)
	r.Close()
	if err != nil {
		return err
	}
	out := OutputPath(f.Out, shard, f.Layer)
	var buf bytes.Buffer
	if err := matio.WriteMatrixMarket(&buf, &matio.Matrix{Dense: s}); err != nil {
		return fmt.Errorf("score: %s: %w", out, err)
	}
	if err := files.WriteWhole(ctx, out, buf.Bytes()); err != nil {
		return fmt.Errorf("score: %w", err)
	}
	emit(out)
	return nil
}

// Shard transforms one shard, read from r (name is for errors and tells a
// gzipped file by its .gz suffix), with m, and returns layer's S (1..L):
// k × the shard's documents. It is what each element of the pipeline runs,
// and what a single process runs to score the same shard.
func Shard(m *neuralnmf.Model, r io.Reader, name string, layer int) (*tensor.Dense, error) {
	x, err := files.DecodeMatrix(r, name)
	if err != nil {
		return nil, fmt.Errorf("%sscore: %w", files.InputError, err)
	}
	if err := matio.CheckNonnegative(name, x); err != nil {
		return nil, fmt.Errorf("%sscore: %w", files.InputError, err)
	}
	var out []*tensor.Dense
	if x.Sparse != nil {
		out, err = m.Transform(x.Sparse)
	} else {
		out, err = m.Transform(x.Dense)
	}
	if err != nil {
		return nil, fmt.Errorf("score: %s: %w", name, err)
	}
	if layer < 1 || layer > len(out) {
		return nil, fmt.Errorf("score: layer %d of a %d-layer model", layer, len(out))
	}
	return out[layer-1], nil
}

// readModel reads a model file through Beam's filesystems, and returns
// its bytes too.
func readModel(ctx context.Context, p string) (*neuralnmf.Model, []byte, error) {
	raw, err := files.Read(ctx, p)
	if err != nil {
		return nil, nil, fmt.Errorf("score: Model: %w", err)
	}
	m, err := neuralnmf.Read(bytes.NewReader(raw))
	if err != nil {
		return nil, nil, fmt.Errorf("score: Model %s: %w", p, err)
	}
	return m, raw, nil
}
