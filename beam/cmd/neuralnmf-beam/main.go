// Command neuralnmf-beam runs Neural NMF work on Apache Beam, so that it
// scales past one machine on an existing engine (Flink, Spark, Google Cloud
// Dataflow) and runs here on Beam's Prism runner.
//
//	neuralnmf-beam vectorize -docs 'posts/part-*.jsonl' -o docs/ [-stopwords english] [-min-df 5] [vectorize's flags] [Beam flags]
//	neuralnmf-beam train -shards 'docs/shard-*.mtx' -ranks 20,5 -work w/ -o m.nnmf [-vectorizer docs/vectorizer.json] [-steps 16] [-epochs 5] [-seed 0] [-local] [Beam flags]
//	neuralnmf-beam score -model m.nnmf -shards 'docs/shard-*.mtx' -out scores/ [-layer L] [Beam flags]
//	neuralnmf-beam worker-pool -addr 127.0.0.1:50000
//
// vectorize turns document files (JSON Lines or CSV, optionally .gz) into
// TF-IDF shards (package vectorize): the vocabulary and IDF are fitted from
// word counts combined over all files, then each file becomes one
// docs-NNNNN.mtx.gz in -o, with vocab.txt and vectorizer.json: the
// matrix `neuralnmf vectorize` makes of the concatenated documents, cut at
// the files' boundaries, the same floats. Its flags are neuralnmf
// vectorize's.
//
// train trains a model on shard files (features × documents, .mtx or
// .mtx.gz, the same features in every shard) by sharded mini-batch
// training (package train): -steps steps a pass, a pass one pipeline whose
// steps' elements are the shards, checkpointed into -work after every
// step. Run the same command again after a failure and it resumes from the
// last step. -vectorizer keeps the shards' vectoriser in the model, so that
// topics and transform -text read words. The model is written to -o,
// which must not exist; the work directory, which must be new, empty or a
// run of the same command, is emptied at the end unless -keep-work. -local runs the same stages in
// this process without a Beam runner: the same model, bit for bit.
//
// score transforms every shard file with a model from `neuralnmf fit` or
// train and writes each shard's S of one layer as <shard>.S<layer>.mtx in
// -out, which must not hold those files yet: the same values, bit for
// bit, as `neuralnmf transform` of the shard in one process (package
// score). While it runs, -out also holds its record
// (.neuralnmf-beam-score.json) and a directory of its temporary files
// (.neuralnmf-beam-score.tmp): run the same command again after an
// interruption and it scores only the shards left; the end removes both.
//
// worker-pool serves Beam's external worker pool (--environment_type
// EXTERNAL --environment_config ADDR): every worker a runner asks for runs
// as a new process of this binary (package workerpool), until interrupted.
//
// Both check what they can before any pipeline: the flags (an unquoted
// glob the shell expanded, another command's flag), the shards' headers
// (the same rows, the model's rows for score, a document a step for
// train) and -o. train locks a local -work against a second driver. No
// command removes, renames or changes a file it did not create: outputs
// are written whole (a local one under a temporary name of its own, see
// matio.WriteAtomic); after Ctrl-C or SIGTERM (exit 130) the temporary
// files of this process are removed and the same command resumes.
//
// Paths go through Beam's filesystems: local paths and gs:// work alike.
// Beam's own flags choose the runner: the default is Prism in-process
// (--runner=prism); a Prism or Flink job server takes --runner=universal
// --endpoint=HOST:PORT, with --environment_type=LOOPBACK for workers in
// this process or EXTERNAL with a worker pool; `neuralnmf-beam
// help-runner` lists Beam's flags. In-process Prism logs its warnings, and
// its errors only if a pipeline fails (--log_level gives Beam's own log).
// Exit codes: 0 success; 1 an input could not be used; 2 the command line
// is wrong; 3 a pipeline failed; 130 interrupted.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/gcs"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/options/jobopts"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	"github.com/neuralnmf/neuralnmf/beam/internal/files"
	"github.com/neuralnmf/neuralnmf/beam/train"
	"github.com/neuralnmf/neuralnmf/beam/workerpool"
	"github.com/neuralnmf/neuralnmf/matio"
	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
)

