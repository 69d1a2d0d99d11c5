package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/neuralnmf/neuralnmf/matio"
)

func runConvert(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("convert", flag.ContinueOnError)
	in := fs.String("x", "", "Matrix Market file to convert: .mtx or .mtx.gz, coordinate or array, any symmetry (required)")
	out := fs.String("o", "", "output: a .mtx or .mtx.gz coordinate file sorted by column (required)")
	memMiB := fs.Int("memory", 512, "MiB of entries held at a time; more are sorted in runs on disk and merged")
	tmp := fs.String("tmp", "", "folder for the sorted runs (default: the folder of -o)")
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: neuralnmf convert -x X.mtx -o sorted.mtx.gz [-memory 512]

Rewrites a Matrix Market file as a general coordinate file whose entries are
sorted by column (then row), which 'fit -batch-size' streams without reading
it whole. It is an external merge sort: at most -memory MiB of entries are
held; the rest go to temporary files, removed at the end. Symmetric files
are expanded and an array file keeps its nonzeros; repeated positions are
kept (readers sum them). The output is written atomically.

Flags:
`)
		fs.PrintDefaults()
		fmt.Fprintln(stderr, "\n"+exitCodesHelp)
	}
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if *in == "" || *out == "" {
		return usageError{errors.New("-x and -o are required")}
	}
	if !matio.IsMatrixMarket(*in) {
		return usageError{fmt.Errorf("-x %s: want a .mtx or .mtx.gz file", *in)}
	}
	if !matio.IsMatrixMarket(*out) {
		return usageError{fmt.Errorf("-o %s: want a .mtx or .mtx.gz file", *out)}
	}
	if *memMiB < 1 {
		return usageError{fmt.Errorf("-memory is %d: want at least 1 (MiB)", *memMiB)}
	}
	if err := checkOutput("-o", *out, input{"-x", *in}); err != nil {
		return err
	}
	// Beyond 2^43 bytes (8 TiB) no machine holds the entries anyway; the
	// bound keeps the byte count from overflowing.
	st, err := matio.SortByColumn(*in, *out, *tmp, min(*memMiB, 1<<23)<<20)
	if err != nil {
		return err
	}
	how := "in memory"
	if st.Runs > 0 {
		how = fmt.Sprintf("in %d runs on disk", st.Runs)
	}
	fmt.Fprintf(stdout, "wrote %s: %d×%d, %d entries sorted by column (%s)\n", *out, st.Rows, st.Cols, st.Entries, how)
	return nil
}
