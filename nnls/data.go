package nnls

import (
	"fmt"

	"github.com/neuralnmf/neuralnmf/tensor"
)

// Data is a right-hand side X prepared once for many solves, as a training
// loop solves against the same X every epoch: X is checked for non-finite
// entries and scanned for extreme magnitudes when the Data is made, not at
// every solve (each is a pass over X), and ‖X‖²_F is kept. X must not
// change while the Data is in use.
type Data struct {
	data    // denseData or sparseData
	extreme bool
	sqNorm  float64
}

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
