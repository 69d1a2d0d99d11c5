package nnls

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"

	"github.com/neuralnmf/neuralnmf/internal/parallel"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// cholQRBytes is the size of one row block of A in cholQR2: a block, its
// transpose and its part of Q stay in a core's L2 cache between the steps
// that read them.
const cholQRBytes = 64 << 10

// cholQRMinRows is the fewest rows for which NewFactor tries cholQR2, and
// it does only for fewer than tsqrMinCols columns. Measured (the QR alone,
// 2 workers, this 2-core machine; Householder → cholQR2, 3 counts):
// 45,534×10 5.2–5.6 → 1.7–1.9 ms, 10000×20 2.8–2.9 → 1.15–1.17 ms, 3000×5
// 150–166 → 120–130 µs. A version that also formed Q explicitly (a third
// pass) was slower than Householder at 1000×16, 500×20 and 87×9, and from
// 50 columns on (10000×50, 5000×100) the blocked Householder QR on
// products (tsqr) is as fast or faster: cholQR2's steps are dot products
// and axpys, whose work grows as n·k². The rule depends on the shape only.
const cholQRMinRows = 2048

// cholQRWideMinRows is the fewest rows for which NewFactor tries cholQR2
// on an A of tsqrMinCols columns or more that is too short for tsqr's
// blocks (fewer than tsqrBlocks blocks), where the alternative is gonum's
// unblocked Householder QR. Measured (`go test -run '^$' -bench
// FactorShapes -count 3 ./nnls/`, the QR alone, 2 workers, an idle
// machine; Householder → cholQR2, ms): 400×32 0.256–0.259 → 0.273–0.278,
// 600×32 0.378–0.381 → 0.309–0.320, 800×40 0.648–0.651 → 0.476–0.477,
// 1000×32 0.636–0.643 → 0.402–0.424, 1500×50 1.88–1.94 → 1.22–1.23,
// 2000×50 2.56–2.62 → 1.44–1.53, 2000×100 8.86–9.10 → 6.48–6.68, 4000×40
// 3.63–3.66 → 1.69–1.75. cholQR2's test on κ₂ still sends an
// ill-conditioned A to Householder QR.
const cholQRWideMinRows = 600

// cholQRRows returns the rows per block of cholQR2 for an A with k columns.
// It depends on the shape only, so the blocks, and with them every rounding
// of the factorisation, do not depend on the number of workers.
func cholQRRows(k int) int { return max(16, cholQRBytes/(8*k)) }

// Squared column norms outside [cholQRTiny, cholQRHuge] send A to the
// Householder path: there, column norms are computed with scaling, and
// neither A's Gram matrix nor its rounding can overflow or underflow.
// Within the range, an entry whose square underflows is below 2⁻⁵¹¹ and
// its column's norm at least 2⁻⁴⁵⁰, so it changes the column's Gram entries
// by less than 2⁻¹²² relative, far below ε.
const (
	cholQRTiny = 0x1p-900
	cholQRHuge = 0x1p1000
)

// unitRoundoff is u = 2⁻⁵³, the unit roundoff of float64 (eps/2).
const unitRoundoff = 0x1p-53

