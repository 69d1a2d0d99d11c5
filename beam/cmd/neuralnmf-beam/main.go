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
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
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
		cancel()
		n := matio.RemoveTemporaries()
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

// subcommands are the commands, by name.
var subcommands = map[string]func(context.Context) error{
	"train":       runTrain,
	"score":       runScore,
	"worker-pool": runPool,
}

// ownFlags are the flags of this tool each command takes; Beam's own
// flags (its runner's) go to train and score.
var ownFlags = map[string][]string{
	"train":       {"shards", "ranks", "work", "o", "steps", "epochs", "seed", "workers", "local", "keep-work", "cpuprofile"},
	"score":       {"model", "shards", "out", "layer"},
	"worker-pool": {"addr"},
}

// runnerLog is the log of in-process Prism: warnings only, as they come
// (its job-by-job progress is noise on a command's terminal), and its
// errors held until the pipeline ends, then printed (flush) if the
// pipeline failed, or dropped (drop) if it failed because an element's
// input could not be used, which the command reports in one line.
type runnerLog struct {
	mu   sync.Mutex
	held bytes.Buffer
	now  slog.Handler // warnings, to stderr
	late slog.Handler // errors, into held
}

func newRunnerLog() *runnerLog {
	l := &runnerLog{now: slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})}
	l.late = slog.NewTextHandler(lockedWriter{l}, &slog.HandlerOptions{Level: slog.LevelError})
	return l
}

// lockedWriter appends to the held errors.
type lockedWriter struct{ l *runnerLog }

func (w lockedWriter) Write(p []byte) (int, error) {
	w.l.mu.Lock()
	defer w.l.mu.Unlock()
	if w.l.held.Len() > 1<<20 {
		return len(p), nil // enough to see what failed
	}
	return w.l.held.Write(p)
}

// flush prints the held errors; drop forgets them.
func (l *runnerLog) flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	os.Stderr.Write(l.held.Bytes())
	l.held.Reset()
}

func (l *runnerLog) drop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.held.Reset()
}

// logHandler routes records to a runnerLog.
type logHandler struct {
	l         *runnerLog
	now, late slog.Handler
}

func (h logHandler) Enabled(ctx context.Context, lv slog.Level) bool { return h.now.Enabled(ctx, lv) }

func (h logHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level >= slog.LevelError {
		return h.late.Handle(ctx, r)
	}
	return h.now.Handle(ctx, r)
}

func (h logHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return logHandler{h.l, h.now.WithAttrs(as), h.late.WithAttrs(as)}
}

func (h logHandler) WithGroup(name string) slog.Handler {
	return logHandler{h.l, h.now.WithGroup(name), h.late.WithGroup(name)}
}

// runnerLogs is the command's runnerLog (nil when --log_level was given:
// Beam's own log then).
var runnerLogs *runnerLog

// isOwnFlag reports whether name is a flag of this tool, not Beam's.
func isOwnFlag(name string) bool {
	for _, names := range ownFlags {
		if slices.Contains(names, name) {
			return true
		}
	}
	return false
}

// printUsage prints the commands and this tool's own flags (those of sub
// alone when sub is a command), and says where Beam's are.
func printUsage(w io.Writer, sub string) {
	fmt.Fprintln(w, usage)
	for _, c := range []string{"train", "score", "worker-pool"} {
		if sub != "" && sub != c {
			continue
		}
		fmt.Fprintf(w, "\n%s's flags:\n", c)
		for _, name := range ownFlags[c] {
			f := flag.Lookup(name)
			usage := f.Usage
			if i := strings.Index(usage, ": "); i >= 0 && !strings.Contains(usage[:i], " ") || strings.HasPrefix(usage, "score, train: ") {
				usage = usage[strings.Index(usage, ": ")+2:]
			}
			def := ""
			if f.DefValue != "" && f.DefValue != "0" && f.DefValue != "false" {
				def = fmt.Sprintf(" (default %s)", f.DefValue)
			}
			fmt.Fprintf(w, "  -%s\n    \t%s%s\n", name, usage, def)
		}
	}
	fmt.Fprintf(w, "\n%s\n", supportHelp)
	fmt.Fprintln(w, "\nBeam's own flags choose and configure the runner (--runner, --endpoint,\n--environment_type, --environment_config, Dataflow's --project, --region,\n--temp_location, ...): 'neuralnmf-beam help-runner' lists them all.\n\nExit codes: 0 success; 1 an input could not be used; 2 the command line\nis wrong; 3 a pipeline failed; 130 interrupted (run it again to resume).")
}

