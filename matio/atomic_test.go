package matio_test

import (
	"os"
	"path/filepath"
	"testing"

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
