package nnls

import (
	"fmt"
	"math"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/lapack64"

	"github.com/neuralnmf/neuralnmf/internal/gemm"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// rcondFast is the reciprocal condition estimate of R at or above which a
// column is first tried on the Gram path (block principal pivoting on
// G = RᵀR, then iterative refinement with residuals formed from R): with
// cond(R) ≤ 10⁶ every passive block G_FF has condition ≤ 10¹², its Cholesky
// factor exists, and each refinement step shrinks the error by about
// cond(R)²·ε ≤ 10⁻⁴. Below it every column is solved by Lawson–Hanson on R.
const rcondFast = 1e-6

// rcondSchur is the reciprocal condition estimate of R at or above which the
// Gram path may use H = G⁻¹ (the Schur-complement form of a subproblem):
// cond(G) ≤ 10⁸, so H carries at least 8 digits and the refinement that
// follows every solve restores the rest.
const rcondSchur = 1e-4

// Factor is what every column's solve needs from A, computed once by
// NewFactor: the norms of A's columns, the QR factorisation of A with its
// nonzero columns scaled to unit norm, and the Gram matrix of the scaled
// columns. It is read-only once built and may be shared by concurrent solves.
type Factor struct {
	n, k    int
	cols    []int         // the nonzero columns of A, in order; kk = len(cols)
	pos     []int         // pos[i] is i's place in cols, or −1 for a zero column
	kk, p   int           // p = min(n, kk) is the number of rows of R
	norm    []float64     // ‖a_cols[c]‖
	q       *tensor.Dense // n×p: the first p columns of Q, or Q₁ with Q = Q₁·qx
	qx      []float64     // nil, or kk×kk upper triangular: Q = q·qx (cholQR2)
	q1tx    *tensor.Dense // nil, or kk×M: Q₁ᵀX, formed by cholQR2 with X (q is then nil)
	r       []float64     // p×kk, row-major, upper trapezoidal: Ã = Q·R
	rabs    []float64     // |R|, for rounding bounds
	rt      []float64     // kk×p, row-major: Rᵀ, so that Rᵀv is a dot product per entry
	rabsT   []float64     // |R|ᵀ, likewise
	rdinv   []float64     // 1/R_ii (only on the fast path)
	g, h    []float64     // kk×kk, both triangles: G = RᵀR; H = G⁻¹ (only if trustH)
	rcond   float64       // reciprocal 1-norm condition estimate of R; 0 if rank deficient
	rank    int           // numerical rank of Ã (kk on the fast path)
	onePass bool          // factorised in one pass with a preconditioner (Factor.preconditioned)
	fast    bool          // rcond ≥ rcondFast
	trust   bool          // rcond ≥ rcondSchur: H is formed
	batch   bool          // columns with a full support are solved together (trust; off only in tests)
}

// K returns the number of columns of A.
func (f *Factor) K() int { return f.k }

// Rank returns the numerical rank of A after its nonzero columns are scaled
// to unit norm: the number of singular values above max(N, k)·ε·σ_max. It
// is the largest support any column of a solution can have. (When RCond ≥
// 10⁻⁶, A has full column rank and Rank is the number of nonzero columns.)
func (f *Factor) Rank() int { return f.rank }

// RCond returns the estimated reciprocal condition number (1-norm) of A
// after its nonzero columns are scaled to unit norm; zero columns are left
// out. It is 0 when those columns are numerically dependent or outnumber the
// rows. Scaling makes it the condition number that matters for NNLS: scaling a
// column of A rescales a row of S and changes nothing else.
func (f *Factor) RCond() float64 { return f.rcond }

// Cosine returns the cosine of the angle between columns i and j of A,
// a_iᵀa_j/(‖a_i‖·‖a_j‖), read from the factorisation (RᵀR is the Gram
// matrix of A's columns at unit norm) to within about 2·k·ε; 0 if either
// column is zero. It panics if i or j is not a column index.
func (f *Factor) Cosine(i, j int) float64 {
	pi, pj := f.pos[i], f.pos[j]
	if pi < 0 || pj < 0 {
		return 0
	}
	return f.g[pi*f.kk+pj]
}

// Gram writes AᵀA (k×k) into dst, read from the factorisation: with the
// column-scaled Ã = A·D⁻¹ = Q·R, AᵀA = D·RᵀR·D on A's nonzero columns and 0
// on its zero ones, a k²·p product instead of a pass over A (N·k² for a
// product with A). Its rounding error is that of Ã = Q·R, a few k·ε per
// unit column: about that of a direct product. It panics if dst is not
// k×k.
func (f *Factor) Gram(dst *tensor.Dense) {
	if dst.Rows != f.k || dst.Cols != f.k {
		panic(fmt.Sprintf("nnls: Factor.Gram: dst is %d×%d, want %d×%d", dst.Rows, dst.Cols, f.k, f.k))
	}
	for i := 0; i < f.k; i++ {
		clear(dst.Row(i))
	}
	kk := f.kk
	for a, ca := range f.cols {
		row := dst.Row(ca)
		for b, cb := range f.cols {
			row[cb] = f.norm[a] * f.g[a*kk+b] * f.norm[b]
		}
	}
}

// ZeroColumns returns the indices of A's zero columns, whose rows of S are
// always zero.
func (f *Factor) ZeroColumns() []int {
	var z []int
	for i, p := range f.pos {
		if p < 0 {
			z = append(z, i)
		}
	}
	return z
}

// NewFactor validates A (N×k) and factorises it for Solve. A may have any
// shape and any sign, zero or dependent columns, and any conditioning. It
// returns an error naming A if A is empty or has a non-finite entry, or if a
// column's norm overflows float64 (an entry near the largest float64).
func NewFactor(a *tensor.Dense) (*Factor, error) { return newFactor(a, runtimeWorkers()) }

// newFactor is NewFactor on up to workers goroutines (only a tall A's
// QR, cholQR2 or tsqr, uses more than one). The result does not depend on
// workers.
func newFactor(a *tensor.Dense, workers int) (*Factor, error) {
	return newFactorX(a, nil, nil, workers)
}

// newFactorX is newFactor that, if xr (a sparse X by rows) is not nil and
// A takes the cholQR2 path, also forms Q₁ᵀX with the factorisation
// (cholQR2) into f.q1tx and does not form Q₁; and that, on that path,
// first tries one pass preconditioned by pre (Factor.preconditioned) if pre
// is not nil.
func newFactorX(a *tensor.Dense, xr *xRows, pre []float64, workers int) (*Factor, error) {
	if err := tensor.CheckNotEmpty("A", a); err != nil {
		return nil, fmt.Errorf("nnls: %w", err)
	}
	f := &Factor{n: a.Rows, k: a.Cols}
	if !cholQRShape(a.Rows, a.Cols) || !f.cholQR2Run(a, xr, pre, workers) {
		if err := f.householder(a, workers); err != nil {
			return nil, err
		}
	}
	if f.kk == 0 {
		return f, nil
	}
	kk, p := f.kk, f.p
	// One allocation for the small arrays: |R|, Rᵀ, |R|ᵀ, G, H and the
	// scratch of the condition estimate.
	slab := make([]float64, 3*p*kk+3*kk*kk+4*kk)
	take := func(m int) []float64 {
		v := slab[:m:m]
		slab = slab[m:]
		return v
	}
	f.rabs, f.rt, f.rabsT = take(p*kk), take(kk*p), take(kk*p)
	f.g, f.rdinv = take(kk*kk), take(kk)
	hbuf, rinvBuf := take(kk*kk), take(kk*kk)
	work := take(3 * kk)
	for i, v := range f.r {
		f.rabs[i] = math.Abs(v)
	}
	for j := 0; j < p; j++ {
		for i := j; i < kk; i++ {
			f.rt[i*p+j], f.rabsT[i*p+j] = f.r[j*kk+i], f.rabs[j*kk+i]
		}
	}

	gramUpper(f.g, f.r, p, kk)
	if p == kk {
		f.rcond = lapack64.Trcon(lapack.MaxColumnSum, f.rTriangular(), work, make([]int, kk))
		if math.IsNaN(f.rcond) {
			f.rcond = 0
		}
	}
	f.fast = f.rcond >= rcondFast
	if f.fast {
		for i := range f.rdinv {
			f.rdinv[i] = 1 / f.r[i*kk+i]
		}
	}
	f.trust = f.rcond >= rcondSchur
	f.rank = kk
	if !f.fast {
		f.rank = numericalRank(f.r, p, kk, max(f.n, kk))
	}
	if f.trust { // H = R⁻¹R⁻ᵀ
		rinv := rinvBuf
		copy(rinv, f.r)
		if ok := lapack64.Trtri(blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: kk, Stride: kk, Data: rinv}); !ok {
			f.trust, f.fast = false, false
		} else {
			f.h = hbuf
			outerUpper(f.h, rinv, kk)
		}
	}
	f.batch = f.trust
	return f, nil
}

