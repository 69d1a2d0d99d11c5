// Package classify holds classifiers on sparse features that have nothing
// to do with NMF and that the model selection of package neuralnmf
// compares with its topics (see semisup.TrainChoosing): a multinomial
// logistic regression with an L2 penalty fitted by L-BFGS, its inverse
// penalty C chosen by cross-validation over a grid (scikit-learn's
// LogisticRegression and LogisticRegressionCV), self-training around it
// (SelfTrainingClassifier), and label spreading over a graph of nearest
// neighbours (scikit-learn's LabelSpreading with its knn kernel). Each is
// tested against scikit-learn on the same data.
//
// Data are Features: a features × samples matrix in compressed sparse
// column form, so that a sample's features are contiguous, as the columns
// of X are samples throughout this project. Functions return an error for
// invalid input (shapes, labels out of range, a penalty that is not
// positive); the methods of a fitted model are for the shapes it was
// fitted on and panic otherwise, as gonum's kernels do.
package classify

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"

	"gonum.org/v1/gonum/optimize"
)

// Features is a features × samples matrix in compressed sparse column
// form: the entries of sample j are Val[ColPtr[j]:ColPtr[j+1]], in the
// rows RowIdx[ColPtr[j]:ColPtr[j+1]] (each in 0..Rows−1).
type Features struct {
	Rows   int
	ColPtr []int
	RowIdx []int
	Val    []float64
}

// Cols returns the number of samples.
func (f *Features) Cols() int { return len(f.ColPtr) - 1 }

// Subset returns the samples at the given positions of f, in that order,
// in new memory.
func (f *Features) Subset(pos []int) *Features {
	g := &Features{Rows: f.Rows, ColPtr: make([]int, 1, len(pos)+1)}
	for _, j := range pos {
		g.RowIdx = append(g.RowIdx, f.RowIdx[f.ColPtr[j]:f.ColPtr[j+1]]...)
		g.Val = append(g.Val, f.Val[f.ColPtr[j]:f.ColPtr[j+1]]...)
		g.ColPtr = append(g.ColPtr, len(g.RowIdx))
	}
	return g
}

// Check returns an error if f's arrays are not a valid matrix: ColPtr of
// length Cols+1, from 0, nondecreasing, to len(Val) = len(RowIdx), every
// row index in range and every value finite.
func (f *Features) Check() error {
	switch {
	case f == nil || len(f.ColPtr) == 0:
		return errors.New("classify: no features")
	case f.Rows < 0 || f.ColPtr[0] != 0 || f.ColPtr[len(f.ColPtr)-1] != len(f.Val) || len(f.RowIdx) != len(f.Val):
		return errors.New("classify: Features: inconsistent CSC arrays")
	}
	for j := 0; j < f.Cols(); j++ {
		if f.ColPtr[j+1] < f.ColPtr[j] {
			return fmt.Errorf("classify: Features: ColPtr decreases at sample %d", j)
		}
	}
	for p, r := range f.RowIdx {
		if r < 0 || r >= f.Rows {
			return fmt.Errorf("classify: Features: row index %d out of 0..%d", r, f.Rows-1)
		}
		if v := f.Val[p]; math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("classify: Features: value %v is not finite", v)
		}
	}
	return nil
}

// Logistic is a fitted multinomial logistic regression on Features rows:
// W holds, row by row, the classes' weights of each feature, and last the
// intercepts ((Features+1)×Classes, row-major).
type Logistic struct {
	Features, Classes int
	W                 []float64
}

// The regression minimises Σᵢ −log softmax(zᵢ)_{yᵢ} + ‖W‖²/(2C) over the
// weights (the intercept is not penalised; scikit-learn's objective times
// 1/C), by L-BFGS (gonum's optimize) to a largest gradient entry of the
// mean loss of at most GradTol, as scikit-learn's lbfgs solver with its
// tol from version 1.4. Version 1.2, whose LogisticRegressionCV is the
// baseline of experiments/semisup, stops on the gradient of the sum, n
// times tighter (FitLogisticTol with GradTol/n): where C is 10³ or more
// the objective is nearly flat in the directions that separate the
// classes, and the two rules' fits differ. On info's test split with
// every label known (814 training documents), 1.2's rule gave 0.953 and
// 0.958 at C = 10³ and 10⁴ where this one gives 0.939 and 0.944. In
// fit -labels the cross-validation keeps this rule, and the refit of the
// regression on the words and the last fit of a self-trained one
// (SelfTraining.FinalSumRule) take 1.2's (experiments/semisup's twelfth
// to fourteenth comparisons): 1.2's rule for every fit on known labels
// was no better on the validation splits (mean 0.8106 against 0.8118) and
// took 2–3.5 times as long with every label known; for the refits alone
// it raised the mean to 0.8145, then 0.8154.
const (
	// GradTol bounds the largest entry of the gradient of the mean loss
	// at the optimum: 10⁻⁴ is scikit-learn's default tol.
	GradTol = 1e-4
	// MaxIter caps the L-BFGS iterations of one fit.
	MaxIter = 300
	// lbfgsStore is L-BFGS's memory, scipy's L-BFGS-B default (m = 10;
	// gonum's default is 15).
	lbfgsStore = 10
)

