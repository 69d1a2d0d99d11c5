// Command neuralnmf-beam runs Neural NMF work on Apache Beam, so that it
// scales past one machine on an existing engine (Flink, Spark, Google Cloud
// Dataflow) and runs here on Beam's Prism runner.
//
//	neuralnmf-beam train -shards 'docs/shard-*.mtx' -ranks 20,5 -work w/ -o m.nnmf [-steps 16] [-epochs 5] [-seed 0] [-local] [Beam flags]
//	neuralnmf-beam score -model m.nnmf -shards 'docs/shard-*.mtx' -out scores/ [-layer L] [Beam flags]
//	neuralnmf-beam worker-pool -addr 127.0.0.1:50000
//
// train trains a model on shard files (features × documents, .mtx or
// .mtx.gz, the same features in every shard) by sharded mini-batch
// training (package train): -steps steps a pass, each a pipeline whose
// elements are the shards, checkpointed into -work after every step. Run
// the same command again after a failure and it resumes from the last
// step. The model is written to -o, which must not exist; the work
// directory, which must be new, empty or a run of the same command, is
// emptied at the end unless -keep-work. -local runs the same stages in
// this process without a Beam runner: the same model, bit for bit.
//
// score transforms every shard file with a model from `neuralnmf fit` or
// train and writes each shard's S of one layer as <shard>.S<layer>.mtx in
// -out, which must not hold those files yet: the same values, bit for
// bit, as `neuralnmf transform` of the shard in one process (package
// score).
//
// worker-pool serves Beam's external worker pool (--environment_type
// EXTERNAL --environment_config ADDR): every worker a runner asks for runs
// as a new process of this binary (package workerpool), until interrupted.
//
// Paths go through Beam's filesystems: local paths and gs:// work alike.
// Beam's own flags choose the runner: the default is Prism in-process
// (--runner=prism); a Prism or Flink job server takes --runner=universal
// --endpoint=HOST:PORT, with --environment_type=LOOPBACK for workers in
// this process or EXTERNAL with a worker pool. Exit codes: 0 success; 1 an
// input could not be used; 2 the command line is wrong; 3 a pipeline
// failed.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/gcs"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/options/jobopts"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	"github.com/neuralnmf/neuralnmf/beam/internal/files"
	"github.com/neuralnmf/neuralnmf/beam/score"
	"github.com/neuralnmf/neuralnmf/beam/train"
	"github.com/neuralnmf/neuralnmf/beam/workerpool"
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
	cpuProf  = flag.String("cpuprofile", "", "train: write a CPU profile of the driver's process (workers in it with in-process Prism or LOOPBACK) to this file")
)

// usageError is a wrong command line (exit code 2).
type usageError struct{ error }

// pipelineError is a failed pipeline (exit code 3).
type pipelineError struct{ error }

const usage = `Usage:
  neuralnmf-beam train -shards 'glob' -ranks 20,5 -work dir -o model.nnmf [-steps S] [-epochs E] [-seed N] [-local] [Beam flags]
  neuralnmf-beam score -model m.nnmf -shards 'glob' -out dir [-layer L] [Beam flags]
  neuralnmf-beam worker-pool [-addr host:port]`

