package nnls_test

import (
	"math"
	"testing"

	"github.com/neuralnmf/neuralnmf/nnls"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// FuzzSolveKKT feeds arbitrary small problems to Solve: it must either return
// an error or a solution satisfying the KKT conditions. Entries are coarse
// (multiples of 1/4 up to 3.75, many exact zeros), which produces ties,
// collinear and duplicate columns and degenerate supports. Run it with
//
//	go test -run '^$' -fuzz FuzzSolveKKT ./nnls/
func FuzzSolveKKT(f *testing.F) {
	f.Add([]byte{3, 2, 2, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	f.Add([]byte{5, 3, 4, 0, 0, 15, 1, 9, 2, 200, 3, 7, 7, 7, 7, 1, 1, 1, 0, 4, 4, 4, 4, 33, 12})
	f.Add([]byte{1, 1, 1, 0})
	f.Add([]byte{8, 4, 3, 255, 254, 253, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 3 {
			return
		}
		n := 1 + int(data[0])%8
		k := 1 + int(data[1])%n
		m := 1 + int(data[2])%6
		vals := data[3:]
		next := func(i int) float64 {
			if len(vals) == 0 {
				return 0
			}
			return float64(vals[i%len(vals)]%16) / 4
		}
		a, x := tensor.New(n, k), tensor.New(n, m)
		for i := range a.Data {
			a.Data[i] = next(i)
		}
		for i := range x.Data {
			x.Data[i] = next(len(a.Data) + 7*i + 3)
		}
		res, err := nnls.Solve(a, x, nil)
		if err != nil {
			return // rejected input (zero or dependent column): fine
		}
		// Normal-equation roundoff grows with cond(AᵀA); allow for it.
		tol := 1e-7 + 100*0x1p-52/res.Factor.RCond()
		if v := kktViolation(a, x, res.S); !(v <= tol) {
			t.Fatalf("KKT violation %.3g > %.3g (rcond %.3g, stats %+v)\nA=%v\nX=%v\nS=%v", v, tol, res.Factor.RCond(), res.Stats, a, x, res.S)
		}
		for j := 0; j < m; j++ {
			for i := 0; i < k; i++ {
				if (res.S.At(i, j) > 0) != res.Support.Has(i, j) || math.IsNaN(res.S.At(i, j)) {
					t.Fatalf("support disagrees with S at (%d, %d)", i, j)
				}
			}
		}
	})
}