// Cs returns the inverse penalties C among which CrossValidate chooses:
// scikit-learn's LogisticRegressionCV grid (Cs=10: 10⁻⁴…10⁴, evenly in
// log scale).
func Cs() []float64 {
	cs := make([]float64, 10)
	for i := range cs {
		cs[i] = math.Pow(10, -4+8*float64(i)/9)
	}
	return cs
}

// Scores writes the classes' scores of sample j of f into z (length
// Classes).
func (l *Logistic) Scores(f *Features, j int, z []float64) {
	P := l.Classes
	copy(z, l.W[l.Features*P:])
	for p := f.ColPtr[j]; p < f.ColPtr[j+1]; p++ {
		v, row := f.Val[p], l.W[f.RowIdx[p]*P:f.RowIdx[p]*P+P]
		for c := range z {
			z[c] += v * row[c]
		}
	}
}

// AllScores returns the scores of every sample of f, sample by sample
// (samples×classes, row-major).
func (l *Logistic) AllScores(f *Features) []float64 {
	P := l.Classes
	out := make([]float64, f.Cols()*P)
	for j := range f.Cols() {
		l.Scores(f, j, out[j*P:(j+1)*P])
	}
	return out
}

// Predict returns the class of largest score of every sample of f.
func (l *Logistic) Predict(f *Features) []int {
	z := make([]float64, l.Classes)
	out := make([]int, f.Cols())
	for j := range out {
		l.Scores(f, j, z)
		out[j] = Argmax(z)
	}
	return out
}

// Argmax returns the index of the largest entry of z (the first of ties).
func Argmax(z []float64) int {
	best := 0
	for c, v := range z {
		if v > z[best] {
			best = c
		}
	}
	return best
}

// checkLabels checks f and labels y (one per sample, in 0..classes−1, or
// −1 where allowUnknown).
func checkLabels(f *Features, y []int, classes int, allowUnknown bool) error {
	if err := f.Check(); err != nil {
		return err
	}
	if classes < 1 {
		return fmt.Errorf("classify: %d classes, want at least 1", classes)
	}
	if len(y) != f.Cols() {
		return fmt.Errorf("classify: %d labels for %d samples", len(y), f.Cols())
	}
	for j, c := range y {
		if c >= classes || c < 0 && !(allowUnknown && c == -1) {
			return fmt.Errorf("classify: label %d of sample %d is not in 0..%d", c, j, classes-1)
		}
	}
	return nil
}

// FitLogistic fits the regression with inverse penalty c on the samples of
// f with labels y (each in 0..classes−1), starting from the weights w0
// ((f.Rows+1)×classes; nil: 0). It returns an error for invalid input.
//
// Features absent from every sample keep weight 0 (only the penalty acts
// on them), so the fit runs on the features present, which keeps
// L-BFGS's own work (O(store·dim) a step, most of the time of a fit on
// few samples) in proportion to them. The objective is evaluated on
// GOMAXPROCS goroutines, each of its sums in the order of one loop over
// the samples, so the fit is bit for bit the same on any number of cores.
func FitLogistic(f *Features, y []int, classes int, c float64, w0 []float64) (*Logistic, error) {
	return FitLogisticTol(f, y, classes, c, w0, GradTol)
}

// FitLogisticTol is FitLogistic stopped where the largest entry of the
// gradient of the mean loss is at most tol instead of GradTol. On n
// samples, tol = GradTol/n is scikit-learn 1.2's rule: GradTol on the
// gradient of the summed loss. A tighter tol takes more iterations, up to
// MaxIter. It returns an error for invalid input, or a tol that is not
// positive and finite.
func FitLogisticTol(f *Features, y []int, classes int, c float64, w0 []float64, tol float64) (*Logistic, error) {
	if !(tol > 0) || math.IsInf(tol, 0) {
		return nil, fmt.Errorf("classify: tol is %v, want a positive gradient bound", tol)
	}
	if err := checkLabels(f, y, classes, false); err != nil {
		return nil, err
	}
	if !(c > 0) || math.IsInf(c, 0) {
		return nil, fmt.Errorf("classify: C is %v, want a positive inverse penalty", c)
	}
	if w0 != nil && len(w0) != (f.Rows+1)*classes {
		return nil, fmt.Errorf("classify: w0 has %d weights, want %d", len(w0), (f.Rows+1)*classes)
	}
	return fitLogistic(f, y, classes, c, w0, tol), nil
}

