package nnkl

import (
	"fmt"

	"github.com/neuralnmf/neuralnmf/nnls"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// klBackward forms ∂L/∂A into ga and ∂L/∂X into gx (either may be nil;
// gx only for a dense x) from the upstream gradient g of S, as KLLayer's
// doc states. In ∂L/∂A = −Σ_m (r_m·u_mᵀ + (w_m ∘ A·u_m)·s_mᵀ) the rows
// where x = 0 have r = 1 and w = 0, so they get −Σ_m u_m, formed once;
// the rest is summed over each column's positive entries.
func klBackward(a *tensor.Dense, x klData, s *tensor.Dense, sup *nnls.Support, g, ga, gx *tensor.Dense) error {
	n, k := a.Rows, a.Cols
	_, m := x.dims()
	colSum := make([]float64, k)
	for i := range n {
		for c, v := range a.Row(i) {
			colSum[c] += v
		}
	}
	u := make([]float64, k)
	usum := make([]float64, k)
	sj := make([]float64, k)
	c := newKLColumn(k, colSum)
	for j := range m {
		c.load(a, x, j)
		if len(c.rows) == 0 {
			continue // S's column is 0 for every A near this one
		}
		for i := range k {
			sj[i] = s.At(i, j)
		}
		c.objective(sj)
		c.gradient(true)
		idx := c.entries(func(i int) bool { return sup.Has(i, j) })
		if len(idx) == 0 {
			continue
		}
		t, ok := c.factorOn(idx, 0)
		if !ok {
			return fmt.Errorf("column %d: the Hessian on the support is singular", j)
		}
		b := c.b[:len(idx)]
		for p, i := range idx {
			b[p] = g.At(i, j)
		}
		solveOn(t, b)
		clear(u)
		for p, i := range idx {
			u[i] = b[p]
		}
		if ga != nil {
			for cc, v := range u {
				usum[cc] += v
			}
			// On the positive entries: +(x/y)·uᵀ − (w ∘ A·u)·sᵀ.
			for r, i := range c.rows {
				row := c.ar[r*k : r*k+k]
				au := 0.0
				for cc, av := range row {
					au += av * u[cc]
				}
				y := c.y[r]
				q, w := c.xv[r]/y, c.xv[r]/(y*y)
				gr := ga.Row(i)
				for cc := range k {
					gr[cc] += q*u[cc] - w*au*sj[cc]
				}
			}
		}
		if gx != nil { // (A·u)/y on every row with y > 0
			for i := range n {
				row := a.Row(i)
				yi, ai := 0.0, 0.0
				for cc, av := range row {
					yi += av * sj[cc]
					ai += av * u[cc]
				}
				if yi > 0 {
					gx.Set(i, j, ai/yi)
				}
			}
		}
	}
	if ga != nil {
		for i := range n {
			gr := ga.Row(i)
			for cc, v := range usum {
				gr[cc] -= v
			}
		}
	}
	return nil
}
