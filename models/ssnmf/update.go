package ssnmf

import (
	"math"
	"runtime"

	"github.com/neuralnmf/neuralnmf/internal/parallel"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// floor keeps multiplicative updates away from 0/0.
const floor = 1e-300

// updater holds the fixed inputs of the dense multiplicative updates and all
// their scratch, allocated once: a step allocates nothing beyond what
// sharing a large product or update among goroutines costs.
type updater struct {
	x, wx, w *tensor.Dense // X, W∘X (or X), W (nil = all ones)
	zy, z    *tensor.Dense // Z∘Y and Z, or nil without labels
	lambda   float64
	ws       *tensor.Dense // N×M: W∘(AS), only with a mask or for the objective
	zs       *tensor.Dense // P×M: Z∘(BS)
	kk       *tensor.Dense // k×k: SSᵀ or AᵀA
	numA     *tensor.Dense // N×k
	denA     *tensor.Dense
	numS     *tensor.Dense // k×M
	denS     *tensor.Dense
	numB     *tensor.Dense // P×k
	denB     *tensor.Dense
	eps      float64 // added to every denominator (Options.Eps)
}

func newUpdater(x *tensor.Dense, lab *Labels, w *tensor.Dense, k int, eps float64) *updater {
	n, m := x.Rows, x.Cols
	u := &updater{x: x, wx: x, w: w, eps: eps, ws: tensor.New(n, m), kk: tensor.New(k, k),
		numA: tensor.New(n, k), denA: tensor.New(n, k), numS: tensor.New(k, m), denS: tensor.New(k, m)}
	if w != nil {
		u.wx = tensor.New(n, m)
		tensor.Mul(u.wx, w, x)
	}
	if lab != nil {
		p := lab.Y.Rows
		u.z, u.lambda = lab.Z, lab.Lambda
		u.zy = tensor.New(p, m)
		tensor.Mul(u.zy, lab.Z, lab.Y)
		u.zs = tensor.New(p, m)
		u.numB, u.denB = tensor.New(p, k), tensor.New(p, k)
	}
	return u
}

// fitX sets u.ws = W∘(AS).
func (u *updater) fitX(a, s *tensor.Dense) {
	tensor.Gemm(false, false, 1, a, s, 0, u.ws)
	if u.w != nil {
		tensor.Mul(u.ws, u.ws, u.w)
	}
}

// fitY sets u.zs = Z∘(BS).
func (u *updater) fitY(b, s *tensor.Dense) {
	tensor.Gemm(false, false, 1, b, s, 0, u.zs)
	tensor.Mul(u.zs, u.zs, u.z)
}

// dataDenS sets den = Aᵀ(W∘AS), which is (AᵀA)S without a mask: the data
// term's part of the S update's denominator.
func (u *updater) dataDenS(a, s, den *tensor.Dense) {
	if u.w == nil {
		tensor.Gemm(true, false, 1, a, a, 0, u.kk)
		tensor.Gemm(false, false, 1, u.kk, s, 0, den)
		return
	}
	u.fitX(a, s)
	tensor.Gemm(true, false, 1, a, u.ws, 0, den)
}

// step applies one round of updates: A (if updA), B, then S (if updS).
func (u *updater) step(a, s, b *tensor.Dense, updA, updS bool) {
	if updA {
		tensor.Gemm(false, true, 1, u.wx, s, 0, u.numA) // (W∘X)Sᵀ
		if u.w == nil {                                 // A(SSᵀ)
			tensor.Gemm(false, true, 1, s, s, 0, u.kk)
			tensor.Gemm(false, false, 1, a, u.kk, 0, u.denA)
		} else { // (W∘AS)Sᵀ
			u.fitX(a, s)
			tensor.Gemm(false, true, 1, u.ws, s, 0, u.denA)
		}
		multiply(a, u.numA, u.denA, u.eps)
	}
	if b != nil {
		u.fitY(b, s)
		tensor.Gemm(false, true, 1, u.zy, s, 0, u.numB)
		tensor.Gemm(false, true, 1, u.zs, s, 0, u.denB)
		multiply(b, u.numB, u.denB, u.eps)
	}
	if updS {
		tensor.Gemm(true, false, 1, a, u.wx, 0, u.numS) // Aᵀ(W∘X)
		u.dataDenS(a, s, u.denS)
		if b != nil {
			u.fitY(b, s) // B changed above
			tensor.Gemm(true, false, u.lambda, b, u.zy, 1, u.numS)
			tensor.Gemm(true, false, u.lambda, b, u.zs, 1, u.denS)
		}
		multiply(s, u.numS, u.denS, u.eps)
	}
}

// objective returns ‖W∘(X − AS)‖² + λ‖Z∘(Y − BS)‖², computed directly (not
// by expansion) so that monotonicity can be checked to rounding.
func (u *updater) objective(a, s, b *tensor.Dense) float64 {
	u.fitX(a, s)
	e := tensor.SqDiff(u.wx, u.ws)
	if b != nil {
		u.fitY(b, s)
		e += u.lambda * tensor.SqDiff(u.zy, u.zs)
	}
	return e
}

// multiply sets m = m ∘ num / (den + eps) element-wise, with the
// denominator floored at 1e-300 against 0/0 (all three contiguous, of one
// shape). Matrices of more than multiplyChunk entries are shared among
// goroutines in chunks; each entry's arithmetic is the same either way.
func multiply(m, num, den *tensor.Dense, eps float64) {
	n := len(m.Data)
	if n <= multiplyChunk {
		multiplyRun(m.Data, num.Data, den.Data, eps)
		return
	}
	parallel.ForChunks(n, multiplyChunk, runtime.GOMAXPROCS(0), func(_, lo, hi int) {
		multiplyRun(m.Data[lo:hi], num.Data[lo:hi], den.Data[lo:hi], eps)
	})
}

// multiplyChunk is the entries per chunk of multiply: 2¹⁵, so that the
// 87×90 problems of the demo stay on one goroutine.
const multiplyChunk = 1 << 15

// multiplyRun is multiply on one run of memory, each result flushed by
// flushSubnormal.
func multiplyRun(m, num, den []float64, eps float64) {
	num, den = num[:len(m)], den[:len(m)]
	for i, v := range m {
		m[i] = flushSubnormal(v * num[i] / max(den[i]+eps, floor))
	}
}

// flushSubnormal returns 0 for a nonnegative r below the smallest normal
// float64, 2⁻¹⁰²² ≈ 2.2e-308 (its exponent bits are 0), and r otherwise.
//
// Multiplicative updates drive the entries they zero down geometrically,
// and can leave them in the subnormal range for dozens of updates; x86
// processors take a microcode assist of about a hundred cycles for every
// multiply with a subnormal operand. On a text corpus (4,231×4,331, rank
// 24) 1 % subnormal entries made a start's updates a third slower. A
// subnormal is absorbed by any sum with a normal term above 2⁻⁹⁷⁰, so
// flushing changes no sum at the data's scale; what it changes is that an
// entry at 0 stays there, where a subnormal one could in principle grow
// back (on that corpus the start's final error moved by 1e-6, relative).
//
// It has no branch: a branch on the updates' mix of zeros and positive
// entries is mispredicted so often that it made multiply five times slower.
func flushSubnormal(r float64) float64 {
	u := math.Float64bits(r)
	keep := (u>>52&0x7ff + 0x7ff) >> 11 // 0 for a zero exponent, else 1
	return math.Float64frombits(u & -keep)
}
