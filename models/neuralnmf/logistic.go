package neuralnmf

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"

	"gonum.org/v1/gonum/optimize"

	"github.com/neuralnmf/neuralnmf/internal/parallel"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// A classifier that can read the words
//
// A classifier on a few nonnegative topics is a bottleneck that a linear
// model on the data's own 10⁴ rows (words) does not have: on text corpora
// with many known labels, a logistic regression on TF-IDF beat every
// classifier on topics by 0.04–0.17. TrainChoosing therefore also
// compares multinomial logistic regressions that read the columns of X
// themselves, alone and beside the unsupervised model's first-layer
// topics, with the L2 penalty chosen by cross-validation on the known
// labels (as scikit-learn's LogisticRegressionCV does), on the folds that
// also score the candidates (ChooseOptions.Folds). Such a
// classifier scores a column x with S⁽ˡ⁾ = s as
//
//	B·s + BX·x/‖x‖₂ + Intercept
//
// (Model.Scores): each column of X is scaled to unit Euclidean length, as
// a TF-IDF vectoriser does, so that documents of every length weigh
// alike.
//
// The regression minimises Σᵢ −log softmax(zᵢ)_{yᵢ} + ‖W‖²/(2C) over the
// weights W (the intercept is not penalised), by L-BFGS (gonum's optimize)
// to a gradient of at most logisticGradTol per labelled column. The topics
// s are scaled by one number, the reciprocal of their columns' root mean
// square length, so that one penalty suits both parts; B holds the
// weights with that scale folded in.

// LogisticCs are the inverse penalties C among which cross-validation
// chooses, scikit-learn's LogisticRegressionCV grid (Cs=10: 10⁻⁴…10⁴).
var logisticCs = func() []float64 {
	cs := make([]float64, 10)
	for i := range cs {
		cs[i] = math.Pow(10, -4+8*float64(i)/9)
	}
	return cs
}()

const (
	// logisticGradTol bounds the largest entry of the gradient of the
	// mean loss at the optimum: 10⁻⁴ is scikit-learn's default tol.
	logisticGradTol = 1e-4
	// logisticMaxIter caps the L-BFGS iterations of one fit.
	logisticMaxIter = 300
	// logisticStore is L-BFGS's memory, scipy's L-BFGS-B default (m = 10;
	// gonum's default is 15).
	logisticStore = 10
)

// features is a features×columns matrix in CSC form: the rows of the
// topics (scaled) first, then the rows of X (each column at unit length).
type features struct {
	rows   int
	colPtr []int
	rowIdx []int
	val    []float64
}

// unitColumn calls f for the nonzero entries of column j of x, scaled to
// unit length (nothing for a zero column).
func (x data) unitColumn(j int, f func(row int, v float64)) {
	if x.sparse != nil {
		idx, vals := x.sparse.Column(j)
		var ss float64
		for _, v := range vals {
			ss += v * v
		}
		if ss == 0 {
			return
		}
		inv := 1 / math.Sqrt(ss)
		for k, i := range idx {
			f(i, vals[k]*inv)
		}
		return
	}
	d := x.dense
	var ss float64
	for i := 0; i < d.Rows; i++ {
		v := d.At(i, j)
		ss += v * v
	}
	if ss == 0 {
		return
	}
	inv := 1 / math.Sqrt(ss)
	for i := 0; i < d.Rows; i++ {
		if v := d.At(i, j); v != 0 {
			f(i, v*inv)
		}
	}
}

// topicScale returns the reciprocal of the root mean square length of the
// columns of s (1 for an all-zero s).
func topicScale(s *tensor.Dense) float64 {
	ss := 0.0
	for _, v := range s.Data {
		ss += v * v
	}
	if ss == 0 {
		return 1
	}
	return math.Sqrt(float64(s.Cols) / ss)
}

// buildFeatures stacks, for the given columns, s·scale (nil s: none) over
// X's columns at unit length.
func buildFeatures(s *tensor.Dense, scale float64, x data, cols []int) *features {
	f := &features{colPtr: make([]int, 1, len(cols)+1)}
	k := 0
	if s != nil {
		k = s.Rows
	}
	n, _ := x.dims()
	f.rows = k + n
	for _, j := range cols {
		for i := 0; i < k; i++ {
			if v := s.At(i, j); v != 0 {
				f.rowIdx = append(f.rowIdx, i)
				f.val = append(f.val, v*scale)
			}
		}
		x.unitColumn(j, func(row int, v float64) {
			f.rowIdx = append(f.rowIdx, k+row)
			f.val = append(f.val, v)
		})
		f.colPtr = append(f.colPtr, len(f.rowIdx))
	}
	return f
}

