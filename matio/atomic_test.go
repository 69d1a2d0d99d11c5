package matio_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/internal/lookalike"
	"github.com/neuralnmf/neuralnmf/matio"
)

func TestWriteAtomicLeavesNothingOnFailure(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.png")
	require.NoError(t, os.WriteFile(path, []byte("old"), 0o644))
	err := matio.WriteAtomic(path, func(f *os.File) error {
		_, _ = f.WriteString("partial")
		return os.ErrInvalid
	})
	require.Error(t, err)
	got, _ := os.ReadFile(path)
	require.Equal(t, "old", string(got), "the old file must be untouched")
	entries, _ := os.ReadDir(dir)
	require.Len(t, entries, 1, "no temporary file may be left behind")
	require.NoError(t, matio.WriteAtomic(path, func(f *os.File) error { _, err := f.WriteString("new"); return err }))
	got, _ = os.ReadFile(path)
	require.Equal(t, "new", string(got))
	st, _ := os.Stat(path)
	require.Equal(t, os.FileMode(0o644), st.Mode().Perm())
}

// No write, successful or failed, removes or changes a file it did not
// create, however much it looks like a temporary file.
func TestWriteAtomicTouchesNothingElse(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "x.csv")
	check := lookalike.Plant(t, dir, out)
	require.NoError(t, matio.WriteAtomic(out, func(f *os.File) error { _, err := f.WriteString("1\n"); return err }))
	check("a write")
	require.Error(t, matio.WriteAtomic(out, func(f *os.File) error { return os.ErrInvalid }))
	check("a write")
	src := filepath.Join(dir, "in.mtx")
	require.NoError(t, os.WriteFile(src, []byte("%%MatrixMarket matrix coordinate real general\n3 3 4\n3 3 1\n1 1 2\n2 3 3\n1 2 4\n"), 0o644))
	st, err := matio.SortByColumn(src, filepath.Join(dir, "s.mtx"), "", 2*24) // two entries a run
	require.NoError(t, err)
	require.Equal(t, 2, st.Runs)
	check("a write")
	entries, _ := os.ReadDir(dir)
	require.Len(t, entries, 7+4+3, "only the look-alikes, the two outputs and the input")
}

// Two processes writing the same output each keep their own temporary
// file: the one that finishes last wins, neither fails. Run here as two
// goroutines of one process, which share no temporary file either.
func TestWriteAtomicConcurrentWriters(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "s.csv")
	firstOpen, release := make(chan struct{}), make(chan struct{})
	done := make(chan error)
	go func() {
		done <- matio.WriteAtomic(out, func(f *os.File) error {
			close(firstOpen)
			<-release
			_, err := f.WriteString("first\n")
			return err
		})
	}()
	<-firstOpen
	require.NoError(t, matio.WriteAtomic(out, func(f *os.File) error { _, err := f.WriteString("second\n"); return err }))
	close(release)
	require.NoError(t, <-done)
	got, _ := os.ReadFile(out)
	require.Equal(t, "first\n", string(got))
}

// TestHelperProcess is not a test: run by the tests below as a process to
// kill or interrupt (MATIO_HELPER names what it does).
func TestHelperProcess(t *testing.T) {
	dir := os.Getenv("MATIO_HELPER_DIR")
	switch os.Getenv("MATIO_HELPER") {
	case "":
		t.Skip("a helper process")
	case "write":
		err := matio.WriteAtomic(filepath.Join(dir, "out.csv"), func(f *os.File) error {
			f.WriteString("partial\n")
			fmt.Println("writing")
			time.Sleep(time.Minute)
			return nil
		})
		fmt.Println(err)
	case "sort":
		_, err := matio.SortByColumn(filepath.Join(dir, "in.mtx"), filepath.Join(dir, "out.mtx"), "", 24*1000)
		fmt.Println(err)
	}
	os.Exit(0)
}

// A writer killed by SIGKILL in the middle of writing leaves no file
// behind where the system gives temporary files no name (Linux).
func TestKilledWriterLeavesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a subprocess")
	}
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc: named temporary files are used")
	}
	for _, what := range []string{"write", "sort"} {
		t.Run(what, func(t *testing.T) {
			dir := t.TempDir()
			if what == "sort" {
				require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "in.mtx"), 0o600))
			}
			before, _ := os.ReadDir(dir)
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
			cmd.Env = append(os.Environ(), "MATIO_HELPER="+what, "MATIO_HELPER_DIR="+dir)
			out, err := cmd.StdoutPipe()
			require.NoError(t, err)
			require.NoError(t, cmd.Start())
			if what == "write" {
				buf := make([]byte, 8)
				_, err = out.Read(buf) // "writing": the temporary file exists
				require.NoError(t, err)
			} else {
				// Feed the sort through a pipe: once 20,000 entries (more
				// than the pipe holds) are written, at least 13 runs of
				// 1,000 have been made, and it waits for the rest.
				fifo, err := os.OpenFile(filepath.Join(dir, "in.mtx"), os.O_WRONLY, 0)
				require.NoError(t, err)
				defer fifo.Close()
				var b strings.Builder
				fmt.Fprintf(&b, "%%%%MatrixMarket matrix coordinate real general\n1000 1000 100000\n")
				for i := range 20000 {
					fmt.Fprintf(&b, "%d %d 1\n", i%1000+1, (i*7)%1000+1)
				}
				_, err = fifo.WriteString(b.String())
				require.NoError(t, err)
			}
			require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
			_ = cmd.Wait()
			after, _ := os.ReadDir(dir)
			require.Equal(t, len(before), len(after), "a killed writer left %v", after)
		})
	}
}
