package nnls

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/tensor"
)

// qrChecks returns ‖QᵀQ − I‖_F and ‖Ã − Q·R‖_F/‖Ã‖_F of a cholQR2 factor
// (Q formed as Q₁·R₂⁻¹, Ã = A·D⁻¹).
func qrChecks(f *Factor, a *tensor.Dense) (orth, resid float64) {
	n, k := a.Rows, f.kk
	q := tensor.New(n, k)
	tensor.Gemm(false, false, 1, &tensor.Dense{Rows: n, Cols: k, Stride: f.q.Stride, Data: f.q.Data}, &tensor.Dense{Rows: k, Cols: k, Stride: k, Data: f.qx}, 0, q)
	qtq := tensor.MatMul(true, false, q, q)
	for i := range k {
		qtq.Data[i*k+i]--
	}
	qr := tensor.MatMul(false, false, q, &tensor.Dense{Rows: k, Cols: k, Stride: k, Data: f.r})
	var num, den float64
	for r := range n {
		for c, i := range f.cols {
			v := a.At(r, i) / f.norm[c]
			num += (v - qr.At(r, c)) * (v - qr.At(r, c))
			den += v * v
		}
	}
	return tensor.Norm(qtq), math.Sqrt(num / den)
}

// TestPreconditioned checks the one-pass factorisation (Factor.preconditioned)
// against the guarantees the two-pass one has: with the preconditioner of a
// nearby A (entries changed by up to 10⁻³ relative, as between epochs) it
// is taken (with 10⁻¹ it may be refused, and then the two passes give
// their own bits), its Q is orthonormal to 6(N·k + k(k+1))·u and Ã − Q·R is within
// 5k²·u·‖Ã‖ (the bounds of Yamamoto et al. for CholeskyQR2, here
// relative to ‖Ã‖_F ≥ ‖Ã‖₂), its R agrees with the two-pass R to 10⁻¹⁰
// relative (R is unique: a positive diagonal), and it does not depend on
// the number of workers; with the preconditioner of an unrelated A it is
// refused and the two passes run, bit for bit as without one.
func TestPreconditioned(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, c := range []struct{ n, k int }{{2048, 5}, {4000, 10}, {3000, 31}, {2000, 50}} {
		t.Run(fmt.Sprintf("%dx%d", c.n, c.k), func(t *testing.T) {
			require.True(t, cholQRShape(c.n, c.k))
			a := tensor.Uniform(c.n, c.k, 0, 1, tensor.NewRand(uint64(c.n+c.k)))
			f0, err := newFactor(a, 2)
			require.NoError(t, err)
			pre := f0.unscaledR()
			require.NotNil(t, pre)
			bound := 6 * float64(c.n*c.k+c.k*(c.k+1)) * unitRoundoff
			for _, step := range []float64{1e-3, 1e-1} {
				b := a.Clone()
				for i := range b.Data {
					b.Data[i] *= 1 + step*(2*rng.Float64()-1)
				}
				ref, err := newFactor(b, 2)
				require.NoError(t, err)
				var first []float64
				for _, w := range []int{1, 2, 3} {
					f, err := newFactorX(b, nil, pre, w)
					require.NoError(t, err)
					if !f.onePass {
						// Refused (allowed for the large change only): the
						// two passes, bit for bit.
						require.Greater(t, step, 1e-3, "one pass refused for a change of %g", step)
						require.Equal(t, ref.r, f.r)
						continue
					}
					orth, resid := qrChecks(f, b)
					require.LessOrEqual(t, orth, bound, "step %g: ‖QᵀQ − I‖", step)
					require.LessOrEqual(t, resid, 5*float64(c.k*c.k)*unitRoundoff, "step %g: ‖Ã − QR‖", step)
					for i, v := range f.r {
						require.InDelta(t, ref.r[i], v, 1e-10*math.Abs(ref.r[i/c.k*c.k+i/c.k]), "step %g: R[%d]", step, i)
					}
					require.InDeltaSlice(t, ref.norm, f.norm, 1e-12*ref.norm[0])
					if first == nil {
						first = append([]float64(nil), f.r...)
					} else {
						require.Equal(t, first, f.r, "%d workers", w)
					}
				}
			}
			// An unrelated A's preconditioner: refused, two passes.
			other := tensor.Uniform(c.n, c.k, 0, 1, tensor.NewRand(99))
			for i := range other.Data {
				other.Data[i] = math.Pow(other.Data[i], 4)
			}
			fo, err := newFactor(other, 2)
			require.NoError(t, err)
			f, err := newFactorX(a, nil, fo.unscaledR(), 2)
			require.NoError(t, err)
			require.False(t, f.onePass)
			require.Equal(t, f0.r, f.r)
			require.Equal(t, f0.q.Data[:c.n*c.k], f.q.Data[:c.n*c.k])
		})
	}
}

// TestSolveDataPreconditioned solves a prepared X (dense and sparse) against
// an A that drifts a little every call, as in training: from the second
// call on the factorisation takes one pass, and every solution is
// certified and within 10⁻¹⁰ relative of Solve's.
func TestSolveDataPreconditioned(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	a := tensor.Uniform(3000, 12, 0, 1, tensor.NewRand(6))
	xs := sparseRandom(3000, 150, 0.02, rng)
	xd := xs.Dense()
	for _, sparse := range []bool{false, true} {
		var d *Data
		var err error
		if sparse {
			d, err = NewSparseData(xs)
		} else {
			d, err = NewData(xd)
		}
		require.NoError(t, err)
		b := a.Clone()
		for call := range 5 {
			for i := range b.Data {
				b.Data[i] *= 1 + 1e-3*(2*rng.Float64()-1)
			}
			want, err := Solve(b, xd, nil)
			require.NoError(t, err)
			got, err := SolveData(b, d, nil)
			require.NoError(t, err)
			require.Zero(t, got.Stats.Uncertified)
			require.Equal(t, call > 0, got.Factor.onePass, "sparse %v, call %d", sparse, call)
			scale := tensor.MaxAbs(want.S)
			for i, v := range got.S.Data {
				require.InDelta(t, want.S.Data[i], v, 1e-10*scale, "sparse %v, call %d: S entry %d", sparse, call, i)
			}
		}
	}
}
