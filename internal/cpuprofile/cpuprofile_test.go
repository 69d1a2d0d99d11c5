package cpuprofile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// Issue 66, item 1: a profile never truncates a file, is refused before
// any work where it cannot be written, and is written whole at the end.
func TestProfileWritesOnlyANewFile(t *testing.T) {
	dir := t.TempDir()
	mine := filepath.Join(dir, "data.mtx")
	require.NoError(t, os.WriteFile(mine, []byte("the user's"), 0o644))
	for _, tc := range []struct{ path, msg string }{
		{mine, "exists"},
		{filepath.Join(dir, "none", "cpu.prof"), "does not exist"},
		{dir, "exists"},
		{"", "empty path"},
	} {
		_, err := Start("-cpuprofile", tc.path)
		require.ErrorContains(t, err, tc.msg, tc.path)
		require.ErrorContains(t, err, "-cpuprofile", tc.path)
	}
	b, err := os.ReadFile(mine)
	require.NoError(t, err)
	require.Equal(t, "the user's", string(b))

	out := filepath.Join(dir, "cpu.prof")
	p, err := Start("-cpuprofile", out)
	require.NoError(t, err)
	_, err = os.Stat(out)
	require.ErrorIs(t, err, os.ErrNotExist, "nothing at the path while profiling")
	require.NoError(t, p.Stop())
	b, err = os.ReadFile(out)
	require.NoError(t, err)
	require.Greater(t, len(b), 2)
	require.Equal(t, []byte{0x1f, 0x8b}, b[:2], "a pprof profile is gzipped protobuf")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 2, "the user's file and the profile, no temporary file")

	// A file that appears at the path during the run is kept.
	late := filepath.Join(dir, "late.prof")
	p, err = Start("-cpuprofile", late)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(late, []byte("the user's"), 0o644))
	require.ErrorContains(t, p.Stop(), "appeared")
	b, err = os.ReadFile(late)
	require.NoError(t, err)
	require.Equal(t, "the user's", string(b))
}