// cholQR2 factorises A (n×k, n ≥ k) as Ã = Q·R by CholeskyQR2 (Fukaya,
// Nakatsukasa, Yanagisawa & Yamamoto, 2014) and fills f's column norms, its
// nonzero columns, Q (n×kk, as Q₁ and R₂⁻¹ below) and R (kk×kk, upper
// triangular), where Ã is A's
// nonzero columns scaled to unit norm. It returns false, having set
// nothing, when A is not one it can factorise to working precision; the
// caller then uses Householder QR, which also reports non-finite entries.
//
// The steps, on row blocks of A shared out over up to workers goroutines
// (each block's arithmetic is the same whoever does it, and partial sums
// are added in block order, so the result does not depend on workers):
//
//  1. G₀ = AᵀA, from which the norms (√G₀ᵢᵢ) and G̃ = D⁻¹G₀D⁻¹, the Gram
//     matrix of Ã; Cholesky G̃ = R₁ᵀR₁.
//  2. Q₁ = A·(R₁D)⁻¹ by forward substitution, row by row (backward stable
//     for each row, which the residual bound needs), and G₂ = Q₁ᵀQ₁;
//     Cholesky G₂ = R₂ᵀR₂.
//  3. R = R₂R₁. Q = Q₁·R₂⁻¹ is not formed: f keeps Q₁ as q and R₂⁻¹ as
//     qx, and a solve forms QᵀX as R₂⁻ᵀ·(Q₁ᵀX), k²/2 multiply-adds per
//     column of X instead of a pass over Q.
//
// Each step transposes its block of A into scratch (so that the
// substitution and the Gram matrices run along contiguous rows): A is read
// twice and Q₁ written once (or, with a sparse X, not at all: Q₁ᵀX is
// formed from the blocks instead; fusedQtX).
//
// Yamamoto, Nakatsukasa, Yanagisawa & Fukaya (ETNA 44, 2015) prove that
// if 8·κ₂(Ã)·√((n·kk + kk(kk+1))·u) ≤ 1, then ‖QᵀQ − I‖_F ≤
// 6(n·kk + kk(kk+1))·u and ‖Ã − QR‖_F ≤ 5kk²·u·‖Ã‖₂: the guarantees of
// Householder QR. cholQR2 bounds κ₂(Ã) from the computed R₁ by c =
// ‖R₁‖_F·‖R₁⁻¹‖_F ≥ κ₂(R₁) and proceeds only if 16·c·√((n·kk +
// kk(kk+1))·u) ≤ 1. That test cannot pass an Ã outside the theorem: the
// computed G̃ is within γₙ·kk of the exact one in norm (its columns have unit
// norm), so if κ₂(Ã)² ≥ 1/(γₙ·kk) the smallest eigenvalue of the factored
// matrix is at most about 2γₙ·kk and c ≥ (2γₙ·kk)^{-1/2}, which the test
// rejects; below that κ₂(R₁) is within a factor √2 of κ₂(Ã), and the test
// leaves a margin of 2/√2. R₂⁻¹ is applied as a product: under the test
// ‖Q₁ᵀQ₁ − I‖ ≤ 5/64 (ibid.), so κ₂(R₂) < 1.1 and the product's rounding is
// that of a triangular solve.
func (f *Factor) cholQR2(a *tensor.Dense, workers int) bool {
	if !cholQRShape(a.Rows, a.Cols) {
		return false
	}
	return f.cholQR2Run(a, nil, nil, workers)
}

// cholQRShape reports whether NewFactor tries cholQR2 on an n×k A: from
// cholQRMinRows rows below tsqrMinCols columns, and from tsqrMinCols
// columns where the blocked QR does not apply (too few rows for its
// blocks), from cholQRWideMinRows rows and 16 rows a column.
func cholQRShape(n, k int) bool {
	if k < tsqrMinCols {
		return n >= cholQRMinRows
	}
	return tsqrRows(n, k) == 0 && n >= cholQRWideMinRows && n >= 16*k
}

