package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/neuralnmf/neuralnmf/beam/internal/files"
	"github.com/neuralnmf/neuralnmf/beam/vectorize"
	"github.com/neuralnmf/neuralnmf/internal/textflags"
	"github.com/neuralnmf/neuralnmf/text"
)

// textFlags are the vectoriser's flags, those of 'neuralnmf vectorize'.
var textFlags = textflags.Add(flag.CommandLine)

func runVectorize(ctx context.Context) error {
	if *docs == "" || *modelOut == "" {
		return usageError{errors.New("-docs and -o are required")}
	}
	o, err := textFlags.Options()
	if textflags.IsUsage(err) {
		return usageError{err}
	}
	if err != nil {
		return err
	}
	paths, err := expandFlag(ctx, "-docs", *docs)
	if err != nil {
		return err
	}
	opt := vectorize.Options{Docs: paths, Field: *field, Text: o, Out: *modelOut}
	if err := vectorize.Check(ctx, opt); err != nil {
		return usageError{err}
	}
	existed := true
	if files.Local(*modelOut) {
		_, err := os.Stat(strings.TrimPrefix(*modelOut, "file://"))
		existed = err == nil
	}
	if err := cancelStopped(ctx, "vectorize", *modelOut); err != nil {
		return err
	}
	if err := stageSelf(); err != nil {
		return err
	}
	pipelines := run
	if files.Local(*modelOut) { // Beam's temporary files inside -o (runIn)
		pipelines = runIn(strings.TrimPrefix(vectorize.TempDir(*modelOut), "file://"))
	}
	v, err := vectorize.Run(ctx, opt, pipelines)
	if err != nil && ctx.Err() == nil && !errors.As(err, new(pipelineError)) {
		// Refused for its input or options: it would fail again, so its
		// record must not hold -o for a resume.
		if aerr := vectorize.Abandon(ctx, opt); aerr == nil && !existed {
			_ = os.Remove(strings.TrimPrefix(*modelOut, "file://")) // only if empty
		}
	}
	if errors.Is(err, text.ErrNoWords) || errors.Is(err, text.ErrNoDocuments) {
		return fmt.Errorf("-docs %s: %w", *docs, err)
	}
	if u := textflags.CrossedBounds(err); u != nil {
		return usageError{u}
	}
	if err != nil {
		return err
	}
	last := vectorize.ShardName(len(paths)-1, len(paths))
	fmt.Printf("%d documents × %d words in %d shards: wrote %s … %s, %s and %s in %s\n",
		v.Docs, len(v.Vocab), len(paths), vectorize.ShardName(0, len(paths)), last, vectorize.VocabName, vectorize.VectorizerName, *modelOut)
	glob := files.Join(*modelOut, "docs-*.mtx.gz")
	fmt.Printf("next: neuralnmf-beam train -shards '%s' -vectorizer %s -ranks 20,5 -work WORK -o model.nnmf\n",
		glob, files.Join(*modelOut, vectorize.VectorizerName))
	return nil
}

// vectorizeHelp says what vectorize writes.
var vectorizeHelp = strings.TrimSpace(`
vectorize writes one TF-IDF matrix per document file (in name order), the
vocabulary and IDF fitted over all: 'neuralnmf vectorize' of the files
joined, cut at their boundaries, the same floats; -o also gets vocab.txt
and vectorizer.json (for train -vectorizer).`)
