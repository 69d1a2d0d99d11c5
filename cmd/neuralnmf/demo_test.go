package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A 1-trial run of the full demo: the table has every row with numbers in
// range, the paper's values beside them, and the files are written.
func TestDemoOneTrial(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole demo once (~15 s)")
	}
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	code := run([]string{"demo", "-trials", "1", "-o", dir, "-quiet"}, &out, &errOut)
	require.Equal(t, 0, code, errOut.String())
	require.Empty(t, errOut.String(), "-quiet prints no progress")
	cell := regexp.MustCompile(`(\d\.\d{4})/(\d\.\d{3}) \[(\d\.\d+)/(\d(?:\.\d+)?)\]`)
	rows := 0
	var unsup [3]float64 // Neural NMF's unsupervised error by depth
	for _, line := range strings.Split(out.String(), "\n") {
		for _, sup := range []string{"unsupervised ", "semi-supervised ", "supervised "} {
			if !strings.HasPrefix(line, sup) || !strings.Contains(line, "[") {
				continue
			}
			cells := cell.FindAllStringSubmatch(line, -1)
			require.Len(t, cells, 3, line)
			for _, c := range cells {
				for _, f := range c[1:] {
					v, err := strconv.ParseFloat(f, 64)
					require.NoError(t, err)
					require.True(t, v >= 0 && v <= 1, "%s in %q", f, line)
				}
			}
			hnmf, _ := strconv.ParseFloat(cells[0][1], 64)
			nnmf, _ := strconv.ParseFloat(cells[2][1], 64)
			acc, _ := strconv.ParseFloat(cells[2][2], 64)
			depth := rows % 3
			if sup == "unsupervised " {
				// Unsupervised, Neural NMF (the last cell) must beat HNMF
				// (the first).
				require.LessOrEqual(t, nnmf, hnmf, line)
				unsup[depth] = nnmf
			} else {
				// With labels, the paper's direction: accuracy stays at 1
				// and the reconstruction error is no lower than without.
				require.GreaterOrEqual(t, acc, 0.99, line)
				require.GreaterOrEqual(t, nnmf, unsup[depth]-1e-4, line)
				if sup == "semi-supervised " && depth == 1 {
					require.Greater(t, nnmf, unsup[depth]+1e-3, "the labels must change the 2-layer model: %s", line)
				}
			}
			rows++
		}
	}
	require.Equal(t, 9, rows, out.String())
	require.Contains(t, out.String(), "Deep NMF (reconstructed)")
	for _, f := range []string{"fig2.png", "fig3.png", "results.csv"} {
		st, err := os.Stat(filepath.Join(dir, f))
		require.NoError(t, err, f)
		require.Greater(t, st.Size(), int64(100), f)
	}
	csv, _ := os.ReadFile(filepath.Join(dir, "results.csv"))
	require.Equal(t, 1+27, strings.Count(string(csv), "\n"), "header + 27 runs")
}