// cholQR2Run is cholQR2 without the shape rule. If xr (a sparse X of N
// rows, by rows) is not nil, step 2 also forms Q₁ᵀX (kk×M) into f.q1tx
// from each block of Q₁ while the block is in cache, and Q₁ itself is not
// kept (f.q is nil): see fusedQtX. If pre is not nil, it first tries step 2
// alone with pre for R' (preconditioned), and runs both steps if that is
// refused.
func (f *Factor) cholQR2Run(a *tensor.Dense, xr *xRows, pre []float64, workers int) bool {
	n, k := a.Rows, a.Cols
	rows := cholQRRows(k)
	nb := (n + rows - 1) / rows
	nw := parallel.Workers(nb, 1, workers)
	if xr != nil && len(xr.ptr) != n+1 {
		panic("nnls: cholQR2Run: X does not match A")
	}
	parts := make([]float64, nb*k*k)
	scratch := make([][]float64, nw)
	// blockT copies rows r0:r1 of the columns cols of A (all of them if cols
	// is nil), transposed, into worker wi's scratch: the len(cols)×m
	// row-major t, whose row c is column cols[c] of the block.
	blockT := func(wi, b int, cols []int) (t []float64, m int) {
		if scratch[wi] == nil {
			scratch[wi] = make([]float64, k*min(rows, n))
		}
		r0, r1 := b*rows, min(n, (b+1)*rows)
		m = r1 - r0
		if cols == nil {
			t = scratch[wi][:k*m]
			for r := range m {
				for i, v := range a.Row(r0 + r) {
					t[i*m+r] = v
				}
			}
			return t, m
		}
		t = scratch[wi][:len(cols)*m]
		for r := range m {
			src := a.Row(r0 + r)
			for c, i := range cols {
				t[c*m+r] = src[i]
			}
		}
		return t, m
	}

	// pass2 is step 2 for the columns cols of A and R' (rs, len(cols)²,
	// upper triangular, unscaled: Q₁ = A_cols·R'⁻¹) with dinv its
	// reciprocal diagonal: Q₁ into q (or, with X, Q₁ᵀX into fx) and
	// G₂ = Q₁ᵀQ₁.
	pass2 := func(cols []int, rs, dinv []float64) (q *tensor.Dense, fx *fusedQtX, g2 []float64) {
		// Q₁ᵀ = R'⁻ᵀAᵀ by forward substitution along the rows of each
		// transposed block, G₂ = Q₁ᵀQ₁, and Q₁ by rows into q.
		kk := len(cols)
		if xr != nil {
			fx = newFusedQtX(nb, xr.m, kk)
		} else {
			q = getDense(n, kk)
		}
		parts := parts[:nb*kk*kk]
		step2 := func(wi, b, g int) {
			t, m := blockT(wi, b, cols)
			for c := range kk {
				x := blas64.Vector{N: m, Inc: 1, Data: t[c*m : (c+1)*m]}
				blas64.Scal(dinv[c], x)
				for d := c + 1; d < kk; d++ {
					blas64.Axpy(-rs[c*kk+d], x, blas64.Vector{N: m, Inc: 1, Data: t[d*m : (d+1)*m]})
				}
			}
			gramRows(parts[b*kk*kk:(b+1)*kk*kk], t, m, kk)
			r0 := b * rows
			if fx != nil {
				fx.add(g, xr, t, r0, m)
				return
			}
			for r := range m {
				dst := q.Row(r0 + r)
				for c := range dst {
					dst[c] = t[c*m+r]
				}
			}
		}
		if fx != nil { // by groups of blocks, each in order (fusedQtX)
			parallel.ForChunks(fx.groups, 1, nw, func(wi, g0, g1 int) {
				for g := g0; g < g1; g++ {
					for b := fx.first(g); b < fx.first(g+1); b++ {
						step2(wi, b, g)
					}
				}
			})
		} else {
			parallel.ForChunks(nb, 1, nw, func(wi, b0, b1 int) {
				for b := b0; b < b1; b++ {
					step2(wi, b, 0)
				}
			})
		}
		return q, fx, sumParts(parts, nb, kk*kk)
	}
	if pre != nil && f.preconditioned(a, pre, pass2) {
		return true
	}

	// Step 1: G₀ = AᵀA.
	parallel.ForChunks(nb, 1, nw, func(wi, b0, b1 int) {
		for b := b0; b < b1; b++ {
			t, m := blockT(wi, b, nil)
			gramRows(parts[b*k*k:(b+1)*k*k], t, m, k)
		}
	})
	g0 := sumParts(parts, nb, k*k)
	pos, cols, norms, r1, rs, dinv, ok := cholQRR1(a, g0, k)
	if !ok {
		return false
	}
	kk := len(cols)

	// Step 2: Q₁ = A·R'⁻¹ (or Q₁ᵀX) and G₂ = Q₁ᵀQ₁; Cholesky G₂ = R₂ᵀR₂.
	q, fx, r2 := pass2(cols, rs, dinv)
	x2, ok := cholInverse(r2, kk, dinv)
	if !ok {
		releaseStep2(q, fx)
		return false
	}

	// Step 3: R = R₂R₁.
	r := upperProduct(r2, r1, kk)
	f.pos, f.cols, f.norm = pos, cols, norms
	f.kk, f.p = kk, kk
	f.q, f.qx, f.r = q, x2, r
	if fx != nil {
		f.q1tx = fx.sum()
	}
	return true
}

