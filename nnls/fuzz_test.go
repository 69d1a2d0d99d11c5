package nnls_test

import (
	"math"
	"math/big"
	"testing"

	"github.com/neuralnmf/neuralnmf/nnls"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// FuzzSolve feeds arbitrary small problems from Solve's whole domain: signed
// entries on a coarse grid (multiples of 1/4 in [−2, 1.75], so ties, zeros,
// duplicate and dependent columns are common), k up to 10 with N down to 1
// (so k > N often), and every column of A and of X scaled by its own power
// of two from 2⁻⁴⁸⁰ to 2⁴⁸⁰ (≈ 10^±144). Each solution must be finite and
// nonnegative, agree with its Support, reach the 256-bit reference's
// objective to rounding, and have independent support columns. A column may
// be uncertified only if the reference shows it degenerate: some variable
// with a zero (to 10⁻⁸) coefficient also has a zero (to 10⁻⁸, relative to
// ‖a_i‖·‖x‖) multiplier, so that rounding decides the support.
// Run it with
//
//	go test -run '^$' -fuzz FuzzSolve -fuzztime 60s ./nnls/
func FuzzSolve(f *testing.F) {
	f.Add([]byte{3, 2, 2, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	f.Add([]byte{5, 3, 4, 0, 0, 15, 1, 9, 2, 200, 3, 7, 7, 7, 7, 1, 1, 1, 0, 4, 4, 4, 4, 33, 12})
	f.Add([]byte{1, 1, 1, 0})
	f.Add([]byte{8, 4, 3, 255, 254, 253, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17})
	f.Add([]byte{2, 9, 3, 128, 7, 250, 3, 3, 3, 3, 9, 9, 200, 100, 50, 25})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 4 {
			return
		}
		n := 1 + int(data[0])%8
		k := 1 + int(data[1])%10
		m := 1 + int(data[2])%4
		scales := data[3]
		vals := data[4:]
		next := func(i int) float64 {
			if len(vals) == 0 {
				return 0
			}
			return float64(int(vals[i%len(vals)]%16)-8) / 4
		}
		// Scale exponents from the bytes, so the fuzzer can explore them:
		// low bits of 'scales' turn scaling of A and X on.
		exp := func(i int) int {
			if len(vals) == 0 {
				return 0
			}
			return (int(vals[(i*13+5)%len(vals)]) - 128) * 480 / 128
		}
		a, x := tensor.New(n, k), tensor.New(n, m)
		for i := range a.Data {
			a.Data[i] = next(i)
		}
		for i := range x.Data {
			x.Data[i] = next(len(a.Data) + 7*i + 3)
		}
		if scales&1 != 0 {
			for j := 0; j < k; j++ {
				for r := 0; r < n; r++ {
					a.Set(r, j, math.Ldexp(a.At(r, j), exp(j)))
				}
			}
		}
		if scales&2 != 0 {
			for j := 0; j < m; j++ {
				for r := 0; r < n; r++ {
					x.Set(r, j, math.Ldexp(x.At(r, j), exp(k+j)))
				}
			}
		}
		res, err := nnls.Solve(a, x, nil)
		if err != nil {
			// The one refusal left for finite data: an entry of S that
			// overflows (a column of A tiny against its X).
			if scales&3 == 3 {
				return
			}
			t.Fatalf("Solve refused finite data: %v\nA=%v\nX=%v", err, a, x)
		}
		uncertified := map[int]bool{}
		for _, j := range res.Uncertified {
			uncertified[j] = true
		}
		if len(uncertified) != res.Stats.Uncertified {
			t.Fatalf("Uncertified lists %v, Stats count %d", res.Uncertified, res.Stats.Uncertified)
		}
		for j := 0; j < m; j++ {
			got := colOf(res.S, j)
			for i, v := range got {
				if !(v >= 0) || math.IsInf(v, 0) || (v > 0) != res.Support.Has(i, j) {
					t.Fatalf("S(%d, %d) = %v, support %v", i, j, v, res.Support.Has(i, j))
				}
			}
			want, wantBig, y := refColumn(a, x, j)
			if uncertified[j] && !degenerate(a, x, j, wantBig, y) {
				t.Fatalf("column %d uncertified, but the problem is not degenerate\nA=%v\nX=%v\nS=%v\nref=%v", j, a, x, res.S, want)
			}
			fo, fr := relObjective(a, x, j, got), relObjective(a, x, j, want)
			if !(fo <= fr*(1+1e-9)+objectiveSlack(a, x, j, got)) {
				t.Fatalf("column %d: relative objective %.17g, optimum %.17g\nA=%v\nX=%v\nS=%v\nref=%v", j, fo, fr, a, x, res.S, want)
			}
			if rc := supportRCond(a, res.S, j); !(rc > 1e-14) {
				t.Fatalf("column %d: support columns dependent (σ ratio %.3g)\nA=%v\nS=%v", j, rc, a, res.S)
			}
		}
	})
}

// degenerate reports whether strict complementarity fails at the reference
// solution of column j: some variable has a coefficient and a multiplier both
// within 10⁻⁸ of zero (relative to ‖x‖/‖a_i‖ and ‖a_i‖·‖x‖).
func degenerate(a, x *tensor.Dense, j int, s, y []*big.Float) bool {
	var xn float64
	for r := 0; r < x.Rows; r++ {
		xn = math.Hypot(xn, x.At(r, j))
	}
	for i := range s {
		var an float64
		for r := 0; r < a.Rows; r++ {
			an = math.Hypot(an, a.At(r, i))
		}
		if an == 0 {
			continue
		}
		si, _ := s[i].Float64()
		yi, _ := y[i].Float64()
		if math.Abs(si)*an <= 1e-8*xn && math.Abs(yi) <= 1e-8*an*xn {
			return true
		}
	}
	return false
}
