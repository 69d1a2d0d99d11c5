package ssnmf

import (
	"fmt"

	"github.com/neuralnmf/neuralnmf/tensor"
)

// solver is one multiplicative-update engine: dense (with masks and labels)
// or sparse (unmasked NMF of a sparse X).
type solver interface {
	step(a, s, b *tensor.Dense, updA, updS bool)
	objective(a, s, b *tensor.Dense) float64
}

// sparseUpdater runs the unmasked NMF updates for a sparse X without forming
// AS: A ← A ∘ (XSᵀ)/(A·SSᵀ), S ← S ∘ (AᵀX)/(AᵀA·S). Its scratch is allocated
// once. Large products and updates are shared among goroutines, with the
// results of one goroutine bit for bit.
type sparseUpdater struct {
	x          *tensor.Sparse
	kk, ata    *tensor.Dense // k×k: SSᵀ, and AᵀA of the last S update
	numA, denA *tensor.Dense // N×k
	atx, denS  *tensor.Dense // k×M: AᵀX of the last S update
	fresh      bool          // ata and atx belong to the current A
	eps        float64       // added to every denominator (Options.Eps)
}

func newSparseUpdater(x *tensor.Sparse, k int, eps float64) *sparseUpdater {
	return &sparseUpdater{x: x, eps: eps, kk: tensor.New(k, k), ata: tensor.New(k, k),
		numA: tensor.New(x.Rows, k), denA: tensor.New(x.Rows, k), atx: tensor.New(k, x.Cols), denS: tensor.New(k, x.Cols)}
}

func (u *sparseUpdater) step(a, s, _ *tensor.Dense, updA, updS bool) {
	if updA {
		u.x.MulDenseTParallel(1, s, 0, u.numA) // X·Sᵀ
		tensor.Gemm(false, true, 1, s, s, 0, u.kk)
		tensor.Gemm(false, false, 1, a, u.kk, 0, u.denA)
		multiply(a, u.numA, u.denA, u.eps)
		u.fresh = false
	}
	if updS {
		u.x.MulTAParallel(a, u.atx) // AᵀX
		tensor.Gemm(true, false, 1, a, a, 0, u.ata)
		tensor.Gemm(false, false, 1, u.ata, s, 0, u.denS)
		multiply(s, u.atx, u.denS, u.eps)
		u.fresh = true
	}
}

// objective is ‖X − AS‖² = ‖X‖² − 2⟨AᵀX, S⟩ + ⟨AᵀA, SSᵀ⟩, clamped at 0
// against cancellation. Right after an S update AᵀX and AᵀA are the ones
// that update computed, so only SSᵀ is new.
func (u *sparseUpdater) objective(a, s, _ *tensor.Dense) float64 {
	if !u.fresh {
		return u.x.SqDist(a, s)
	}
	tensor.Gemm(false, true, 1, s, s, 0, u.kk)
	return max(0, u.x.SqNorm()-2*tensor.Dot(u.atx, s)+tensor.Dot(u.ata, u.kk))
}

// NMFSparse is NMF for a sparse X: the same updates and stopping rules,
// without forming any N×M matrix. opt.W must be nil.
func NMFSparse(x *tensor.Sparse, k int, opt *Options) (*Factors, error) {
	o := opt.withDefaults()
	if err := validateSparse(x, k, &o); err != nil {
		return nil, err
	}
	in := &layerInput{sparse: x.WithRows()} // X·Sᵀ every update, from X's rows
	f := o.layerStart(in, k, nil, 0, 0)
	f.iterate(o.solverFor(in, k, nil, nil), o.MaxIter, o)
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
	x = x.WithRows() // X·Sᵀ every update, from X's rows
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
	if err := checkRank(x.Rows, x.Cols, k); err != nil {
		return err
	}
	return o.checkEps()
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

func (s sparseFit) sqErr(w, h *tensor.Dense) float64 { return s.x.SqDist(w, h) }

// layerInput is what a layer factors: the sparse X (layer 0 of HNMFSparse)
// or a dense matrix.
type layerInput struct {
	dense  *tensor.Dense
	sparse *tensor.Sparse
	lop    linop // see op
}

// layerStart returns the initial factors of a rank-k factorisation of in
// (layer l, restart r): NNDSVDA or random, as o.Start says.
func (o *Options) layerStart(in *layerInput, k int, lab *Labels, l, r int) *Factors {
	if o.Start != NNDSVDAStart {
		n, m := in.dims()
		return o.start(n, m, initMean(in.mean(), k, *o), k, lab, l, r)
	}
	a, s := nndsvda(in.op(), k, o.Seed+uint64(1000*l+r), in.mean(), o.PowerIters)
	f := &Factors{A: a, S: s}
	if lab != nil {
		f.B = tensor.New(lab.Y.Rows, k)
		rng := tensor.NewRand(o.Seed + uint64(1000*l+r))
		for i := range f.B.Data {
			f.B.Data[i] = rng.Float64()
		}
	}
	return f
}

// solverFor returns the update engine of o.Solver for in.
func (o *Options) solverFor(in *layerInput, k int, lab *Labels, w *tensor.Dense) solver {
	switch {
	case o.Solver == HALS:
		h := newHALS(in.op(), k)
		if o.Extrapolate {
			h.ex = newExtrapolation(o.exParams)
		}
		return h
	case in.sparse != nil:
		return newSparseUpdater(in.sparse, k, o.Eps)
	}
	return newUpdater(in.dense, lab, w, k, o.Eps)
}

// checkHALS rejects what HALS does not support.
func (o *Options) checkHALS(lab *Labels) error {
	if o.Solver != HALS {
		return nil
	}
	if lab != nil {
		return fmt.Errorf("ssnmf: the HALS solver does not support labels; use Multiplicative")
	}
	if o.W != nil {
		return fmt.Errorf("ssnmf: the HALS solver does not support a data mask W; use Multiplicative")
	}
	return nil
}

func (in layerInput) dims() (int, int) {
	if in.sparse != nil {
		return in.sparse.Rows, in.sparse.Cols
	}
	return in.dense.Rows, in.dense.Cols
}

// mean is the mean entry of the input.
func (in *layerInput) mean() float64 {
	if in.sparse != nil {
		return sparseMean(in.sparse)
	}
	return tensor.Sum(in.dense) / float64(in.dense.Len())
}

// op returns the input as a linop, made on the first call and kept, so a
// sparse input's transpose is formed once for the start and every restart.
func (in *layerInput) op() linop {
	if in.lop == nil {
		if in.sparse != nil {
			in.lop = newSparseOp(in.sparse)
		} else {
			in.lop = denseOp{in.dense}
		}
	}
	return in.lop
}