// cholQRR1 is step 1 of cholQR2Run after G₀ = AᵀA (g0, k×k): it sorts A's
// columns into those CholeskyQR2 factors (cols; pos[i] is column i's place
// among them, −1 for a zero one; norms their lengths) and zero ones, and
// returns R₁, the Cholesky factor of the scaled G₀ of cols, R' = R₁·D (D
// the norms) and dinv, the reciprocal diagonal of R'. ok is false where
// Householder must take over: a non-finite or out-of-range G₀ᵢᵢ, a column
// too small for G₀ to see, no column left, or R₁ too ill-conditioned.
func cholQRR1(a *tensor.Dense, g0 []float64, k int) (pos, cols []int, norms, r1, rs, dinv []float64, ok bool) {
	n := a.Rows
	ints := make([]int, 2*k)
	pos, cols = ints[:k], ints[k:k:2*k]
	norms = make([]float64, k)
	var zero []int // columns whose G₀ᵢᵢ is 0: zero, or too small to tell
	for i := range pos {
		pos[i] = -1
		switch d := g0[i*k+i]; {
		case d == 0:
			zero = append(zero, i)
		case d >= cholQRTiny && d <= cholQRHuge:
			pos[i] = len(cols)
			cols = append(cols, i)
			norms[len(cols)-1] = math.Sqrt(d)
		default: // NaN, ±Inf, or a magnitude Householder handles better
			return nil, nil, nil, nil, nil, nil, false
		}
	}
	kk := len(cols)
	norms = norms[:kk]
	if kk == 0 {
		return nil, nil, nil, nil, nil, nil, false // all columns zero or tiny: Householder sorts them out
	}
	for r := 0; r < n && len(zero) > 0; r++ {
		for _, i := range zero {
			if a.At(r, i) != 0 {
				return nil, nil, nil, nil, nil, nil, false // a column's entries are too small for G₀ to see
			}
		}
	}
	// G̃ and R₁.
	r1 = make([]float64, kk*kk)
	for c, i := range cols {
		for d, j := range cols[c:] {
			r1[c*kk+c+d] = g0[i*k+j] / (norms[c] * norms[c+d])
		}
	}
	dinv = make([]float64, kk)
	if !cholUpper(r1, kk, dinv) {
		return nil, nil, nil, nil, nil, nil, false
	}
	r1inv := append([]float64(nil), r1...)
	if !lapack64.Trtri(blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: kk, Stride: kk, Data: r1inv}) {
		return nil, nil, nil, nil, nil, nil, false
	}
	square := func(m []float64) *tensor.Dense { return &tensor.Dense{Rows: kk, Cols: kk, Stride: kk, Data: m} }
	// Both are upper triangular with zeros below: ‖·‖_F of the triangles.
	if 16*tensor.Norm(square(r1))*tensor.Norm(square(r1inv))*math.Sqrt(float64(n*kk+kk*(kk+1))*unitRoundoff) > 1 {
		return nil, nil, nil, nil, nil, nil, false
	}
	// R' = R₁·D: Q₁ = A·R'⁻¹ without scaling A.
	rs = make([]float64, kk*kk)
	for c := range kk {
		for d := c; d < kk; d++ {
			rs[c*kk+d] = r1[c*kk+d] * norms[d]
		}
		dinv[c] = 1 / rs[c*kk+c]
	}
	return pos, cols, norms, r1, rs, dinv, true
}

