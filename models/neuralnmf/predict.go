package neuralnmf

import (
	"fmt"
	"slices"
	"sort"

	"github.com/neuralnmf/neuralnmf/classify"
	"github.com/neuralnmf/neuralnmf/nnkl"
	"github.com/neuralnmf/neuralnmf/nnls"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// Predict returns the predicted class of each training column,
// argmax_p (B·S)_pm with S the training S of the classifier's layer (plus
// the Intercept). It returns nil for a model trained without supervision
// or without S (trained on Columns), and for one whose classifier reads the
// columns of X (BX): use Scores with the training X.
func (m *Model) Predict() []int {
	if m.B == nil || len(m.S) == 0 || m.BX != nil {
		return nil
	}
	pred, _, err := m.Scores(nil, m.S)
	if err != nil {
		return nil
	}
	return pred
}

// ClassifierS returns, of the S of every layer s (one per layer of the
// model: from Transform, or the model's own), the one the classifier B
// reads (ReadoutLayer).
func (m *Model) ClassifierS(s []*tensor.Dense) *tensor.Dense {
	return s[m.ReadoutLayer()-1]
}

// ReadoutLayer returns the 1-based layer whose S the classifier B reads:
// ClassifierLayer, or the last layer when that is 0.
func (m *Model) ReadoutLayer() int {
	if m.ClassifierLayer > 0 {
		return m.ClassifierLayer
	}
	return len(m.A)
}

// Classify predicts the class of new columns x (N×M′, nonnegative, the
// training data's rows; a *tensor.Dense or a *tensor.Sparse): it runs the
// forward pass and returns each column's class with the scores (P×M′,
// owned by the caller) of Scores. It returns an error for a model trained
// without supervision (it has no B), and as Transform for bad x.
func (m *Model) Classify(x Data) ([]int, *tensor.Dense, error) {
	d, err := dataOf("Classify", x)
	if err != nil {
		return nil, nil, err
	}
	return m.classify("Classify", d, func() ([]*tensor.Dense, error) { return m.Transform(x) })
}

// classify runs transform and scores its S and x.
func (m *Model) classify(name string, x data, transform func() ([]*tensor.Dense, error)) ([]int, *tensor.Dense, error) {
	if m.B == nil {
		return nil, nil, fmt.Errorf("neuralnmf: %s: the model was trained without labels, so it has no classifier B", name)
	}
	s, err := transform()
	if err != nil {
		return nil, nil, err
	}
	return m.scores(x, s)
}

// Scores returns the classifier's scores of some columns x (N×M′) whose S
// at every layer are s (from Transform): B·S⁽ˡ⁾ of the layer it reads,
// plus BX·x/‖x‖₂ (each column at unit length) and the Intercept when the
// model has them (P×M′, owned by the caller), and each column's predicted
// class, their argmax. x may be nil when the classifier does not read X
// (BX nil); else a *tensor.Dense or a *tensor.Sparse. The model must have
// a classifier B. It returns an error when
// x is needed and missing or has the wrong shape.
func (m *Model) Scores(x Data, s []*tensor.Dense) (pred []int, scores *tensor.Dense, err error) {
	d, err := dataOf("Scores", x)
	if err != nil {
		return nil, nil, err
	}
	return m.scores(d, s)
}

func (m *Model) scores(x data, s []*tensor.Dense) ([]int, *tensor.Dense, error) {
	scores := tensor.MatMul(false, false, m.B, m.ClassifierS(s))
	if err := addDataScores(scores, m.BX, m.Intercept, x); err != nil {
		return nil, nil, fmt.Errorf("neuralnmf: Scores: %w", err)
	}
	return classify.ArgmaxColumns(scores), scores, nil
}

// Transform runs the forward pass on new columns x (N×M′, nonnegative; a
// *tensor.Dense or a *tensor.Sparse): S⁽⁰⁾ = q(A⁽⁰⁾, x),
// S⁽ˡ⁾ = q(A⁽ˡ⁾, S⁽ˡ⁻¹⁾). It returns every layer's S and does not change
// the model.
func (m *Model) Transform(x Data) ([]*tensor.Dense, error) {
	d, err := dataOf("Transform", x)
	if err != nil {
		return nil, err
	}
	if _, ok := x.(*tensor.Sparse); ok {
		return m.transformSparse(d.sparse)
	}
	return m.transformDense(d.dense)
}

// transformSparse is Transform for a sparse x.
func (m *Model) transformSparse(x *tensor.Sparse) ([]*tensor.Dense, error) {
	rows := 0
	if x != nil {
		rows = x.Rows
	}
	return m.transform("Transform", rows, func(opt *nnls.Options) (*tensor.Dense, error) {
		if err := tensor.CheckSparseData("x", x); err != nil {
			return nil, err
		}
		return m.cfg.Loss.impl().solveFirstSparse(m, x, opt)
	})
}

// transformDense is Transform for a dense x.
func (m *Model) transformDense(x *tensor.Dense) ([]*tensor.Dense, error) {
	rows := 0
	if x != nil {
		rows = x.Rows
	}
	return m.transform("Transform", rows, func(opt *nnls.Options) (*tensor.Dense, error) {
		if err := tensor.CheckData("x", x); err != nil {
			return nil, err
		}
		return m.solveLayer(0, x, opt)
	})
}

// dataOf returns x, a *tensor.Dense or a *tensor.Sparse (nil, or a nil
// one, are the callee's to report), as data; for another Data, an error
// naming the method.
func dataOf(method string, x Data) (data, error) {
	switch x := x.(type) {
	case *tensor.Dense:
		return data{dense: x}, nil
	case *tensor.Sparse:
		return data{sparse: x}, nil
	case nil:
		return data{}, nil
	}
	return data{}, fmt.Errorf("neuralnmf: %s: x is a %T: want a *tensor.Dense or a *tensor.Sparse", method, x)
}

// Loss returns the loss the model was trained with, which Transform's
// layers solve (Reconstruction and Energy: NNLS; KL: KL layers).
func (m *Model) Loss() Loss { return m.cfg.Loss }

// UnusedFeatures returns the rows of A⁽¹⁾ that are all zero (0-based,
// increasing): features the model gives no weight, such as words absent
// from its training documents. For a model of Loss KL, an entry of new
// data in such a row would make the divergence infinite for every S, so
// Transform and the classifiers leave those entries out and fit each
// column's other entries (at every layer, the same for A⁽ˡ⁾'s zero rows);
// a caller can tell its user which columns that concerned with
// ColumnsUsing. For the other losses the entries only add a constant to
// the squared error and change nothing.
func (m *Model) UnusedFeatures() []int { return zeroRows(m.A[0]) }

// ColumnsUsing returns the columns of x (0-based, increasing) with a
// non-zero entry in one of rows (increasing, as UnusedFeatures returns).
func ColumnsUsing(x *tensor.Sparse, rows []int) []int {
	if len(rows) == 0 {
		return nil
	}
	mark := make([]bool, x.Rows)
	for _, r := range rows {
		mark[r] = true
	}
	var cols []int
	for j := 0; j < x.Cols; j++ {
		for p := x.ColPtr[j]; p < x.ColPtr[j+1]; p++ {
			if mark[x.RowIdx[p]] && x.Val[p] != 0 {
				cols = append(cols, j)
				break
			}
		}
	}
	return cols
}

// zeroRows returns the rows of a that are all zero.
func zeroRows(a *tensor.Dense) []int {
	var rows []int
	for i := 0; i < a.Rows; i++ {
		zero := true
		for _, v := range a.Row(i) {
			if v != 0 {
				zero = false
				break
			}
		}
		if zero {
			rows = append(rows, i)
		}
	}
	return rows
}

// knownRows returns in without its entries in the rows where a is all
// zero (a copy, if there are any): the input of a KL solve over the rows
// the layer can fit.
func knownRows(a, in *tensor.Dense) *tensor.Dense {
	var out *tensor.Dense
	for _, r := range zeroRows(a) {
		if r >= in.Rows {
			break // a shape error, which the solve reports
		}
		for j, v := range in.Row(r) {
			if v != 0 {
				if out == nil {
					out = in.Clone()
				}
				out.Row(r)[j] = 0
			}
		}
	}
	if out == nil {
		return in
	}
	return out
}

// knownRowsSparse is knownRows for a sparse x.
func knownRowsSparse(a *tensor.Dense, x *tensor.Sparse) *tensor.Sparse {
	rows := zeroRows(a)
	if x == nil || len(rows) == 0 || len(ColumnsUsing(x, rows)) == 0 || x.Rows != a.Rows {
		return x
	}
	mark := make([]bool, x.Rows)
	for _, r := range rows {
		mark[r] = true
	}
	out := &tensor.Sparse{Rows: x.Rows, Cols: x.Cols, ColPtr: make([]int, x.Cols+1)}
	for j := 0; j < x.Cols; j++ {
		for p := x.ColPtr[j]; p < x.ColPtr[j+1]; p++ {
			if !mark[x.RowIdx[p]] {
				out.RowIdx = append(out.RowIdx, x.RowIdx[p])
				out.Val = append(out.Val, x.Val[p])
			}
		}
		out.ColPtr[j+1] = len(out.Val)
	}
	return out
}

// solvedKL returns the solution of a KL solve, or its error.
func solvedKL(r *nnkl.Result, err error) (*tensor.Dense, error) {
	if err != nil {
		return nil, err
	}
	return r.S, nil
}

// solved returns the solution of an NNLS solve, or its error.
func solved(r *nnls.Result, err error) (*tensor.Dense, error) {
	if err != nil {
		return nil, err
	}
	return r.S, nil
}

// solveLayer solves layer l of the model for the dense input in: the KL
// layer, the elastic-net layer or NNLS, as the model was trained.
func (m *Model) solveLayer(l int, in *tensor.Dense, opt *nnls.Options) (*tensor.Dense, error) {
	return m.cfg.Loss.impl().solveLayer(m, l, in, opt)
}

// nnlsSolveLayer is solveLayer for a least-squares loss: the elastic-net
// layer or NNLS.
func (m *Model) nnlsSolveLayer(l int, in *tensor.Dense, opt *nnls.Options) (*tensor.Dense, error) {
	a := m.A[l]
	pen, ok := layerPenalty(m.AlphaS, m.L1Ratio, a.Rows)
	if ok && !pen.pure {
		return solved(nnls.Solve(pen.augmentA(a), pen.augmentX(in, a.Cols), opt))
	}
	return solved(nnls.Solve(a, in, pen.options(opt)))
}

// transform checks that the input has the model's rows, solves the first
// layer with first, and the other layers densely.
func (m *Model) transform(name string, rows int, first func(*nnls.Options) (*tensor.Dense, error)) ([]*tensor.Dense, error) {
	if err := m.validate(); err != nil {
		return nil, fmt.Errorf("neuralnmf: %s: %w", name, err)
	}
	if rows != m.A[0].Rows {
		return nil, fmt.Errorf("neuralnmf: %s: %w: x has %d rows, the model was trained on %d", name, tensor.ErrShape, rows, m.A[0].Rows)
	}
	opt := &nnls.Options{Workers: m.cfg.Workers}
	s, err := first(opt)
	var out []*tensor.Dense
	for l := range m.A {
		if l > 0 {
			s, err = m.solveLayer(l, out[l-1], opt)
		}
		if err != nil {
			return nil, fmt.Errorf("neuralnmf: %s: layer %d: %w", name, l+1, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// LayerTopics returns, for each layer ℓ of the factors a (A⁽⁰⁾ N×k⁽⁰⁾, A⁽¹⁾,
// …), the topics of that layer in feature space: the N×k⁽ˡ⁾ product
// A⁽⁰⁾⋯A⁽ˡ⁾ (the first is a[0] itself, not a copy).
func LayerTopics(a []*tensor.Dense) []*tensor.Dense {
	out := make([]*tensor.Dense, len(a))
	for l := range a {
		if l == 0 {
			out[l] = a[0]
		} else {
			out[l] = tensor.MatMul(false, false, out[l-1], a[l])
		}
	}
	return out
}

// TopWords returns, for each column of a (features × topics), the names of
// the n features with the largest weights, largest first (ties keep feature
// order). names[i] names row i. For layer ℓ's topics pass LayerTopics(A)[ℓ].
func TopWords(a *tensor.Dense, names []string, n int) [][]string {
	out := make([][]string, a.Cols)
	for j, rows := range TopRows(a, n) {
		for _, i := range rows {
			out[j] = append(out[j], names[i])
		}
	}
	return out
}

// TopRows returns, for each column of a, the rows of its n largest entries,
// largest first (ties keep row order); fewer when a has fewer rows.
func TopRows(a *tensor.Dense, n int) [][]int {
	out := make([][]int, a.Cols)
	idx := make([]int, a.Rows)
	for j := 0; j < a.Cols; j++ {
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(p, q int) bool { return a.At(idx[p], j) > a.At(idx[q], j) })
		out[j] = slices.Clone(idx[:min(n, len(idx))])
	}
	return out
}
