package nnls

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// cholSolve solves sub·z = rhs in place for the symmetric positive definite
// n×n matrix whose upper triangle is in sub (row-major, stride n), leaving
// the Cholesky factor in sub. It returns false if the matrix is not
// numerically positive definite.
func cholSolve(sub []float64, n int, rhs, dinv []float64) bool {
	if !cholUpper(sub, n, dinv) {
		return false
	}
	cholSolveFactored(sub, n, rhs, dinv)
	return true
}

// smallChol is the order up to which cholUpper factorises with its own
// loops; above it LAPACK's blocked Dpotrf is faster than its call overhead.
const smallChol = 32

// cholUpper overwrites the upper triangle of the n×n matrix in a (row-major,
// stride n) with U, A = UᵀU, and reports whether A was numerically positive
// definite (every pivot positive); dinv receives 1/U_ii. For small n it is the unblocked
// right-looking algorithm of LAPACK's Dpotf2, written out because the
// subproblems of the Gram path are tiny and a LAPACK call costs more than
// the arithmetic; the trailing update runs along rows.
func cholUpper(a []float64, n int, dinv []float64) bool {
	if n > smallChol {
		_, ok := lapack64.Potrf(blas64.Symmetric{N: n, Stride: n, Data: a, Uplo: blas.Upper})
		for i := 0; ok && i < n; i++ {
			dinv[i] = 1 / a[i*n+i]
		}
		return ok
	}
	for j := 0; j < n; j++ {
		ajj := a[j*n+j]
		if !(ajj > 0) {
			return false
		}
		ajj = math.Sqrt(ajj)
		a[j*n+j] = ajj
		row := a[j*n+j+1 : (j+1)*n]
		inv := 1 / ajj
		dinv[j] = inv
		for l := range row {
			row[l] *= inv
		}
		for i, v := range row { // row j+1+i of the trailing block, from its diagonal
			t := a[(j+1+i)*n+j+1+i : (j+2+i)*n]
			rr := row[i:]
			rr = rr[:len(t)]
			for l := range t {
				t[l] -= v * rr[l]
			}
		}
	}
	return true
}

// cholSolveFactored solves UᵀU·z = rhs in place for the upper Cholesky
// factor U (n×n, row-major, stride n) that cholUpper left in sub, with dinv
// the reciprocals of its diagonal: two triangular solves, written out
// because the systems are tiny and LAPACK's per-call overhead would
// dominate. Both run along U's rows (the first as a sequence of axpys), and
// multiply by dinv instead of dividing, which takes a chain of divisions out
// of the critical path at the cost of one rounding per entry (the solves stay
// backward stable).
func cholSolveFactored(u []float64, n int, z, dinv []float64) {
	z, dinv = z[:n], dinv[:n]
	for i := range z { // Uᵀ·v = z, column by column of Uᵀ (row by row of U)
		zi := z[i] * dinv[i]
		z[i] = zi
		row, zz := u[i*n+i+1:(i+1)*n], z[i+1:]
		zz = zz[:len(row)]
		for l, v := range row {
			zz[l] -= v * zi
		}
	}
	for i := n - 1; i >= 0; i-- { // U·z = v
		row, zz := u[i*n+i+1:(i+1)*n], z[i+1:]
		zz = zz[:len(row)]
		var s float64
		for j, v := range row {
			s += v * zz[j]
		}
		z[i] = (z[i] - s) * dinv[i]
	}
}

// matVec sets dst_i = Σ_j a_ij·v_j for the len(dst)×len(v) row-major
// matrix a (row stride len(v)): the products with G and H (k×k) of
// refinement, correction and the backward pass. Each sum runs in four
// interleaved partial sums (j mod 4), added as (s₀+s₁)+(s₂+s₃) and then
// the tail in increasing j: four independent chains of multiply-adds
// instead of one, whose latency bounded the loop (the error bound is that
// of any summation order, γ_k·Σ|a_ij·v_j|).
func matVec(dst, a, v []float64) {
	k := len(v)
	k4 := k &^ 3
	for i := range dst {
		row := a[i*k : (i+1)*k]
		row = row[:len(v)]
		var s0, s1, s2, s3 float64
		for j := 0; j < k4; j += 4 {
			r, w := row[j:j+4:j+4], v[j:j+4:j+4]
			s0 += r[0] * w[0]
			s1 += r[1] * w[1]
			s2 += r[2] * w[2]
			s3 += r[3] * w[3]
		}
		s := (s0 + s1) + (s2 + s3)
		for j := k4; j < k; j++ {
			s += row[j] * v[j]
		}
		dst[i] = s
	}
}

// lowerDot sets dst_i = Σ_{j ≤ min(i, p−1)} lt_ij·v_j for the lower
// trapezoidal len(dst)×p matrix lt (row-major, stride p): Rᵀ·v or |R|ᵀ·v
// with lt = f.rt or f.rabsT.
func lowerDot(dst, lt, v []float64, p int) {
	for i := range dst {
		n := min(i+1, p)
		row, vv := lt[i*p:i*p+n], v[:n]
		var s float64
		for j, a := range row {
			s += a * vv[j]
		}
		dst[i] = s
	}
}