// preconditionedTol bounds ‖G₂ − I‖_F for the one-pass factorisation: the
// computed G₂ is within about γ_N of Q₁ᵀQ₁ entrywise (Q₁'s columns have
// norm near 1), so the exact ‖Q₁ᵀQ₁ − I‖ stays below 5/64, the bound under
// which CholeskyQR2's second pass has Householder QR's guarantees
// (κ₂(Q₁) < 1.09; Yamamoto et al. 2015).
const preconditionedTol = 1.0 / 16

// preconditioned factorises A (all k columns) in one pass of step 2, with
// pre (k×k, upper triangular, row-major) in place of step 1's R' = R₁·D:
// pre is the unscaled R of a nearby A (Factor.unscaledR of the previous
// epoch's), so that Q₁ = A·pre⁻¹ is already nearly orthonormal and step
// 1's pass over A (G₀ = AᵀA) is not needed. Step 2 then runs as in
// cholQR2 (pass2), and the result is accepted only if the computed G₂ =
// Q₁ᵀQ₁ is within preconditionedTol of I in Frobenius norm, the condition
// under which CholeskyQR on Q₁ — cholQR2's second pass — is as accurate as
// Householder QR; otherwise it returns false, having set nothing, and
// cholQR2 runs both passes. With R₂ the Cholesky factor of G₂, A = Q·R₂·pre
// with Q = Q₁·R₂⁻¹; the column norms of A are those of R₂·pre (Q is
// orthonormal to working precision), and R = R₂·pre·D⁻¹. Q₁'s rows are
// each a backward-stable substitution with pre, as with R' in cholQR2, and
// ‖pre‖ ≤ 1.09·‖A‖ under the test, so the residual bound is cholQR2's up
// to that factor.
func (f *Factor) preconditioned(a *tensor.Dense, pre []float64, pass2 func(cols []int, rs, dinv []float64) (*tensor.Dense, *fusedQtX, []float64)) bool {
	k := a.Cols
	if len(pre) != k*k {
		return false
	}
	ints := make([]int, 2*k)
	pos, cols := ints[:k], ints[k:]
	dinv := make([]float64, k)
	for c := range k {
		pos[c], cols[c] = c, c
		d := pre[c*k+c]
		if !(d > 0 && d <= math.MaxFloat64) {
			return false
		}
		dinv[c] = 1 / d
	}
	q, fx, g2 := pass2(cols, pre, dinv)
	release := func() { releaseStep2(q, fx) }
	var dev float64
	for i := range k {
		for j := range k {
			d := g2[i*k+j]
			if i == j {
				d--
			}
			dev += d * d
		}
	}
	if !(math.Sqrt(dev) <= preconditionedTol) {
		release()
		return false
	}
	r2 := g2 // overwritten by its Cholesky factor
	x2, ok := cholInverse(r2, k, dinv)
	if !ok {
		release()
		return false
	}
	r := upperProduct(r2, pre, k) // R₂·pre, then scaled by columns
	norms := make([]float64, k)
	for j := range k {
		var s float64
		for i := 0; i <= j; i++ {
			s += r[i*k+j] * r[i*k+j]
		}
		if !(s >= cholQRTiny && s <= cholQRHuge) {
			release()
			return false
		}
		norms[j] = math.Sqrt(s)
	}
	for i := range k {
		for j := i; j < k; j++ {
			r[i*k+j] /= norms[j]
		}
	}
	f.pos, f.cols, f.norm = pos, cols, norms
	f.kk, f.p = k, k
	f.q, f.qx, f.r = q, x2, r
	if fx != nil {
		f.q1tx = fx.sum()
	}
	f.onePass = true
	return true
}

