package ssnmf

import (
	"fmt"
	"math"
	"os"
	"testing"
	"time"
)

// TestChooseExtrapolation is the measurement that chose the parameters of
// HALS with extrapolation (exBeta0, exGamma, exGammaBar, exSlow; issue 68): for
// each Matrix Market file in NEURALNMF_HALS_CHOICE (comma-separated; the
// validation corpora man, info, godoc, pydoc and manuals-passages of
// experiments/corpora, vectorised with `neuralnmf vectorize -stopwords
// english -min-df 5 -max-df 0.5`, and `go run ./bench/gencorpus -docs
// 20000 -words 30000 -seed 7`), ranks 10, 20 and 50, and each setting
// (plain HALS, then β₀/γ/γ̄/slow), it fits one layer from NNDSVDa to
// scikit-learn's test at 1e-3 and 1e-4 and logs the updates, the seconds
// and the relative error. Opt-in: it takes minutes. Log of the choice:
// results/bench/rcppml/accel-validation.log; NEURALNMF_HALS_CHOICE_FIRST=1
// runs the settings of the first round (accel-validation-first.log, made
// before exSlow existed, when every update after the first extrapolated:
// slow = 0 now starts one update later).
func TestChooseExtrapolation(t *testing.T) {
	mats := validationMatrices(t, "NEURALNMF_HALS_CHOICE")
	settings := []*[4]float64{nil, {0.3, 1.02, 1.01, 0}, {0.3, 1.02, 1.01, 0.5}, {0.3, 1.02, 1.01, 0.7}}
	if os.Getenv("NEURALNMF_HALS_CHOICE_FIRST") != "" { // the first round of the choice
		settings = []*[4]float64{nil, {0.3, 1.02, 1.01, 0}, {0.5, 1.02, 1.01, 0}, {0.3, 1.05, 1.01, 0}}
	}
	for _, vm := range mats {
		xx, name := vm.x.SqNorm(), vm.name
		for _, k := range []int{10, 20, 50} {
			for _, set := range settings {
				label := "plain"
				if set != nil {
					label = fmt.Sprintf("%g/%g/%g/%g", set[0], set[1], set[2], set[3])
				}
				for _, tol := range []float64{1e-3, 1e-4} {
					t0 := time.Now()
					f, err := NMFSparse(vm.x, k, &Options{Solver: HALS, Start: NNDSVDAStart, Seed: 1,
						Stop: StopViolation, Tol: tol, Extrapolate: set != nil, exParams: set})
					if err != nil {
						t.Fatal(err)
					}
					obj := f.Objective[len(f.Objective)-1]
					t.Logf("%s k=%d set=%s tol=%g updates=%d time=%.3f err=%.6f", name, k, label, tol, f.Updates, time.Since(t0).Seconds(), math.Sqrt(obj/xx))
				}
			}
		}
	}
}
