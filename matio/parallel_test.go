package matio_test

import (
	"fmt"
	"runtime"
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
