package nnls

import (
	"fmt"
	"math"
	"sync"

	"github.com/neuralnmf/neuralnmf/internal/gemm"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// Data is a right-hand side X prepared once for many solves, as a training
// loop solves against the same X every epoch: X is checked for non-finite
// entries and scanned for extreme magnitudes when the Data is made, not at
// every solve (each is a pass over X), and ‖X‖²_F is kept. X must not
// change while the Data is in use.
//
// From the second solve on, a sparse X is also kept by rows (16 bytes per
// nonzero), and where A is factorised by CholeskyQR2 (tall A, fewer than 32
// columns, or a wide one too short for the blocked QR) the factorisation
// forms QᵀX from each block of Q while the block is in cache, instead of a
// product over Q's rows at random per chunk of columns (see
// docs/benchmarks.md for what that saves a training epoch). Those solves
// add QᵀX's terms in another order (row blocks in fixed groups rather than
// column by column), so they agree with SolveSparse's to rounding, not bit
// for bit; they do not depend on the number of workers.
//
// A dense X of up to 2²⁵ entries too large to stay in cache is kept packed
// in the panels of the products QᵀX from the second solve on (as much
// memory as X), so that a solve no longer packs X: the same products bit
// for bit.
//
// Where A is factorised by CholeskyQR2, a solve also keeps A's R (k² floats)
// and the next solve tries to factorise its A in one pass with it as a
// preconditioner, accepted only where that is as accurate as the two
// passes (see the package doc); a training loop's A changes little from
// one epoch to the next. So a solve's result depends, to rounding, on the
// A of the solve before it on the same Data.
type Data struct {
	data    // denseData or sparseData
	extreme bool
	sqNorm  float64

	mu     sync.Mutex
	solves int           // SolveData calls so far, up to 2
	xr     *xRows        // a sparse X by rows, from the second solve on
	xb     *gemm.PackedB // a dense X packed for QᵀX, from the second solve on
	pre    []float64     // the last solve's A's R·D (Factor.unscaledR), or nil
}

// preconditioner returns a copy of the last solve's R·D if it is k×k, else
// nil: with it the next factorisation of a nearby A (the next epoch's)
// can skip a pass over A (Factor.preconditioned).
func (d *Data) preconditioner(k int) []float64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.pre) != k*k {
		return nil
	}
	return append([]float64(nil), d.pre...)
}

// setPreconditioner keeps u (nil forgets the last one).
func (d *Data) setPreconditioner(u []float64) {
	d.mu.Lock()
	d.pre = u
	d.mu.Unlock()
}

// prepare counts a solve and returns what the solve of an A with k columns
// can use from the second solve on (nil before, so that a Data used once,
// as in a mini-batch step, costs nothing more), made at the first call that
// can use it and kept:
//
//   - for a sparse X, X by rows, from which the factorisation forms QᵀX
//     (cholQR2 with X, fusedQtX), unless X has extreme entries (whose
//     chunks are rescaled before QᵀX) or more than fuseMaxEntries/k
//     columns;
//   - for a dense X of at most packLimit entries that the products QᵀX
//     would pack rather than read in place (gemm.ReadsInPlace), X packed
//     in their panels (gemm.PackB), as much memory as X again.
func (d *Data) prepare(k, workers int) (*xRows, *gemm.PackedB) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.solves < 2 {
		d.solves++
	}
	if d.solves < 2 {
		return nil, nil
	}
	if x := d.Sparse(); x != nil {
		if d.extreme || x.Cols*k > fuseMaxEntries || x.Rows > math.MaxInt32 || x.Cols > math.MaxInt32 {
			return nil, nil
		}
		if d.xr == nil {
			d.xr = newXRows(x)
		}
		return d.xr, nil
	}
	x := d.Dense()
	if x.Rows*x.Cols > packLimit || gemm.ReadsInPlace(min(x.Rows, k), x.Rows, x.Stride) {
		return nil, nil
	}
	if d.xb == nil {
		d.xb = gemm.PackB(x.Rows, x.Cols, x.Data, x.Stride, workers)
	}
	return nil, d.xb
}

// packLimit is the most entries of a dense X that prepare packs: 2²⁵
// (256 MiB, and as much again for the copy).
const packLimit = 1 << 25

// NewData prepares a dense X (N×M). It returns an error if X is empty or
// has a non-finite entry.
func NewData(x *tensor.Dense) (*Data, error) {
	if err := tensor.CheckNotEmpty("X", x); err != nil {
		return nil, fmt.Errorf("nnls: %w", err)
	}
	d := denseData{x}
	extreme, err := d.scan(runtimeWorkers())
	if err != nil {
		return nil, err
	}
	return &Data{data: d, extreme: extreme, sqNorm: tensor.SqNorm(x)}, nil
}

// NewSparseData prepares a sparse X (N×M). It returns an error if X has a
// non-finite entry.
func NewSparseData(x *tensor.Sparse) (*Data, error) {
	d := sparseData{x}
	extreme, err := d.scan(1)
	if err != nil {
		return nil, err
	}
	return &Data{data: d, extreme: extreme, sqNorm: x.SqNorm()}, nil
}

// scan returns what the scan in NewData found.
func (d *Data) scan(int) (bool, error) { return d.extreme, nil }

// Dense returns X if it is dense, else nil.
func (d *Data) Dense() *tensor.Dense {
	if x, ok := d.data.(denseData); ok {
		return x.x
	}
	return nil
}

// Sparse returns X if it is sparse, else nil.
func (d *Data) Sparse() *tensor.Sparse {
	if x, ok := d.data.(sparseData); ok {
		return x.x
	}
	return nil
}

// SqNorm returns ‖X‖²_F.
func (d *Data) SqNorm() float64 { return d.sqNorm }

// SolveData is Solve (or SolveSparse) for a prepared X: the same solution
// and errors, without the pass over X that checks it.
func SolveData(a *tensor.Dense, x *Data, opt *Options) (*Result, error) {
	return solveData(a, x, opt)
}
