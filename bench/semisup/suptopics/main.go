// Command suptopics is an exploratory measurement for issue 53: does a
// logistic regression on the topics beside the words read the unknown
// documents better when the topics were trained with the labels (the
// supervised Neural NMF fit, whose own classifier reads only the topics)
// than when they were not? And when they were trained with pseudo labels
// (self-training: the unknown documents that regression is surest of, at
// a threshold on its softmax probability), read with the known labels or
// with the known and pseudo labels? On one split
// (bench/semisup/joint/prepare.sh), ranks 20,10, seed 1; the known labels
// (and pseudo labels) train every model and the regression's C is chosen
// by 3-fold cross-validation on the known labels (its "CV" is inflated
// where the topics saw those labels); accuracy is on the unknown documents.
// About 8 minutes on 2 cores (the supervised fits run 1,000 epochs).
//
//	go run ./bench/semisup/suptopics X.mtx KNOWN.txt TRUE.txt
//
// The logs of its runs, which the comments here and docs/ cite by name,
// are in results/bench/semisup/suptopics/.
package main

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/neuralnmf/neuralnmf/classify"
	"github.com/neuralnmf/neuralnmf/matio"
	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/mt19937"
	"github.com/neuralnmf/neuralnmf/tensor"
)

func readInts(path string) []int {
	f, err := os.Open(path)
	check(err)
	defer f.Close()
	var v []int
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		i, err := strconv.Atoi(strings.TrimSpace(sc.Text()))
		check(err)
		v = append(v, i)
	}
	return v
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "suptopics:", err)
		os.Exit(1)
	}
}

// features stacks s·scale (rms 1 per column overall) over X's columns at unit length.
func features(s *tensor.Dense, x *tensor.Sparse) *classify.Features {
	ss := 0.0
	if s != nil {
		for _, v := range s.Data {
			ss += v * v
		}
	}
	scale := 1.0
	if ss > 0 {
		scale = math.Sqrt(float64(s.Cols) / ss)
	}
	k := 0
	if s != nil {
		k = s.Rows
	}
	f := &classify.Features{Rows: k + x.Rows, ColPtr: []int{0}}
	for j := 0; j < x.Cols; j++ {
		for i := 0; i < k; i++ {
			if v := s.At(i, j); v != 0 {
				f.RowIdx, f.Val = append(f.RowIdx, i), append(f.Val, v*scale)
			}
		}
		lo, hi := x.ColPtr[j], x.ColPtr[j+1]
		n := 0.0
		for _, v := range x.Val[lo:hi] {
			n += v * v
		}
		n = math.Sqrt(n)
		for p := lo; p < hi; p++ {
			f.RowIdx, f.Val = append(f.RowIdx, k+x.RowIdx[p]), append(f.Val, x.Val[p]/n)
		}
		f.ColPtr = append(f.ColPtr, len(f.RowIdx))
	}
	return f
}