// subset returns the columns at the given positions of f.
func (f *features) subset(pos []int) *features {
	g := &features{rows: f.rows, colPtr: make([]int, 1, len(pos)+1)}
	for _, j := range pos {
		g.rowIdx = append(g.rowIdx, f.rowIdx[f.colPtr[j]:f.colPtr[j+1]]...)
		g.val = append(g.val, f.val[f.colPtr[j]:f.colPtr[j+1]]...)
		g.colPtr = append(g.colPtr, len(g.rowIdx))
	}
	return g
}

func (f *features) cols() int { return len(f.colPtr) - 1 }

// logistic is a fitted multinomial logistic regression: w holds, row by
// row, the classes' weights of each feature ((rows+1)×P, the last row the
// intercept).
type logistic struct {
	rows, classes int
	w             []float64
}

// scores writes the classes' scores of column j of f into z (length P).
func (l *logistic) scores(f *features, j int, z []float64) {
	P := l.classes
	copy(z, l.w[l.rows*P:])
	for p := f.colPtr[j]; p < f.colPtr[j+1]; p++ {
		v, row := f.val[p], l.w[f.rowIdx[p]*P:f.rowIdx[p]*P+P]
		for c := range z {
			z[c] += v * row[c]
		}
	}
}

// allScores returns the scores of every column of f, column by column
// (cols×classes, row-major).
func (l *logistic) allScores(f *features) []float64 {
	P := l.classes
	out := make([]float64, f.cols()*P)
	for j := range f.cols() {
		l.scores(f, j, out[j*P:(j+1)*P])
	}
	return out
}

// predict returns the argmax class of every column of f.
func (l *logistic) predict(f *features) []int {
	z := make([]float64, l.classes)
	out := make([]int, f.cols())
	for j := range out {
		l.scores(f, j, z)
		out[j] = argmax(z)
	}
	return out
}

func argmax(z []float64) int {
	best := 0
	for c, v := range z {
		if v > z[best] {
			best = c
		}
	}
	return best
}

// fitLogistic fits the regression with inverse penalty c on the columns of
// f with labels y (every one in 0..classes−1), starting from w0 (nil: 0).
//
// Features absent from every column of f keep weight 0 (only the penalty
// acts on them), so the fit runs on the features present, which keeps
// L-BFGS's own work (O(Store·dim) a step, most of the time of a fit on
// few labelled columns) in proportion to them.
func fitLogistic(f *features, y []int, classes int, c float64, w0 []float64) *logistic {
	P := classes
	index := make([]int, f.rows) // compact row + 1; 0 for an absent row
	var present []int
	for _, r := range f.rowIdx {
		if index[r] == 0 {
			present = append(present, r)
			index[r] = len(present)
		}
	}
	if len(present) == f.rows {
		return fitLogisticRows(f, y, classes, c, w0)
	}
	g := &features{rows: len(present), colPtr: f.colPtr, rowIdx: make([]int, len(f.rowIdx)), val: f.val}
	for p, r := range f.rowIdx {
		g.rowIdx[p] = index[r] - 1
	}
	var g0 []float64
	if w0 != nil {
		g0 = make([]float64, (len(present)+1)*P)
		for k, r := range present {
			copy(g0[k*P:(k+1)*P], w0[r*P:(r+1)*P])
		}
		copy(g0[len(present)*P:], w0[f.rows*P:])
	}
	l := fitLogisticRows(g, y, classes, c, g0)
	w := make([]float64, (f.rows+1)*P)
	for k, r := range present {
		copy(w[r*P:(r+1)*P], l.w[k*P:(k+1)*P])
	}
	copy(w[f.rows*P:], l.w[len(present)*P:])
	return &logistic{rows: f.rows, classes: P, w: w}
}

