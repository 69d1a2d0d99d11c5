//go:build unix

package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/internal/lookalike"
)

// TestMain lets the test binary run as the command (NEURALNMF_RUN_MAIN=1),
// so the tests below can signal a real process.
func TestMain(m *testing.M) {
	if os.Getenv("NEURALNMF_RUN_MAIN") == "1" {
		os.Exit(runMain(strings.Fields(os.Getenv("NEURALNMF_ARGS"))))
	}
	os.Exit(m.Run())
}

// startCLI starts the command line as a real process (see TestMain).
func startCLI(t *testing.T, args string) (*exec.Cmd, *strings.Builder) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "NEURALNMF_RUN_MAIN=1", "NEURALNMF_ARGS="+args)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	return cmd, &stderr
}

// An interrupted fit exits 130 and writes no output; it touches none of
// the files beside its output, not even those named like its own
// temporary files, and not another process's write of the same output,
// which finishes.
func TestInterruptTouchesOnlyItsOwnFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("starts subprocesses")
	}
	dir := t.TempDir()
	writeData(t, dir)
	check := lookalike.Plant(t, dir, "m.nnmf")
	out := filepath.Join(dir, "m.nnmf")
	slow, slowErr := startCLI(t, "fit -x "+filepath.Join(dir, "x.mtx")+" -ranks 4,2 -init hnmf -init-restarts 100000 -quiet -o "+out)
	other, otherErr := startCLI(t, "fit -x "+filepath.Join(dir, "x.csv")+" -ranks 4,2 -quiet -o "+out)
	time.Sleep(500 * time.Millisecond) // past flag checks, into training
	require.NoError(t, slow.Process.Signal(syscall.SIGINT))
	err := slow.Wait()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, slowErr.String())
	require.Equal(t, 130, exit.ExitCode(), slowErr.String())
	require.Contains(t, slowErr.String(), "stopped; an output not yet complete was not written")
	check("an interrupted fit")
	require.NoError(t, other.Wait(), otherErr.String())
	_, err = os.Stat(out)
	require.NoError(t, err, "the other process's output is written")
	check("a concurrent fit")

	// SIGTERM during a streamed predict that writes rows as it goes.
	writeCorpus(t, dir, 1500)
	code, _, errOut := cli(t, "fit", "-x", filepath.Join(dir, "x.mtx"), "-ranks", "4,2", "-labels", filepath.Join(dir, "y.txt"), "-quiet", "-o", filepath.Join(dir, "sup.nnmf"))
	require.Equal(t, 0, code, errOut)
	fifo := filepath.Join(dir, "in.mtx")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	pred := filepath.Join(dir, "pred.csv")
	check = lookalike.Plant(t, dir, "pred.csv")
	before, _ := os.ReadDir(dir)
	p, pErr := startCLI(t, "predict -model "+filepath.Join(dir, "sup.nnmf")+" -x "+fifo+" -batch-size 10 -o "+pred)
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	require.NoError(t, err)
	x := bufio.NewWriter(w)
	x.WriteString("%%MatrixMarket matrix coordinate real general\n30 100000 100000\n")
	for j := 1; j <= 200; j++ {
		x.WriteString("1 " + strconv.Itoa(j) + " 1\n")
	}
	require.NoError(t, x.Flush())
	time.Sleep(200 * time.Millisecond) // rows written to the temporary file
	require.NoError(t, p.Process.Signal(syscall.SIGTERM))
	err = p.Wait()
	w.Close()
	require.ErrorAs(t, err, &exit, pErr.String())
	require.Equal(t, 130, exit.ExitCode(), pErr.String())
	_, err = os.Stat(pred)
	require.ErrorIs(t, err, os.ErrNotExist, "no output was written")
	check("an interrupted streamed predict")
	after, _ := os.ReadDir(dir)
	require.Equal(t, names(before), names(after), "the interrupted predict left a file")
}

func names(entries []os.DirEntry) []string {
	var n []string
	for _, e := range entries {
		n = append(n, e.Name())
	}
	return n
}