// cholInverse overwrites g (k×k, symmetric positive definite) with its
// upper Cholesky factor R₂ (zero below the diagonal) and returns R₂⁻¹,
// using scratch (k floats); ok is false if either fails (g is then
// unspecified).
func cholInverse(g []float64, k int, scratch []float64) (inv []float64, ok bool) {
	if !cholUpper(g, k, scratch) {
		return nil, false
	}
	for i := 1; i < k; i++ { // cholUpper leaves the strict lower triangle
		clear(g[i*k : i*k+i])
	}
	inv = append([]float64(nil), g...)
	if !lapack64.Trtri(blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: k, Stride: k, Data: inv}) {
		return nil, false
	}
	return inv, true
}

// upperProduct returns U·V for upper triangular k×k U and V (row-major,
// zero below the diagonal), each entry summed in increasing l.
func upperProduct(u, v []float64, k int) []float64 {
	r := make([]float64, k*k)
	for i := range k {
		for j := i; j < k; j++ {
			var s float64
			for l := i; l <= j; l++ {
				s += u[i*k+l] * v[l*k+j]
			}
			r[i*k+j] = s
		}
	}
	return r
}

// releaseStep2 hands back the pooled memory of a step 2 that is not kept.
func releaseStep2(q *tensor.Dense, fx *fusedQtX) {
	if q != nil {
		putDense(q)
	}
	if fx != nil {
		putDense(fx.buf)
	}
}

// unscaledR returns R·D (k×k, upper triangular: A = Q·R·D, D the column
// norms), the preconditioner of a one-pass factorisation of a nearby A
// (preconditioned), for a factorisation by CholeskyQR2 of an A with no
// zero column; nil otherwise.
func (f *Factor) unscaledR() []float64 {
	if f.qx == nil || f.kk != f.k || f.p != f.k {
		return nil
	}
	k := f.k
	u := make([]float64, k*k)
	for i := range k {
		for j := i; j < k; j++ {
			u[i*k+j] = f.r[i*k+j] * f.norm[j]
		}
	}
	return u
}

// fusedQtXGroups is the most groups of blocks fusedQtX sums apart: enough
// for the cores of one machine to share step 2, few enough that their
// partial sums cost little to keep and add.
const fusedQtXGroups = 8

// fusedQtX forms Q₁ᵀX in cholQR2's step 2, from each transposed block of
// Q₁ as it is made (in a core's cache), for a sparse X given by its
// transpose (rows of X contiguous): row r of Q₁ adds x_rj·Q₁[r, :] to
// column j of Q₁ᵀX for each of row r's nonzeros. It replaces a pass over Q₁
// per chunk of columns in which the rows of Q₁ are read at random (on the
// 20 Newsgroups matrix, 45,534×1,000 with 62,872 nonzeros and k = 10, that
// product cost more than the factorisation's step 2 itself), and Q₁ is
// never stored. The blocks are split into up to fusedQtXGroups contiguous
// groups fixed by the shape; each group's blocks are added in order into
// the group's own M×kk partial sums, and the partials are added in group
// order, so the result does not depend on the number of workers. It differs
// from the column-by-column sum of Sparse.MulTA only in that order: its
// rounding error has the same bound.
type fusedQtX struct {
	groups, nb, m, kk int
	buf               *tensor.Dense // pooled (getDense): part's memory
	part              []float64     // groups × (M×kk): column j's kk sums at part[g·M·kk + j·kk:]
}

// fuseMaxEntries bounds M·kk for fusion: the partial sums take
// fusedQtXGroups·M·kk floats (32 MiB at the bound).
const fuseMaxEntries = 1 << 19

func newFusedQtX(nb, m, kk int) *fusedQtX {
	g := min(nb, fusedQtXGroups)
	buf := getDense(g, m*kk) // pooled: a training loop asks for the same size every epoch
	clear(buf.Data)
	return &fusedQtX{groups: g, nb: nb, m: m, kk: kk, buf: buf, part: buf.Data}
}

