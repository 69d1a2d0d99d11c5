// Command neuralnmf runs hierarchical nonnegative matrix factorisation.
//
// Usage:
//
//	neuralnmf <command> [flags]
//
// Commands:
//
//	demo        run the built-in example on the paper's embedded synthetic data
//	vectorize   turn documents into a TF-IDF matrix as scikit-learn does
//	fit         train a Neural NMF model on a matrix or on documents and save it
//	transform   run new columns through a saved model
//	predict     predict (and score) the classes of new columns with a supervised model
//	topics      print the top words of each topic at each layer (text, csv or json)
//	heatmap     draw a matrix of a model (A1, S2, B, ...) as a PNG
//	export      write a matrix of a model (A1, S2, B, ...) as .csv or .mtx
//	report      write a model as one self-contained HTML page
//	experiment  run a paper experiment on its data (20news)
//
// Run "neuralnmf <command> --help" for a command's flags.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/neuralnmf/neuralnmf/internal/cpuprofile"
	"github.com/neuralnmf/neuralnmf/matio"
	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/text"
)

func main() {
	os.Exit(runMain(os.Args[1:]))
}

// runMain runs the command line with the process's streams. If the process
// is interrupted (SIGINT or SIGTERM; exit code 130) it removes the
// temporary files this process created for outputs not yet complete
// (matio.RemoveTemporaries) and nothing else: an output is never left
// half-written, and a file this process did not create is never touched.
// SIGKILL cannot be caught; see matio's "Temporary files" for what it can
// leave.
func runMain(args []string) int {
	var prof *cpuprofile.Profile
	if p := os.Getenv("NEURALNMF_CPUPROFILE"); p != "" { // for development: docs/development.md
		var err error
		if prof, err = cpuprofile.Start("NEURALNMF_CPUPROFILE", p); err != nil {
			fmt.Fprintf(os.Stderr, "neuralnmf: %v\n", err)
			return exitUsage
		}
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		s := <-sig
		n := matio.RemoveTemporaries()
		fmt.Fprintf(os.Stderr, "neuralnmf: %v: stopped; an output not yet complete was not written (removed %d temporary file(s) of this run)\n", s, n)
		os.Exit(130)
	}()
	code := run(args, os.Stdout, os.Stderr)
	if prof != nil {
		if err := prof.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "neuralnmf: %v\n", err)
			if code == 0 {
				code = exitData
			}
		}
	}
	return code
}

type command struct {
	name, summary string
	run           func(args []string, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{"demo", "run the built-in example on the paper's embedded synthetic data", runDemo},
		{"vectorize", "turn documents into a TF-IDF matrix as scikit-learn does", runVectorize},
		{"fit", "train a Neural NMF model on a matrix file or on documents and save it", runFit},
		{"transform", "run new columns through a saved model", runTransform},
		{"predict", "predict (and with labels, score) the classes of new columns with a supervised model", runPredict},
		{"topics", "print the top words of each topic at each layer (text, csv or json)", runTopics},
		{"quality", "measure every layer's topics on documents: NPMI coherence, diversity, parent share", runQuality},
		{"explore", "write a self-contained HTML page to move through the topics, their words and documents", runExplore},
		{"heatmap", "draw a matrix of a model (A1, S2, B, ...) as a PNG", runHeatmap},
		{"export", "write a matrix of a model (A1, S2, B, ...) as .csv or .mtx", runExport},
		{"convert", "sort a Matrix Market file by column (external sort) so that fit -batch-size streams it", runConvert},
		{"report", "write a model as one self-contained HTML page: topic tree, words, heatmaps, curve", runReport},
		{"experiment", "run a paper experiment on its data (20news)", runExperiment},
	}
}

// Exit codes, the same for every command (and listed by --help):
//
//	0  success (and --help)
//	1  the input could not be used: a file is missing, unreadable,
//	   malformed or holds values the method cannot take
//	2  the command line is wrong: an unknown flag or value, a missing
//	   required flag, an output path that is an input or cannot be written,
//	   or a setting the data cannot take (a rank above the rows, ...)
//	3  an internal failure: a bug; the message asks for a report
const (
	exitData     = 1
	exitUsage    = 2
	exitInternal = 3
)

const exitCodesHelp = `Exit codes: 0 success; 1 an input file could not be used (missing,
unreadable, malformed, or values the method cannot take); 2 the command
line is wrong (flags, output path, or a setting the data cannot take);
3 internal failure (a bug: please report it).`