// fitLogisticRows is fitLogistic on every row of f.
func fitLogisticRows(f *features, y []int, classes int, c float64, w0 []float64) *logistic {
	P, F, n := classes, f.rows, float64(f.cols())
	dim := (F + 1) * P
	z := make([]float64, P)
	// objective returns the mean penalised loss at w and writes its
	// gradient into grad.
	objective := func(grad, w []float64) float64 {
		var loss float64
		clear(grad)
		l := &logistic{rows: F, classes: P, w: w}
		for j := 0; j < f.cols(); j++ {
			l.scores(f, j, z)
			zmax := slices.Max(z)
			var sum float64
			for k := range z {
				z[k] = math.Exp(z[k] - zmax)
				sum += z[k]
			}
			loss += math.Log(sum) - math.Log(z[y[j]])
			for k := range z {
				z[k] /= sum
			}
			z[y[j]]--
			for p := f.colPtr[j]; p < f.colPtr[j+1]; p++ {
				v, g := f.val[p], grad[f.rowIdx[p]*P:f.rowIdx[p]*P+P]
				for k := range z {
					g[k] += v * z[k]
				}
			}
			g := grad[F*P:]
			for k := range z {
				g[k] += z[k]
			}
		}
		var reg float64
		for i, v := range w[:F*P] {
			reg += v * v
			grad[i] += v / c
		}
		for i := range grad {
			grad[i] /= n
		}
		return (loss + reg/(2*c)) / n
	}
	w := make([]float64, dim)
	if w0 != nil {
		copy(w, w0)
	}
	// gonum asks for the value and the gradient at a point in two calls;
	// one pass computes both, and the second call copies them.
	at, atGrad, atLoss := make([]float64, dim), make([]float64, dim), math.NaN()
	evaluate := func(w []float64) {
		if math.IsNaN(atLoss) || !slices.Equal(at, w) {
			copy(at, w)
			atLoss = objective(atGrad, w)
		}
	}
	p := optimize.Problem{
		Func: func(w []float64) float64 { evaluate(w); return atLoss },
		Grad: func(grad, w []float64) { evaluate(w); copy(grad, atGrad) },
	}
	settings := &optimize.Settings{
		GradientThreshold: logisticGradTol,
		MajorIterations:   logisticMaxIter,
		Converger:         optimize.NeverTerminate{},
	}
	res, err := optimize.Minimize(p, w, settings, &optimize.LBFGS{Store: logisticStore})
	if err == nil || res != nil {
		// An iteration limit or a line search that can make no more
		// progress leaves the best point found, which is what we keep.
		w = res.X
	}
	return &logistic{rows: F, classes: P, w: w}
}

// crossValidateLogistic chooses C among logisticCs by cross-validation
// over the folds fold[j] ∈ 0..F−1 of the columns of f (labels y): for
// each fold, the path of C's is fitted on the other folds (each fit warm
// from the last) and scored on it; the C with the most right in all is
// chosen (ties to the smaller). It returns the fit on every column with
// that C, the C, and each column's class as predicted at that C by the
// fit without its fold (its cross-validated prediction), −1 for a column
// whose fold could not be fitted. With keepScores it also returns those
// fits' scores, column by column (len(y)×classes, row-major); else nil.
func crossValidateLogistic(f *features, y []int, classes int, fold []int, keepScores bool) (*logistic, float64, []int, []float64) {
	F := slices.Max(fold) + 1
	preds := make([][][]int, F)      // per fold and C, the fold's predictions
	scores := make([][][]float64, F) // and, with keepScores, their scores
	tests := make([][]int, F)
	var wg sync.WaitGroup
	for k := range F {
		wg.Go(func() {
			var tr, te []int
			for j, fk := range fold {
				if fk == k {
					te = append(te, j)
				} else {
					tr = append(tr, j)
				}
			}
			tests[k] = te
			if len(te) == 0 || len(tr) == 0 {
				return
			}
			ftr, fte := f.subset(tr), f.subset(te)
			ytr := make([]int, len(tr))
			for i, j := range tr {
				ytr[i] = y[j]
			}
			var w []float64
			for _, c := range logisticCs {
				l := fitLogistic(ftr, ytr, classes, c, w)
				w = l.w
				sc := l.allScores(fte)
				p := make([]int, len(te))
				for i := range p {
					p[i] = argmax(sc[i*classes : (i+1)*classes])
				}
				preds[k] = append(preds[k], p)
				if keepScores {
					scores[k] = append(scores[k], sc)
				}
			}
		})
	}
	wg.Wait()
	best, bestRight := 0, -1
	for ci := range logisticCs {
		n := 0
		for k := range F {
			if preds[k] == nil {
				continue
			}
			for i, p := range preds[k][ci] {
				if p == y[tests[k][i]] {
					n++
				}
			}
		}
		if n > bestRight {
			best, bestRight = ci, n
		}
	}
	cv := make([]int, len(y))
	var cvScores []float64
	if keepScores {
		cvScores = make([]float64, len(y)*classes)
	}
	for k := range F {
		for i, j := range tests[k] {
			cv[j] = -1
			if preds[k] == nil {
				continue
			}
			cv[j] = preds[k][best][i]
			if keepScores {
				copy(cvScores[j*classes:(j+1)*classes], scores[k][best][i*classes:(i+1)*classes])
			}
		}
	}
	return fitLogistic(f, y, classes, logisticCs[best], nil), logisticCs[best], cv, cvScores
}