// first returns group g's first block (g = groups gives nb).
func (fx *fusedQtX) first(g int) int { return g * fx.nb / fx.groups }

// add adds the block's rows r0:r0+m of Q₁, given transposed in t (kk×m,
// row-major), times X's rows, into group g's partial sums.
func (fx *fusedQtX) add(g int, xr *xRows, t []float64, r0, m int) {
	kk := fx.kk
	part := fx.part[g*fx.m*kk : (g+1)*fx.m*kk]
	p0, p1 := xr.ptr[r0], xr.ptr[r0+m]
	rows, cols, vals := xr.row[p0:p1], xr.col[p0:p1], xr.val[p0:p1]
	cols, vals = cols[:len(rows)], vals[:len(rows)]
	for e, r := range rows {
		v, o := vals[e], int(r)-r0
		dst := part[int(cols[e])*kk : int(cols[e])*kk+kk]
		for c := range dst {
			dst[c] += v * t[c*m+o]
		}
	}
}

// xRows is a sparse X (N×M) by rows, for fusedQtX: the nonzeros of row r
// are entries ptr[r]:ptr[r+1], in increasing column, entry e being
// X[row[e], col[e]] = val[e]. One flat loop over a block's entries has no
// branch on how many entries each row has (most rows of a term–document
// matrix have one or two, and a loop per row mispredicts its exit at
// nearly every row).
type xRows struct {
	m        int // columns
	ptr      []int
	row, col []int32
	val      []float64
}

// newXRows returns X by rows; it needs N and M below 2³¹.
func newXRows(x *tensor.Sparse) *xRows {
	xt := x.T()
	xr := &xRows{m: x.Cols, ptr: xt.ColPtr, row: make([]int32, len(xt.Val)), col: make([]int32, len(xt.Val)), val: xt.Val}
	for r := range x.Rows {
		for p := xt.ColPtr[r]; p < xt.ColPtr[r+1]; p++ {
			xr.row[p], xr.col[p] = int32(r), int32(xt.RowIdx[p])
		}
	}
	return xr
}

// sum returns Q₁ᵀX (kk×M, row-major, pooled memory: Factor.releaseQ
// returns it): the groups' partials added in order. fx's partials go back
// to the pool.
func (fx *fusedQtX) sum() *tensor.Dense {
	defer putDense(fx.buf)
	kk, m := fx.kk, fx.m
	s := fx.part[:m*kk]
	for g := 1; g < fx.groups; g++ {
		p := fx.part[g*m*kk : (g+1)*m*kk]
		p = p[:len(s)]
		for i, v := range p {
			s[i] += v
		}
	}
	out := getDense(kk, m)
	for j := range m {
		for c, v := range s[j*kk : (j+1)*kk] {
			out.Data[c*m+j] = v
		}
	}
	return out
}

// gramRows sets g (kk×kk, row-major, both triangles) to the Gram matrix of
// the first kk rows of the m-column row-major t: g_cd = t_c·t_d, each a
// dot product in a fixed order.
func gramRows(g, t []float64, m, kk int) {
	for c := range kk {
		x := blas64.Vector{N: m, Inc: 1, Data: t[c*m : (c+1)*m]}
		for d := c; d < kk; d++ {
			v := blas64.Dot(x, blas64.Vector{N: m, Inc: 1, Data: t[d*m : (d+1)*m]})
			g[c*kk+d], g[d*kk+c] = v, v
		}
	}
}

// sumParts returns the sum of the nb arrays of length m stored one after
// another in parts, added in order, in parts' first array.
func sumParts(parts []float64, nb, m int) []float64 {
	s := parts[:m]
	for b := 1; b < nb; b++ {
		p := parts[b*m : (b+1)*m]
		p = p[:len(s)]
		for i, v := range p {
			s[i] += v
		}
	}
	return s
}
