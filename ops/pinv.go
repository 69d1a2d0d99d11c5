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
		// Shapes: a m×n, X n×m, G n×m.
		ga := t.Alloc(m, n)
		if m <= n {
			pinvGradWide(t, av, out, g, ga)
			return []*tensor.Dense{ga}
		}
		// A tall a is the transpose of a wide one: (aᵀ)† = (a†)ᵀ, so
		// ∂L/∂a = (∂L/∂aᵀ)ᵀ with the upstream gradient Gᵀ.
		at, xt, gt, gat := t.Alloc(n, m), t.Alloc(m, n), t.Alloc(m, n), t.Alloc(n, m)
		tensor.TransposeInto(at, av)
		tensor.TransposeInto(xt, out)
		tensor.TransposeInto(gt, g)
		pinvGradWide(t, at, xt, gt, gat)
		tensor.TransposeInto(ga, gat)
		return []*tensor.Dense{ga}
	}, a)
}

// pinvGradWide writes into ga (m×n) the gradient of a loss through X = a†
// for a wide a (m ≤ n) with upstream gradient G (n×m):
//
//	−(XᵀG)·Xᵀ + H − (aX)·H + K − (KX)·a,  H = (XᵀG)ᵀ·Xᵀ,  K = (XᵀX)·Gᵀ,
//
// the doc's three terms associated so that every intermediate is m×m (k×k
// for the classifier's S⁽ᴸ⁾) or m×n, never n×n.
func pinvGradWide(t *autograd.Tape, a, x, g, ga *tensor.Dense) {
	m, n := a.Rows, a.Cols
	xtg := t.Alloc(m, m)
	gemm(true, false, 1, x, g, 0, xtg)
	gemm(false, true, -1, xtg, x, 0, ga)
	h := t.Alloc(m, n)
	gemm(true, true, 1, xtg, x, 0, h)
	tensor.AddScaled(ga, 1, h)
	ax := t.Alloc(m, m)
	gemm(false, false, 1, a, x, 0, ax)
	gemm(false, false, -1, ax, h, 1, ga)
	xtx := t.Alloc(m, m)
	gemm(true, false, 1, x, x, 0, xtx)
	k := t.Alloc(m, n)
	gemm(false, true, 1, xtx, g, 0, k)
	tensor.AddScaled(ga, 1, k)
	kx := t.Alloc(m, m)
	gemm(false, false, 1, k, x, 0, kx)
	gemm(false, false, -1, kx, a, 1, ga)
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
	rank := 0
	for _, sv := range s {
		if sv <= tol {
			break
		}
		rank++
	}
	// a† = V_r·Σ_r⁻¹·U_rᵀ over the rank kept, as one product.
	x := tensor.New(n, m)
	if rank == 0 {
		return x, 0, nil
	}
	vs, ur := tensor.New(n, rank), tensor.New(m, rank)
	vr, uraw := v.RawMatrix(), u.RawMatrix()
	for i := 0; i < n; i++ {
		row, src := vs.Row(i), vr.Data[i*vr.Stride:]
		for r := range row {
			row[r] = src[r] * (1 / s[r])
		}
	}
	for j := 0; j < m; j++ {
		copy(ur.Row(j), uraw.Data[j*uraw.Stride:j*uraw.Stride+rank])
	}
	gemm(false, true, 1, vs, ur, 0, x)
	return x, rank, nil
}

// eps is the float64 machine epsilon, 2⁻⁵².
const eps = 0x1p-52