// householder sets f's column norms, nonzero columns, Q and R by
// Householder QR of Ã (A's nonzero columns at unit norm): by blocks of rows
// (tsqr) when Ã is tall and wide enough, otherwise LAPACK's Geqrf and
// Orgqr. It returns an error naming A if A has a non-finite entry or a
// column norm overflows.
func (f *Factor) householder(a *tensor.Dense, workers int) error {
	n, k := a.Rows, a.Cols
	norms, err := columnNorms(a)
	if err != nil {
		return err
	}
	ints := make([]int, 2*k)
	f.pos, f.cols = ints[:k], ints[k:k:2*k]
	for i, nrm := range norms {
		f.pos[i] = -1
		if nrm > 0 {
			f.pos[i] = len(f.cols)
			f.cols = append(f.cols, i)
			norms[len(f.cols)-1] = nrm
		}
	}
	kk := len(f.cols)
	f.norm = norms[:kk]
	f.kk, f.p = kk, min(n, kk)
	if kk == 0 {
		return nil
	}
	p := f.p
	// Ã: the nonzero columns at unit norm.
	at := getDense(n, kk)
	for r := 0; r < n; r++ {
		src, dst := a.Row(r), at.Row(r)
		for c, i := range f.cols {
			dst[c] = src[i] / f.norm[c]
		}
	}
	f.r = make([]float64, p*kk)
	if rows := tsqrRows(n, kk); rows > 0 {
		tsqr(at, rows, f.r, workers)
		f.q = at
		return nil
	}
	var query [1]float64
	lapack64.Geqrf(at.RawMatrix(), nil, query[:], -1)
	lwork := int(query[0])
	lapack64.Orgqr(blas64.General{Rows: n, Cols: p, Stride: at.Stride, Data: at.Data}, nil, query[:], -1)
	lwork = max(lwork, int(query[0]), 1)
	wd := getDense(1, lwork+p) // scratch: every entry is written before it is read
	defer putDense(wd)
	work, tau := wd.Data[:lwork], wd.Data[lwork:]
	lapack64.Geqrf(at.RawMatrix(), tau, work, lwork)
	for i := 0; i < p; i++ {
		copy(f.r[i*kk+i:(i+1)*kk], at.Row(i)[i:])
	}
	if p == kk { // Q overwrites the reflectors in place
		f.q = at
	} else {
		f.q = getDense(n, p)
		for r := 0; r < n; r++ {
			copy(f.q.Row(r), at.Row(r)[:p])
		}
		defer putDense(at)
	}
	lapack64.Orgqr(f.q.RawMatrix(), tau, work, lwork)
	return nil
}

