package ops

import (
	"fmt"

	"github.com/neuralnmf/neuralnmf/autograd"
	"github.com/neuralnmf/neuralnmf/nnls"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// NNLSSparse is NNLS for a sparse, constant X (N×M): S = q(A, X), k×M. It
// never forms a dense N×M matrix: QᵀX and the backward X·Uᵀ cost about
// k·nnz(X).
// X receives no gradient (it is data). Errors are recorded on the tape as
// for NNLS.
func NNLSSparse(a *autograd.Var, x *tensor.Sparse, opt *nnls.Options) (*autograd.Var, *nnls.Result) {
	const op = "ops.NNLSSparse"
	t := autograd.TapeOf(op, a)
	if t.Err() != nil {
		return t.Failed(), nil
	}
	av := a.Value()
	res, err := nnls.SolveSparse(av, x, opt)
	if err != nil {
		return t.Fail(fmt.Errorf("%s: %w", op, err)), nil
	}
	t.MarkPiece(res.Support.Hash())
	workers := 0
	if opt != nil {
		workers = opt.Workers
	}
	out := t.Record(op, res.S, func(g *tensor.Dense, need []bool) []*tensor.Dense {
		ga := t.Alloc(av.Rows, av.Cols)
		if err := res.BackwardSparse(av, x, g, ga, workers); err != nil {
			t.Fail(fmt.Errorf("%s: %w", op, err))
			return []*tensor.Dense{nil}
		}
		return []*tensor.Dense{ga}
	}, a)
	return out, res
}

// SparseFrobeniusLoss returns the 1×1 loss ‖X − W·H‖²_F for a sparse,
// constant X (N×M), W (N×k) and H (k×M), computed as
//
//	‖X‖² − 2⟨WᵀX, H⟩ + ⟨WᵀW, H·Hᵀ⟩
//
// so that no N×M matrix is formed: the cost is O(k·nnz(X) + (N+M)·k²). Its
// gradients are ∂/∂W = 2(W·HHᵀ − X·Hᵀ) and ∂/∂H = 2(WᵀW·H − WᵀX). The
// expansion loses absolute accuracy of about ε·‖X‖², which matters only when
// the fit is nearly exact.
func SparseFrobeniusLoss(x *tensor.Sparse, w, h *autograd.Var) *autograd.Var {
	const op = "ops.SparseFrobeniusLoss"
	t := autograd.TapeOf(op, w, h)
	if t.Err() != nil {
		return t.Failed()
	}
	wv, hv := w.Value(), h.Value()
	if err := factorShapes(op, x, wv, hv); err != nil {
		return t.Fail(err)
	}
	k := wv.Cols
	wtx := t.Alloc(k, x.Cols) // WᵀX
	x.MulTAParallel(wv, wtx)
	wtw := t.Alloc(k, k)
	gemm(true, false, 1, wv, wv, 0, wtw)
	hht := t.Alloc(k, k)
	gemm(false, true, 1, hv, hv, 0, hht)
	out := t.Alloc(1, 1)
	out.Data[0] = x.SqNorm() - 2*tensor.Dot(wtx, hv) + tensor.Dot(wtw, hht)
	return t.Record(op, out, func(g *tensor.Dense, need []bool) []*tensor.Dense {
		s := 2 * g.Data[0]
		var gw, gh *tensor.Dense
		if need[0] { // 2(W·HHᵀ − X·Hᵀ)
			gw = t.Alloc(wv.Rows, k)
			gemm(false, false, s, wv, hht, 0, gw)
			x.MulDenseTParallel(-s, hv, 1, gw)
		}
		if need[1] { // 2(WᵀW·H − WᵀX)
			gh = t.Alloc(k, x.Cols)
			gemm(false, false, s, wtw, hv, 0, gh)
			tensor.AddScaled(gh, -s, wtx)
		}
		return []*tensor.Dense{gw, gh}
	}, w, h)
}

// factorShapes checks that W (N×k) and H (k×M) factor the sparse X (N×M).
func factorShapes(op string, x *tensor.Sparse, w, h *tensor.Dense) error {
	if w.Rows != x.Rows || h.Cols != x.Cols || w.Cols != h.Rows {
		return fmt.Errorf("%s: %w: X is %d×%d, W is %d×%d, H is %d×%d", op, tensor.ErrShape, x.Rows, x.Cols, w.Rows, w.Cols, h.Rows, h.Cols)
	}
	return nil
}
