package matio_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/matio"
)

// coordinateFile writes a coordinate file of n entry lines (banner
// symmetry sym, declaring declared entries) with a comment or blank line
// every 997 lines; edit may replace the text of entry line i.
func coordinateFile(sym string, n, declared int, pattern bool, edit map[int]string) string {
	var sb strings.Builder
	field := "real"
	if pattern {
		field = "pattern"
	}
	fmt.Fprintf(&sb, "%%%%MatrixMarket matrix coordinate %s %s\n%% made by a test\n500 500 %d\n", field, sym, declared)
	for i := range n {
		if i%997 == 0 {
			sb.WriteString("% a comment\n\n")
		}
		if e, ok := edit[i]; ok {
			sb.WriteString(e + "\n")
			continue
		}
		r, c := 1+(i*7919)%500, 1+(i*104729)%500
		if sym != "general" && r < c {
			r, c = c, r
		}
		if pattern {
			fmt.Fprintf(&sb, "%d %d\n", r, c)
		} else {
			fmt.Fprintf(&sb, "%d %d %g\n", r, c, float64(i%1000)/7+0.5)
		}
	}
	return sb.String()
}

// columnFile writes a coordinate file of the entries (1 + i mod 500,
// 1 + i/500) for i < n, by column as a compressed sparse column matrix
// writes them, or in reverse order (so that the reader sorts them), with
// a comment every 997 lines; swap exchanges entry lines swap and swap+1.
func columnFile(n int, reverse bool, swap int) string {
	lines := make([]string, n)
	for i := range n {
		lines[i] = fmt.Sprintf("%d %d %g", 1+i%500, 1+i/500, float64(i%1000)/7+0.5)
	}
	if reverse {
		slices.Reverse(lines)
	}
	if swap >= 0 {
		lines[swap], lines[swap+1] = lines[swap+1], lines[swap]
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%%%%MatrixMarket matrix coordinate real general\n500 %d %d\n", (n+499)/500, n)
	for i, l := range lines {
		if i%997 == 0 {
			sb.WriteString("% a comment\n")
		}
		sb.WriteString(l + "\n")
	}
	return sb.String()
}

// A file by column (whose entries go straight into the matrix) reads as
// the same entries in another order do (sorted by the reader), on one
// goroutine or several, and so does one that leaves the column order near
// its end.
func TestReadMatrixMarketByColumn(t *testing.T) {
	const n = 200000
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	runtime.GOMAXPROCS(1)
	want, err := matio.ReadMatrixMarket(strings.NewReader(columnFile(n, true, -1)), "x.mtx")
	require.NoError(t, err)
	for _, swap := range []int{-1, n - 10} {
		for _, p := range []int{1, 2, 5} {
			runtime.GOMAXPROCS(p)
			got, err := matio.ReadMatrixMarket(strings.NewReader(columnFile(n, false, swap)), "x.mtx")
			require.NoError(t, err)
			require.Equal(t, want, got, "%d goroutines, swap %d", p, swap)
		}
	}
	require.Equal(t, n, want.Sparse.NNZ())
	require.Zero(t, want.Duplicates)
}

// A header that declares far more entries than its file holds costs no
// memory for them: the file is refused (it ends early) having allocated
// a few MB, from a file on disk (whose size bounds the entries' room) and
// from a stream.
func TestReadMatrixMarketLyingHeader(t *testing.T) {
	body := "%%MatrixMarket matrix coordinate real general\n100000 100000 200000000\n1 1 1\n2 2 2\n"
	path := filepath.Join(t.TempDir(), "x.mtx")
	require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
	for name, read := range map[string]func() error{
		"file":   func() error { _, err := matio.ReadMatrix(path); return err },
		"stream": func() error { _, err := matio.ReadMatrixMarket(strings.NewReader(body), "x.mtx"); return err },
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		err := read()
		runtime.ReadMemStats(&after)
		require.ErrorContains(t, err, "file ends after 2 of 200000000 entries", name)
		require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(64<<20), "%s: bytes allocated", name)
	}
}

// A file large enough to be parsed on several goroutines reads as it does
// on one: the same matrix and duplicates, or the same error (the first in
// the file's order), whatever the number of goroutines.
func TestReadMatrixMarketParallelIsSerial(t *testing.T) {
	const n = 200000 // several batches of lines
	for _, c := range []struct {
		name    string
		file    string
		wantErr bool
	}{
		{"general", coordinateFile("general", n, n, false, nil), false},
		{"symmetric", coordinateFile("symmetric", n, n, false, nil), false},
		{"skew-symmetric", coordinateFile("skew-symmetric", n, n, false, nil), false},
		{"pattern", coordinateFile("general", n, n, true, nil), false},
		{"two bad values", coordinateFile("general", n, n, false, map[int]string{70000: "3 4 x", 150000: "5 6 y"}), true},
		{"bad index in the last batch", coordinateFile("general", n, n, false, map[int]string{n - 1: "501 1 1"}), true},
		{"too few entries", coordinateFile("general", n, n+5, false, nil), true},
		{"a bad value and too few entries", coordinateFile("general", n, n+5, false, map[int]string{199990: "1 1 1 1"}), true},
		{"too many entries", coordinateFile("general", n, n-3, false, nil), true},
		{"a bad value before too many", coordinateFile("general", n, n-3, false, map[int]string{12: "1"}), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
			runtime.GOMAXPROCS(1)
			one, err1 := matio.ReadMatrixMarket(strings.NewReader(c.file), "x.mtx")
			for _, p := range []int{2, 5} {
				runtime.GOMAXPROCS(p)
				many, err := matio.ReadMatrixMarket(strings.NewReader(c.file), "x.mtx")
				if c.wantErr {
					require.Error(t, err1)
					require.EqualError(t, err, err1.Error(), "%d goroutines", p)
					continue
				}
				require.NoError(t, err1)
				require.NoError(t, err)
				require.Equal(t, one, many, "%d goroutines", p)
			}
			if !c.wantErr {
				require.Positive(t, one.Duplicates, "the file repeats positions")
			}
		})
	}
}
