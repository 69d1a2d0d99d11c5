package matio_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/neuralnmf/neuralnmf/matio"
)

// Each parser must return a value or an error for any input, never panic;
// what it accepts must survive a write/read round trip unchanged.

func FuzzMatrixMarket(f *testing.F) {
	f.Add("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 3.5\n")
	f.Add("%%MatrixMarket matrix array real general\n2 1\n1\n2\n")
	f.Add("%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n3 3\n")
	f.Add("%%MatrixMarket matrix array real skew-symmetric\n2 2\n4\n")
	f.Fuzz(func(t *testing.T, in string) {
		m, err := matio.ReadMatrixMarket(strings.NewReader(in), "fuzz.mtx")
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := matio.WriteMatrixMarket(&buf, m); err != nil {
			t.Fatal(err)
		}
		back, err := matio.ReadMatrixMarket(&buf, "back.mtx")
		if err != nil {
			t.Fatalf("re-read failed: %v", err)
		}
		a, b := m.ToDense(), back.ToDense()
		if a.Rows != b.Rows || a.Cols != b.Cols {
			t.Fatalf("shape changed")
		}
		for i := range a.Data {
			if a.Data[i] != b.Data[i] {
				t.Fatalf("value changed at %d: %v → %v", i, a.Data[i], b.Data[i])
			}
		}
	})
}

func FuzzCSV(f *testing.F) {
	f.Add("a,b\n1,2\n3,4\n")
	f.Add("1.5e3\n")
	f.Fuzz(func(t *testing.T, in string) {
		d, err := matio.ReadCSV(strings.NewReader(in), "fuzz.csv")
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := matio.WriteCSV(&buf, d); err != nil {
			t.Fatal(err)
		}
		back, err := matio.ReadCSV(&buf, "back.csv")
		if err != nil {
			t.Fatalf("re-read failed: %v", err)
		}
		for i := range d.Data {
			if d.Data[i] != back.Data[i] {
				t.Fatalf("value changed")
			}
		}
	})
}

func FuzzLabels(f *testing.F) {
	f.Add("0\n1\n-1\n")
	f.Add("# c\n\n7\n")
	f.Fuzz(func(t *testing.T, in string) {
		_, _ = matio.ReadLabels(strings.NewReader(in), "fuzz.txt")
	})
}
