package neuralnmf

import (
	"fmt"
	"math"

	"github.com/neuralnmf/neuralnmf/autograd"
	"github.com/neuralnmf/neuralnmf/nnls"
	"github.com/neuralnmf/neuralnmf/ops"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// Forward is what a custom loss receives: the variables of one forward pass.
type Forward struct {
	// X is the N×M data (constant); nil when training on a sparse X, which
	// is then in XSparse (use ops.SparseFrobeniusLoss with it).
	X       *autograd.Var
	XSparse *tensor.Sparse
	A       []*autograd.Var // A⁽ˡ⁾, k⁽ˡ⁻¹⁾×k⁽ˡ⁾ (parameters)
	S       []*autograd.Var // S⁽ˡ⁾ = q(A⁽ˡ⁾, S⁽ˡ⁻¹⁾), k⁽ˡ⁾×M
	// Y and Z are the one-hot labels and their mask (P×M), nil without
	// supervision.
	Y, Z *autograd.Var
	// B is the classifier: (Z∘Y)(S⁽ᴸ⁾)† for LeastSquares, the parameter for
	// CrossEntropy; nil without supervision.
	B    *autograd.Var
	mask *autograd.Var
	// below is A⁽¹⁾⋯A⁽ᴸ⁾S⁽ᴸ⁾ once belowFirst has recorded it.
	below *autograd.Var
	// first is the first layer when it was recorded with its fit's loss
	// fused (ops.NNLSData); nil otherwise.
	first *ops.DataLayer

	trainer    *trainer
	supervised bool // AddSupervision was called
}

// forward records one forward pass on tape and returns its variables and the
// NNLS results.
func (t *trainer) forward(tape *autograd.Tape) (*Forward, []*nnls.Result) {
	f := &Forward{XSparse: t.x.sparse, trainer: t}
	if t.x.dense != nil {
		f.X = tape.Const(t.x.dense)
	}
	if t.cfg.DataMask != nil {
		f.mask = tape.Const(t.cfg.DataMask)
	}
	in := f.X
	var res []*nnls.Result
	for l, a := range t.a {
		av := tape.Param(a)
		opt := &nnls.Options{Workers: t.cfg.Workers}
		if t.warm != nil {
			opt.Warm = t.warm[l]
		}
		s, r := t.cfg.Loss.impl().layer(t, f, l, av, in, opt)
		f.A = append(f.A, av)
		f.S = append(f.S, s)
		res = append(res, r)
		in = s
	}
	if t.y != nil {
		f.Y, f.Z = tape.Const(t.y), tape.Const(t.z)
		if t.b != nil {
			f.B = tape.Param(t.b)
		} else {
			f.B = ops.MatMul(ops.Hadamard(f.Z, f.Y), ops.Pinv(f.S[len(f.S)-1]))
		}
	}
	return f, res
}

// nnlsLayer records layer l of a least-squares loss, S = q(A, in), on f's
// tape: NNLS, with the first layer fused with the fit's loss where X
// allows, or the elastic-net problem of the layers' penalty.
func (t *trainer) nnlsLayer(f *Forward, l int, av, in *autograd.Var, opt *nnls.Options) (*autograd.Var, *nnls.Result) {
	a, tape := av.Value(), av.Tape()
	// The pure ℓ₁ layer is NNLS with the solver's L1 shift (pen.options):
	// the unpenalised cases below take it. The elastic-net layer with a
	// ridge part is NNLS of an augmented system.
	pen, penalised := layerPenalty(t.cfg.AlphaS, t.cfg.L1Ratio, a.Rows)
	ridge := penalised && !pen.pure
	lopt := pen.options(opt)
	switch {
	case ridge && l == 0:
		// The augmented system's X part is formed once for the fit.
		aug := ops.ConcatRows(av, tape.Const(pen.ridge(a.Cols)))
		xa := t.augmentedX(pen, a.Cols)
		if xa.sparse != nil {
			return ops.NNLSSparse(aug, xa.sparse, opt)
		}
		return ops.NNLS(aug, tape.Const(xa.dense), opt)
	case ridge:
		return ops.NNLSElasticNet(av, in, pen.alpha, t.cfg.L1Ratio, opt)
	case l == 0 && t.prepared() != nil:
		// With the fit's loss (fitX) fused: the loss reads AᵀX and AᵀA
		// from the solve and leaves its ∂/∂A to this layer's backward
		// pass.
		f.first = ops.NNLSData(av, t.prep, lopt)
		return f.first.S, f.first.Result
	case l == 0 && f.XSparse != nil:
		return ops.NNLSSparse(av, f.XSparse, lopt) // records X's error
	}
	return ops.NNLS(av, in, lopt)
}

// prepared returns t.x prepared for the first layer's solves, made on the
// first call after x was set (setBatch drops it with every mini-batch), or
// nil if X has a non-finite entry (the unfused op then records the error).
func (t *trainer) prepared() *nnls.Data {
	if t.prep != nil {
		return t.prep
	}
	var err error
	if t.x.sparse != nil {
		t.prep, err = nnls.NewSparseData(t.x.sparse)
	} else {
		t.prep, err = nnls.NewData(t.x.dense)
	}
	if err != nil {
		t.prep = nil
	}
	return t.prep
}

// augmentedX returns the first layer's input under the elastic-net
// penalty pen for rank k, [X; shift·1], formed on the first call.
func (t *trainer) augmentedX(pen elasticNet, k int) data {
	if t.xAug.dense == nil && t.xAug.sparse == nil {
		if t.x.sparse != nil {
			t.xAug.sparse = pen.augmentSparse(t.x.sparse, k).WithRows()
		} else {
			t.xAug.dense = pen.augmentX(t.x.dense, k)
		}
	}
	return t.xAug
}

// builtinLoss is the configured loss on f. fit is its unnormalised term
// ‖X − A⁽⁰⁾⋯S⁽ᴸ⁾‖² (Reconstruction loss, no data mask), from which the
// epoch's relative error is read; nil otherwise.
func (t *trainer) builtinLoss(f *Forward) (loss, fit *autograd.Var) {
	return t.cfg.Loss.impl().loss(t, f)
}

// lsTerms is the least-squares losses' builtinLoss: the fit term (every
// layer's with energy), the factors' penalty and the supervision term.
func (t *trainer) lsTerms(f *Forward, energy bool) (loss, fit *autograd.Var) {
	L := len(f.A)
	n, mcols := t.x.dims()
	if energy {
		loss = t.per(fitX(f, f.A[0], f.S[0]), n*mcols)
		for l := 1; l < L; l++ {
			loss = ops.Add(loss, t.per(ops.FrobeniusLoss(f.S[l-1], ops.MatMul(f.A[l], f.S[l])), t.cfg.Ranks[l-1]*mcols))
		}
	} else {
		fit = fitX(f, f.A[0], belowFirst(f))
		loss = t.per(fit, n*mcols)
		if t.cfg.DataMask != nil {
			fit = nil // a masked fit is not the error over all of X
		}
	}
	if t.cfg.AlphaA > 0 {
		loss = ops.Add(loss, t.per(factorPenalty(f.A, t.cfg.AlphaA, t.cfg.L1Ratio, mcols), n*mcols))
	}
	if t.cfg.Supervision != nil {
		loss = t.addSupervision(f, loss)
	}
	return loss, fit
}

// supervisionTerm is the configured classification term on f, unweighted:
// the least-squares ‖Z∘(Y − B·S⁽ᴸ⁾)‖² or the masked cross-entropy, divided
// by its entries when the loss is normalised.
func (t *trainer) supervisionTerm(f *Forward) *autograd.Var {
	s := t.cfg.Supervision
	if s.Head != nil {
		return t.headTerm(f)
	}
	pred := ops.MatMul(f.B, f.S[len(f.S)-1])
	if s.Classifier == CrossEntropy {
		return t.per(ops.SoftmaxCrossEntropy(pred, f.Y, f.Z), t.known)
	}
	_, m := t.x.dims()
	return t.per(ops.MaskedLoss(f.Z, f.Y, pred), s.Classes*m)
}

// addSupervision returns loss + λ·(the supervision term), resolving a
// default λ against loss on the first pass (balancedLambda).
func (t *trainer) addSupervision(f *Forward, loss *autograd.Var) *autograd.Var {
	sup := t.supervisionTerm(f)
	s := t.cfg.Supervision
	if s.Lambda == 0 {
		s.Lambda = t.balancedLambda(loss, sup)
		t.hist.Lambda = s.Lambda
	}
	return ops.Add(loss, ops.Scale(sup, s.Lambda))
}

// per scales a term by 1/entries when the loss is normalised.
func (t *trainer) per(v *autograd.Var, entries int) *autograd.Var {
	if !t.cfg.Normalize {
		return v
	}
	return ops.Scale(v, 1/float64(max(entries, 1)))
}

// AddSupervision returns loss + λ·(the built-in supervision term of
// Config.Supervision: its classifier, Y, Z and B on this forward pass), so
// that a CustomLoss keeps the labels:
//
//	cfg.CustomLoss = func(t *autograd.Tape, f *neuralnmf.Forward) *autograd.Var {
//		return f.AddSupervision(myLoss(t, f))
//	}
//
// With the default λ (Supervision.Lambda 0), λ is set on the first forward
// pass against loss, as the built-in loss sets it against the
// reconstruction term. Train returns an error if Config.Supervision is set
// and a CustomLoss does not call AddSupervision, since B would then be
// trained on nothing while History still reports accuracies. It panics
// without Supervision (Y, B nil), a programmer error.
func (f *Forward) AddSupervision(loss *autograd.Var) *autograd.Var {
	if f.trainer == nil || f.B == nil {
		panic("neuralnmf: Forward.AddSupervision without Config.Supervision")
	}
	f.supervised = true
	return f.trainer.addSupervision(f, loss)
}

// customLoss calls Config.CustomLoss, turning a panic in it (user code, for
// example an op on Forward.X, which is nil for a sparse X) into an error.
func (t *trainer) customLoss(f *Forward) (loss *autograd.Var, err error) {
	defer func() {
		if r := recover(); r != nil {
			hint := ""
			if f.X == nil {
				hint = " (Forward.X is nil because X is sparse: use Forward.XSparse with a sparse loss, ops.SparseFrobeniusLoss for the squared error or ops.SparseKLLoss for the divergence)"
			}
			err = fmt.Errorf("CustomLoss panicked: %v%s", r, hint)
		}
	}()
	return t.cfg.CustomLoss(t.tape, f), nil
}

// balancedLambda is Supervision.Lambda's default, resolved on the first
// forward pass: Balance times the ratio of the unsupervised term to the
// supervision term at the starting point, so that the weighted terms start
// in that ratio whatever the scale of X or the number of labels. If either
// term is zero or not finite there, it is Balance times ‖X‖² over the
// number of known labels.
func (t *trainer) balancedLambda(rec, sup *autograd.Var) float64 {
	if rec.Value() != nil && sup.Value() != nil {
		r, s := rec.Value().Data[0], sup.Value().Data[0]
		if l := t.cfg.Supervision.Balance * r / s; r > 0 && s > 0 && !math.IsInf(l, 0) && !math.IsNaN(l) {
			return l
		}
	}
	xn := t.x.norm()
	return t.cfg.Supervision.Balance * xn * xn / float64(max(t.known, 1))
}

// belowFirst returns A⁽¹⁾⋯A⁽ᴸ⁾S⁽ᴸ⁾ (S⁽⁰⁾ for one layer), multiplied from the
// right so that every product is thin; A⁽⁰⁾ times it reconstructs X. It is
// recorded once per forward pass: the loss, the error sums and the
// Statistics update share it.
func belowFirst(f *Forward) *autograd.Var {
	if f.below != nil {
		return f.below
	}
	r := f.S[len(f.S)-1]
	for l := len(f.A) - 1; l >= 1; l-- {
		r = ops.MatMul(f.A[l], r)
	}
	f.below = r
	return r
}

// fitX is ‖X − W·H‖²: masked when there is a data mask; else, when W is
// the first layer's A and that layer was recorded with its loss fused
// (ops.DataLayer), by the layer's Loss, which makes no product with X of its
// own; else in the sparse form when X is sparse, and otherwise by
// ops.FactorLoss, which forms no N×M matrix.
func fitX(f *Forward, w, h *autograd.Var) *autograd.Var {
	if f.mask == nil && f.first != nil && w == f.A[0] {
		return f.first.Loss(h)
	}
	if f.XSparse != nil {
		return ops.SparseFrobeniusLoss(f.XSparse, w, h)
	}
	if f.mask != nil {
		return ops.MaskedLoss(f.mask, f.X, ops.MatMul(w, h))
	}
	return ops.FactorLoss(f.X, w, h)
}

// ForwardLoss returns loss (a Config.CustomLoss) as a function of the A's
// alone, in the form gradcheck.Check takes: given A⁽⁰⁾…A⁽ᴸ⁾ on a tape, it
// records the forward pass S⁽ˡ⁾ = q(A⁽ˡ⁾, S⁽ˡ⁻¹⁾) on x (a *tensor.Dense,
// Forward.X, or a *tensor.Sparse, Forward.XSparse) with ops.NNLS and
// returns loss of it. So a CustomLoss is gradchecked as written:
//
//	rep, err := gradcheck.Check(neuralnmf.ForwardLoss(x, myLoss), startAs, nil)
//
// There is no Supervision here: Forward.Y, Z and B are nil, and
// Forward.AddSupervision panics. Another kind of x is a programmer error
// (a panic).
func ForwardLoss(x Data, loss func(*autograd.Tape, *Forward) *autograd.Var) func(*autograd.Tape, []*autograd.Var) *autograd.Var {
	if xs, ok := x.(*tensor.Sparse); ok {
		return func(t *autograd.Tape, a []*autograd.Var) *autograd.Var {
			f := &Forward{XSparse: xs}
			var in *autograd.Var
			for l, av := range a {
				var s *autograd.Var
				if l == 0 {
					s, _ = ops.NNLSSparse(av, xs, nil)
				} else {
					s, _ = ops.NNLS(av, in, nil)
				}
				f.A, f.S = append(f.A, av), append(f.S, s)
				in = s
			}
			return loss(t, f)
		}
	}
	xd, ok := x.(*tensor.Dense)
	if !ok {
		panic(fmt.Sprintf("neuralnmf: ForwardLoss: x is a %T: want a *tensor.Dense or a *tensor.Sparse", x))
	}
	return func(t *autograd.Tape, a []*autograd.Var) *autograd.Var {
		f := &Forward{X: t.Const(xd)}
		in := f.X
		for _, av := range a {
			s, _ := ops.NNLS(av, in, nil)
			f.A, f.S = append(f.A, av), append(f.S, s)
			in = s
		}
		return loss(t, f)
	}
}