// gramUpper sets g (k×k, row-major) to RᵀR for the p×k upper trapezoidal
// R in r (row-major, stride k): g_ij = Σ_{l ≤ min(i, j)} R_li·R_lj, summed
// in increasing l, the order a general product would use (the terms below
// the diagonal of R are zero), computed once for i ≤ j and mirrored, so g is
// exactly symmetric. The rows of R are read as axpys along j.
func gramUpper(g, r []float64, p, k int) {
	clear(g[:k*k])
	for l := 0; l < p; l++ {
		row := r[l*k : (l+1)*k]
		for i := l; i < k; i++ {
			v := row[i]
			gi, rj := g[i*k+i:(i+1)*k], row[i:]
			rj = rj[:len(gi)]
			for j, w := range rj {
				gi[j] += v * w
			}
		}
	}
	for i := 0; i < k; i++ {
		for j := i + 1; j < k; j++ {
			g[j*k+i] = g[i*k+j]
		}
	}
}

// outerUpper sets h (k×k) to U·Uᵀ for the upper triangular k×k U in u
// (row-major): h_ij = Σ_{l ≥ max(i, j)} U_il·U_jl in increasing l, once for
// i ≤ j and mirrored (exactly symmetric).
func outerUpper(h, u []float64, k int) {
	for i := 0; i < k; i++ {
		for j := i; j < k; j++ {
			ui, uj := u[i*k+j:(i+1)*k], u[j*k+j:(j+1)*k]
			ui = ui[:len(uj)]
			var s float64
			for l, v := range uj {
				s += ui[l] * v
			}
			h[i*k+j], h[j*k+i] = s, s
		}
	}
}

