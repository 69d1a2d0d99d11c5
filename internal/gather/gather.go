// Package gather holds the kernel of the sparse products: the sum of
// scaled rows of a dense matrix picked by index,
//
//	acc[0:k] += Σ_p (alpha·vals[p])·b[idx[p]·ldb : idx[p]·ldb+k],
//
// the sums of one column of Aᵀ·X or one row of X·B for a sparse X. The
// terms are added in order of p, each with one fused multiply-add where
// the CPU has them (AVX2 and FMA on amd64), the accumulator held in
// registers; elsewhere a plain loop adds the same terms in the same order,
// each rounded twice. So the sums are deterministic on a machine, and may
// differ in the last bits between a machine with FMA and one without.
package gather

// Axpy adds Σ_p (alpha·vals[p])·b[idx[p]*ldb:idx[p]*ldb+len(acc)] into acc,
// in order of p. Every index must address a full row of b: it panics
// otherwise, as gonum's kernels do.
func Axpy(acc []float64, alpha float64, vals []float64, idx []int, b []float64, ldb int) {
	k := len(acc)
	if len(vals) != len(idx) {
		panic("gather: vals and idx differ in length")
	}
	if len(vals) == 0 || k == 0 {
		return
	}
	for _, i := range idx {
		if i < 0 || i*ldb+k > len(b) {
			panic("gather: index out of range")
		}
	}
	c := 0
	if haveFMA {
		for ; c+32 <= k; c += 32 {
			kernels[8](&acc[c], &vals[0], &idx[0], len(idx), &b[c], ldb, alpha)
		}
		if m := (k - c) / 4; m > 0 {
			kernels[m](&acc[c], &vals[0], &idx[0], len(idx), &b[c], ldb, alpha)
			c += 4 * m
		}
		if c+2 <= k {
			axpy2(&acc[c], &vals[0], &idx[0], len(idx), &b[c], ldb, alpha)
			c += 2
		}
		if c < k {
			axpy1(&acc[c], &vals[0], &idx[0], len(idx), &b[c], ldb, alpha)
			c++
		}
	}
	if c == k {
		return
	}
	rest := acc[c:k]
	for p, i := range idx {
		Add(rest, alpha*vals[p], b[i*ldb+c:i*ldb+k])
	}
}

// kernel is Axpy on a fixed number of columns, from their first.
type kernel func(acc, vals *float64, idx *int, n int, b *float64, ldb int, alpha float64)

// HasFMA reports whether Axpy and Add round each term once (a fused
// multiply-add) on this machine.
func HasFMA() bool { return haveFMA }

// Add adds v·b into dst (of b's length), each term rounded as Axpy rounds
// it: with one fused multiply-add where the CPU has them. A product that
// adds terms one source entry at a time in Axpy's order (a scatter)
// gets Axpy's sums bit for bit through it.
func Add(dst []float64, v float64, b []float64) {
	b = b[:len(dst)]
	if haveFMA {
		if len(dst) > 0 {
			addScaled(&dst[0], &b[0], len(dst), v)
		}
		return
	}
	for j, x := range b {
		dst[j] += v * x
	}
}
