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
)

// TestMain lets the test binary run as the command (NEURALNMF_RUN_MAIN=1),
// so the tests below can signal a real process.
func TestMain(m *testing.M) {
	if os.Getenv("NEURALNMF_RUN_MAIN") == "1" {
		os.Exit(runMain(strings.Fields(os.Getenv("NEURALNMF_ARGS"))))
	}
	os.Exit(m.Run())
}

// plantLookAlikes puts, in dir, files named like temporary files (of this
// tool, an older version of it, or a user; each two days old) beside each
// output, and returns a check that every one is still there, unchanged.
func plantLookAlikes(t *testing.T, dir string, outputs ...string) func(after string) {
	t.Helper()
	names := []string{".x.tmp-1-a", ".c.tmp-old", ".notes.txt.tmp-20240501-draft", ".thesis.tex.tmp-99999-v2", ".neuralnmf-sort-1.tmp"}
	for _, o := range outputs {
		names = append(names, "."+o+".tmp-keep", "."+o+".tmp-99999-v2", "."+o+".neuralnmf-keep.tmp")
	}
	old := time.Now().Add(-48 * time.Hour)
	for _, n := range names {
		p := filepath.Join(dir, n)
		require.NoError(t, os.WriteFile(p, []byte("user's "+n), 0o600))
		require.NoError(t, os.Chtimes(p, old, old))
	}
	return func(after string) {
		t.Helper()
		for _, n := range names {
			got, err := os.ReadFile(filepath.Join(dir, n))
			require.NoError(t, err, "%s: the user's %s is gone", after, n)
			require.Equal(t, "user's "+n, string(got), "%s changed the user's %s", after, n)
		}
	}
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
	check := plantLookAlikes(t, dir, "m.nnmf")
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
	check = plantLookAlikes(t, dir, "pred.csv")
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
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		require.False(t, strings.Contains(e.Name(), "pred.csv") && !strings.Contains(e.Name(), "keep") && !strings.Contains(e.Name(), "99999"),
			"left %s", e.Name())
	}
}