// numericalRank returns the number of singular values of the p×k matrix in
// r above m·ε·σ_max, LAPACK's and MATLAB's usual rank tolerance. Below it a
// singular value is indistinguishable from the rounding of the QR
// factorisation, so no support can have more independent columns.
func numericalRank(r []float64, p, k, m int) int {
	a := blas64.General{Rows: p, Cols: k, Stride: k, Data: append([]float64(nil), r...)}
	sv := make([]float64, min(p, k))
	none := blas64.General{Stride: 1}
	work := []float64{0}
	lapack64.Gesvd(lapack.SVDNone, lapack.SVDNone, a, none, none, sv, work, -1)
	work = make([]float64, int(work[0]))
	if !lapack64.Gesvd(lapack.SVDNone, lapack.SVDNone, a, none, none, sv, work, len(work)) || sv[0] == 0 {
		return min(p, k)
	}
	n := 0
	for _, s := range sv {
		if s > float64(m)*eps*sv[0] {
			n++
		}
	}
	return n
}

// rTriangular returns R as a triangular matrix; it requires p = kk.
func (f *Factor) rTriangular() blas64.Triangular {
	return blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: f.kk, Stride: f.kk, Data: f.r}
}

// columnNorms returns ‖a_i‖ for every column of A, or an error if A has a
// non-finite entry or a column norm overflows float64. It reads A by rows: a
// first pass finds m_i = max_r |A_ri| (and any NaN or Inf); a second sums
// (A_ri/m_i)², which neither overflows nor underflows harmfully.
func columnNorms(a *tensor.Dense) ([]float64, error) {
	k := a.Cols
	buf := make([]float64, 2*k)
	mx, sq := buf[:k], buf[k:]
	for r := 0; r < a.Rows; r++ {
		row := a.Row(r)
		row = row[:len(mx)]
		for i, v := range row {
			if v < 0 {
				v = -v
			}
			if !(v <= mx[i]) { // also NaN
				mx[i] = v
			}
		}
	}
	for _, m := range mx {
		if !(m <= math.MaxFloat64) {
			return nil, fmt.Errorf("nnls: %w", tensor.CheckFinite("A", a))
		}
	}
	for r := 0; r < a.Rows; r++ {
		row := a.Row(r)
		row = row[:len(mx)]
		for i, v := range row {
			if m := mx[i]; m > 0 {
				v /= m
				sq[i] += v * v
			}
		}
	}
	for i, m := range mx {
		nrm := m * math.Sqrt(sq[i])
		if math.IsInf(nrm, 0) {
			return nil, fmt.Errorf("nnls: A: column %d is too large: its norm overflows float64; rescale A", i)
		}
		mx[i] = nrm
	}
	return mx, nil
}

