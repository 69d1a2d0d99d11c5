package neuralnmf

import (
	"fmt"
	"math"
	"strings"

	"github.com/neuralnmf/neuralnmf/autograd"
	"github.com/neuralnmf/neuralnmf/classify"
	"github.com/neuralnmf/neuralnmf/ops"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// Topics trained with the labels beside the words
//
// The TopicsWords candidate, a logistic regression on the unsupervised
// first layer's topics beside the words, is the classifier that wins the
// choice on most corpora, but its topics never see a label. The
// SupervisedTopicsWords candidate trains them with it: from the
// unsupervised fit's A's and that regression (fitted on the labels the fit
// trains on, with the C the cross-validation chose), it trains the A's and
// the regression's weights on the topics, B, by the supervised loss
//
//	reconstruction + λ·( Σ −log softmax(B·S⁽¹⁾ + O)_y + ‖B‖²/(2C·s²) ),
//
// the sum over the known labels, O = BX·x/‖x‖ + intercept the regression's
// part on the words (held fixed) and s the scale of the topics in its
// features (topicScale), so that the penalty is the regression's own: at
// the start, B is the regression's optimum for the topics it reads, and
// the labels' gradient reaches the A's through S⁽¹⁾ and the NNLS layers.
// It is scored as the supervised fit is, on the held-out fold with early
// stopping, and refitted on all known labels for as many epochs.

// jointHead is the classifier of a SupervisedTopicsWords fit: class scores
// B·S⁽layer⁾ + offset, B starting at b0 and trained, offset (P×M, bx and
// intercept applied to the training columns) fixed; penalty weighs ‖B‖².
type jointHead struct {
	layer         int
	b0, offset    *tensor.Dense
	bx, intercept *tensor.Dense
	penalty       float64
}

// jointHead returns s's joint head, or nil (s may be nil).
func (s *Supervision) jointHead() *jointHead {
	if s == nil {
		return nil
	}
	return s.head
}

// headScale is the scale of B's Adam step: the root mean square of B's
// start for a joint head (its regression's weights), 1 otherwise (B starts
// near 0).
func (t *trainer) headScale() float64 {
	h := t.cfg.Supervision.jointHead()
	if h == nil {
		return 1
	}
	return math.Max(math.Sqrt(tensor.SqNorm(h.b0)/float64(max(h.b0.Len(), 1))), 1e-12)
}

// jointTerm is the joint head's penalised cross-entropy on f.
func (t *trainer) jointTerm(f *Forward) *autograd.Var {
	h := t.cfg.Supervision.head
	z := ops.Add(ops.MatMul(f.B, f.S[h.layer-1]), f.Y.Tape().Const(h.offset))
	ce := ops.SoftmaxCrossEntropy(z, f.Y, f.Z)
	pen := ops.Scale(ops.Sum(ops.Hadamard(f.B, f.B)), h.penalty)
	return t.per(ops.Add(ce, pen), t.known)
}

// predictTrain returns the class the classifier on f predicts for each
// training column.
func (t *trainer) predictTrain(f *Forward) []int {
	h := t.cfg.Supervision.jointHead()
	if h == nil {
		return Predict(f.B.Value(), f.S[len(f.S)-1].Value())
	}
	sc := tensor.MatMul(false, false, f.B.Value(), f.S[h.layer-1].Value())
	for i, v := range h.offset.Data {
		sc.Data[i] += v
	}
	return argmaxColumns(sc)
}

// newJointHead returns the joint head that starts from l, a regression on
// the unsupervised model's first-layer topics (c.regressions[TopicsWords])
// and the words with inverse penalty C.
func (c *chooser) newJointHead(l *classify.Logistic, C float64) (*jointHead, error) {
	n, m := c.x.dims()
	cand := c.regressions[TopicsWords]
	b0, bx, ic := classifierOf(l, cand, n, c.um.A[0].Cols)
	offset := tensor.New(c.sup.Classes, m)
	if err := addDataScores(offset, bx, ic, c.x); err != nil {
		return nil, err
	}
	return &jointHead{layer: 1, b0: b0, offset: offset, bx: bx, intercept: ic,
		penalty: 1 / (2 * C * cand.scale * cand.scale)}, nil
}

// jointConfig returns the Config of a joint fit on the labels marked, from
// the unsupervised model's A's, with head.
func (c *chooser) jointConfig(mark []bool, head *jointHead, patience int) Config {
	cfg := c.withKnown(mark, c.balances[0], patience)
	cfg.Init, cfg.InitA, cfg.Restarts, cfg.InitRestarts = GivenInit, c.um.A, 1, 1
	cfg.Supervision.Classifier, cfg.Supervision.head = CrossEntropy, head
	return cfg
}

// scoreJoint trains the SupervisedTopicsWords candidate on the labels
// outside the held-out fold and scores it on that fold; target is the
// early stop's (scoreSupervised).
func (c *chooser) scoreJoint(target float64) error {
	var cols, y []int
	for i, j := range c.knownCols {
		if c.fold[i] != 0 {
			cols, y = append(cols, j), append(y, c.knownY[i])
		}
	}
	l, err := classify.FitLogistic(c.featuresOf(TopicsWords).Subset(cols), y, c.sup.Classes, c.tw.c, nil)
	if err != nil {
		return err
	}
	head, err := c.newJointHead(l, c.tw.c)
	if err != nil {
		return err
	}
	name := fmt.Sprintf("layer-1 topics trained with the labels + words, logistic (C %.3g, balance %g)", c.tw.c, c.balances[0])
	vc := c.jointConfig(c.train, head, c.o.Patience)
	vc.Supervision.target = target
	c.announce(vc, "%s: validation fit on the known labels outside the held-out fold", name)
	m, err := c.fit(vc)
	if err != nil {
		return err
	}
	pred := c.unscored()
	p, _, err := m.scores(c.x, m.S)
	if err != nil {
		return err
	}
	c.fromAll(pred, 0, p)
	c.add(Candidate{Name: name, Kind: SupervisedTopicsWords, Balance: c.balances[0], C: c.tw.c, Layer: 1,
		Epochs: len(m.History.Loss), EarlyStop: strings.HasPrefix(m.History.Stopped, "early stop")}, pred)
	return nil
}

// refitJoint refits the SupervisedTopicsWords candidate on all the known
// labels, from the regression refitted on them.
func (c *chooser) refitJoint(best Candidate) (*Model, error) {
	head, err := c.newJointHead(c.refits[TopicsWords], best.C)
	if err != nil {
		return nil, err
	}
	return c.refitFor(best, c.jointConfig(c.sup.Known, head, 0))
}
