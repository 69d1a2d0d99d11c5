package nnls

import (
	"math"

	"github.com/neuralnmf/neuralnmf/internal/gemm"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// batchBuf is a chunk's workspace for the columns it solves together (see
// solveFull and uFull): four kk×cs blocks and per-column scalars. It is
// allocated on first use and recycled with its chunkBuf.
type batchBuf struct {
	m   [4][]float64 // kk×cs blocks, row stride cs
	col [4][]float64 // per-column scalars (cs each)
	ok  []bool       // per column of the chunk
	idx []int        // the chunk's columns in the batch, in order
}

func (cb *chunkBuf) batch(kk int) *batchBuf {
	if cb.bb == nil {
		bb := &batchBuf{ok: make([]bool, cb.cs), idx: make([]int, 0, cb.cs)}
		for i := range bb.m {
			bb.m[i] = make([]float64, kk*cb.cs)
		}
		for i := range bb.col {
			bb.col[i] = make([]float64, cb.cs)
		}
		cb.bb = bb
	}
	return cb.bb
}

// product sets the kk×nb block c (row stride ld) to a·b for the kk×kk
// row-major matrix a and the kk×nb block b (row stride ld). With β = 0 and
// α = 1 every entry is the same sequence of roundings wherever its column
// sits in the batch, so a column's result does not depend on which other
// columns share its chunk (and so on the number of workers).
func (cb *chunkBuf) product(kk, nb, ld int, a, b, c []float64) {
	gemm.Serial(false, false, kk, nb, kk, 1, a, kk, b, ld, 0, c, ld, &cb.ws)
}

// solveFull solves, together, the columns of the chunk (nc columns, j0 its
// first) whose unconstrained solution is feasible: every entry of u = R⁻¹d
// above the pivoting threshold xTol and, with a warm start, a full warm
// support. For them block principal pivoting stops at its first subproblem
// with x = u (the Schur form with B empty), and refinement has nothing to
// do (x is a triangular solve with R); what remains is the certificate's
// residual, multipliers and bounds, which worker.residual forms column by
// column with four triangular matrix–vector products. Here they are four
// products over the whole batch (internal/gemm, the kk×kk triangles stored
// with their zeros): R·X, |R|·X, Rᵀ·ρ and |R|ᵀ·a. The certificate is the
// same as worker.certify's, with the same bounds: those are bounds on the
// rounding of any summation order, and a product's is one.
//
// A column whose residual needs compensated sums (a > 8·max|d|, see
// worker.residual) or that fails the certificate is left to the
// column-by-column path, which solves it from the start. It needs f.fast,
// f.trust and p = kk (f.batch); it sets done[jj] (nc entries) for the
// columns it has written and clears the others.
func (f *Factor) solveFull(cb *chunkBuf, warm *Support, s *tensor.Dense, sup *Support, j0, nc int, done []bool) {
	kk, cs, w := f.kk, cb.cs, cb.w
	bb := cb.batch(kk)
	ok := bb.ok[:nc]
	clear(done)
	sc, dn := cb.sc[:nc], cb.dn[:nc] // from columnScales
	for jj, v := range sc {
		ok[jj] = v > 0
	}
	// Feasible unconstrained solutions: u_i > xTol = τ‖d‖ for every i.
	xtol := bb.col[0][:nc]
	for jj := range xtol {
		xtol[jj] = w.tau * math.Sqrt(dn[jj])
	}
	for i := 0; i < kk; i++ {
		for jj, v := range cb.u[i*cs : i*cs+nc] {
			ok[jj] = ok[jj] && v*sc[jj] > xtol[jj]
		}
	}
	idx := bb.idx[:0]
	for jj, in := range ok {
		if in && (warm == nil || fullSupport(warm, f.cols, j0+jj)) {
			idx = append(idx, jj)
		}
	}
	bb.idx = idx
	nb := len(idx)
	if nb == 0 {
		return
	}
	// The batch, compacted and scaled: d, and x = u.
	d, x, t1, t2 := bb.m[0], bb.m[1], bb.m[2], bb.m[3]
	for i := 0; i < kk; i++ {
		dr, xr := d[i*cs:i*cs+nb], x[i*cs:i*cs+nb]
		dt, ut := cb.dt[i*cs:], cb.u[i*cs:]
		for b, jj := range idx {
			dr[b], xr[b] = dt[jj]*sc[jj], ut[jj]*sc[jj]
		}
	}
	cb.product(kk, nb, cs, f.r, x, t1)    // R·x
	cb.product(kk, nb, cs, f.rabs, x, t2) // |R|·x (x > 0)
	// ρ = d − R·x into d and a = |d| + |R|·x into t2, with max_j a_j and
	// max_j |d_j| per column.
	amax, dmax := bb.col[1][:nb], bb.col[2][:nb]
	clear(amax)
	clear(dmax)
	for i := 0; i < kk; i++ {
		dr, tr, ar := d[i*cs:i*cs+nb], t1[i*cs:i*cs+nb], t2[i*cs:i*cs+nb]
		for b, dv := range dr {
			ad := math.Abs(dv)
			a := ad + ar[b]
			dr[b], ar[b] = dv-tr[b], a
			amax[b], dmax[b] = max(amax[b], a), max(dmax[b], ad)
		}
	}
	cb.product(kk, nb, cs, f.rt, d, t1)    // y = Rᵀρ
	cb.product(kk, nb, cs, f.rabsT, t2, d) // |R|ᵀa
	// The certificate on the support (no variable is off it): x_i > 0
	// (x_i > xTol ≥ 0 above) and |y_i| ≤ τ_F·bndF_i with bndF_i = ‖d‖ +
	// (|R|ᵀa)_i + √(kk·‖x‖²). A column with a > 8·max|d| needs the
	// compensated residual and is left out.
	cert := ok[:nb]
	xn := bb.col[3][:nb]
	clear(xn)
	for i := 0; i < kk; i++ {
		for b, v := range x[i*cs : i*cs+nb] {
			xn[b] += v * v
		}
	}
	for b, jj := range idx {
		cert[b] = amax[b] <= 8*dmax[b]
		dmax[b] = math.Sqrt(dn[jj]) // ‖d‖, in dmax's place
		xn[b] = math.Sqrt(float64(kk) * xn[b])
	}
	dnorm, tauF := dmax, w.tauF
	for i := 0; i < kk; i++ {
		yr, br := t1[i*cs:i*cs+nb], d[i*cs:i*cs+nb]
		for b, y := range yr {
			cert[b] = cert[b] && math.Abs(y) <= tauF*(dnorm[b]+br[b]+xn[b])
		}
	}
	// Write the certified columns, row by row of S, each entry as the
	// per-column path computes it: x·back/‖a_i‖ with back = 1/scale (times
	// the column's power-of-two unscaling of X, if any). S and its support
	// are fresh: zero entries need no store.
	back := amax // amax is not needed past this point
	for b, jj := range idx {
		back[b] = cb.back(jj)
	}
	for c, i := range f.cols {
		xr, nrm := x[c*cs:c*cs+nb], f.norm[c]
		srow := s.Data[i*s.Stride+j0 : i*s.Stride+j0+nc]
		word, bit := i/64, uint64(1)<<(uint(i)%64)
		for b, jj := range idx {
			if !cert[b] {
				continue
			}
			v := xr[b] * back[b] / nrm
			if math.IsInf(v, 0) {
				cb.overflow = true
			}
			srow[jj] = v
			if v > 0 {
				sup.bits[(j0+jj)*sup.words+word] |= bit
			}
		}
	}
	for b, jj := range idx {
		if cert[b] {
			w.count(1)
			done[jj] = true
		}
	}
}

// fullSupport reports whether column j of s holds every index in cols (an
// increasing subset of 0..k−1): with every index (A has no zero column) it
// compares whole words.
func fullSupport(s *Support, cols []int, j int) bool {
	col := s.col(j)
	if len(cols) == s.k {
		for w, v := range col {
			want := ^uint64(0)
			if rem := s.k - 64*w; rem < 64 {
				want = 1<<uint(rem) - 1
			}
			if v != want {
				return false
			}
		}
		return true
	}
	for _, i := range cols {
		if col[i/64]>>(uint(i)%64)&1 == 0 {
			return false
		}
	}
	return true
}

// uFull computes, together, the columns of U in solveUChunk whose support
// is full (every nonzero column of A): U_j = (ÃᵀÃ)⁻¹·g̃_j with g̃ = D·gs_j,
// which the per-column path forms as u = H·g̃, one correction with the
// residual r = g̃ − G·u, and x = u + H·r. Here those are three products over
// the whole batch (internal/gemm, β = 0 and α = 1, so a column's rounding
// does not depend on the other columns of its chunk). It needs f.fast and
// f.trust (f.batch), writes the batch's columns of ut (scaled back by D)
// and sets done[jj] (nc entries) for them, clearing the others.
func (f *Factor) uFull(cb *chunkBuf, sup *Support, gs, ut *tensor.Dense, j0, nc int, done []bool) {
	kk, cs := f.kk, cb.cs
	bb := cb.batch(kk)
	idx := bb.idx[:0]
	for jj := range done {
		done[jj] = fullSupport(sup, f.cols, j0+jj)
		if done[jj] {
			idx = append(idx, jj)
		}
	}
	bb.idx = idx
	nb := len(idx)
	if nb == 0 {
		return
	}
	g, u, t := bb.m[0], bb.m[1], bb.m[2]
	for c, i := range f.cols {
		gr, src, nrm := g[c*cs:c*cs+nb], gs.Data[i*gs.Stride+j0:], f.norm[c]
		for b, jj := range idx {
			gr[b] = src[jj] / nrm
		}
	}
	cb.product(kk, nb, cs, f.h, g, u) // u = H·g̃
	cb.product(kk, nb, cs, f.g, u, t) // G·u
	for i := 0; i < kk; i++ {
		gr, tr := g[i*cs:i*cs+nb], t[i*cs:i*cs+nb]
		for b, v := range tr {
			gr[b] -= v // r = g̃ − G·u
		}
	}
	cb.product(kk, nb, cs, f.h, g, t) // H·r
	for c, i := range f.cols {
		ur, tr, nrm := u[c*cs:c*cs+nb], t[c*cs:c*cs+nb], f.norm[c]
		dst := ut.Data[i*ut.Stride+j0:]
		for b, jj := range idx {
			dst[jj] = (ur[b] + tr[b]) / nrm
		}
	}
}
