// Command neuralnmf-beam runs Neural NMF work on Apache Beam, so that it
// scales past one machine on an existing engine (Flink, Spark, Google Cloud
// Dataflow) and runs here on Beam's Prism runner.
//
//	neuralnmf-beam score -model m.nnmf -shards 'docs/shard-*.mtx' -out scores/ [-layer L] [Beam flags]
//
// score transforms every shard file (features × documents, .mtx or
// .mtx.gz) with a model from `neuralnmf fit` and writes each shard's S of
// one layer as <shard>.S<layer>.mtx in -out, which must not hold those
// files yet: the same values, bit for bit, as `neuralnmf transform` of the
// shard in one process (package score). Paths go through Beam's
// filesystems: local paths and gs:// work alike.
//
// Beam's own flags choose the runner: the default is Prism in-process
// (--runner=prism); a Prism or Flink job server takes --runner=universal
// --endpoint=HOST:PORT (with --environment_type=LOOPBACK for workers in this
// process). Exit codes: 0 success; 1 an input could not be used; 2 the
// command line is wrong; 3 the pipeline failed.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/gcs"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	"github.com/neuralnmf/neuralnmf/beam/score"
)

var (
	model  = flag.String("model", "", "model file from 'neuralnmf fit' (required)")
	shards = flag.String("shards", "", "shard files to score, a glob such as 'docs/shard-*.mtx' (required)")
	out    = flag.String("out", "", "output directory; a local one is created if missing (required)")
	layer  = flag.Int("layer", 0, "layer whose S to write, 1..L (0: the last)")
)

// usageError is a wrong command line (exit code 2).
type usageError struct{ error }

func main() {
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "Usage: neuralnmf-beam score -model m.nnmf -shards 'glob' -out dir [-layer L] [Beam flags]")
		flag.PrintDefaults()
	}
	sub := ""
	if len(os.Args) > 1 && !strings.HasPrefix(os.Args[1], "-") {
		sub = os.Args[1]
		os.Args = append(os.Args[:1], os.Args[2:]...)
	}
	flag.Parse()
	beam.Init() // a worker process the runner starts from this binary runs here and exits
	if sub != "score" {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "neuralnmf-beam score:", err)
		var u usageError
		switch {
		case errors.As(err, &u):
			os.Exit(2)
		case strings.Contains(err.Error(), "pipeline"):
			os.Exit(3)
		default:
			os.Exit(1)
		}
	}
}

func run(ctx context.Context) error {
	if *model == "" || *shards == "" || *out == "" {
		return usageError{errors.New("-model, -shards and -out are required")}
	}
	files, err := expand(ctx, *shards)
	if err != nil {
		return err
	}
	if !strings.Contains(*out, "://") {
		if err := os.MkdirAll(*out, 0o755); err != nil {
			return err
		}
	}
	opt := score.Options{Model: *model, Shards: files, Out: *out, Layer: *layer}
	l, err := score.Check(ctx, opt)
	if err != nil {
		return err
	}
	// Beam's loopback environment leaves an empty file in the temporary
	// directory of every job: give it one of ours, removed at the end.
	tmp, err := os.MkdirTemp("", "neuralnmf-beam-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := os.Setenv("TMPDIR", tmp); err != nil {
		return err
	}
	p, s := beam.NewPipelineWithRoot()
	score.Add(s, opt, l)
	if err := beamx.Run(ctx, p); err != nil {
		return fmt.Errorf("pipeline: %w", err)
	}
	fmt.Printf("scored %d shards into %s (layer %d)\n", len(files), *out, l)
	return nil
}

// expand lists the files that glob matches, sorted.
func expand(ctx context.Context, glob string) ([]string, error) {
	fs, err := filesystem.New(ctx, glob)
	if err != nil {
		return nil, usageError{fmt.Errorf("-shards: %w", err)}
	}
	defer fs.Close()
	files, err := fs.List(ctx, glob)
	if err != nil {
		return nil, fmt.Errorf("-shards: %w", err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("-shards: no file matches %s", glob)
	}
	sort.Strings(files)
	return files, nil
}
