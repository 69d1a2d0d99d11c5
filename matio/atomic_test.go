package matio_test

import (
	"os"
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
