package matio_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

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

// TestWriteAtomicRemovesStaleTemporaries: a writer killed with SIGKILL
// leaves its hidden temporary file; the next write to the folder removes
// it, but not the temporary file of a process that still runs.
func TestWriteAtomicRemovesStaleTemporaries(t *testing.T) {
	dir := t.TempDir()
	dead := exec.Command(os.Args[0], "-test.run=^$")
	require.NoError(t, dead.Run())
	stale := filepath.Join(dir, fmt.Sprintf(".model.nnmf.tmp-%d-123456", dead.Process.Pid))
	live := filepath.Join(dir, fmt.Sprintf(".other.csv.tmp-%d-654321", os.Getpid()))
	unrelated := filepath.Join(dir, ".notes.tmp-draft")
	for _, p := range []string{stale, live, unrelated} {
		require.NoError(t, os.WriteFile(p, []byte("partial"), 0o600))
	}
	require.NoError(t, matio.WriteAtomic(filepath.Join(dir, "x.csv"), func(f *os.File) error { _, err := f.WriteString("1\n"); return err }))
	_, err := os.Stat(stale)
	require.ErrorIs(t, err, os.ErrNotExist, "the dead writer's temporary file is removed")
	for _, p := range []string{live, unrelated} {
		_, err := os.Stat(p)
		require.NoError(t, err, "%s is kept: its writer runs, or it is not a recent WriteAtomic file", p)
	}
}
