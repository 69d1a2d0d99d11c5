package matio

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// The named temporary files of systems without O_TMPFILE: hidden, removed
// on failure, renamed on success, and the set of this process's
// temporaries is empty afterwards.
func TestWriteAtomicNamed(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "m.nnmf")
	user := filepath.Join(dir, ".m.nnmf.neuralnmf-keep.tmp")
	require.NoError(t, os.WriteFile(user, []byte("mine"), 0o600))
	var tmp string
	err := writeAtomic(out, func(f *os.File) error {
		tmp = f.Name()
		require.FileExists(t, tmp)
		require.Regexp(t, `^\.m\.nnmf\.neuralnmf-[0-9a-z]+\.tmp$`, filepath.Base(tmp))
		return os.ErrInvalid
	}, false)
	require.Error(t, err)
	require.NoFileExists(t, tmp)
	require.NoError(t, writeAtomic(out, func(f *os.File) error { _, err := f.WriteString("x"); return err }, false))
	got, _ := os.ReadFile(out)
	require.Equal(t, "x", string(got))
	require.FileExists(t, user)
	entries, _ := os.ReadDir(dir)
	require.Len(t, entries, 2)
	temporaries.mu.Lock()
	defer temporaries.mu.Unlock()
	require.Empty(t, temporaries.names)
}

// TestNamedHelper is not a test: run by TestInterruptedNamedWriter as a
// process that writes MATIO_NAMED_OUT through a named temporary file,
// says "writing", and then waits for a line on standard input; on SIGINT
// it removes its temporaries and exits 130, as the command-line tool does.
func TestNamedHelper(t *testing.T) {
	out := os.Getenv("MATIO_NAMED_OUT")
	if out == "" {
		t.Skip("a helper process")
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	go func() {
		<-sig
		fmt.Println("removed", RemoveTemporaries())
		os.Exit(130)
	}()
	err := writeAtomic(out, func(f *os.File) error {
		fmt.Fprintf(f, "written by %d\n", os.Getpid())
		fmt.Println("writing")
		_, err := bufio.NewReader(os.Stdin).ReadString('\n')
		return err
	}, false)
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	os.Exit(0)
}

// Two processes write one output through named temporary files; the one
// interrupted removes its own temporary file only, and the other
// finishes.
func TestInterruptedNamedWriter(t *testing.T) {
	if testing.Short() {
		t.Skip("starts subprocesses")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "s.csv")
	user := filepath.Join(dir, ".s.csv.neuralnmf-keep.tmp")
	require.NoError(t, os.WriteFile(user, []byte("mine"), 0o600))
	start := func() (*exec.Cmd, io.WriteCloser, *bufio.Reader) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestNamedHelper$")
		cmd.Env = append(os.Environ(), "MATIO_NAMED_OUT="+out)
		stdin, err := cmd.StdinPipe()
		require.NoError(t, err)
		stdout, err := cmd.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		r := bufio.NewReader(stdout)
		line, err := r.ReadString('\n')
		require.NoError(t, err)
		require.Equal(t, "writing\n", line)
		return cmd, stdin, r
	}
	a, _, aOut := start()
	b, bIn, _ := start()
	tmps, _ := filepath.Glob(filepath.Join(dir, ".s.csv.neuralnmf-*.tmp"))
	require.Len(t, tmps, 3, "two writers' temporary files and the user's look-alike")
	require.NoError(t, a.Process.Signal(os.Interrupt))
	line, _ := aOut.ReadString('\n')
	require.Equal(t, "removed 1\n", line)
	require.Error(t, a.Wait())
	tmps, _ = filepath.Glob(filepath.Join(dir, ".s.csv.neuralnmf-*.tmp"))
	require.Len(t, tmps, 2, "the other writer's temporary file and the look-alike are kept")
	fmt.Fprintln(bIn)
	require.NoError(t, b.Wait())
	got, err := os.ReadFile(out)
	require.NoError(t, err)
	require.Equal(t, fmt.Sprintf("written by %d\n", b.Process.Pid), string(got))
	require.FileExists(t, user)
	entries, _ := os.ReadDir(dir)
	require.Len(t, entries, 2)
}
