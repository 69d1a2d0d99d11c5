package ssnmf

import (
	"fmt"
	"math"
	"runtime"

	"github.com/neuralnmf/neuralnmf/internal/parallel"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// NMFKL factors a nonnegative X (N×M) as A·S (A N×k, S k×M) under the
// generalised Kullback–Leibler divergence
//
//	D(X ‖ A·S) = Σ x·log(x/y) − x + y,  y = (A·S)_ij,
//
// the usual loss for word counts, by Lee & Seung's multiplicative updates
// (as scikit-learn's NMF with beta_loss='kullback-leibler', solver='mu'):
//
//	S ← S ∘ Aᵀ(X/(A·S)) / (Aᵀ·1),  A ← A ∘ (X/(A·S))·Sᵀ / (1·Sᵀ),
//
// each of which does not increase D. The quotients are formed only where
// X is positive (elsewhere they are 0), so a sparse X costs O(k·nnz(X))
// per update and no N×M matrix is formed; NMFKL runs NMFKLSparse on X's
// positive entries. The start is NNDSVDa (seeded by opt.Seed), as
// scikit-learn's init='nndsvda'. opt.MaxIter (default 1000) bounds the
// updates and opt.Tol (default 1e-6) stops them when D fell by less than Tol
// (relative) over the last klCheck = 10. D is a pass over X's nonzeros with a
// logarithm each, a third of an update's cost, so it is computed only where
// that rule reads it: Factors.Objective holds D after every 10th update and
// after the last.
// opt's W, labels, Solver and Restarts do not apply and must be left
// zero. A quotient x/y with y below 10⁻³⁰⁰ uses 10⁻³⁰⁰ (an entry of the
// model that the data needs but the factors have driven to 0), a
// denominator 0 (a topic no document uses, or a document of no topic)
// leaves its entries as they are, and results below the smallest normal
// float64 are set to 0, as in the Frobenius updates (flushSubnormal).
func NMFKL(x *tensor.Dense, k int, opt *Options) (*Factors, error) {
	if err := tensor.CheckData("X", x); err != nil {
		return nil, fmt.Errorf("ssnmf: %w", err)
	}
	return NMFKLSparse(tensor.SparseFromDense(x), k, opt)
}

// NMFKLSparse is NMFKL for a sparse X.
func NMFKLSparse(x *tensor.Sparse, k int, opt *Options) (*Factors, error) {
	f, _, err := nmfKL(x, k, opt)
	return f, err
}

// klCheck is the number of updates between two evaluations of D.
const klCheck = 10

// nmfKL is NMFKLSparse, also returning the number of updates it ran.
func nmfKL(x *tensor.Sparse, k int, opt *Options) (*Factors, int, error) {
	o := opt.withDefaults()
	if err := tensor.CheckSparseData("X", x); err != nil {
		return nil, 0, fmt.Errorf("ssnmf: %w", err)
	}
	if err := checkRank(x.Rows, x.Cols, k); err != nil {
		return nil, 0, err
	}
	if o.W != nil || o.Solver != Multiplicative || o.Restarts > 1 {
		return nil, 0, fmt.Errorf("ssnmf: NMFKL: Options.W, Solver and Restarts do not apply to the KL updates")
	}
	a, s, err := NNDSVDASparse(x, k, o.Seed)
	if err != nil {
		return nil, 0, err
	}
	u := newKLUpdater(x, a, s)
	f := &Factors{}
	it := 0
	for it < o.MaxIter {
		u.step()
		it++
		if it%klCheck != 0 && it != o.MaxIter {
			continue
		}
		f.Objective = append(f.Objective, u.divergence())
		if n := len(f.Objective); o.Tol > 0 && it%klCheck == 0 && n >= 2 {
			prev, cur := f.Objective[n-2], f.Objective[n-1]
			if prev-cur <= o.Tol*math.Abs(prev) {
				break
			}
		}
	}
	f.A, f.S = u.a, u.s()
	return f, it, nil
}

// HNMFKL is HNMF under the KL divergence: layer 0 factors X by NMFKL,
// each later layer ℓ factors S⁽ℓ⁻¹⁾ by NMFKL at rank ranks[ℓ]. opt as for
// NMFKL (its Seed + 1000ℓ seeds layer ℓ's start); Iterations counts each
// layer's updates.
func HNMFKL(x *tensor.Dense, ranks []int, opt *Options) (*Hierarchy, error) {
	if err := tensor.CheckData("X", x); err != nil {
		return nil, fmt.Errorf("ssnmf: %w", err)
	}
	return HNMFKLSparse(tensor.SparseFromDense(x), ranks, opt)
}

// HNMFKLSparse is HNMFKL for a sparse X.
func HNMFKLSparse(x *tensor.Sparse, ranks []int, opt *Options) (*Hierarchy, error) {
	if err := checkRankDims(x.Rows, x.Cols, ranks); err != nil {
		return nil, err
	}
	h := &Hierarchy{}
	in := x
	for l, k := range ranks {
		o := Options{}
		if opt != nil {
			o = *opt
		}
		o.Seed += 1000 * uint64(l)
		f, updates, err := nmfKL(in, k, &o)
		if err != nil {
			return nil, fmt.Errorf("layer %d: %w", l, err)
		}
		h.A = append(h.A, f.A)
		h.S = append(h.S, f.S)
		h.Iterations = append(h.Iterations, updates)
		in = tensor.SparseFromDense(f.S)
	}
	return h, nil
}

// KLDivergence returns D(X ‖ W·H) for a sparse, nonnegative X (N×M), W
// (N×k) and H (k×M), touching only X's positive entries: Σ over them of
// x·log(x/y) − x, plus Σ y over all entries = (1ᵀW)·(H·1). It is +Inf if
// some y is 0 where x > 0. It panics on mismatched shapes.
func KLDivergence(x *tensor.Sparse, w, h *tensor.Dense) float64 {
	if w.Rows != x.Rows || h.Cols != x.Cols || w.Cols != h.Rows {
		panic(fmt.Sprintf("ssnmf.KLDivergence: X is %d×%d, W is %d×%d, H is %d×%d", x.Rows, x.Cols, w.Rows, w.Cols, h.Rows, h.Cols))
	}
	ht := tensor.New(h.Cols, h.Rows)
	tensor.TransposeInto(ht, h)
	u := &klUpdater{x: x, a: w, st: ht, workers: runtime.GOMAXPROCS(0)}
	return u.divergence()
}

// klUpdater holds the KL updates' state: A (N×k), S as its transpose St
// (M×k, so that a document's weights are a contiguous row) and X's rows
// (its transpose), so that both updates read contiguous memory.
type klUpdater struct {
	x, xt      *tensor.Sparse
	a, st      *tensor.Dense
	colA, rowS []float64 // 1ᵀA and S·1 (k each)
	workers    int
}

func newKLUpdater(x *tensor.Sparse, a, s *tensor.Dense) *klUpdater {
	st := tensor.New(s.Cols, s.Rows)
	tensor.TransposeInto(st, s)
	k := a.Cols
	return &klUpdater{x: x, xt: x.T(), a: a, st: st, colA: make([]float64, k), rowS: make([]float64, k),
		workers: runtime.GOMAXPROCS(0)}
}

// s returns S (k×M).
func (u *klUpdater) s() *tensor.Dense {
	s := tensor.New(u.st.Cols, u.st.Rows)
	tensor.TransposeInto(s, u.st)
	return s
}

// klFloor is the least y = (A·S)_ij a quotient x/y uses.
const klFloor = 1e-300

// step runs one S update and then one A update.
func (u *klUpdater) step() {
	columnSums(u.colA, u.a)
	// S: row j of St is document j's weights; X's column j its counts.
	u.sweep(u.x, u.a, u.st, u.colA)
	columnSums(u.rowS, u.st)
	// A: row i of A is word i's topics; X's row i (column i of Xᵀ).
	u.sweep(u.xt, u.st, u.a, u.rowS)
}

// sweep updates every row v_j of dst (the factor being updated, rows
// indexed by the columns of x) by v_j ← v_j ∘ (Σ_i (x_ij/y_ij)·o_i) / den,
// y_ij = o_i·v_j, for the other factor's rows o_i (indexed by x's rows).
// den_c = 0 leaves entry c as it is.
func (u *klUpdater) sweep(x *tensor.Sparse, other, dst *tensor.Dense, den []float64) {
	k := dst.Cols
	chunk := max(1, x.Cols/(8*u.workers))
	parallel.ForChunks(x.Cols, chunk, u.workers, func(_, j0, j1 int) {
		num := make([]float64, k)
		for j := j0; j < j1; j++ {
			idx, val := x.Column(j)
			if len(idx) == 0 {
				// No data: the quotient sum is 0, so every entry with a
				// positive denominator goes to 0.
				v := dst.Row(j)
				for c := range v {
					if den[c] > 0 {
						v[c] = 0
					}
				}
				continue
			}
			v := dst.Row(j)
			clear(num)
			for p, i := range idx {
				o := other.Row(i)
				o = o[:len(v)]
				y := 0.0
				for c, w := range o {
					y += w * v[c]
				}
				r := val[p] / max(y, klFloor)
				for c, w := range o {
					num[c] += r * w
				}
			}
			for c, d := range den {
				if d > 0 {
					v[c] = flushSubnormal(v[c] * num[c] / d)
				}
			}
		}
	})
}

// columnSums sets dst_c = Σ_i m_ic.
func columnSums(dst []float64, m *tensor.Dense) {
	clear(dst)
	for i := 0; i < m.Rows; i++ {
		for c, v := range m.Row(i) {
			dst[c] += v
		}
	}
}

// divergence returns D(X ‖ A·S) for the current factors.
func (u *klUpdater) divergence() float64 {
	k := u.a.Cols
	colA, rowS := make([]float64, k), make([]float64, k)
	columnSums(colA, u.a)
	columnSums(rowS, u.st)
	total := 0.0
	for c := range colA {
		total += colA[c] * rowS[c]
	}
	x := u.x
	// Column sums of the data terms, added in column order so that the
	// value does not depend on how the columns were shared out.
	terms := make([]float64, x.Cols)
	chunk := max(1, x.Cols/(8*u.workers))
	parallel.ForChunks(x.Cols, chunk, u.workers, func(_, j0, j1 int) {
		for j := j0; j < j1; j++ {
			idx, val := x.Column(j)
			v := u.st.Row(j)
			t := 0.0
			for p, i := range idx {
				o := u.a.Row(i)
				o = o[:len(v)]
				y := 0.0
				for c, w := range o {
					y += w * v[c]
				}
				xv := val[p]
				if xv == 0 {
					continue
				}
				t += xv*math.Log(xv/y) - xv
			}
			terms[j] = t
		}
	})
	for _, t := range terms {
		total += t
	}
	return total
}
