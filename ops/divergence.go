package ops

import (
	"fmt"
	"math"

	"github.com/neuralnmf/neuralnmf/autograd"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// The β-divergences
//
// NMF's usual losses are β-divergences between the data x and its
// reconstruction y, summed over the entries: β = 2 is half the squared
// Frobenius distance (FrobeniusLoss is twice it), β = 1 the generalised
// Kullback–Leibler divergence, the usual loss for word counts, and β = 0
// the Itakura–Saito divergence, for spectra. scikit-learn's NMF calls them
// beta_loss 'frobenius', 'kullback-leibler' and 'itakura-saito'; its KL and
// IS are the sums below.

// KLDivergence returns the 1×1 generalised Kullback–Leibler divergence
//
//	D(x‖y) = Σ x·log(x/y) − x + y
//
// of x and y (same shape, nonnegative; an entry with x = 0 contributes y,
// the limit of its term, and one with x > 0 needs y > 0). Its gradients are
// ∂/∂y = 1 − x/y and ∂/∂x = log(x/y) (0 where x = 0, the subgradient at
// the boundary).
func KLDivergence(x, y *autograd.Var) *autograd.Var {
	const op = "ops.KLDivergence"
	t, ok := elementwise2(op, x, y)
	if !ok {
		return t.Failed()
	}
	xv, yv := x.Value(), y.Value()
	var d float64
	for i, a := range xv.Data {
		b := yv.Data[i]
		switch {
		case a < 0 || b < 0 || math.IsNaN(a) || math.IsNaN(b):
			return t.Fail(fmt.Errorf("%s: entry (%d, %d): x = %v, y = %v; both must be nonnegative", op, i/xv.Cols, i%xv.Cols, a, b))
		case a > 0 && b == 0:
			return t.Fail(fmt.Errorf("%s: entry (%d, %d): y = 0 where x = %v > 0: the divergence is infinite", op, i/xv.Cols, i%xv.Cols, a))
		case a > 0:
			d += a*math.Log(a/b) - a + b
		default:
			d += b
		}
	}
	out := t.Alloc(1, 1)
	out.Data[0] = d
	return t.Record(op, out, func(g *tensor.Dense, need []bool) []*tensor.Dense {
		s := g.Data[0]
		var gx, gy *tensor.Dense
		if need[0] {
			gx = t.Alloc(xv.Rows, xv.Cols)
			for i, a := range xv.Data {
				gx.Data[i] = 0
				if a > 0 {
					gx.Data[i] = s * math.Log(a/yv.Data[i])
				}
			}
		}
		if need[1] {
			gy = t.Alloc(yv.Rows, yv.Cols)
			for i, b := range yv.Data {
				gy.Data[i] = s
				if a := xv.Data[i]; a > 0 {
					gy.Data[i] = s * (1 - a/b)
				}
			}
		}
		return []*tensor.Dense{gx, gy}
	}, x, y)
}

// ItakuraSaito returns the 1×1 Itakura–Saito divergence
//
//	D(x‖y) = Σ x/y − log(x/y) − 1
//
// of x and y (same shape, every entry positive). Its gradients are
// ∂/∂y = 1/y − x/y² and ∂/∂x = 1/y − 1/x.
func ItakuraSaito(x, y *autograd.Var) *autograd.Var {
	const op = "ops.ItakuraSaito"
	t, ok := elementwise2(op, x, y)
	if !ok {
		return t.Failed()
	}
	xv, yv := x.Value(), y.Value()
	var d float64
	for i, a := range xv.Data {
		b := yv.Data[i]
		if !(a > 0 && b > 0) || math.IsInf(a, 0) || math.IsInf(b, 0) {
			return t.Fail(fmt.Errorf("%s: entry (%d, %d): x = %v, y = %v; both must be positive and finite", op, i/xv.Cols, i%xv.Cols, a, b))
		}
		d += a/b - math.Log(a/b) - 1
	}
	out := t.Alloc(1, 1)
	out.Data[0] = d
	return t.Record(op, out, func(g *tensor.Dense, need []bool) []*tensor.Dense {
		s := g.Data[0]
		var gx, gy *tensor.Dense
		if need[0] {
			gx = t.Alloc(xv.Rows, xv.Cols)
			for i, a := range xv.Data {
				gx.Data[i] = s * (1/yv.Data[i] - 1/a)
			}
		}
		if need[1] {
			gy = t.Alloc(yv.Rows, yv.Cols)
			for i, b := range yv.Data {
				gy.Data[i] = s * (1/b - xv.Data[i]/(b*b))
			}
		}
		return []*tensor.Dense{gx, gy}
	}, x, y)
}

// SparseKLLoss returns the 1×1 generalised Kullback–Leibler divergence
// D(X‖W·H) (see KLDivergence) for a sparse, constant X (N×M, nonnegative),
// W (N×k) and H (k×M), both nonnegative, touching only X's non-zeros:
//
//	D = Σ_{X_ij > 0} [X_ij·log(X_ij/(WH)_ij) − X_ij] + 1ᵀW·H1
//
// so that no N×M matrix is formed: the cost is O(k·nnz(X) + (N+M)·k). Its
// gradients are ∂/∂W = 1·(H1)ᵀ − R·Hᵀ and ∂/∂H = (Wᵀ1)·1ᵀ − Wᵀ·R, with R
// the sparse X_ij/(WH)_ij. (WH)_ij must be positive wherever X_ij is.
func SparseKLLoss(x *tensor.Sparse, w, h *autograd.Var) *autograd.Var {
	const op = "ops.SparseKLLoss"
	t := autograd.TapeOf(op, w, h)
	if t.Err() != nil {
		return t.Failed()
	}
	wv, hv := w.Value(), h.Value()
	if err := factorShapes(op, x, wv, hv); err != nil {
		return t.Fail(err)
	}
	k := wv.Cols
	ht := t.Alloc(x.Cols, k) // Hᵀ: column j of H contiguous
	tensor.TransposeInto(ht, hv)
	r := make([]float64, len(x.Val)) // X_ij / (WH)_ij at the non-zeros
	var d float64
	for j := 0; j < x.Cols; j++ {
		hj := ht.Row(j)
		for p := x.ColPtr[j]; p < x.ColPtr[j+1]; p++ {
			i, a := x.RowIdx[p], x.Val[p]
			if a < 0 {
				return t.Fail(fmt.Errorf("%s: X entry (%d, %d) is %v; X must be nonnegative", op, i, j, a))
			}
			var b float64
			for c, wc := range wv.Row(i) {
				b += wc * hj[c]
			}
			if !(b > 0) {
				return t.Fail(fmt.Errorf("%s: (W·H) entry (%d, %d) is %v where X is %v > 0: the divergence is infinite", op, i, j, b, a))
			}
			d += a*math.Log(a/b) - a
			r[p] = a / b
		}
	}
	wsum := make([]float64, k) // Wᵀ1
	for i := 0; i < wv.Rows; i++ {
		for c, v := range wv.Row(i) {
			wsum[c] += v
		}
	}
	hsum := make([]float64, k) // H1
	for j := 0; j < x.Cols; j++ {
		for c, v := range ht.Row(j) {
			hsum[c] += v
		}
	}
	for c := range k {
		d += wsum[c] * hsum[c]
	}
	out := t.Alloc(1, 1)
	out.Data[0] = d
	return t.Record(op, out, func(g *tensor.Dense, need []bool) []*tensor.Dense {
		s := g.Data[0]
		var gw, gh *tensor.Dense
		if need[0] { // 1·(H1)ᵀ − R·Hᵀ
			gw = t.Alloc(wv.Rows, k)
			for i := 0; i < wv.Rows; i++ {
				for c := range k {
					gw.Data[i*k+c] = s * hsum[c]
				}
			}
			for j := 0; j < x.Cols; j++ {
				hj := ht.Row(j)
				for p := x.ColPtr[j]; p < x.ColPtr[j+1]; p++ {
					row, v := gw.Row(x.RowIdx[p]), s*r[p]
					for c, hc := range hj {
						row[c] -= v * hc
					}
				}
			}
		}
		if need[1] { // (Wᵀ1)·1ᵀ − Wᵀ·R, formed transposed then turned
			ght := t.Alloc(x.Cols, k)
			for j := 0; j < x.Cols; j++ {
				col := ght.Row(j)
				for c := range k {
					col[c] = s * wsum[c]
				}
				for p := x.ColPtr[j]; p < x.ColPtr[j+1]; p++ {
					v := s * r[p]
					for c, wc := range wv.Row(x.RowIdx[p]) {
						col[c] -= v * wc
					}
				}
			}
			gh = t.Alloc(k, x.Cols)
			tensor.TransposeInto(gh, ght)
		}
		return []*tensor.Dense{gw, gh}
	}, w, h)
}
