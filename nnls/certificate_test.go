package nnls

import (
	"encoding/json"
	"math"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/tensor"
)

// The certificate must reject a wrong support. On every column of the
// conditioning fixtures up to cond 10¹⁰ (the support there is scipy's, which
// equals the 256-bit reference's), every support one step from the true one
// (one variable dropped, added or swapped) whose least-squares solution is
// positive is a feasible point that is not optimal: the certificate must
// fail it, and pass the true support's own solution.
func TestCertificateRejectsWrongSupports(t *testing.T) {
	raw, err := os.ReadFile("testdata/scipy_conditioning.json")
	require.NoError(t, err)
	var fx struct {
		Cases []struct {
			Name    string
			Cond    float64
			A, X, S [][]float64
		}
	}
	require.NoError(t, json.Unmarshal(raw, &fx))
	tested := 0
	for _, c := range fx.Cases {
		if c.Cond > 1e10 {
			// Beyond the accuracy target: at cond 1.2·10¹¹ some wrong
			// supports have multipliers as small as the true one's
			// rounding noise (degenerate at working precision).
			continue
		}
		a, x, s := tensor.MustFromRows(c.A), tensor.MustFromRows(c.X), tensor.MustFromRows(c.S)
		f, err := NewFactor(a)
		require.NoError(t, err)
		require.Equal(t, a.Cols, f.kk)
		w := newWorker(f, tolFor(0, f.p, f.kk), 100)
		w.ensureLH()
		d := make([]float64, f.p)
		for j := 0; j < x.Cols; j++ {
			var dm float64
			for i := range d {
				d[i] = 0
				for r := 0; r < x.Rows; r++ {
					d[i] += f.q.At(r, i) * x.At(r, j)
				}
				dm = math.Max(dm, math.Abs(d[i]))
			}
			for i := range d {
				d[i] /= dm
			}
			var dn float64
			for _, v := range d {
				dn += v * v
			}
			w.xTol = w.tau * math.Sqrt(dn)
			trueSet := make([]bool, f.kk)
			for i := range trueSet {
				trueSet[i] = s.At(i, j) > 0
			}
			// solveOn puts the least-squares solution on set into w and
			// reports whether it is positive there.
			solveOn := func(set []bool) bool {
				w.lh.order = w.lh.order[:0]
				for i, in := range set {
					w.inF[i] = in
					if in {
						w.lh.order = append(w.lh.order, i)
					}
				}
				if !w.lhSubproblem(d, false) {
					return false
				}
				clear(w.x)
				for _, i := range w.lh.order {
					if w.lh.z[i] <= 0 {
						return false
					}
					w.x[i] = w.lh.z[i]
				}
				w.residual(d, true)
				return true
			}
			require.True(t, solveOn(trueSet), "%s column %d: true support not positive", c.Name, j)
			require.True(t, w.certify(), "%s column %d: the true support is not certified", c.Name, j)
			var wrong [][]bool
			for i := range trueSet {
				alt := append([]bool(nil), trueSet...)
				alt[i] = !alt[i] // drop or add i
				wrong = append(wrong, alt)
				for l := range trueSet {
					if trueSet[i] && !trueSet[l] { // swap i out, l in
						sw := append([]bool(nil), trueSet...)
						sw[i], sw[l] = false, true
						wrong = append(wrong, sw)
					}
				}
			}
			for _, set := range wrong {
				if !solveOn(set) {
					continue // infeasible: not a candidate
				}
				tested++
				require.False(t, w.certify(), "%s column %d: a wrong support %v passed the certificate", c.Name, j, set)
			}
		}
	}
	t.Logf("%d feasible wrong supports, all rejected", tested)
	require.Greater(t, tested, 100)
}
