package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// Issue 66, item 1: NEURALNMF_CPUPROFILE never truncates a file (not even
// the command's own -model), is refused before the command runs when it
// cannot be written, and otherwise writes a new file at the end.
func TestCPUProfileTouchesNoFile(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	writeData(t, dir)
	code, _, errOut := cli(t, "fit", "-x", p("x.mtx"), "-ranks", "4,2", "-quiet", "-o", p("m.nnmf"))
	require.Equal(t, 0, code, errOut)
	model, err := os.ReadFile(p("m.nnmf"))
	require.NoError(t, err)
	for _, prof := range []string{p("m.nnmf"), p("x.mtx"), p("none/cpu.prof")} {
		t.Setenv("NEURALNMF_CPUPROFILE", prof)
		code := runMain([]string{"export", "-model", p("m.nnmf"), "-matrix", "A2", "-o", p("a2.csv")})
		require.Equal(t, exitUsage, code, prof)
		_, err := os.Stat(p("a2.csv"))
		require.ErrorIs(t, err, os.ErrNotExist, "%s: refused before the command ran", prof)
	}
	got, err := os.ReadFile(p("m.nnmf"))
	require.NoError(t, err)
	require.Equal(t, model, got, "the model named as the profile is untouched")
	t.Setenv("NEURALNMF_CPUPROFILE", p("cpu.prof"))
	require.Equal(t, 0, runMain([]string{"export", "-model", p("m.nnmf"), "-matrix", "A2", "-o", p("a2.csv")}))
	st, err := os.Stat(p("cpu.prof"))
	require.NoError(t, err)
	require.Positive(t, st.Size())
}