func main() {
	mx, err := matio.ReadMatrix(os.Args[1])
	check(err)
	x := mx.Sparse
	y, truth := readInts(os.Args[2]), readInts(os.Args[3])
	known := make([]bool, len(y))
	classes := 0
	var cols, ky []int
	for j := range y {
		known[j] = y[j] >= 0
		classes = max(classes, truth[j]+1)
		if known[j] {
			cols, ky = append(cols, j), append(ky, y[j])
		}
	}
	// onUnknown is the accuracy of pred on the documents whose label was
	// unknown.
	onUnknown := func(pred []int) float64 {
		right, n := 0, 0
		for j := range pred {
			if !known[j] {
				n++
				if pred[j] == truth[j] {
					right++
				}
			}
		}
		return float64(right) / float64(n)
	}
	rng := mt19937.New(7)
	fold := make([]int, len(cols))
	for i := range fold {
		fold[i] = int(rng.Uint32() % 3)
	}
	eval := func(name string, s *tensor.Dense) {
		f := features(s, x)
		cv, err := classify.CrossValidate(f.Subset(cols), ky, classes, fold, false)
		check(err)
		pred := cv.Fit.Predict(f)
		cvr := 0
		for i, p := range cv.Pred {
			if p == ky[i] {
				cvr++
			}
		}
		fmt.Printf("%-50s C %-8.3g CV %.3f  unknown %.4f\n", name, cv.C, float64(cvr)/float64(len(ky)), onUnknown(pred))
	}
	eval("words alone", nil)
	base := neuralnmf.Config{Ranks: []int{20, 10}, Seed: 1}
	um, err := neuralnmf.Train(x, base)
	check(err)
	eval("unsupervised layer-1 topics + words", um.S[0])
	acc := func(m *neuralnmf.Model) float64 { return onUnknown(m.Predict()) }
	fitOn := func(name string, s *tensor.Dense, labels []int, c float64) {
		f := features(s, x)
		var pc, py []int
		for j, l := range labels {
			if l >= 0 {
				pc, py = append(pc, j), append(py, l)
			}
		}
		l, err := classify.FitLogistic(f.Subset(pc), py, classes, c, nil)
		check(err)
		fmt.Printf("%-50s C %-8.3g unknown %.4f\n", name, c, onUnknown(l.Predict(f)))
	}
	// Self-training with the topics: pseudo-label the unknown documents
	// the unsupervised topics+words regression is surest of, train the
	// topics with the known and pseudo labels, read them with the
	// regression on the known labels.
	uf := features(um.S[0], x)
	ucv, err := classify.CrossValidate(uf.Subset(cols), ky, classes, fold, false)
	check(err)
	sc := ucv.Fit.AllScores(uf)
	for _, thr := range []float64{0.75, 0.9} {
		for _, epochs := range []int{30, 100} {
			pl := append([]int(nil), y...)
			pk := append([]bool(nil), known...)
			added, right := 0, 0
			for j := range pl {
				if known[j] {
					continue
				}
				z := sc[j*classes : (j+1)*classes]
				mx, arg := math.Inf(-1), 0
				for k, v := range z {
					if v > mx {
						mx, arg = v, k
					}
				}
				den := 0.0
				for _, v := range z {
					den += math.Exp(v - mx)
				}
				if 1/den >= thr {
					pl[j], pk[j] = arg, true
					added++
					if arg == truth[j] {
						right++
					}
				}
			}
			cfg := neuralnmf.Config{Ranks: []int{20, 10}, Seed: 1, Epochs: epochs, Init: neuralnmf.GivenInit, InitA: um.A,
				Supervision: &neuralnmf.Supervision{Labels: pl, Known: pk, Classes: classes, Classifier: neuralnmf.CrossEntropy, Balance: 0.3}}
			sm, err := neuralnmf.Train(x, cfg)
			check(err)
			fmt.Printf("self-trained topics: threshold %.2f, %d pseudo labels (%.3f right), %d epochs: own classifier unknown %.4f, rel. error %.5f\n", thr, added, float64(right)/float64(added), epochs, acc(sm), sm.History.FinalRelError)
			eval("  its layer-1 topics + words (known labels)", sm.S[0])
			fitOn("  unsupervised topics + words (known + pseudo labels)", um.S[0], pl, ucv.C)
			fitOn("  its layer-1 topics + words (known + pseudo labels)", sm.S[0], pl, ucv.C)
		}
	}
	for _, ranks := range [][]int{{20, 10}, {20}} {
		for _, b := range []float64{0.3, 1, 3} {
			cfg := neuralnmf.Config{Ranks: ranks, Seed: 1, Supervision: &neuralnmf.Supervision{Labels: y, Known: known, Classes: classes, Classifier: neuralnmf.CrossEntropy, Balance: b}}
			sm, err := neuralnmf.Train(x, cfg)
			check(err)
			fmt.Printf("supervised %v balance %g: own classifier unknown %.4f, %d epochs, rel. error %.5f\n", ranks, b, acc(sm), len(sm.History.Loss), sm.History.FinalRelError)
			eval("  its layer-1 topics + words", sm.S[0])
		}
	}
}