// The flags of every subcommand share Beam's flag set (its runner flags
// are global); usage says which belong to which.
var (
	model    = flag.String("model", "", "score: model file from 'neuralnmf fit' or train (required)")
	shards   = flag.String("shards", "", "score, train: shard files, a glob such as 'docs/shard-*.mtx' (required)")
	out      = flag.String("out", "", "score: output directory; a local one is created if missing (required)")
	layer    = flag.Int("layer", 0, "score: layer whose S to write, 1..L (0: the last)")
	work     = flag.String("work", "", "train: work directory for slices and checkpoints: new, empty, or a run of the same command to resume (required)")
	modelOut = flag.String("o", "", "train: model file to write; must not exist (required)")
	ranks    = flag.String("ranks", "", "train: ranks of the layers, such as 20,5 (required)")
	steps    = flag.Int("steps", 0, fmt.Sprintf("train: steps a pass (0: %d)", train.DefaultSteps))
	epochs   = flag.Int("epochs", 0, fmt.Sprintf("train: passes at most (0: %d, fewer if the loss stops falling)", neuralnmf.DefaultBatchEpochs))
	seed     = flag.Uint64("seed", 0, "train: random seed")
	workers  = flag.Int("workers", 0, "train: goroutines per shard's share (0: all cores)")
	local    = flag.Bool("local", false, "train: run the stages in this process, without a Beam runner")
	keepWork = flag.Bool("keep-work", false, "train: keep the work directory's files (slices, final checkpoint) after success")
	addr     = flag.String("addr", "127.0.0.1:50000", "worker-pool: address to listen on")
	docs     = flag.String("docs", "", "vectorize: document files, a glob such as 'posts/part-*.jsonl.gz': JSON Lines or CSV, optionally .gz (required)")
	field    = flag.String("field", "text", "vectorize: the JSON member or CSV column holding the text")
	vecIn    = flag.String("vectorizer", "", "train: the vectoriser of the shards (vectorizer.json of neuralnmf-beam vectorize), kept in the model so that topics shows words")
	cpuProf  = flag.String("cpuprofile", "", "train: write a CPU profile of the driver's process (workers in it with in-process Prism or LOOPBACK) to this file")
)

// usageError is a wrong command line (exit code 2).
type usageError struct{ error }

// pipelineError is a failed pipeline (exit code 3).
type pipelineError struct{ error }

const usage = `Usage:
  neuralnmf-beam vectorize -docs 'glob' -o dir [-field text] [-stopwords english] [-min-df N] [-max-df F] [vectorize's flags] [Beam flags]
  neuralnmf-beam train -shards 'glob' -ranks 20,5 -work dir -o model.nnmf [-vectorizer vec.json] [-steps S] [-epochs E] [-seed N] [-local] [Beam flags]
  neuralnmf-beam score -model m.nnmf -shards 'glob' -out dir [-layer L] [Beam flags]
  neuralnmf-beam worker-pool [-addr host:port]`

func main() {
	sub := ""
	if len(os.Args) > 1 && !strings.HasPrefix(os.Args[1], "-") {
		sub = os.Args[1]
		os.Args = append(os.Args[:1], os.Args[2:]...)
	}
	flag.Usage = func() { printUsage(flag.CommandLine.Output(), sub) }
	if sub == "help-runner" {
		fmt.Println("Beam's own flags, for the runner (--runner, --endpoint, --environment_type, --environment_config, and Dataflow's):")
		flag.VisitAll(func(f *flag.Flag) {
			if !isOwnFlag(f.Name) {
				fmt.Printf("  -%s\n    \t%s\n", f.Name, strings.ReplaceAll(f.Usage, "\n", "\n    \t"))
			}
		})
		return
	}
	flag.Parse()
	beam.Init() // a worker process the runner starts from this binary runs here and exits
	logSet := false
	flag.Visit(func(f *flag.Flag) { logSet = logSet || f.Name == "log_level" })
	if !logSet {
		runnerLogs = newRunnerLog()
		slog.SetDefault(slog.New(logHandler{runnerLogs, runnerLogs.now, runnerLogs.late}))
	}
	run, ok := subcommands[sub]
	if !ok {
		if sub != "" {
			fmt.Fprintf(os.Stderr, "neuralnmf-beam: unknown command %q\n\n", sub)
		}
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	interrupted := make(chan os.Signal, 1)
	signal.Notify(interrupted, os.Interrupt, syscall.SIGTERM)
	go func() {
		s := <-interrupted
		// Stop the pipeline, remove the temporary files of this process's
		// writes (nothing else), and exit: a run started again resumes.
		if runnerLogs != nil {
			runnerLogs.silence()
		}
		cancel()
		n := matio.RemoveTemporaries()
		stop, done := context.WithTimeout(context.Background(), 10*time.Second)
		said, err := cancelRunJobs(stop, 5*time.Second)
		done()
		for _, l := range said {
			fmt.Fprintln(os.Stderr, l)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "neuralnmf-beam %s: %v\n", sub, err)
		}
		fmt.Fprintf(os.Stderr, "neuralnmf-beam %s: %v: stopped (removed %d temporary file(s) of this run); run the same command again to resume\n", sub, s, n)
		time.Sleep(200 * time.Millisecond) // let a cancelled job server hear of it
		os.Exit(130)
	}()
	err := checkFlags(sub)
	if err == nil {
		err = run(ctx)
	}
	if err != nil {
		if ctx.Err() != nil {
			select {} // interrupted: the handler above exits
		}
		fmt.Fprintf(os.Stderr, "neuralnmf-beam %s: %v\n", sub, err)
		var u usageError
		var p pipelineError
		switch {
		case errors.As(err, &u):
			os.Exit(2)
		case errors.As(err, &p):
			os.Exit(3)
		default:
			os.Exit(1)
		}
	}
}