// logisticCandidate is what a regression of TrainChoosing reads beside
// X's columns: the topics of the unsupervised model's first layer, scaled
// by scale, or none (topics nil).
type logisticCandidate struct {
	topics *tensor.Dense
	scale  float64
}

// labelled returns the columns with a label ≥ 0 and their labels.
func labelled(labels []int) (cols, y []int) {
	for j, l := range labels {
		if l >= 0 {
			cols, y = append(cols, j), append(y, l)
		}
	}
	return cols, y
}

// classifierOf turns a regression on cand's features into the model's B
// (P×k), BX (P×N, for the N rows of X) and Intercept.
func classifierOf(l *logistic, cand logisticCandidate, n, k int) (b, bx, intercept *tensor.Dense) {
	P := l.classes
	b = tensor.New(P, k)
	kt := 0
	if cand.topics != nil {
		kt = cand.topics.Rows
		for i := 0; i < kt; i++ {
			for p := 0; p < P; p++ {
				b.Set(p, i, l.w[i*P+p]*cand.scale)
			}
		}
	}
	bx = tensor.New(P, n)
	for i := 0; i < n; i++ {
		for p := 0; p < P; p++ {
			bx.Set(p, i, l.w[(kt+i)*P+p])
		}
	}
	intercept = tensor.New(P, 1)
	copy(intercept.Data, l.w[l.rows*P:])
	return b, bx, intercept
}

// fitSpread spreads labels over the neighbour graph nb, then fits the
// regression on the words (inverse penalty c) to the spread classes of
// every column they reached; words holds every column's word features.
func fitSpread(nb [][]int, words *features, labels []int, classes int, c float64) *logistic {
	cols, y := labelled(spreadLabels(nb, labels, classes))
	return fitLogistic(words.subset(cols), y, classes, c, nil)
}

// addDataScores adds bx·x/‖x‖₂ (each column of x at unit length) and the
// intercept to scores (P×M), checking x's shape.
func addDataScores(scores, bx, intercept *tensor.Dense, x data) error {
	if bx != nil {
		if x.dense == nil && x.sparse == nil {
			return fmt.Errorf("the classifier reads the columns of X themselves (BX), and no x was given")
		}
		n, m := x.dims()
		if n != bx.Cols || m != scores.Cols {
			return fmt.Errorf("%w: x is %d×%d, want %d×%d", tensor.ErrShape, n, m, bx.Cols, scores.Cols)
		}
		for j := 0; j < m; j++ {
			x.unitColumn(j, func(row int, v float64) {
				for p := 0; p < bx.Rows; p++ {
					scores.Set(p, j, scores.At(p, j)+v*bx.At(p, row))
				}
			})
		}
	}
	if intercept != nil {
		for p := 0; p < scores.Rows; p++ {
			for j := 0; j < scores.Cols; j++ {
				scores.Set(p, j, scores.At(p, j)+intercept.Data[p])
			}
		}
	}
	return nil
}

// Spreading the known labels
//
// With few known labels (a few per class), a classifier fitted on them
// alone misses what the unlabelled columns say about the classes' shape;
// scikit-learn's LabelSpreading, which spreads the labels over a graph of
// nearest neighbours, beat every other method at 5 % known labels on two of
// our corpora. The SpreadWords candidate does the same on the columns of X
// (cosine similarity of the columns at unit length: the same neighbours as
// scikit-learn's Euclidean distance on unit TF-IDF vectors), with
// LabelSpreading's defaults (spreadNeighbours neighbours, α = spreadAlpha,
// spreadIterations iterations): F ← α·D^(−1/2)·W·D^(−1/2)·F + (1−α)·Y, W
// the symmetrised 0/1 neighbour graph. Each column then takes the class of
// its largest F, and a logistic regression on the words, fitted to those
// classes of every reached column with the C that cross-validation on the
// known labels chose, makes the spread classes a classifier of new columns.

