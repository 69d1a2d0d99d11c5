package ssnmf

import (
	"math"
	"os"
	"strconv"
	"testing"
	"time"

	"gonum.org/v1/gonum/floats"

	"github.com/neuralnmf/neuralnmf/tensor"
)

// TestMeasureEscape measured, for issue 68, whether a converged one-layer
// fit (the default's: HALS with extrapolation from NNDSVDa to
// scikit-learn's test at 1e-4) reaches a lower local minimum when its
// weakest topic (the least ‖a_j‖²‖s_j‖², at a stationary point the error
// the topic removes) is replaced by the leading non-negative rank-one pair
// of the residual without it and HALS runs on: a round is abandoned (the
// factors restored) if after NEURALNMF_ESCAPE_PROBE updates (default 3)
// its best error is not below the current one, and escapes stop after
// NEURALNMF_ESCAPE_ABORTS abandoned rounds (default 1) or 6 rounds. For
// each Matrix Market file in NEURALNMF_ESCAPE and ranks 10, 20 and 50 it
// logs the error before and after, the updates and the seconds. Opt-in;
// not adopted (docs/benchmarks.md, "Which local minimum"); logs
// results/bench/rcppml/escape-validation.log and escape-report.log.
func TestMeasureEscape(t *testing.T) {
	probe, maxAborts := 3, 1
	if v := os.Getenv("NEURALNMF_ESCAPE_PROBE"); v != "" {
		probe, _ = strconv.Atoi(v)
	}
	if v := os.Getenv("NEURALNMF_ESCAPE_ABORTS"); v != "" {
		maxAborts, _ = strconv.Atoi(v)
	}
	mats := validationMatrices(t, "NEURALNMF_ESCAPE")
	for _, vm := range mats {
		xx := vm.x.SqNorm()
		for _, k := range []int{10, 20, 50} {
			t0 := time.Now()
			o := &Options{Solver: HALS, Start: NNDSVDAStart, Seed: 1, Stop: StopViolation, Tol: 1e-4, Extrapolate: true}
			f, err := NMFSparse(vm.x, k, o)
			if err != nil {
				t.Fatal(err)
			}
			base := f.Objective[len(f.Objective)-1]
			tb := time.Since(t0).Seconds()
			// the first update's violation, which the fit's test is relative to
			in := &layerInput{sparse: vm.x.WithRows()}
			op := in.op()
			oo := o.withDefaults()
			st := oo.layerStart(in, k, nil, 0, 0)
			h0 := newHALS(op, k)
			h0.step(st.A, st.S, nil, true, true)
			v0 := h0.lastViolation()
			a, s := f.A.Clone(), f.S.Clone()
			cur := base
			t1 := time.Now()
			tried := map[int]bool{}
			total, acc, aborts := 0, 0, 0
			for round := 0; round < 6 && aborts < maxAborts; round++ {
				a2, s2 := a.Clone(), s.Clone()
				j := pickWeakUntried(a2, s2, tried)
				tried[j] = true
				replaceByResidual(op, a2, s2, j)
				h := newHALS(op, k)
				h.ex = newExtrapolation(nil)
				n, ok := 0, true
				for ; n < 1000; n++ {
					h.step(a2, s2, nil, true, true)
					if n+1 == probe && !(h.ex.best < cur*(1-1e-7)) {
						ok = false
						n++
						break
					}
					if h.lastViolation() <= 1e-4*v0 {
						n++
						break
					}
				}
				total += n
				if !ok {
					aborts++
					continue
				}
				h.settle(a2, s2)
				obj := h.objective(a2, s2, nil)
				if obj < cur*(1-1e-7) {
					a, s, cur = a2, s2, obj
					tried = map[int]bool{}
					acc++
				} else {
					aborts++
				}
			}
			if math.IsNaN(cur) || cur > base || floats.Min(a.Data) < 0 || floats.Min(s.Data) < 0 {
				t.Fatalf("%s k=%d: escapes left error² %g from %g, or negative factors", vm.name, k, cur, base)
			}
			t.Logf("%s k=%d base=%.6f (%d upd, %.2fs) escape=%.6f (%d upd, %d accepted, %.2fs) diff=%+.2e", vm.name, k, math.Sqrt(base/xx), f.Updates, tb,
				math.Sqrt(cur/xx), total, acc, time.Since(t1).Seconds(), math.Sqrt(cur/xx)-math.Sqrt(base/xx))
		}
	}
}

