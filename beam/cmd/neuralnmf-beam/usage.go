package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// subcommands are the commands, by name.
var subcommands = map[string]func(context.Context) error{
	"vectorize":   runVectorize,
	"train":       runTrain,
	"score":       runScore,
	"worker-pool": runPool,
}

// ownFlags are the flags of this tool each command takes; Beam's own
// flags (its runner's) go to train and score.
var ownFlags = map[string][]string{
	"vectorize":   append([]string{"docs", "field", "o"}, textFlags.Names()...),
	"train":       {"shards", "ranks", "work", "o", "vectorizer", "steps", "epochs", "seed", "workers", "local", "keep-work", "cpuprofile"},
	"score":       {"model", "shards", "out", "layer"},
	"worker-pool": {"addr"},
}

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
	if sub == "" {
		fmt.Fprintln(w, usage)
	} else {
		// The command's own line of usage.
		fmt.Fprintln(w, "Usage:")
		for _, l := range strings.Split(usage, "\n") {
			if strings.HasPrefix(l, "  neuralnmf-beam "+sub+" ") {
				fmt.Fprintln(w, l)
			}
		}
	}
	for _, c := range []string{"vectorize", "train", "score", "worker-pool"} {
		if sub != "" && sub != c {
			continue
		}
		fmt.Fprintf(w, "\n%s's flags:\n", c)
		for _, name := range ownFlags[c] {
			f := flag.Lookup(name)
			usage := f.Usage
			if c == "vectorize" && name == "o" {
				usage = "output directory: new or empty; a local one is created (required)"
			}
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
	if sub == "" || sub == "vectorize" {
		fmt.Fprintf(w, "\n%s\n", vectorizeHelp)
	}
	if sub == "" || sub == "train" {
		fmt.Fprintf(w, "\n%s\n", supportHelp)
	}
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
