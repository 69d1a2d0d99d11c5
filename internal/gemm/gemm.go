// Package gemm is the project's matrix product: C = α·op(A)·op(B) + β·C for
// row-major float64 matrices, with packed panels and a register-blocked
// micro-kernel (AVX-512 or AVX2 + FMA assembly on amd64 CPUs that have them,
// portable Go elsewhere), parallel over the larger of C's two dimensions.
//
// It follows the Goto/BLIS scheme: B is packed kc×nc into strips nr wide,
// A is packed mc×kc into strips mr tall, and the micro-kernel keeps an
// mr×nr block of C in registers while it runs along kc. The block sizes are
// fixed constants chosen for a core with a 1 MiB L2 cache (Zen 4); they
// change speed, not results.
package gemm

import (
	"fmt"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"

	"github.com/neuralnmf/neuralnmf/internal/parallel"
)

// Block sizes: the micro-kernel computes an mr×nr block of C (6×8 with
// AVX2, 8×24 with AVX-512; see microKernel); A is packed in mc×kc blocks,
// B in kc×nc blocks.
const (
	kc = 256
	mc = 96   // a multiple of every kernel's mr
	nc = 2040 // a multiple of every kernel's nr
)

// maxTile bounds mr·nr over the kernels.
const maxTile = 8 * 24

// microKernel computes C[0:mr, 0:nr] += α·Σ_p a_p b_pᵀ for p < k (or, with
// overwrite, C[0:mr, 0:nr] = α·Σ_p a_p b_pᵀ without reading C), with
// a_p = a[p·mr : p·mr+mr] (a packed strip of op(A)) and b_p = b[p·ldb :
// p·ldb+nr] (a packed strip of op(B), ldb = nr, or op(B) itself), C
// row-major with ldc elements between rows; k ≥ 1.
type microKernel struct {
	name   string
	mr, nr int
	run    func(k int, a, b []float64, ldb int, c []float64, ldc int, alpha float64, overwrite bool)
	// narrow, if not nil, is run for a ragged strip of nr < the kernel's
	// nr columns, computing fewer than the kernel's nr columns (those
	// beyond nr are zero in the strip); it reports false when it has no
	// narrower kernel for nr. Its sums are run's, bit for bit.
	narrow func(nr, k int, a, b []float64, ldb int, c []float64, ldc int, alpha float64, overwrite bool) bool
}

// minParallelFlops is the work below which Dgemm stays on one goroutine.
const minParallelFlops = 1 << 21