// run executes the command line args and returns the exit code (see
// exitData, exitUsage, exitInternal).
func run(args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "neuralnmf: internal error: %v\nThis is a bug; please report it with the command line that caused it.\n", r)
			code = exitInternal
		}
	}()
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range commands() {
		if c.name == args[0] {
			err := c.run(args[1:], stdout, stderr)
			switch {
			case err == nil:
				return 0
			case errors.Is(err, flag.ErrHelp):
				return 0
			case errors.Is(err, neuralnmf.ErrConfig):
				fmt.Fprintf(stderr, "neuralnmf %s: %s\n", c.name, flagTerms(err.Error()))
				return exitUsage
			case errors.As(err, new(usageError)):
				fmt.Fprintf(stderr, "neuralnmf %s: %v\n", c.name, err)
				return exitUsage
			default:
				fmt.Fprintf(stderr, "neuralnmf %s: %v%s\n", c.name, err, hint(err))
				return exitData
			}
		}
	}
	fmt.Fprintf(stderr, "neuralnmf: unknown command %q\n\n", args[0])
	usage(stderr)
	return 2
}

// configFlags are the library's names of configuration fields with the
// flags that set them, longest first.
var configFlags = strings.NewReplacer("Ranks: ", "-ranks: ", "(features) of X", "(features) of the data", "(samples) of X", "(samples) of the data", "Init RandomInit", "-init random", "which Init ", "which -init ",
	"Supervision.Lambda", "-lambda", "Supervision.Balance", "-balance", "Supervision.Classifier", "-classifier",
	"Loss KL does not support Supervision", "-loss kl does not support labels (-labels, -label-field)",
	"Loss KL does not support", "-loss kl does not support",
	"InitRestarts", "-init-restarts", "InitIters", "-init-iters", "BatchSize", "-batch-size", "BatchUpdate", "-batch-update",
	"AlphaS", "-alpha-s", "AlphaA", "-alpha-a", "L1Ratio", "-l1-ratio", "DataMask", "-data-mask", "Algorithm1", "-algorithm1",
	"Restarts", "-restarts", "Epochs", "-epochs", "Window", "-window", "HoldOut", "-hold-out", "Folds", "-folds",
	"Patience", "-patience", "Kinds", "-candidates", "Forget", "-forget", "Tol", "-tol", "LR", "-lr",
	"semisup: TrainChoosing: invalid configuration: ", "", "neuralnmf: invalid configuration: ", "")

// flagTerms rewrites a message of the library's about its configuration
// in the flags' terms.
func flagTerms(msg string) string { return configFlags.Replace(msg) }

// hint returns what a user can do about err in flag terms, or "".
func hint(err error) string {
	switch {
	case errors.Is(err, text.ErrNoField):
		return " (give the member or column that holds the text with -field NAME)"
	case errors.Is(err, matio.ErrNegative):
		return " (Neural NMF factorises nonnegative data; shift or clip the data first)"
	case errors.Is(err, neuralnmf.ErrDiverged):
		return " (-algorithm1 never shrinks its step: give a smaller -lr, or drop -algorithm1 for the safeguarded default)"
	}
	return ""
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "Usage: neuralnmf <command> [flags]\n\nCommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'neuralnmf <command> --help' for a command's flags.")
	fmt.Fprintln(w, "\n"+exitCodesHelp)
}

// usageError marks an error in the command line itself (exit code 2).
type usageError struct{ error }

// choice is one allowed value of an enumerated flag.
type choice[T any] struct {
	name  string
	value T
}

// choose returns the value of the choice named got, the text of flag -flag,
// or a usage error that lists the choices.
func choose[T any](flag, got string, choices ...choice[T]) (T, error) {
	names := make([]string, len(choices))
	for i, c := range choices {
		if c.name == got {
			return c.value, nil
		}
		names[i] = c.name
	}
	var zero T
	return zero, usageError{fmt.Errorf("-%s is %q: want %s", flag, got, strings.Join(names, " or "))}
}

// classifiers are the choices of -classifier.
func classifiers() []choice[neuralnmf.Classifier] {
	return []choice[neuralnmf.Classifier]{{"ls", neuralnmf.LeastSquares}, {"ce", neuralnmf.CrossEntropy}}
}

// parseFlags parses args with fs, turning flag errors into usage errors.
func parseFlags(fs *flag.FlagSet, args []string, stderr io.Writer) error {
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected argument %q", fs.Arg(0))}
	}
	return nil
}
