package gemm

import "github.com/neuralnmf/neuralnmf/internal/parallel"

// PackedA is op(A) (m×k) packed once, in the panels serial packs it into,
// for many products op(A)·op(B) with different B: a solve's Qᵀ·X[:, chunk]
// for every chunk of columns packs Qᵀ once instead of once per chunk. A
// product from a PackedA is the product from A bit for bit: the
// micro-kernel reads the same values in the same order. It holds its own
// copy (m·k floats, m rounded up to whole strips) and a reference to A,
// which must not change while the PackedA is in use; it is read-only and
// may be shared by concurrent products.
type PackedA struct {
	m, k int
	kern microKernel
	data []float64 // for each block of kc along k: the strips of mr rows, kb·mr each

	// The operand as given, for a BLAS installed with blas64.Use.
	tA  bool
	a   []float64
	lda int
}

// PackA packs op(A) (m×k, as for Dgemm) on the calling goroutine. It
// panics if the arguments do not describe a matrix.
func PackA(tA bool, m, k int, a []float64, lda int) *PackedA {
	checkArgs(tA, false, m, 0, k, a, lda, nil, 1, nil, 1)
	kern := kernel
	mp := (m + kern.mr - 1) / kern.mr * kern.mr
	p := &PackedA{m: m, k: k, kern: kern, data: make([]float64, mp*k), tA: tA, a: a, lda: lda}
	for p0 := 0; p0 < k; p0 += kc {
		kb := min(kc, k-p0)
		for i0 := 0; i0 < m; i0 += mc {
			packA(kern.mr, tA, min(mc, m-i0), kb, a, lda, i0, p0, p.data[p0*mp+i0*kb:])
		}
	}
	return p
}

// SerialPacked is Serial for a packed op(A) (m×k): C = α·op(A)·op(B) + β·C
// with op(B) k×n and C m×n as for Dgemm, on the calling goroutine with the
// caller's workspace (only its B panel and tile are used), or a pooled one
// if ws is nil. It panics as Dgemm does.
func SerialPacked(pa *PackedA, tB bool, n int, alpha float64, b []float64, ldb int, beta float64, c []float64, ldc int, ws *Workspace) {
	if ws == nil {
		ws = pool.Get().(*Workspace)
		defer pool.Put(ws)
	}
	m, k := pa.m, pa.k
	work, overwrite := prologue(pa.tA, tB, m, n, k, alpha, pa.a, pa.lda, b, ldb, beta, c, ldc)
	if !work {
		return
	}
	if pa.kern.mr != kernel.mr || pa.kern.nr != kernel.nr {
		panic("gemm: SerialPacked: packed for another kernel")
	}
	blocked(pa.kern, pa.tA, tB, m, n, k, alpha, nil, 0, pa, b, ldb, nil, 0, c, ldc, overwrite, ws)
}

// PackedB is B (k×n, not transposed) packed once, in the panels serial
// packs a B it does not read in place into, for many products
// op(A)·B[:, j0:j1]: a training loop's QᵀX, whose X is the same every
// epoch, then reads X's panels contiguously instead of packing X again (a
// pass over X per product, bound by memory). Products from it are the
// products from B bit for bit. It holds its own copy (k·n floats, n
// rounded up to whole strips) and a reference to B, which must not change
// while the PackedB is in use; it is read-only and may be shared by
// concurrent products.
type PackedB struct {
	k, n, np int // np: n rounded up to whole strips
	kern     microKernel
	data     []float64 // for each block of kc rows: the strips of nr columns, kb·nr each
	b        []float64
	ldb      int
}

// PackB packs B (k×n, row stride ldb) on up to workers goroutines. It
// panics if the arguments do not describe a matrix.
func PackB(k, n int, b []float64, ldb int, workers int) *PackedB {
	checkArgs(false, false, 0, n, k, nil, max(1, k), b, ldb, nil, max(1, n))
	kern := kernel
	np := (n + kern.nr - 1) / kern.nr * kern.nr
	p := &PackedB{k: k, n: n, np: np, kern: kern, data: make([]float64, k*np), b: b, ldb: ldb}
	blocks := (k + kc - 1) / kc
	parallel.ForChunks(blocks, 1, max(1, workers), func(_, b0, b1 int) {
		for blk := b0; blk < b1; blk++ {
			p0 := blk * kc
			kb := min(kc, k-p0)
			for j0 := 0; j0 < n; j0 += nc {
				packB(kern.nr, false, kb, min(nc, n-j0), b, ldb, p0, j0, p.data[p0*np+j0*kb:])
			}
		}
	})
	return p
}

// Aligned reports whether SerialPackedAB takes columns from j0: j0 must
// start a strip.
func (p *PackedB) Aligned(j0 int) bool { return j0%p.kern.nr == 0 }

// Strip returns the columns per strip: a product from column j0 needs j0
// a multiple of it.
func (p *PackedB) Strip() int { return p.kern.nr }

// SerialPackedAB computes C = α·op(A)·B[:, j0:j0+n] + β·C from a packed
// op(A) (m×k) and a packed B (k×·), on the calling goroutine with the
// caller's workspace (only its tile is used), or a pooled one if ws is nil.
// j0 must start a strip (Aligned). It panics if the shapes disagree.
func SerialPackedAB(pa *PackedA, pb *PackedB, j0, n int, alpha, beta float64, c []float64, ldc int, ws *Workspace) {
	if ws == nil {
		ws = pool.Get().(*Workspace)
		defer pool.Put(ws)
	}
	m, k := pa.m, pa.k
	if pb.k != k || j0 < 0 || j0+n > pb.n || !pb.Aligned(j0) {
		panic("gemm: SerialPackedAB: B's panels do not match")
	}
	var bsub []float64
	if n > 0 && k > 0 {
		bsub = pb.b[j0:]
	}
	work, overwrite := prologue(pa.tA, false, m, n, k, alpha, pa.a, pa.lda, bsub, pb.ldb, beta, c, ldc)
	if !work {
		return
	}
	if pa.kern.mr != kernel.mr || pa.kern.nr != kernel.nr || pb.kern.nr != pa.kern.nr {
		panic("gemm: SerialPackedAB: packed for another kernel")
	}
	blocked(pa.kern, pa.tA, false, m, n, k, alpha, nil, 0, pa, nil, 0, pb, j0, c, ldc, overwrite, ws)
}

// ReadsInPlace reports whether a product with op(A) of m rows reads a B (k
// rows, not transposed, row stride ldb) in place rather than packing it:
// where it does, a PackedB saves nothing.
func ReadsInPlace(m, k, ldb int) bool { return direct(false, m, k, ldb) }