const (
	spreadNeighbours = 7
	spreadAlpha      = 0.2
	spreadIterations = 30
)

// neighbourGraph returns, for each column of f (features × columns, each
// column at unit length), the spreadNeighbours columns of largest cosine
// similarity (itself excluded; ties to the lower index), symmetrised:
// nb[j] lists j's neighbours either way, sorted.
func neighbourGraph(f *features) [][]int {
	M := f.cols()
	// The rows of f as posting lists: the columns holding each feature.
	rowPtr := make([]int, f.rows+1)
	for _, r := range f.rowIdx {
		rowPtr[r+1]++
	}
	for r := 0; r < f.rows; r++ {
		rowPtr[r+1] += rowPtr[r]
	}
	postCol, postVal := make([]int, len(f.rowIdx)), make([]float64, len(f.rowIdx))
	next := append([]int(nil), rowPtr[:f.rows]...)
	for j := 0; j < M; j++ {
		for p := f.colPtr[j]; p < f.colPtr[j+1]; p++ {
			r := f.rowIdx[p]
			postCol[next[r]], postVal[next[r]] = j, f.val[p]
			next[r]++
		}
	}
	knn := make([][]int, M)
	workers := runtime.GOMAXPROCS(0)
	sims := make([][]float64, workers) // per worker: the similarities to column j
	parallel.ForChunks(M, 64, workers, func(worker, j0, j1 int) {
		if sims[worker] == nil {
			sims[worker] = make([]float64, M)
		}
		sim := sims[worker]
		var touched []int
		for j := j0; j < j1; j++ {
			touched = touched[:0]
			for p := f.colPtr[j]; p < f.colPtr[j+1]; p++ {
				r, v := f.rowIdx[p], f.val[p]
				for q := rowPtr[r]; q < rowPtr[r+1]; q++ {
					i := postCol[q]
					if sim[i] == 0 {
						touched = append(touched, i)
					}
					sim[i] += v * postVal[q]
				}
			}
			best := make([]int, 0, spreadNeighbours+1)
			for _, i := range touched {
				if i == j || sim[i] <= 0 {
					continue
				}
				// Insert i into best, kept by similarity (then index).
				k := len(best)
				for k > 0 && (sim[best[k-1]] < sim[i] || sim[best[k-1]] == sim[i] && best[k-1] > i) {
					k--
				}
				if k < spreadNeighbours {
					best = slices.Insert(best, k, i)
					if len(best) > spreadNeighbours {
						best = best[:spreadNeighbours]
					}
				}
			}
			for _, i := range touched {
				sim[i] = 0
			}
			knn[j] = best
		}
	})
	nb := make([][]int, M)
	for j, list := range knn {
		for _, i := range list {
			nb[j] = append(nb[j], i)
			nb[i] = append(nb[i], j)
		}
	}
	for j := range nb {
		slices.Sort(nb[j])
		nb[j] = slices.Compact(nb[j])
	}
	return nb
}

// spreadLabels spreads labels (−1 unknown) over the graph nb and returns
// each column's class, −1 for a column no label reached.
func spreadLabels(nb [][]int, labels []int, classes int) []int {
	M := len(nb)
	y := make([]float64, M*classes)
	for j, l := range labels {
		if l >= 0 {
			y[j*classes+l] = 1
		}
	}
	inv := make([]float64, M) // D^(−1/2)
	for j := range nb {
		if len(nb[j]) > 0 {
			inv[j] = 1 / math.Sqrt(float64(len(nb[j])))
		}
	}
	f, g := append([]float64(nil), y...), make([]float64, M*classes)
	for range spreadIterations {
		for j := range nb {
			row := g[j*classes : (j+1)*classes]
			for c := range row {
				row[c] = (1 - spreadAlpha) * y[j*classes+c]
			}
			for _, i := range nb[j] {
				w := spreadAlpha * inv[j] * inv[i]
				for c := range row {
					row[c] += w * f[i*classes+c]
				}
			}
		}
		f, g = g, f
	}
	out := make([]int, M)
	for j := range out {
		row := f[j*classes : (j+1)*classes]
		out[j] = -1
		if slices.Max(row) > 0 {
			out[j] = argmax(row)
		}
	}
	return out
}
