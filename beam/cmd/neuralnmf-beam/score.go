package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/neuralnmf/neuralnmf/beam/internal/files"
	"github.com/neuralnmf/neuralnmf/beam/internal/sink"
	"github.com/neuralnmf/neuralnmf/beam/score"
)

func runScore(ctx context.Context) error {
	if *model == "" || *shards == "" || *out == "" {
		return usageError{errors.New("-model, -shards and -out are required")}
	}
	paths, err := expand(ctx, *shards)
	if err != nil {
		return err
	}
	opt := score.Options{Model: *model, Shards: paths, Out: *out, Layer: *layer}
	l, err := score.Check(ctx, opt)
	if err != nil {
		return err
	}
	if files.Local(*out) {
		if err := os.MkdirAll(*out, 0o755); err != nil {
			return err
		}
	}
	if err := cancelStopped(ctx, "score", *out); err != nil {
		return err
	}
	pending, err := score.Begin(ctx, opt, l)
	if err != nil {
		return err
	}
	// Beam's loopback environment leaves a file in the temporary directory
	// of every job: a local -out keeps them in a directory of the run's
	// own inside it, which a resumed run reuses and the end removes, even
	// after a killed run.
	tmp := ""
	if files.Local(*out) {
		tmp = filepath.Join(*out, ".neuralnmf-beam-score.tmp")
		if err := os.MkdirAll(tmp, 0o755); err != nil {
			return err
		}
		if err := os.Setenv("TMPDIR", tmp); err != nil {
			return err
		}
	} else {
		done, err := ownTempDir()
		if err != nil {
			return err
		}
		defer done()
	}
	if err := stageSelf(); err != nil {
		return err
	}
	if len(pending) > 0 {
		if len(pending) < len(paths) {
			fmt.Printf("resuming: %d of %d shards were scored by the interrupted run\n", len(paths)-len(pending), len(paths))
		}
		sopt := opt
		sopt.Shards = pending
		p, s := beam.NewPipelineWithRoot()
		sink.Drain(s, score.Add(s, sopt, l)) // Prism polls a core while a stage without outputs runs
		if err := run(ctx, p); err != nil {
			return err
		}
	}
	if err := score.End(ctx, opt); err != nil {
		return err
	}
	if tmp != "" {
		_ = os.RemoveAll(tmp)
	}
	fmt.Printf("scored %d shards into %s (layer %d)\n", len(paths), *out, l)
	return nil
}