// gramRHS sets C = Rᵀ·D and U = R⁻¹·D for the Gram path (p = kk), for the
// nc columns of D (kk×nc, row stride ld; C and U likewise): the right-hand
// sides of the normal equations and the unconstrained solutions. C is a
// product (internal/gemm, with ws; β = 0, so each column's rounding does
// not depend on the chunk's other columns). U is formed by back
// substitution along rows, so every inner loop is an axpy over the chunk's
// columns, with no chain of dependent operations as a column-by-column
// solve would have, and with the reciprocals of R's diagonal (one more
// rounding per entry than a division; still backward stable:
// (R + ΔR)·u = d with |ΔR| ≤ γ_{k+1}|R|).
func (f *Factor) gramRHS(dm, cm, um []float64, nc, ld int, ws *gemm.Workspace) {
	k, r := f.kk, f.r
	gemm.Serial(false, false, k, nc, k, 1, f.rt, k, dm, ld, 0, cm, ld, ws)
	for i := k - 1; i >= 0; i-- {
		ui := um[i*ld : i*ld+nc]
		copy(ui, dm[i*ld:i*ld+nc])
		for j := i + 1; j < k; j++ {
			v := r[i*k+j]
			uj := um[j*ld : j*ld+nc]
			uj = uj[:len(ui)]
			for c, x := range uj {
				ui[c] -= v * x
			}
		}
		rd := f.rdinv[i]
		for c := range ui {
			ui[c] *= rd
		}
	}
}

// qBufs holds, between solves, the scratch matrices a training loop asks
// for in the same shapes every epoch: Q (N×kk) and Ã on the Householder
// path, Householder's LAPACK workspace, and the backward pass's U (k×M).
// Q is needed only while a solve forms QᵀX; a fresh N×kk matrix each time
// cost page faults and clearing that, on a 45,534×10 A, took as long as the
// factorisation (2 ms against 1.5 on this machine). Like chunkBufs, it is
// a cache of memory only: a matrix taken from it is written before it is
// read (U is cleared).
var qBufs sync.Map // n·kk → *sync.Pool of *[]float64

// getDense returns an r×c matrix whose entries are unspecified.
func getDense(r, c int) *tensor.Dense {
	if p, ok := qBufs.Load(r * c); ok {
		if d, ok := p.(*sync.Pool).Get().(*[]float64); ok {
			return &tensor.Dense{Rows: r, Cols: c, Stride: c, Data: (*d)[:r*c]}
		}
	}
	return tensor.New(r, c)
}

// putDense hands m's memory to getDense; m must not be used afterwards.
func putDense(m *tensor.Dense) {
	d := m.Data[:cap(m.Data)]
	p, ok := qBufs.Load(len(d))
	if !ok {
		p, _ = qBufs.LoadOrStore(len(d), new(sync.Pool))
	}
	p.(*sync.Pool).Put(&d)
}

// qtxPost finishes QᵀX for nc columns in dt (p rows, row stride ld) when Q
// is kept as Q₁·qx: dt = qxᵀ·dt, row c becoming Σ_{l ≤ c} qx_lc·row l,
// formed from the last row up so that every row it reads is still Q₁ᵀX's.
func (f *Factor) qtxPost(dt []float64, nc, ld int) {
	x, k := f.qx, f.kk
	if x == nil {
		return
	}
	for c := k - 1; c >= 0; c-- {
		rc := dt[c*ld : c*ld+nc]
		d := x[c*k+c]
		for j := range rc {
			rc[j] *= d
		}
		for l := c - 1; l >= 0; l-- {
			v := x[l*k+c]
			rl := dt[l*ld : l*ld+nc]
			rl = rl[:len(rc)]
			for j, w := range rl {
				rc[j] += v * w
			}
		}
	}
}

// releaseQ hands Q's memory back once no solve will read it.
func (f *Factor) releaseQ() {
	if f.q != nil {
		putDense(f.q)
		f.q = nil
	}
	if f.q1tx != nil {
		putDense(f.q1tx)
		f.q1tx = nil
	}
}