func main() {
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), usage)
		flag.PrintDefaults()
	}
	sub := ""
	if len(os.Args) > 1 && !strings.HasPrefix(os.Args[1], "-") {
		sub = os.Args[1]
		os.Args = append(os.Args[:1], os.Args[2:]...)
	}
	flag.Parse()
	beam.Init() // a worker process the runner starts from this binary runs here and exits
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	switch sub {
	case "score":
		err = runScore(ctx)
	case "train":
		err = runTrain(ctx)
	case "worker-pool":
		err = runPool(ctx)
	default:
		flag.Usage()
		os.Exit(2)
	}
	if err != nil {
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

// run runs a pipeline on the runner Beam's flags name.
func run(ctx context.Context, p *beam.Pipeline) error {
	if err := beamx.Run(ctx, p); err != nil {
		return pipelineError{fmt.Errorf("pipeline: %w", err)}
	}
	return nil
}

func runScore(ctx context.Context) error {
	if *model == "" || *shards == "" || *out == "" {
		return usageError{errors.New("-model, -shards and -out are required")}
	}
	paths, err := expand(ctx, *shards)
	if err != nil {
		return err
	}
	if !strings.Contains(*out, "://") {
		if err := os.MkdirAll(*out, 0o755); err != nil {
			return err
		}
	}
	opt := score.Options{Model: *model, Shards: paths, Out: *out, Layer: *layer}
	l, err := score.Check(ctx, opt)
	if err != nil {
		return err
	}
	done, err := ownTempDir()
	if err != nil {
		return err
	}
	defer done()
	p, s := beam.NewPipelineWithRoot()
	score.Add(s, opt, l)
	if err := run(ctx, p); err != nil {
		return err
	}
	fmt.Printf("scored %d shards into %s (layer %d)\n", len(paths), *out, l)
	return nil
}

func runTrain(ctx context.Context) error {
	if *shards == "" || *work == "" || *modelOut == "" || *ranks == "" {
		return usageError{errors.New("-shards, -ranks, -work and -o are required")}
	}
	rs, err := parseRanks(*ranks)
	if err != nil {
		return usageError{err}
	}
	if *steps < 0 || *epochs < 0 || *workers < 0 {
		return usageError{errors.New("-steps, -epochs and -workers must not be negative")}
	}
	paths, err := expand(ctx, *shards)
	if err != nil {
		return err
	}
	if ok, err := files.Exists(ctx, *modelOut); err != nil {
		return fmt.Errorf("-o: %w", err)
	} else if ok {
		return fmt.Errorf("-o: %s exists; give a new file", *modelOut)
	}
	var eng train.Engine = train.Local{}
	// Beam's loopback environment leaves a file in the temporary directory
	// of every job: the runs of a local work directory keep them in its
	// tmp/, which a resumed run reuses and the end removes, even after a
	// killed run.
	tmp := ""
	if !*local {
		if err := stageSelf(); err != nil {
			return err
		}
		if strings.Contains(*work, "://") {
			done, err := ownTempDir()
			if err != nil {
				return err
			}
			defer done()
		} else {
			tmp = train.TempDir(*work)
		}
		eng = train.Beam{Run: func(ctx context.Context, p *beam.Pipeline) error {
			if tmp != "" && os.Getenv("TMPDIR") != tmp { // the work directory is the run's by now
				if err := os.MkdirAll(tmp, 0o755); err != nil {
					return err
				}
				if err := os.Setenv("TMPDIR", tmp); err != nil {
					return err
				}
			}
			return run(ctx, p)
		}}
	}
	opt := train.Options{Shards: paths, Work: *work, Steps: *steps, Workers: *workers,
		Config: neuralnmf.Config{Ranks: rs, Epochs: *epochs, Seed: *seed}}
	var passTime time.Duration
	opt.Progress = func(p train.Progress) {
		passTime += p.Elapsed
		line := fmt.Sprintf("pass %d, step %d/%d: %.2f s", p.Pass, p.Step, p.Steps, p.Elapsed.Seconds())
		if p.Step == p.Steps {
			line += fmt.Sprintf("; the pass's relative error %.6f; the pass's steps took %.1f s", p.RelError, passTime.Seconds())
			passTime = 0
		}
		fmt.Println(line)
	}
	if *cpuProf != "" {
		f, err := os.Create(*cpuProf)
		if err != nil {
			return fmt.Errorf("-cpuprofile: %w", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("-cpuprofile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	t0 := time.Now()
	m, err := train.Train(ctx, opt, eng)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := m.Write(&b); err != nil {
		return err
	}
	if err := files.WriteWhole(ctx, *modelOut, b.Bytes()); err != nil {
		return fmt.Errorf("-o: %w", err)
	}
	if tmp != "" {
		_ = os.RemoveAll(tmp)
	}
	if !*keepWork {
		if err := train.Clean(ctx, *work); err != nil {
			return err
		}
		if !strings.Contains(*work, "://") {
			_ = os.Remove(*work) // only if empty: the run may have been given an existing directory
		}
	}
	h := m.History
	fmt.Printf("trained %d shards in %d passes (%s) in %.1f s; relative error %.6f; wrote %s\n",
		len(paths), len(h.Loss), h.Stopped, time.Since(t0).Seconds(), h.FinalRelError, *modelOut)
	return nil
}

// stageSelf names this binary as the worker binary of a non-loopback
// environment, unless --worker_binary is given: without it Beam would
// compile the program for every pipeline (a few minutes each).
func stageSelf() error {
	switch strings.ToUpper(*jobopts.EnvironmentType) {
	case "", "LOOPBACK":
		return nil
	}
	if *jobopts.WorkerBinary != "" {
		return nil
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	return flag.Set("worker_binary", exe)
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

func parseRanks(s string) ([]int, error) {
	var rs []int
	for _, f := range strings.Split(s, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || k < 1 {
			return nil, fmt.Errorf("-ranks %q: want positive integers separated by commas, such as 20,5", s)
		}
		rs = append(rs, k)
	}
	return rs, nil
}

// expand lists the files that glob matches, sorted.
func expand(ctx context.Context, glob string) ([]string, error) {
	fs, err := filesystem.New(ctx, glob)
	if err != nil {
		return nil, usageError{fmt.Errorf("-shards: %w", err)}
	}
	defer fs.Close()
	paths, err := fs.List(ctx, glob)
	if err != nil {
		return nil, fmt.Errorf("-shards: %w", err)
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("-shards: no file matches %s", glob)
	}
	sort.Strings(paths)
	return paths, nil
}
