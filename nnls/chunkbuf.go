package nnls

import (
	"math"
	"sync"

	"github.com/neuralnmf/neuralnmf/internal/gemm"
)

// chunkBuf is one worker's per-chunk workspace for the solve.
type chunkBuf struct {
	w           *worker
	dt, c, u    []float64 // Qᵀx_j, Rᵀ(Qᵀx_j) and R⁻¹(Qᵀx_j) for the chunk's columns (rows × chunk)
	ca          []float64 // Rᵀ(Qᵀx_j) off the fast path, for Options.AtX
	dj          []float64 // one column of dt, contiguous and scaled
	sc, dn      []float64 // per column: scale of d and ‖d‖² after it (columnScales)
	cj, uj      []float64 // the same column of c and u, scaled (the backward pass's g and u)
	cs          int       // chunk size: the row stride of dt, c and u
	st          Stats
	uncertified []int
	overflow    bool
	// Column scaling of X, for a chunk with extreme columns: cmax holds
	// max|x_j| and then the power of two applied, unscale its inverse;
	// xbuf is the scaled copy of the chunk.
	cmax, unscale, xbuf []float64
	scaled              bool
	bb                  *batchBuf // the columns solved together (fast path with H)
	done                []bool    // per column of the chunk: solved by the batch
	ws                  gemm.Workspace
}

// chunkBufs recycles the solver's per-worker workspaces between calls. A
// training loop solves problems of one shape every epoch; without the pool
// each solve would allocate, and the collector clear, about 3·k floats per
// column of a chunk per worker, which at small sizes costs as much as the
// solve's arithmetic. A workspace is reused only for the same (k, p, chunk
// size), from a pool per shape: Neural NMF solves one shape per layer in
// turn, and a single pool would hand each solve the previous layer's
// workspace. Every field is overwritten before it is read. The map holds
// one small entry per shape a program uses; the pools' contents are dropped
// by the garbage collector as usual.
var chunkBufs sync.Map

// chunkPool returns the pool for workspaces of the given shape.
func chunkPool(shape [3]int) *sync.Pool {
	if p, ok := chunkBufs.Load(shape); ok {
		return p.(*sync.Pool)
	}
	p, _ := chunkBufs.LoadOrStore(shape, new(sync.Pool))
	return p.(*sync.Pool)
}

// getChunkBuf returns a workspace for solves with f in chunks of cs columns.
func getChunkBuf(f *Factor, tau float64, maxIter, cs int) *chunkBuf {
	cb, ok := chunkPool([3]int{f.kk, f.p, cs}).Get().(*chunkBuf)
	if !ok {
		cb = &chunkBuf{w: newWorker(f, tau, maxIter), dt: make([]float64, cs*f.p), dj: make([]float64, f.p),
			cj: make([]float64, f.kk), uj: make([]float64, f.kk), cs: cs, cmax: make([]float64, cs), unscale: make([]float64, cs),
			sc: make([]float64, cs), dn: make([]float64, cs)}
	}
	cb.w.use(f, tau, maxIter)
	cb.st, cb.uncertified, cb.overflow, cb.scaled = Stats{}, cb.uncertified[:0], false, false
	if f.fast && cb.c == nil {
		cb.c, cb.u, cb.done = make([]float64, cs*f.kk), make([]float64, cs*f.kk), make([]bool, cs)
	}
	return cb
}

// putChunkBufs returns workspaces to their pools.
func putChunkBufs(bufs []*chunkBuf) {
	for _, cb := range bufs {
		cb.w.f = nil                                             // do not keep A's factor alive in the pool
		chunkPool([3]int{len(cb.cj), len(cb.dj), cb.cs}).Put(cb) // (k, p, cs)
	}
}

// columnScales sets, for the chunk's nc columns d_j of dt (p rows), sc[j] =
// the power of two that brings max_i |d_ij| into [1, 2) (0 for a zero
// column) and dn[j] = ‖sc_j·d_j‖², summed in increasing i; both the batched
// and the column-by-column path read them. It runs along rows, over all the
// chunk's columns at once.
func (cb *chunkBuf) columnScales(p, nc int) {
	sc, dn, cs := cb.sc[:nc], cb.dn[:nc], cb.cs
	clear(sc)
	for i := 0; i < p; i++ {
		for jj, v := range cb.dt[i*cs : i*cs+nc] {
			if v < 0 {
				v = -v
			}
			if v > sc[jj] {
				sc[jj] = v
			}
		}
	}
	for jj, dm := range sc {
		if dm > 0 {
			_, e := math.Frexp(dm)
			sc[jj] = math.Ldexp(1, 1-e)
		}
	}
	clear(dn)
	for i := 0; i < p; i++ {
		for jj, v := range cb.dt[i*cs : i*cs+nc] {
			v *= sc[jj]
			dn[jj] += v * v
		}
	}
}

// back returns what column jj's solution is multiplied by to undo the
// scaling of d (and the column's power-of-two scaling of X, if the chunk
// has one).
func (cb *chunkBuf) back(jj int) float64 {
	if cb.scaled {
		return cb.unscale[jj] / cb.sc[jj]
	}
	return 1 / cb.sc[jj]
}