// Dgemm computes C = α·op(A)·op(B) + β·C where op(A) is m×k, op(B) is k×n and
// C is m×n, all row-major with leading dimensions lda, ldb and ldc: op(A) is
// A (m×k, stored with lda ≥ k) or, when tA, Aᵀ for A stored k×m (lda ≥ m);
// likewise op(B). It uses up to workers goroutines (0 means GOMAXPROCS).
// As in BLAS, β = 0 ignores C's contents (NaN included), and α = 0 only
// scales C. It panics on inconsistent sizes, a programmer error.
//
// If the program has replaced gonum's BLAS with blas64.Use (for example by
// OpenBLAS through gonum's netlib package; see the openblas build tag of
// package bench), Dgemm calls that implementation instead, so that one call
// switches every product of the project to it.
func Dgemm(tA, tB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int, workers int) {
	work, overwrite := prologue(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	if !work {
		return
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if workers > 1 && 2*float64(m)*float64(n)*float64(k) >= minParallelFlops {
		// Split C in contiguous blocks of whole tiles along its larger
		// dimension; each worker packs its own panels.
		kern := kernel
		byRows := (m+kern.mr-1)/kern.mr >= (n+kern.nr-1)/kern.nr
		total, tile := n, kern.nr
		if byRows {
			total, tile = m, kern.mr
		}
		if size := ((total+tile-1)/tile + workers - 1) / workers * tile; size < total {
			parallel.ForChunks(total, size, workers, func(_, lo, hi int) {
				ws := pool.Get().(*Workspace)
				defer pool.Put(ws)
				if byRows { // rows lo:hi of op(A) and C
					serial(tA, tB, hi-lo, n, k, alpha, a[offset(tA, lo, lda):], lda, b, ldb, c[lo*ldc:], ldc, overwrite, ws)
				} else { // columns lo:hi of op(B) and C
					serial(tA, tB, m, hi-lo, k, alpha, a, lda, b[offset(!tB, lo, ldb):], ldb, c[lo:], ldc, overwrite, ws)
				}
			})
			return
		}
	}
	ws := pool.Get().(*Workspace)
	defer pool.Put(ws)
	serial(tA, tB, m, n, k, alpha, a, lda, b, ldb, c, ldc, overwrite, ws)
}

// Serial is Dgemm on the calling goroutine with the caller's workspace, for
// callers that parallelise themselves and want their allocations fixed: ws
// grows to the largest panels it has packed and is then reused. A
// Workspace must not be used by two calls at once.
func Serial(tA, tB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int, ws *Workspace) {
	if work, overwrite := prologue(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc); work {
		serial(tA, tB, m, n, k, alpha, a, lda, b, ldb, c, ldc, overwrite, ws)
	}
}

// prologue checks the arguments, scales C by β, hands the product to a
// BLAS installed with blas64.Use if there is one, and reports whether
// α·op(A)·op(B) remains to be added to C (work) and whether C is to be
// overwritten rather than added to (β = 0: C is then neither cleared here
// nor read, and the first block along k stores its result).
func prologue(tA, tB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) (work, overwrite bool) {
	checkArgs(tA, tB, m, n, k, a, lda, b, ldb, c, ldc)
	if m == 0 || n == 0 {
		return false, false
	}
	if impl := blas64.Implementation(); !isGonum(impl) && k > 0 {
		ta, tb := blas.NoTrans, blas.NoTrans
		if tA {
			ta = blas.Trans
		}
		if tB {
			tb = blas.Trans
		}
		impl.Dgemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return false, false
	}
	work = k > 0 && alpha != 0
	if beta != 1 && !(beta == 0 && work) {
		for i := 0; i < m; i++ {
			row := c[i*ldc : i*ldc+n]
			if beta == 0 {
				clear(row)
			} else {
				for j := range row {
					row[j] *= beta
				}
			}
		}
	}
	return work, beta == 0 && work
}

// offset returns where line i of a row-major matrix with leading dimension
// ld starts: element i of the first row when the lines are its columns
// (columns), else row i.
func offset(columns bool, i, ld int) int {
	if columns {
		return i
	}
	return i * ld
}

func checkArgs(tA, tB bool, m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	if m < 0 || n < 0 || k < 0 {
		panic(fmt.Sprintf("gemm: negative size %d×%d×%d", m, n, k))
	}
	ar, ac := m, k
	if tA {
		ar, ac = k, m
	}
	br, bc := k, n
	if tB {
		br, bc = n, k
	}
	check := func(name string, rows, cols, ld, length int) {
		if ld < max(1, cols) {
			panic(fmt.Sprintf("gemm: %s: leading dimension %d < %d columns", name, ld, cols))
		}
		if rows > 0 && cols > 0 && length < (rows-1)*ld+cols {
			panic(fmt.Sprintf("gemm: %s: %d elements for %d×%d with stride %d", name, length, rows, cols, ld))
		}
	}
	check("A", ar, ac, lda, len(a))
	check("B", br, bc, ldb, len(b))
	check("C", m, n, ldc, len(c))
}

// Workspace holds the packing buffers of a product (grown to the largest
// panels used: at most mc×kc of A and kc×nc of B) and a tile of C. The zero
// Workspace is ready to use.
type Workspace struct {
	a, b []float64
	tile [maxTile]float64
}

// Need returns the lengths of the two packing buffers a product of size
// m×n×k with B transposed (tB) or not needs: the packed block of op(A),
// and the packed panel of op(B) (only its ragged last strip when op(B) is
// read in place).
func Need(tB bool, m, n, k int) (a, b int) { return need(tB, m, n, k, n) }

// need is Need for op(B) with leading dimension ldb (Need assumes the
// least, n: a B with rows further apart may be packed where Need's was
// read in place, and the workspace then grows at the product).
func need(tB bool, m, n, k, ldb int) (a, b int) {
	kern := kernel
	round := func(x, r int) int { return (x + r - 1) / r * r }
	a = round(min(m, mc), kern.mr) * min(k, kc)
	if direct(tB, m, k, ldb) {
		return a, min(k, kc) * kern.nr
	}
	return a, min(k, kc) * round(min(n, nc), kern.nr)
}

// Grow makes ws's buffers at least a and b long (see Need), so that the
// products they cover allocate nothing.
func (ws *Workspace) Grow(a, b int) {
	if len(ws.a) < a {
		ws.a = make([]float64, a)
	}
	if len(ws.b) < b {
		ws.b = make([]float64, b)
	}
}

// direct reports whether serial reads op(B) (k×n, row stride ldb) in
// place: with one block of rows of C, each strip of B is used only while it
// is in cache, so copying it to a packed panel first would only add a pass
// over B — while B is small enough to stay in cache from one product to
// the next (at most directMaxSpan floats from its first row to its last).
// A larger B comes from memory, where the kernel's reads down a strip of
// 24 columns, a row apart, stall; packing reads its rows whole (packB).
func direct(tB bool, m, k, ldb int) bool { return !tB && m <= mc && k*ldb <= directMaxSpan }

// directMaxSpan is the largest B, in floats, that direct reads in place:
// 2²⁰ (8 MiB, twice this machine's L2). Measured (a solve's QᵀX, Qᵀ 50×N
// times X N×M in chunks of M/8 columns on 2 workers, in place → packed):
// N = M = 2000 (4·10⁶ floats) 8.95–9.01 → 7.15–7.17 ms; N = 500, M = 1000
// (5·10⁵ floats) 0.37–0.38 → 0.43–0.46 ms.
const directMaxSpan = 1 << 20

// pool holds the workspaces of Dgemm.
var pool = sync.Pool{New: func() any { return new(Workspace) }}

// serial is the blocked product on one goroutine: C += α·op(A)·op(B).
func serial(tA, tB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, c []float64, ldc int, overwrite bool, buf *Workspace) {
	serialKernel(kernel, tA, tB, m, n, k, alpha, a, lda, b, ldb, c, ldc, overwrite, buf)
}

// serialKernel is serial with the micro-kernel kern (tests compare kernels).
func serialKernel(kern microKernel, tA, tB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, c []float64, ldc int, overwrite bool, buf *Workspace) {
	blocked(kern, tA, tB, m, n, k, alpha, a, lda, nil, b, ldb, nil, 0, c, ldc, overwrite, buf)
}

// blocked is the blocked product on one goroutine: C += α·op(A)·op(B) (C =
// with overwrite). A's panels are read from pa when it is not nil (its rows
// from 0), else packed here from a; B's from pb, columns from pbj0, when it
// is not nil, else packed here from b or read in place (direct). Every
// source gives the kernel the same values in the same order, so the
// product is the same bit for bit.
func blocked(kern microKernel, tA, tB bool, m, n, k int, alpha float64, a []float64, lda int, pa *PackedA, b []float64, ldb int, pb *PackedB, pbj0 int, c []float64, ldc int, overwrite bool, buf *Workspace) {
	MR, NR := kern.mr, kern.nr
	na, nbuf := need(tB, m, n, k, ldb)
	if pa != nil {
		na = 0
	}
	if pb != nil {
		nbuf = 0
	}
	buf.Grow(na, nbuf)
	direct := pb == nil && direct(tB, m, k, ldb)
	mp := (m + MR - 1) / MR * MR // the rows of pa's panels
	for j0 := 0; j0 < n; j0 += nc {
		nb := min(nc, n-j0)
		for p0 := 0; p0 < k; p0 += kc {
			kb := min(kc, k-p0)
			bpan, bsrc := buf.b, []float64(nil)
			switch {
			case pb != nil:
				bpan = pb.data[p0*pb.np+(pbj0+j0)*kb:]
			case direct:
				bsrc = b[p0*ldb+j0:]
				if full := nb / NR * NR; full < nb {
					// The ragged last strip is packed (zero-padded).
					packB(NR, tB, kb, nb-full, b, ldb, p0, j0+full, buf.b)
				}
			default:
				packB(NR, tB, kb, nb, b, ldb, p0, j0, buf.b)
			}
			for i0 := 0; i0 < m; i0 += mc {
				mb := min(mc, m-i0)
				apan := buf.a
				if pa != nil {
					apan = pa.data[p0*mp+i0*kb:]
				} else {
					packA(MR, tA, mb, kb, a, lda, i0, p0, buf.a)
				}
				macro(kern, mb, nb, kb, alpha, apan, bpan, bsrc, ldb, c[i0*ldc+j0:], ldc, overwrite && p0 == 0, &buf.tile)
			}
		}
	}
}

// macro runs the micro-kernel over an mb×nb block of C from the packed
// panels pa and pb or, when direct is not nil, from op(B) in place (row
// stride ldb) for the full strips and pb (holding only that strip) for the
// ragged last one. With
// overwrite it stores the block instead of adding it to C.
func macro(kern microKernel, mb, nb, kb int, alpha float64, pa, pb, direct []float64, ldb int, c []float64, ldc int, overwrite bool, tile *[maxTile]float64) {
	MR, NR := kern.mr, kern.nr
	for jr := 0; jr < nb; jr += NR {
		nr := min(NR, nb-jr)
		var bp []float64
		bstride := NR
		switch {
		case direct == nil:
			bp = pb[jr*kb:]
		case nr == NR:
			bp, bstride = direct[jr:], ldb
		default:
			bp = pb // the ragged last strip, packed alone
		}
		for ir := 0; ir < mb; ir += MR {
			mr := min(MR, mb-ir)
			ap := pa[ir*kb:]
			if mr == MR && nr == NR {
				kern.run(kb, ap, bp, bstride, c[ir*ldc+jr:], ldc, alpha, overwrite)
				continue
			}
			if nr == NR || kern.narrow == nil || !kern.narrow(nr, kb, ap, bp, bstride, tile[:], NR, alpha, true) {
				kern.run(kb, ap, bp, bstride, tile[:], NR, alpha, true)
			}
			for i := 0; i < mr; i++ {
				row := c[(ir+i)*ldc+jr : (ir+i)*ldc+jr+nr]
				t := tile[i*NR : i*NR+nr]
				if overwrite {
					copy(row, t)
					continue
				}
				for j := range row {
					row[j] += t[j]
				}
			}
		}
	}
}

// packA packs rows i0..i0+mb, columns p0..p0+kb of op(A) into strips of MR
// (the kernel's mr) rows: strip s holds, for each p, the MR values op(A)[i0+s·MR+r][p0+p]
// (zero past the last row).
func packA(MR int, tA bool, mb, kb int, a []float64, lda, i0, p0 int, dst []float64) {
	for s := 0; s < mb; s += MR {
		mr := min(MR, mb-s)
		d := dst[s*kb : s*kb+kb*MR]
		if MR == 8 && !tA && mr >= 4 {
			// The AVX-512 kernel's A panel, full or ragged by up to
			// four rows, which read as zeros (with fewer rows, clearing
			// the strip and storing the rows is faster).
			var rows [8][]float64
			for r := range rows {
				if r < mr {
					off := (i0+s+r)*lda + p0
					rows[r] = a[off : off+kb]
				} else {
					rows[r] = zeros[:kb]
				}
			}
			pack8(d, &rows)
			continue
		}
		if mr < MR {
			// A ragged strip: zero it in one contiguous pass, then fill
			// its mr rows (a strided zero store per padding entry cost
			// more than the data when mr is small, as in a k×2 panel of
			// B padded to the 24 columns of the AVX-512 kernel).
			clear(d)
		}
		if tA {
			// op(A)[i][p] = a[p*lda+i]: MR contiguous values per p.
			if mr == 8 && MR == 8 {
				for p := 0; p < kb; p++ {
					off := (p0+p)*lda + i0 + s
					*(*[8]float64)(d[p*8:]) = [8]float64(a[off : off+8])
				}
				continue
			}
			if mr >= 16 {
				for p := 0; p < kb; p++ {
					off := (p0+p)*lda + i0 + s
					copy(d[p*MR:p*MR+mr], a[off:off+mr])
				}
				continue
			}
			for p := 0; p < kb; p++ {
				off := (p0+p)*lda + i0 + s
				src, q := a[off:off+mr], d[p*MR:p*MR+mr]
				//lint:ignore S1001 fewer than 16 values: a loop is cheaper than copy's call to memmove (packA benchmark, 9×87 transposed)
				for r, v := range src {
					q[r] = v
				}
			}
			continue
		}
		// The strip's rows read side by side, each step p's mr values
		// stored together (as pack8 does for eight): storing one row at a
		// time wrote every line of the strip mr times, which for a strip of
		// B (mr up to 24, kb·24 values: all of L1) went to L2 and back.
		// They are read in 4×4 blocks (four values of four rows, each row's
		// four read as one array, stored as four steps' four contiguous
		// values), so a row's slice and bounds load once per four values,
		// not once per value (BenchmarkPackA); rows past a multiple of four
		// and steps past one go one at a time.
		var rows [maxStrip][]float64
		for r := 0; r < mr; r++ {
			rows[r] = a[(i0+s+r)*lda+p0 : (i0+s+r)*lda+p0+kb]
		}
		p := 0
		if r4 := mr / 4 * 4; r4 > 0 {
			for ; p+4 <= kb; p += 4 {
				q := d[p*MR : p*MR+4*MR]
				for r := 0; r < r4; r += 4 {
					v0 := (*[4]float64)(rows[r][p : p+4])
					v1 := (*[4]float64)(rows[r+1][p : p+4])
					v2 := (*[4]float64)(rows[r+2][p : p+4])
					v3 := (*[4]float64)(rows[r+3][p : p+4])
					*(*[4]float64)(q[r : r+4]) = [4]float64{v0[0], v1[0], v2[0], v3[0]}
					*(*[4]float64)(q[MR+r : MR+r+4]) = [4]float64{v0[1], v1[1], v2[1], v3[1]}
					*(*[4]float64)(q[2*MR+r : 2*MR+r+4]) = [4]float64{v0[2], v1[2], v2[2], v3[2]}
					*(*[4]float64)(q[3*MR+r : 3*MR+r+4]) = [4]float64{v0[3], v1[3], v2[3], v3[3]}
				}
				for r := r4; r < mr; r++ {
					v := (*[4]float64)(rows[r][p : p+4])
					q[r], q[MR+r], q[2*MR+r], q[3*MR+r] = v[0], v[1], v[2], v[3]
				}
			}
		}
		for ; p < kb; p++ {
			q := d[p*MR : p*MR+mr]
			for r := range q {
				q[r] = rows[r][p]
			}
		}
	}
}

// maxStrip bounds the rows of a packed strip over the kernels (their mr
// and nr).
const maxStrip = 24

// zeros is a row of kc zeros that pack8 reads in place of the rows past
// the end of a ragged strip. It is never written.
var zeros [kc]float64

// pack8 is packA's strip of eight rows of a row-major op(A), the AVX-512
// kernel's A panel: the eight rows (kb entries each, kb = len(rows[0])) are
// read side by side, and each step p stores its eight values contiguously
// in d[8p : 8p+8], rather than one row at a time with a store every eight
// entries.
func pack8(d []float64, rows *[8][]float64) {
	r0 := rows[0]
	n := len(r0) // equal lengths let the compiler drop the bounds checks
	r1, r2, r3 := rows[1][:n], rows[2][:n], rows[3][:n]
	r4, r5, r6, r7 := rows[4][:n], rows[5][:n], rows[6][:n], rows[7][:n]
	d = d[:8*n]
	for p := range r0 {
		q := d[8*p : 8*p+8 : 8*p+8]
		q[0], q[1], q[2], q[3] = r0[p], r1[p], r2[p], r3[p]
		q[4], q[5], q[6], q[7] = r4[p], r5[p], r6[p], r7[p]
	}
}

// packB packs rows p0..p0+kb, columns j0..j0+nb of op(B) into strips of NR
// (the kernel's nr) columns: strip s holds, for each p, the NR values op(B)[p0+p][j0+s·NR+c]
// (zero past the last column). That is packA of op(B)ᵀ, whose rows are
// op(B)'s columns: op(B)ᵀ = Bᵀ stored as b with the transpose flag flipped.
//
// A B that is not transposed is read a row at a time, each row's strips
// stored before the next row is read (the last, ragged strip apart): rows
// of B come from memory in order, not 24 columns at a time.
func packB(NR int, tB bool, kb, nb int, b []float64, ldb, p0, j0 int, dst []float64) {
	if !tB && nb >= NR {
		full := nb / NR * NR
		for p := 0; p < kb; p++ {
			row := b[(p0+p)*ldb+j0 : (p0+p)*ldb+j0+full]
			for s := 0; s < full; s += NR {
				d := dst[s*kb+p*NR : s*kb+p*NR+NR]
				switch NR { // fixed-size moves: copy's call to memmove cost more than 24 values
				case 24:
					*(*[24]float64)(d) = [24]float64(row[s : s+24])
				case 8:
					*(*[8]float64)(d) = [8]float64(row[s : s+8])
				default:
					copy(d, row[s:s+NR])
				}
			}
		}
		if full < nb {
			packA(NR, true, nb-full, kb, b, ldb, j0+full, p0, dst[full*kb:])
		}
		return
	}
	packA(NR, !tB, nb, kb, b, ldb, j0, p0, dst)
}

// goKernel is the portable micro-kernel, in the 6×8 shape.
var goKernel = microKernel{name: "go", mr: 6, nr: 8, run: kernelGo}

// kernelGo is goKernel's code.
func kernelGo(k int, a, b []float64, ldb int, c []float64, ldc int, alpha float64, overwrite bool) {
	const MR, NR = 6, 8
	var acc [MR][NR]float64
	for p := 0; p < k; p++ {
		ap := a[p*MR : p*MR+MR : p*MR+MR]
		bp := b[p*ldb : p*ldb+NR : p*ldb+NR]
		for i, av := range ap {
			r := &acc[i]
			for j, bv := range bp {
				r[j] += av * bv
			}
		}
	}
	for i := range acc {
		row := c[i*ldc : i*ldc+NR]
		for j := range row {
			if overwrite {
				row[j] = alpha * acc[i][j]
			} else {
				row[j] += alpha * acc[i][j]
			}
		}
	}
}

// isGonum reports whether impl is gonum's own pure-Go BLAS (the default of
// blas64), which this package replaces for Dgemm.
func isGonum(impl blas.Float64) bool {
	_, ok := impl.(gonum.Implementation)
	return ok
}