// fitLogistic is FitLogisticTol on valid input.
func fitLogistic(f *Features, y []int, classes int, c float64, w0 []float64, tol float64) *Logistic {
	P := classes
	index := make([]int, f.Rows) // compact row + 1; 0 for an absent row
	var present []int
	for _, r := range f.RowIdx {
		if index[r] == 0 {
			present = append(present, r)
			index[r] = len(present)
		}
	}
	if len(present) == f.Rows {
		return fitLogisticRows(f, y, classes, c, w0, tol)
	}
	g := &Features{Rows: len(present), ColPtr: f.ColPtr, RowIdx: make([]int, len(f.RowIdx)), Val: f.Val}
	for p, r := range f.RowIdx {
		g.RowIdx[p] = index[r] - 1
	}
	var g0 []float64
	if w0 != nil {
		g0 = make([]float64, (len(present)+1)*P)
		for k, r := range present {
			copy(g0[k*P:(k+1)*P], w0[r*P:(r+1)*P])
		}
		copy(g0[len(present)*P:], w0[f.Rows*P:])
	}
	l := fitLogisticRows(g, y, classes, c, g0, tol)
	w := make([]float64, (f.Rows+1)*P)
	for k, r := range present {
		copy(w[r*P:(r+1)*P], l.W[k*P:(k+1)*P])
	}
	copy(w[f.Rows*P:], l.W[len(present)*P:])
	return &Logistic{Features: f.Rows, Classes: P, W: w}
}

// fitLogisticRows is fitLogistic on every row of f.
func fitLogisticRows(f *Features, y []int, classes int, c float64, w0 []float64, tol float64) *Logistic {
	P, F := classes, f.Rows
	dim := (F + 1) * P
	obj := newObjective(f, y, P, c, runtime.GOMAXPROCS(0))
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
			atLoss = obj.eval(atGrad, w)
		}
	}
	p := optimize.Problem{
		Func: func(w []float64) float64 { evaluate(w); return atLoss },
		Grad: func(grad, w []float64) { evaluate(w); copy(grad, atGrad) },
	}
	settings := &optimize.Settings{
		GradientThreshold: tol,
		MajorIterations:   MaxIter,
		Converger:         optimize.NeverTerminate{},
	}
	res, err := optimize.Minimize(p, w, settings, &optimize.LBFGS{Store: lbfgsStore})
	if err == nil || res != nil {
		// An iteration limit or a line search that can make no more
		// progress leaves the best point found, which is what we keep.
		w = res.X
	}
	return &Logistic{Features: F, Classes: P, W: w}
}

// CV is what CrossValidate found.
type CV struct {
	// Fit is the regression on every sample with the chosen C.
	Fit *Logistic
	C   float64
	// Pred is each sample's class as predicted at C by the fit without
	// its fold (its cross-validated prediction), −1 for a sample whose
	// fold could not be fitted (no other sample, or none in it).
	Pred []int
	// Scores, with keepScores, are those fits' scores, sample by sample
	// (samples×classes, row-major); else nil.
	Scores []float64
}

// CrossValidate chooses C among Cs() by cross-validation over the folds
// fold[j] ∈ 0..F−1 of the samples of f (labels y, each in
// 0..classes−1), as scikit-learn's LogisticRegressionCV: for each fold,
// the path of C's is fitted on the other folds (each fit warm from the
// last) and scored on it; the C with the most right in all is chosen
// (ties to the smaller). The folds are fitted concurrently. It returns an
// error for invalid input.
func CrossValidate(f *Features, y []int, classes int, fold []int, keepScores bool) (*CV, error) {
	if err := checkLabels(f, y, classes, false); err != nil {
		return nil, err
	}
	if len(fold) != len(y) {
		return nil, fmt.Errorf("classify: %d folds for %d samples", len(fold), len(y))
	}
	if len(fold) == 0 {
		return nil, errors.New("classify: no samples")
	}
	for j, k := range fold {
		if k < 0 {
			return nil, fmt.Errorf("classify: fold %d of sample %d, want 0 or more", k, j)
		}
	}
	l, c, pred, scores := crossValidate(f, y, classes, fold, keepScores)
	return &CV{Fit: l, C: c, Pred: pred, Scores: scores}, nil
}

// crossValidate is CrossValidate on valid input.
func crossValidate(f *Features, y []int, classes int, fold []int, keepScores bool) (*Logistic, float64, []int, []float64) {
	cs := Cs()
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
			ftr, fte := f.Subset(tr), f.Subset(te)
			ytr := make([]int, len(tr))
			for i, j := range tr {
				ytr[i] = y[j]
			}
			var w []float64
			for _, c := range cs {
				l := fitLogistic(ftr, ytr, classes, c, w, GradTol)
				w = l.W
				sc := l.AllScores(fte)
				p := make([]int, len(te))
				for i := range p {
					p[i] = Argmax(sc[i*classes : (i+1)*classes])
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
	for ci := range cs {
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
	return fitLogistic(f, y, classes, cs[best], nil, GradTol), cs[best], cv, cvScores
}
