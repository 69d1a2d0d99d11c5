package ops

import (
	"fmt"
	"math"

	"github.com/neuralnmf/neuralnmf/autograd"
	"github.com/neuralnmf/neuralnmf/nnls"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// DataLayer is a first layer S = q(A, X) on constant data X, recorded by
// NNLSData, that also records the reconstruction loss
// ‖X − A·H‖² of a later H (Loss) without a product with X of its own. The
// loss needs AᵀX, which the layer's solve forms from its QᵀX
// (nnls.Options.AtX), and its gradient with respect to A, 2(A·HHᵀ − X·Hᵀ),
// is formed in the products with X and A that the layer's backward pass
// makes anyway (nnls.Result.BackwardTerm). Unfused, the same loss
// costs two or three more passes over X (FactorLoss, SparseFrobeniusLoss);
// on a dense X with a wide first layer that is most of an epoch.
//
// The layer and its losses are ordinary nodes of one tape: the values and
// gradients are those of NNLS (or NNLSSparse) and FactorLoss (or
// SparseFrobeniusLoss) to rounding, and gradcheck checks them as such.
type DataLayer struct {
	// S is the layer's output, k×M (a failed variable if the solve failed).
	S *autograd.Var
	// Result is the solve's result (supports, statistics and AᵀX), nil if
	// it failed.
	Result *nnls.Result

	a       *autograd.Var
	x       *nnls.Data
	workers int
	// term is what the Loss nodes whose backward pass has run leave to the
	// layer's backward pass: Σ −2g·X·Hᵀ (as term.H, term.C = 1) and
	// Σ 2g·A·(H·Hᵀ) (as term.M); zero if none.
	term nnls.Term
}

// NNLSData records S = q(A, X) for constant data X (N×M, dense or sparse,
// prepared once by nnls.NewData or nnls.NewSparseData), as NNLS (or
// NNLSSparse) does with X a constant, and returns the layer, whose Loss
// records ‖X − A·H‖². opt is as for nnls.Solve (nil for defaults); its AtX
// is set. Errors are recorded on the tape as for NNLS.
func NNLSData(a *autograd.Var, x *nnls.Data, opt *nnls.Options) *DataLayer {
	const op = "ops.NNLSData"
	l := &DataLayer{a: a, x: x}
	t := autograd.TapeOf(op, a)
	if t.Err() != nil {
		l.S = t.Failed()
		return l
	}
	var o nnls.Options
	if opt != nil {
		o = *opt
	}
	o.AtX = true
	l.workers = o.Workers
	av := a.Value()
	res, err := nnls.SolveData(av, x, &o)
	if err != nil {
		l.S = t.Fail(fmt.Errorf("%s: %w", op, err))
		return l
	}
	l.Result = res
	t.MarkPiece(res.Support.Hash())
	l.S = t.Record(op, res.S, func(g *tensor.Dense, need []bool) []*tensor.Dense {
		term := l.term
		l.term = nnls.Term{} // owed once per backward pass
		if !need[0] {
			return []*tensor.Dense{nil}
		}
		ga := t.Alloc(av.Rows, av.Cols)
		if xs := x.Sparse(); xs != nil {
			err = res.BackwardSparseTerm(av, xs, g, ga, term, l.workers)
		} else {
			err = res.BackwardTerm(av, x.Dense(), g, ga, nil, term, l.workers)
		}
		if err != nil {
			t.Fail(fmt.Errorf("%s: %w", op, err))
			return []*tensor.Dense{nil}
		}
		return []*tensor.Dense{ga}
	}, a)
	return l
}

// lossDirect is the multiple of the expansion's rounding bound below which
// Loss recomputes a dense X's value directly: above it the expansion is
// accurate to a relative 10⁻⁸ or better, enough for any stopping rule.
const lossDirect = 1e8

// Loss records the 1×1 loss ‖X − A·H‖²_F for h (k×M) on the layer's tape,
// with X and A the layer's, computed as
//
//	‖X‖² − 2⟨AᵀX, H⟩ + ⟨AᵀA, H·Hᵀ⟩
//
// from the AᵀX of the layer's solve and the AᵀA of its factorisation
// (nnls.Factor.Gram), so that it makes no product with X or A. Its
// gradients are ∂/∂A = 2(A·HHᵀ − X·Hᵀ), which the layer's backward pass
// forms in its own two products with X and A (nnls.Term), and
// ∂/∂H = 2(AᵀA·H − AᵀX). The expansion loses absolute accuracy of about
// (k+2)·ε times the sum of its terms' magnitudes; for a dense X, a value
// within 10⁸ times that bound (a fit better than about 10⁻³ relative error)
// is computed directly instead, as FactorLoss does (tensor.SqDist), so the
// value is accurate to a relative 10⁻⁸ or better. A sparse X keeps the
// expansion, as SparseFrobeniusLoss does. The layer's S is an input of the
// node (with a zero gradient), so the layer's backward pass, which owes the
// loss's ∂/∂A, runs whenever this loss is differentiated. Shapes must
// agree; otherwise the tape records an error.
func (l *DataLayer) Loss(h *autograd.Var) *autograd.Var {
	const op = "ops.DataLayer.Loss"
	t := autograd.TapeOf(op, l.a, h, l.S)
	if t.Err() != nil {
		return t.Failed()
	}
	av, hv, res := l.a.Value(), h.Value(), l.Result
	n, k := av.Rows, av.Cols
	m := res.S.Cols
	if hv.Rows != k || hv.Cols != m {
		return t.Fail(fmt.Errorf("%s: %w: A is %d×%d and the layer's X has %d columns, H is %d×%d", op, tensor.ErrShape, n, k, m, hv.Rows, hv.Cols))
	}
	xsq := l.x.SqNorm()
	ata := t.Alloc(k, k)
	res.Factor.Gram(ata) // AᵀA from the solve's factorisation, no pass over A
	hht := t.Alloc(k, k)
	gemm(false, true, 1, hv, hv, 0, hht)
	cross, quad := tensor.Dot(res.AtX, hv), tensor.Dot(ata, hht)
	out := t.Alloc(1, 1)
	out.Data[0] = xsq - 2*cross + quad
	if xd := l.x.Dense(); xd != nil && out.Data[0] <= lossDirect*float64(k+2)*eps*(xsq+2*math.Abs(cross)+quad) {
		out.Data[0] = tensor.SqDist(xd, av, hv)
	}
	return t.Record(op, out, func(g *tensor.Dense, need []bool) []*tensor.Dense {
		s := 2 * g.Data[0]
		var gh, gs *tensor.Dense
		if need[0] { // 2(A·HHᵀ − X·Hᵀ), both in the layer's backward pass
			if l.term.H == nil {
				l.term.H, l.term.C, l.term.M = t.Alloc(k, m), 1, t.Alloc(k, k)
				tensor.Scale(l.term.H, -s, hv)
				tensor.Scale(l.term.M, s, hht)
			} else {
				tensor.AddScaled(l.term.H, -s, hv)
				tensor.AddScaled(l.term.M, s, hht)
			}
		}
		if need[1] { // 2(AᵀA·H − AᵀX)
			gh = t.Alloc(k, m)
			gemm(false, false, s, ata, hv, 0, gh)
			tensor.AddScaled(gh, -s, res.AtX)
		}
		if need[2] {
			gs = t.Alloc(k, m)
			clear(gs.Data)
		}
		return []*tensor.Dense{nil, gh, gs} // A's share is in term
	}, l.a, h, l.S)
}
