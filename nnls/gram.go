package nnls

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"

	"github.com/neuralnmf/neuralnmf/tensor"
)

// rcondReject is the reciprocal condition number of AᵀA below which A is
// reported as numerically rank deficient: cond(AᵀA) above ~10¹³, i.e.
// cond(A) above ~3·10⁶, where normal-equation solves lose all but a few
// digits.
const rcondReject = 1e-13

// rcondSchur is the reciprocal condition number of AᵀA below which the solver
// stops using H = (AᵀA)⁻¹ (the Schur-complement form) and solves every
// passive block directly: with cond(AᵀA) above 10⁸ the cancellation in
// x = u + H_{:,B}·y_B would cost more digits than the direct form loses.
const rcondSchur = 1e-8

// Gram holds what every column's solve needs from A: G = AᵀA, H = G⁻¹ and the
// column norms ‖a_i‖. It is read-only once built and may be shared by
// concurrent solves.
type Gram struct {
	k      int
	g, h   []float64 // k×k row-major, both triangles filled
	anorm  []float64 // ‖a_i‖ = √G_ii
	rcond  float64   // reciprocal condition estimate of G (1-norm)
	trustH bool
}

// K returns the number of columns of A.
func (gm *Gram) K() int { return gm.k }

// RCond returns the estimated reciprocal 1-norm condition number of AᵀA.
func (gm *Gram) RCond() float64 { return gm.rcond }

// NewGram validates A (N×k) and factorises AᵀA. It returns an error naming
// A and the problem if A is empty, has a negative or non-finite entry, has
// more columns than rows, has a zero column, or is numerically rank deficient
// (the error lists the columns that are, to working precision, combinations
// of the others).
func NewGram(a *tensor.Dense) (*Gram, error) {
	if err := tensor.CheckData("A", a); err != nil {
		return nil, fmt.Errorf("nnls: %w", err)
	}
	n, k := a.Rows, a.Cols
	if k > n {
		return nil, fmt.Errorf("nnls: A: rank too large: %d columns but only %d rows (need k ≤ N for a unique NNLS solution)", k, n)
	}
	gm := &Gram{k: k, g: make([]float64, k*k), h: make([]float64, k*k), anorm: make([]float64, k)}
	G := blas64.General{Rows: k, Cols: k, Stride: k, Data: gm.g}
	blas64.Gemm(blas.Trans, blas.NoTrans, 1, a.RawMatrix(), a.RawMatrix(), 0, G)
	var zero, tiny []int
	for i := 0; i < k; i++ {
		gii := gm.g[i*k+i]
		switch {
		case math.IsInf(gii, 0):
			return nil, fmt.Errorf("nnls: A: column %d is too large: its squared norm overflows float64; rescale A", i)
		case gii == 0 && zeroCol(a, i):
			zero = append(zero, i)
		case gii < 1e-290:
			tiny = append(tiny, i)
		}
		gm.anorm[i] = math.Sqrt(gii)
	}
	if len(zero) > 0 {
		return nil, fmt.Errorf("nnls: A: zero column(s) %v: a zero topic has no unique coefficient", zero)
	}
	if len(tiny) > 0 {
		return nil, fmt.Errorf("nnls: A: column(s) %v are too small: their squared norms underflow float64; rescale A", tiny)
	}
	// Symmetrise exactly (Gemm computes both triangles independently).
	for i := 0; i < k; i++ {
		for j := i + 1; j < k; j++ {
			v := 0.5 * (gm.g[i*k+j] + gm.g[j*k+i])
			gm.g[i*k+j], gm.g[j*k+i] = v, v
		}
	}
	copy(gm.h, gm.g)
	var anorm float64 // 1-norm of G
	for j := 0; j < k; j++ {
		var s float64
		for i := 0; i < k; i++ {
			s += math.Abs(gm.g[i*k+j])
		}
		anorm = math.Max(anorm, s)
	}
	sym := blas64.Symmetric{N: k, Stride: k, Data: gm.h, Uplo: blas.Upper}
	t, ok := lapack64.Potrf(sym)
	if ok {
		gm.rcond = lapack64.Pocon(sym, anorm, make([]float64, 3*k), make([]int, k))
	}
	if !ok || gm.rcond < rcondReject {
		return nil, fmt.Errorf("nnls: A: numerically rank deficient (reciprocal condition of AᵀA ≈ %.2g): column(s) %v are, to working precision, combinations of the others",
			gm.rcond, dependentColumns(a))
	}
	if _, ok := lapack64.Potri(t); !ok {
		return nil, fmt.Errorf("nnls: A: numerically rank deficient: AᵀA could not be inverted")
	}
	for i := 0; i < k; i++ { // Potri fills the upper triangle only.
		for j := 0; j < i; j++ {
			gm.h[i*k+j] = gm.h[j*k+i]
		}
	}
	gm.trustH = gm.rcond >= rcondSchur
	return gm, nil
}

func zeroCol(a *tensor.Dense, j int) bool {
	for r := 0; r < a.Rows; r++ {
		if a.Data[r*a.Stride+j] != 0 {
			return false
		}
	}
	return true
}

// dependentColumns returns the columns that QR with column pivoting moves to
// the end with a negligible diagonal of R.
func dependentColumns(a *tensor.Dense) []int {
	n, k := a.Rows, a.Cols
	c := a.Clone()
	jpvt := make([]int, k)
	for i := range jpvt {
		jpvt[i] = -1
	}
	tau := make([]float64, min(n, k))
	work := make([]float64, 1)
	lapack64.Geqp3(c.RawMatrix(), jpvt, tau, work, -1)
	work = make([]float64, int(work[0]))
	lapack64.Geqp3(c.RawMatrix(), jpvt, tau, work, len(work))
	r0 := math.Abs(c.At(0, 0))
	var dep []int
	for j := 0; j < min(n, k); j++ {
		if math.Abs(c.At(j, j)) <= r0*math.Sqrt(rcondReject) {
			dep = append(dep, jpvt[j])
		}
	}
	if len(dep) == 0 { // Only the condition estimate flagged it: name the last pivot.
		dep = append(dep, jpvt[min(n, k)-1])
	}
	sort.Ints(dep)
	return dep
}
