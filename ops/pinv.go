package ops

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/neuralnmf/neuralnmf/autograd"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// Pinv returns the Moore–Penrose pseudoinverse a† of a: for a of shape m×n the
// result is n×m. It is computed from a thin SVD; singular values at or below
// max(m, n)·ε·σ_max are treated as zero, as numpy.linalg.pinv and MATLAB's
// pinv do.
//
// Pinv is differentiable wherever the rank of a is locally constant (Golub &
// Pereyra 1973). With X = a† and upstream gradient G (n×m):
//
//	∂L/∂a = −Xᵀ G Xᵀ + (I − aX) Gᵀ X Xᵀ + Xᵀ X Gᵀ (I − Xa)
//
// evaluated without forming the n×n or m×m projectors, and with every
// intermediate of size min(m, n)², so the cost is O(min(m, n)²·max(m, n)):
// linear in the number of columns of a wide a. This is what makes the
// paper's classifier B = (Z∘Y)(S⁽ᴸ⁾)† part of the graph: gradients flow
// through B into S⁽ᴸ⁾. The rank found is marked as a piece of the tape (see
// autograd.Tape.MarkPiece), since a† jumps where the rank changes.
//
// a must be finite and not empty; otherwise the tape records an error.
func Pinv(a *autograd.Var) *autograd.Var {
	const op = "ops.Pinv"
	t := autograd.TapeOf(op, a)
	if t.Err() != nil {
		return t.Failed()
	}
	av := a.Value()
	if err := tensor.CheckNotEmpty("a", av); err != nil {
		return t.Fail(fmt.Errorf("%s: %w", op, err))
	}
	if err := tensor.CheckFinite("a", av); err != nil {
		return t.Fail(fmt.Errorf("%s: %w", op, err))
	}
	m, n := av.Rows, av.Cols
	x, rank, err := pinvSVD(av)
	if err != nil {
		return t.Fail(fmt.Errorf("%s: %w", op, err))
	}
	t.MarkPiece(uint64(rank) + 0x5bd1e995)
	out := t.Alloc(n, m)
	out.Copy(x)
	return t.Record(op, out, func(g *tensor.Dense, need []bool) []*tensor.Dense {
		// Shapes: a m×n, X n×m, G n×m. Every product is associated so that
		// its intermediates are p×p, p = min(m, n), never max(m, n)²: for
		// the classifier's S⁽ᴸ⁾ (k×M) that is k×k instead of M×M.
		ga := t.Alloc(m, n)
		if m <= n {
			// −Xᵀ G Xᵀ = −(XᵀG)·Xᵀ.
			xtg := t.Alloc(m, m)
			gemm(true, false, 1, out, g, 0, xtg)
			gemm(false, true, -1, xtg, out, 0, ga)
			// (I − aX)·H with H = Gᵀ X Xᵀ = (XᵀG)ᵀ·Xᵀ: H − (aX)·H.
			h := t.Alloc(m, n)
			gemm(true, true, 1, xtg, out, 0, h)
			tensor.AddScaled(ga, 1, h)
			ax := t.Alloc(m, m)
			gemm(false, false, 1, av, out, 0, ax)
			gemm(false, false, -1, ax, h, 1, ga)
			// K·(I − Xa) with K = (XᵀX)·Gᵀ: K − (KX)·a.
			xtx := t.Alloc(m, m)
			gemm(true, false, 1, out, out, 0, xtx)
			k := t.Alloc(m, n)
			gemm(false, true, 1, xtx, g, 0, k)
			tensor.AddScaled(ga, 1, k)
			kx := t.Alloc(m, m)
			gemm(false, false, 1, k, out, 0, kx)
			gemm(false, false, -1, kx, av, 1, ga)
			return []*tensor.Dense{ga}
		}
		// −Xᵀ G Xᵀ = −Xᵀ·(GXᵀ).
		gxt := t.Alloc(n, n)
		gemm(false, true, 1, g, out, 0, gxt)
		gemm(true, false, -1, out, gxt, 0, ga)
		// (I − aX)·H with H = Gᵀ·(XXᵀ): H − a·(XH).
		xxt := t.Alloc(n, n)
		gemm(false, true, 1, out, out, 0, xxt)
		h := t.Alloc(m, n)
		gemm(true, false, 1, g, xxt, 0, h)
		tensor.AddScaled(ga, 1, h)
		xh := t.Alloc(n, n)
		gemm(false, false, 1, out, h, 0, xh)
		gemm(false, false, -1, av, xh, 1, ga)
		// K·(I − Xa) with K = Xᵀ·(XGᵀ): K − K·(Xa).
		xgt := t.Alloc(n, n)
		gemm(false, true, 1, out, g, 0, xgt)
		k := t.Alloc(m, n)
		gemm(true, false, 1, out, xgt, 0, k)
		tensor.AddScaled(ga, 1, k)
		xa := t.Alloc(n, n)
		gemm(false, false, 1, out, av, 0, xa)
		gemm(false, false, -1, k, xa, 1, ga)
		return []*tensor.Dense{ga}
	}, a)
}

// pinvSVD returns a† and the numerical rank of a.
func pinvSVD(a *tensor.Dense) (*tensor.Dense, int, error) {
	m, n := a.Rows, a.Cols
	var svd mat.SVD
	if ok := svd.Factorize(a.Mat(), mat.SVDThin); !ok {
		return nil, 0, fmt.Errorf("SVD did not converge")
	}
	s := svd.Values(nil)
	var u, v mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	var tol float64
	if len(s) > 0 {
		tol = float64(max(m, n)) * eps * s[0]
	}
	x := tensor.New(n, m)
	rank := 0
	for r, sv := range s {
		if sv <= tol {
			break
		}
		rank++
		inv := 1 / sv
		for i := 0; i < n; i++ {
			vi := v.At(i, r) * inv
			if vi == 0 {
				continue
			}
			row := x.Row(i)
			for j := 0; j < m; j++ {
				row[j] += vi * u.At(j, r)
			}
		}
	}
	return x, rank, nil
}

// eps is the float64 machine epsilon, 2⁻⁵².
const eps = 0x1p-52
