package nnls_test

import (
	"encoding/json"
	"math"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/nnls"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// relErr returns ‖got − want‖_F / ‖want‖_F over all columns.
func relErr(got, want *tensor.Dense) float64 {
	var num, den float64
	for i := range want.Data {
		d := got.Data[i] - want.Data[i]
		num += d * d
		den += want.Data[i] * want.Data[i]
	}
	if den == 0 {
		return math.Sqrt(num)
	}
	return math.Sqrt(num / den)
}

// reference solves every column of the problem in big precision.
func reference(a, x *tensor.Dense) *tensor.Dense {
	s := tensor.New(a.Cols, x.Cols)
	for j := 0; j < x.Cols; j++ {
		col, _, _ := refColumn(a, x, j)
		for i, v := range col {
			s.Set(i, j, v)
		}
	}
	return s
}

// TestAgainstScipyByConditioning compares Solve and scipy.optimize.nnls
// (Lawson–Hanson with Householder QR; fixtures from scipy 1.10.1, made by
// testdata/gen_scipy_conditioning.py) with the 256-bit reference on signed
// and nonnegative problems of condition 1 to 10¹³. Up to cond 10¹⁰ the
// forward error must be within 10× of scipy's (plus 10ε), i.e. grow like
// cond(A) and not its square; beyond, every column must still be certified
// and its objective within rounding of the optimum. The log is the table in
// the package doc: go test -run AgainstScipyByConditioning -v ./nnls/
func TestAgainstScipyByConditioning(t *testing.T) {
	raw, err := os.ReadFile("testdata/scipy_conditioning.json")
	require.NoError(t, err)
	var fx struct {
		Generator string
		Cases     []struct {
			Name    string
			Cond    float64
			A, X, S [][]float64
		}
	}
	require.NoError(t, json.Unmarshal(raw, &fx))
	require.NotEmpty(t, fx.Cases)
	t.Logf("%-12s %9s %10s %10s %6s %s", "case", "cond", "ours", "scipy", "ratio", "stats")
	for _, c := range fx.Cases {
		a, x, sp := tensor.MustFromRows(c.A), tensor.MustFromRows(c.X), tensor.MustFromRows(c.S)
		res, err := nnls.Solve(a, x, nil)
		require.NoError(t, err, c.Name)
		ref := reference(a, x)
		ours, theirs := relErr(res.S, ref), relErr(sp, ref)
		t.Logf("%-12s %9.2g %10.2g %10.2g %6.2f %+v", c.Name, c.Cond, ours, theirs, ours/math.Max(theirs, 1e-300), res.Stats)
		require.Zero(t, res.Stats.Uncertified, c.Name)
		if c.Cond <= 1e10 {
			require.LessOrEqual(t, ours, 10*theirs+10*eps64, "%s: forward error %.3g against scipy's %.3g", c.Name, ours, theirs)
		}
		for j := 0; j < x.Cols; j++ {
			got, want := colOf(res.S, j), colOf(ref, j)
			fo, fr := refObjective(a, x, j, got), refObjective(a, x, j, want)
			require.LessOrEqual(t, fo, fr*(1+1e-9)+1e-24, "%s column %d: objective %.17g above the optimum %.17g", c.Name, j, fo, fr)
		}
	}
}

const eps64 = 0x1p-52

func colOf(s *tensor.Dense, j int) []float64 {
	c := make([]float64, s.Rows)
	for i := range c {
		c[i] = s.At(i, j)
	}
	return c
}