// supportHelp says what sharded training supports.
const supportHelp = `train fits the unsupervised reconstruction loss (the default of
'neuralnmf fit') by sharded mini-batch training: labels, -loss kl or
energy, penalties and data masks are not supported; use 'neuralnmf fit'
on one machine for them.`

// checkFlags refuses positional arguments (an unquoted glob the shell
// expanded) and flags of this tool that belong to another command, before
// any work.
func checkFlags(sub string) error {
	if flag.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected argument %q: quote a -shards glob ('docs/shard-*.mtx') so that the shell does not expand it, and give flags before nothing else", flag.Arg(0))}
	}
	mine := map[string]bool{}
	for _, f := range ownFlags[sub] {
		mine[f] = true
	}
	var err error
	flag.Visit(func(f *flag.Flag) {
		if mine[f.Name] || err != nil {
			return
		}
		for other, names := range ownFlags {
			if slices.Contains(names, f.Name) {
				err = usageError{fmt.Errorf("-%s is a flag of %s, not of %s", f.Name, other, sub)}
				return
			}
		}
	})
	return err
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
		score.Add(s, sopt, l)
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
	if err := checkModelOut(ctx, *modelOut, *work); err != nil {
		return err
	}
	if err := checkShards(ctx, paths, max(*steps, 0)); err != nil {
		return err
	}
	unlock, err := train.LockWork(ctx, *work)
	if err != nil {
		return err
	}
	defer unlock()
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

// checkModelOut checks train's -o before any work: it must not exist, nor
// lie inside the work directory (which the end empties), and a local one's
// directory must exist and take a new file.
func checkModelOut(ctx context.Context, p, work string) error {
	if ok, err := files.Exists(ctx, p); err != nil {
		return fmt.Errorf("-o: %w", err)
	} else if ok {
		return usageError{fmt.Errorf("-o: %s exists; give a new file", p)}
	}
	if !files.Local(p) {
		return nil
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return usageError{fmt.Errorf("-o %s: %w", p, err)}
	}
	if files.Local(work) {
		w, err := filepath.Abs(work)
		if err == nil && (abs == w || strings.HasPrefix(abs, w+string(filepath.Separator))) {
			return usageError{fmt.Errorf("-o %s is inside the work directory %s, which training empties: write the model elsewhere", p, work)}
		}
	}
	dir := filepath.Dir(abs)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return usageError{fmt.Errorf("-o %s: directory %s does not exist", p, filepath.Dir(p))}
	}
	probe, err := os.CreateTemp(dir, ".neuralnmf-beam-probe-*")
	if err != nil {
		return usageError{fmt.Errorf("-o %s: cannot write to %s: %v", p, filepath.Dir(p), err)}
	}
	probe.Close()
	os.Remove(probe.Name())
	return nil
}

// checkShards reads the shards' headers before any work: they must
// declare the same rows (features), and every shard at least one document
// a step (steps 0: the default).
func checkShards(ctx context.Context, paths []string, steps int) error {
	if steps == 0 {
		steps = train.DefaultSteps
	}
	rows0 := -1
	for _, p := range paths {
		if !strings.HasSuffix(p, ".mtx") && !strings.HasSuffix(p, ".mtx.gz") {
			return fmt.Errorf("-shards: %s: want .mtx or .mtx.gz files", p)
		}
		rows, cols, _, err := files.MatrixHeader(ctx, p)
		if err != nil {
			return fmt.Errorf("-shards: %w", err)
		}
		if rows0 < 0 {
			rows0 = rows
		} else if rows != rows0 {
			return fmt.Errorf("-shards: %s has %d rows (features), %s has %d: shards must share their features", p, rows, paths[0], rows0)
		}
		if cols < steps {
			return usageError{fmt.Errorf("-steps %d: shard %s has %d documents, and every step takes a slice of every shard: give -steps %d or fewer, or larger shards", steps, p, cols, cols)}
		}
	}
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
