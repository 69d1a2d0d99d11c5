package ssnmf

import (
	"fmt"
	"math"

	"github.com/neuralnmf/neuralnmf/tensor"
)

// solver is one multiplicative-update engine: dense (with masks and labels)
// or sparse (unmasked NMF of a sparse X).
type solver interface {
	step(a, s, b *tensor.Dense, updA, updS bool)
	objective(a, s, b *tensor.Dense) float64
}

// sparseUpdater runs the unmasked NMF updates for a sparse X without forming
// AS: A ← A ∘ (XSᵀ)/(A·SSᵀ), S ← S ∘ (AᵀX)/(AᵀA·S).
type sparseUpdater struct{ x *tensor.Sparse }

func (u sparseUpdater) step(a, s, _ *tensor.Dense, updA, updS bool) {
	if updA {
		num := tensor.New(a.Rows, a.Cols)
		u.x.MulDenseT(1, s, 0, u.x.Cols, num) // X·Sᵀ
		sst := tensor.MatMul(false, true, s, s)
		den := tensor.MatMul(false, false, a, sst)
		multiply(a, num, den)
	}
	if updS {
		num := tensor.New(a.Cols, u.x.Cols)
		u.x.MulTA(a, 0, u.x.Cols, num.Data, num.Stride) // AᵀX
		ata := tensor.MatMul(true, false, a, a)
		den := tensor.MatMul(false, false, ata, s)
		multiply(s, num, den)
	}
}

// objective is ‖X − AS‖² = ‖X‖² − 2⟨AᵀX, S⟩ + ⟨AᵀA, SSᵀ⟩, clamped at 0
// against cancellation.
func (u sparseUpdater) objective(a, s, _ *tensor.Dense) float64 {
	return math.Max(0, sparseSqErr(u.x, a, s))
}

func sparseSqErr(x *tensor.Sparse, w, h *tensor.Dense) float64 {
	wtx := tensor.New(w.Cols, x.Cols)
	x.MulTA(w, 0, x.Cols, wtx.Data, wtx.Stride)
	wtw := tensor.MatMul(true, false, w, w)
	hht := tensor.MatMul(false, true, h, h)
	return x.SqNorm() - 2*tensor.Dot(wtx, h) + tensor.Dot(wtw, hht)
}

// NMFSparse is NMF for a sparse X: the same updates and stopping rules,
// without forming any N×M matrix. opt.W must be nil.
func NMFSparse(x *tensor.Sparse, k int, opt *Options) (*Factors, error) {
	o := opt.withDefaults()
	if err := validateSparse(x, k, &o); err != nil {
		return nil, err
	}
	f := startDims(x.Rows, x.Cols, initMean(sparseMean(x), k, o), k, nil, o.Seed)
	f.iterate(sparseUpdater{x}, o.MaxIter, o)
	return f, nil
}

// HNMFSparse is HNMF whose first layer factors a sparse X; the later layers
// factor the dense S matrices as HNMF does. opt.W must be nil.
func HNMFSparse(x *tensor.Sparse, ranks []int, lab *Labels, opt *Options) (*Hierarchy, error) {
	if err := checkRankDims(x.Rows, x.Cols, ranks); err != nil {
		return nil, err
	}
	o := opt.withDefaults()
	if err := validateSparse(x, ranks[0], &o); err != nil {
		return nil, err
	}
	h := &Hierarchy{}
	xm := sparseFit{x}
	if err := h.addLayer(xm, layerInput{sparse: x}, ranks, 0, lab, o); err != nil {
		return nil, err
	}
	for l := 1; l < len(ranks); l++ {
		if err := h.addLayer(xm, layerInput{dense: h.S[l-1]}, ranks, l, lab, o); err != nil {
			return nil, err
		}
	}
	return h, nil
}

func validateSparse(x *tensor.Sparse, k int, o *Options) error {
	if err := tensor.CheckSparseData("X", x); err != nil {
		return fmt.Errorf("ssnmf: %w", err)
	}
	if o.W != nil {
		return fmt.Errorf("ssnmf: a data mask W is not supported with a sparse X")
	}
	if k < 1 || k > min(x.Rows, x.Cols) {
		return fmt.Errorf("ssnmf: %w: rank %d, want 1 to min(N, M) = %d", ErrRank, k, min(x.Rows, x.Cols))
	}
	return nil
}

func sparseMean(x *tensor.Sparse) float64 {
	var s float64
	for _, v := range x.Val {
		s += v
	}
	return s / (float64(x.Rows) * float64(x.Cols))
}

// fitter measures ‖X − W·H‖² for the data of a hierarchy.
type fitter interface {
	sqErr(w, h *tensor.Dense) float64
}

type denseFit struct{ x *tensor.Dense }

func (d denseFit) sqErr(w, h *tensor.Dense) float64 {
	r := tensor.MatMul(false, false, w, h)
	tensor.Sub(r, d.x, r)
	return tensor.SqNorm(r)
}

type sparseFit struct{ x *tensor.Sparse }

func (s sparseFit) sqErr(w, h *tensor.Dense) float64 { return math.Max(0, sparseSqErr(s.x, w, h)) }

// layerInput is what a layer factors: the sparse X (layer 0 of HNMFSparse)
// or a dense matrix.
type layerInput struct {
	dense  *tensor.Dense
	sparse *tensor.Sparse
}