// pickWeakUntried returns the untried topic j of least ‖a_j‖²‖s_j‖² (the
// diagonals of AᵀA and SSᵀ).
func pickWeakUntried(a, s *tensor.Dense, tried map[int]bool) int {
	k := a.Cols
	ga, gs := tensor.New(k, k), tensor.New(k, k)
	tensor.Gemm(true, false, 1, a, a, 0, ga)
	tensor.Gemm(false, true, 1, s, s, 0, gs)
	best, bj := math.Inf(1), 0
	for j := range k {
		if e := ga.At(j, j) * gs.At(j, j); !tried[j] && e < best {
			best, bj = e, j
		}
	}
	return bj
}

// residualOp is X − A·S seen as a linop, for randomizedSVD.
type residualOp struct {
	x    linop
	a, s *tensor.Dense
}

func (r residualOp) dims() (int, int) { return r.x.dims() }

// tMul sets dst to BᵀX − (BᵀA)·S for B (N×l).
func (r residualOp) tMul(b, dst *tensor.Dense) {
	r.x.tMul(b, dst)
	ba := tensor.New(b.Cols, r.a.Cols)
	tensor.Gemm(true, false, 1, b, r.a, 0, ba)
	tensor.Gemm(false, false, -1, ba, r.s, 1, dst)
}

// mulT sets dst to X·Uᵀ − A·(S·Uᵀ) for U (l×M).
func (r residualOp) mulT(u, dst *tensor.Dense) {
	r.x.mulT(u, dst)
	su := tensor.New(r.s.Rows, u.Rows)
	tensor.Gemm(false, true, 1, r.s, u, 0, su)
	tensor.Gemm(false, false, -1, r.a, su, 1, dst)
}

func (r residualOp) sqNorm() float64 { panic("residualOp: sqNorm is not needed by randomizedSVD") }

// replaceByResidual sets column j of a and row j of s to the leading
// non-negative rank-one pair of X − A₋ⱼS₋ⱼ: its leading singular pair
// (randomizedSVD), the sign whose positive parts carry more (as NNDSVDa
// chooses), then five rank-one HALS steps on the residual.
func replaceByResidual(op linop, a, s *tensor.Dense, j int) {
	n, m := op.dims()
	k := a.Cols
	for i := 0; i < n; i++ {
		a.Data[i*k+j] = 0
	}
	for c := 0; c < m; c++ {
		s.Data[j*m+c] = 0
	}
	res := residualOp{op, a, s}
	u1, _, vt1 := randomizedSVD(res, 1, 7, 0)
	up, un := make([]float64, n), make([]float64, n)
	vp, vn := make([]float64, m), make([]float64, m)
	splitSigns(u1.Data, up, un)
	splitSigns(vt1.Data, vp, vn)
	u, v := &tensor.Dense{Rows: n, Cols: 1, Stride: 1, Data: up}, &tensor.Dense{Rows: 1, Cols: m, Stride: m, Data: vp}
	if norm2(up)*norm2(vp) < norm2(un)*norm2(vn) {
		u.Data, v.Data = un, vn
	}
	// One rank-one HALS update: dst ← max(0, mul(src))/‖src‖²; false,
	// leaving dst, where src is zero.
	update := func(src, dst *tensor.Dense, mul func(b, dst *tensor.Dense)) bool {
		nrm := norm2(src.Data)
		if nrm == 0 {
			return false
		}
		mul(src, dst)
		for i, x := range dst.Data {
			dst.Data[i] = max(0, x/(nrm*nrm))
		}
		return true
	}
	// v ← max(0, Eᵀu)/‖u‖², u ← max(0, E·v)/‖v‖², five times.
	for it := 0; it < 5 && update(u, v, res.tMul) && update(v, u, res.mulT); it++ {
	}
	for i := 0; i < n; i++ {
		a.Data[i*k+j] = u.Data[i]
	}
	copy(s.Data[j*m:(j+1)*m], v.Data)
}
