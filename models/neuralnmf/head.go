package neuralnmf

import (
	"fmt"
	"math"

	"github.com/neuralnmf/neuralnmf/autograd"
	"github.com/neuralnmf/neuralnmf/classify"
	"github.com/neuralnmf/neuralnmf/ops"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// headOf returns s's Head, or nil (s may be nil).
func (s *Supervision) headOf() *Head {
	if s == nil {
		return nil
	}
	return s.Head
}

// check returns an error for a Head that cannot be trained on an X of m
// columns with these ranks and classes.
func (h *Head) check(ranks []int, classes, m int) error {
	if h.Layer < 1 || h.Layer > len(ranks) {
		return fmt.Errorf("neuralnmf: %w: Supervision.Head.Layer is %d, want 1..%d", ErrConfig, h.Layer, len(ranks))
	}
	if err := tensor.CheckShape("Supervision.Head.B0", h.B0, classes, ranks[h.Layer-1]); err != nil {
		return fmt.Errorf("neuralnmf: %w", err)
	}
	if err := tensor.CheckShape("Supervision.Head.Offset", h.Offset, classes, m); err != nil {
		return fmt.Errorf("neuralnmf: %w", err)
	}
	if !(h.Penalty >= 0) || math.IsInf(h.Penalty, 0) {
		return fmt.Errorf("neuralnmf: %w: Supervision.Head.Penalty is %v, want a finite value ≥ 0", ErrConfig, h.Penalty)
	}
	return nil
}

// headScale is the scale of B's Adam step: the root mean square of B's
// start for a Head (its regression's weights), 1 otherwise (B starts near
// 0).
func (t *trainer) headScale() float64 {
	h := t.cfg.Supervision.headOf()
	if h == nil {
		return 1
	}
	return math.Max(math.Sqrt(tensor.SqNorm(h.B0)/float64(max(h.B0.Len(), 1))), 1e-12)
}

// headTerm is the Head's penalised cross-entropy on f.
func (t *trainer) headTerm(f *Forward) *autograd.Var {
	h := t.cfg.Supervision.Head
	z := ops.Add(ops.MatMul(f.B, f.S[h.Layer-1]), f.Y.Tape().Const(h.Offset))
	ce := ops.SoftmaxCrossEntropy(z, f.Y, f.Z)
	pen := ops.Scale(ops.Sum(ops.Hadamard(f.B, f.B)), h.Penalty)
	return t.per(ops.Add(ce, pen), t.known)
}

// predictTrain returns the class the classifier on f predicts for each
// training column.
func (t *trainer) predictTrain(f *Forward) []int {
	h := t.cfg.Supervision.headOf()
	if h == nil {
		return classify.Predict(f.B.Value(), f.S[len(f.S)-1].Value())
	}
	sc := tensor.MatMul(false, false, f.B.Value(), f.S[h.Layer-1].Value())
	for i, v := range h.Offset.Data {
		sc.Data[i] += v
	}
	return classify.ArgmaxColumns(sc)
}