// ownTempDir points TMPDIR at a new directory, removed by the returned
// function: Beam's loopback environment leaves an empty file in the
// temporary directory of every job.
func ownTempDir() (func(), error) {
	tmp, err := os.MkdirTemp("", "neuralnmf-beam-")
	if err != nil {
		return nil, err
	}
	if err := os.Setenv("TMPDIR", tmp); err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	return func() { os.RemoveAll(tmp) }, nil
}

// runIn is run with TMPDIR pointed at tmp, made on the first pipeline
// (by then the folder it lies in is the run's): Beam's loopback
// environment leaves a file in the temporary directory of every job, and
// a folder of the run's own keeps them where a resumed run reuses them and
// the end removes them, even after a killed run.
func runIn(tmp string) func(context.Context, *beam.Pipeline) error {
	return func(ctx context.Context, p *beam.Pipeline) error {
		if os.Getenv("TMPDIR") != tmp {
			if err := os.MkdirAll(tmp, 0o755); err != nil {
				return err
			}
			if err := os.Setenv("TMPDIR", tmp); err != nil {
				return err
			}
		}
		return run(ctx, p)
	}
}

// run runs a pipeline on the runner Beam's flags name.
func run(ctx context.Context, p *beam.Pipeline) error {
	nameJob()
	err := beamx.Run(ctx, p)
	if runnerLogs != nil {
		if err != nil && !strings.Contains(err.Error(), files.InputError) && ctx.Err() == nil {
			runnerLogs.flush()
		} else {
			runnerLogs.drop()
		}
	}
	if err != nil {
		if msg := err.Error(); strings.Contains(msg, files.InputError) {
			// An element's input could not be used: say that, not the
			// runner's account of the failed stage.
			line := msg[strings.Index(msg, files.InputError)+len(files.InputError):]
			if i := strings.IndexAny(line, "\n\t"); i >= 0 {
				line = line[:i]
			}
			return errors.New(strings.TrimRight(line, "\"' "))
		}
		if cause := ownCause(err.Error()); cause != "" {
			// The cause first (a full disk, a permission), then the
			// runner's account of the failed stage.
			return pipelineError{fmt.Errorf("%s\n\npipeline: %w", cause, err)}
		}
		return pipelineError{fmt.Errorf("pipeline: %w", err)}
	}
	return nil
}

// ownCause returns the first line of a runner's error that this program's
// pipeline code wrote (its errors start with the package's name, such as
// "vectorize: writing …: no space left on device"), or "".
func ownCause(msg string) string {
	best := -1
	for _, pre := range []string{"vectorize: ", "train: ", "score: "} {
		if i := strings.Index(msg, pre); i >= 0 && (best < 0 || i < best) {
			best = i
		}
	}
	if best < 0 {
		return ""
	}
	line := msg[best:]
	if i := strings.IndexAny(line, "\n\t"); i >= 0 {
		line = line[:i]
	}
	return strings.TrimRight(line, "\"' ")
}

// stageSelf names this binary as the worker binary wherever workers run
// outside this process, unless --worker_binary is given: without it Beam
// would compile the program for every pipeline (a few minutes each), and
// with EXTERNAL workers and no Go toolchain it fails. Workers run in this
// process with LOOPBACK, and with the in-process runners (Prism, direct)
// when no environment is named; everywhere else (Dataflow's DOCKER
// default, EXTERNAL, PROCESS) they run the staged binary, which must be
// built for linux/amd64, so another platform's build leaves the choice to
// Beam (docs/beam.md).
func stageSelf() error {
	if *jobopts.WorkerBinary != "" || !stagesSelf(*runners.Runner, *jobopts.EnvironmentType, runtime.GOOS, runtime.GOARCH) {
		return nil
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	return flag.Set("worker_binary", exe)
}

// stagesSelf reports whether stageSelf names this binary for the runner
// and environment flags, on a build for goos/goarch.
func stagesSelf(runner, env, goos, goarch string) bool {
	if goos != "linux" || goarch != "amd64" {
		return false
	}
	switch strings.ToUpper(env) {
	case "LOOPBACK":
		return false
	case "":
		switch strings.ToLower(runner) {
		case "", "prism", "direct":
			return false
		}
	}
	return true
}

func runPool(ctx context.Context) error {
	p, err := workerpool.New(*addr, "", os.Stderr)
	if err != nil {
		return err
	}
	fmt.Printf("worker pool listening on %s\n", p.Addr())
	errc := make(chan error, 1)
	go func() { errc <- p.Serve() }()
	select {
	case <-ctx.Done():
		p.Stop()
		return nil
	case err := <-errc:
		p.Stop()
		return err
	}
}

// expand lists the files that the -shards glob matches, sorted.
func expand(ctx context.Context, glob string) ([]string, error) {
	return expandFlag(ctx, "-shards", glob)
}

// expandFlag lists the files that glob, the value of flag, matches, sorted.
func expandFlag(ctx context.Context, flag, glob string) ([]string, error) {
	fs, err := filesystem.New(ctx, glob)
	if err != nil {
		return nil, usageError{fmt.Errorf("%s: %w", flag, err)}
	}
	defer fs.Close()
	paths, err := fs.List(ctx, glob)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("%s: no file matches %s", flag, glob)
	}
	sort.Strings(paths)
	return paths, nil
}
