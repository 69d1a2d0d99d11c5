package nnls

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"

	"github.com/neuralnmf/neuralnmf/tensor"
)

// cholQR2 takes exactly the tall, narrow, well-enough conditioned matrices
// (its test on κ₂ must turn away an Ã with cond 10⁷ at 5000×10, where
// CholeskyQR2's guarantee fails, and a shape outside cholQRShape's rule),
// and where it takes one it is a QR factorisation to working
// precision, with the bounds TestTSQR checks for Householder QR: Q has
// orthonormal columns (‖QᵀQ − I‖_max ≤ 20·k·ε), Q·R reproduces Ã
// (‖Ã − Q·R‖_F ≤ 20·k·ε·‖Ã‖_F), R is upper triangular, its |R_ii| are
// Householder QR's to within 100·cond·k·ε·|R_00|, the column norms are
// the scaled two-pass ones to 4·n·ε relative, and nothing depends on the
// number of workers. NewFactor uses it for these matrices.
func TestCholQR2(t *testing.T) {
	for _, c := range []struct {
		n, k  int
		cond  float64
		taken bool
	}{
		{2048, 1, 1, true}, {3001, 5, 1, true}, {5000, 10, 1e2, true}, {5000, 10, 1e4, true},
		{4100, 31, 1e3, true}, {45534, 10, 10, true}, {9000, 3, 1e4, true},
		{5000, 10, 1e7, false}, {5000, 10, 1e12, false},
		{cholQRMinRows - 1, 10, 1, false},
		// From tsqrMinCols columns, where tsqr's blocks do not fit:
		{5000, tsqrMinCols, 1, true}, {2000, 50, 1e3, true}, {cholQRWideMinRows, 32, 10, true},
		{cholQRWideMinRows - 1, 32, 1, false}, {cholQRWideMinRows, 40, 1, false}, // under 600 rows, under 16 a column
		{10000, tsqrMinCols, 1, false}, // tsqr's 8 blocks fit
	} {
		t.Run(fmt.Sprintf("%dx%d-cond%g", c.n, c.k, c.cond), func(t *testing.T) {
			a := condMatrix(c.n, c.k, c.cond, uint64(c.n+c.k))
			var first *Factor
			for _, workers := range []int{1, 2, 3, 7} {
				f := &Factor{n: c.n, k: c.k}
				require.Equal(t, c.taken, f.cholQR2(a, workers), "taken, %d workers", workers)
				if !c.taken {
					require.Nil(t, f.q, "a refused matrix leaves f alone")
					return
				}
				if first == nil {
					first = f
					continue
				}
				require.Equal(t, first.q.Data, f.q.Data, "Q depends on the number of workers")
				require.Equal(t, first.r, f.r, "R depends on the number of workers")
				require.Equal(t, first.qx, f.qx, "R₂⁻¹ depends on the number of workers")
				require.Equal(t, first.norm, f.norm, "the norms depend on the number of workers")
			}
			f, k, n := first, c.k, c.n
			wantNorms, err := columnNorms(a)
			require.NoError(t, err)
			require.Equal(t, k, f.kk)
			for i := range k {
				require.InEpsilon(t, wantNorms[i], f.norm[i], 4*float64(n)*eps, "‖a_%d‖", i)
			}
			checkQR(t, a, f, 20*float64(k)*eps)
			// A solve forms QᵀX as qtxPost(Q₁ᵀX): the same as with Q itself,
			// to 20·k·ε·‖x‖. (At cond 10⁴, R₂⁻¹ differs from I by about
			// 10⁻⁹, so skipping or misapplying it fails this.)
			x := tensor.Uniform(n, 5, -1, 1, tensor.NewRand(9))
			q := tensor.MatMul(false, false, f.q, &tensor.Dense{Rows: k, Cols: k, Stride: k, Data: f.qx})
			want := tensor.MatMul(true, false, q, x)
			got := tensor.MatMul(true, false, f.q, x)
			f.qtxPost(got.Data, 5, got.Stride)
			for i := range want.Data {
				require.InDelta(t, want.Data[i], got.Data[i], 20*float64(k)*eps*math.Sqrt(float64(n)), "QᵀX[%d]", i)
			}
			var ref mat.QR
			ref.Factorize(a.Mat())
			var rr mat.Dense
			ref.RTo(&rr)
			r00 := math.Abs(rr.At(0, 0)) / wantNorms[0]
			for i := range k {
				// Householder's R is of the unscaled A here: compare R·D.
				got, want := math.Abs(f.r[i*k+i]*f.norm[i]), math.Abs(rr.At(i, i))
				require.InDelta(t, want, got, 100*c.cond*float64(k)*eps*r00*f.norm[i]*math.Max(1, f.norm[0]/f.norm[i]), "|R_%d%d|", i, i)
			}
			nf, err := newFactor(a, 2)
			require.NoError(t, err)
			require.Equal(t, f.q.Data, nf.q.Data, "NewFactor uses cholQR2")
		})
	}
}

// checkQR checks that f's Q has orthonormal columns and that Q·R is Ã (A's
// nonzero columns over their norms), both to tol (max-norm and relative
// Frobenius norm), and that R is upper triangular.
func checkQR(t *testing.T, a *tensor.Dense, f *Factor, tol float64) {
	t.Helper()
	kk, n := f.kk, a.Rows
	q := f.q
	if f.qx != nil { // Q = Q₁·R₂⁻¹
		q = tensor.MatMul(false, false, q, &tensor.Dense{Rows: kk, Cols: kk, Stride: kk, Data: f.qx})
	}
	at := tensor.New(n, kk)
	for r := range n {
		for c, i := range f.cols {
			at.Data[r*kk+c] = a.At(r, i) / f.norm[c]
		}
	}
	checkQRFactors(t, at, q, f.r, tol)
}

// checkQRFactors checks that q (n×k) has orthonormal columns
// (‖QᵀQ − I‖_max ≤ tol), that r (k×k, row-major) is upper triangular, and
// that ‖a − q·r‖_F ≤ tol·‖a‖_F.
func checkQRFactors(t *testing.T, a, q *tensor.Dense, r []float64, tol float64) {
	t.Helper()
	k := q.Cols
	qtq := tensor.MatMul(true, false, q, q)
	for i := range k {
		for j := range k {
			want := 0.0
			if i == j {
				want = 1
			}
			require.InDelta(t, want, qtq.At(i, j), tol, "QᵀQ[%d,%d]", i, j)
		}
		for j := range i {
			require.Zero(t, r[i*k+j], "R below the diagonal")
		}
	}
	qr := tensor.MatMul(false, false, q, &tensor.Dense{Rows: k, Cols: k, Stride: k, Data: r})
	tensor.Sub(qr, qr, a)
	require.LessOrEqual(t, tensor.Norm(qr), tol*tensor.Norm(a), "‖Ã − Q·R‖")
}

// A column cholQR2 cannot see through A's Gram matrix sends A to
// Householder QR: a column too small for its squares (10⁻²⁰⁰), one too
// large (10²⁰⁰), a NaN (NewFactor then reports it). An exactly zero column
// is left out by cholQR2 itself. In every case NewFactor's result is a QR
// factorisation of Ã with the right norms.
func TestCholQR2Columns(t *testing.T) {
	for _, c := range []struct {
		name  string
		scale float64 // column 3 is multiplied by this
		taken bool
	}{{"zero", 0, true}, {"tiny", 1e-200, false}, {"huge", 1e200, false}, {"subnormal", 0x1p-1060, false}, {"nan", math.NaN(), false}} {
		t.Run(c.name, func(t *testing.T) {
			n, k := 3000, 6
			a := condMatrix(n, k, 10, 7)
			for r := range n {
				a.Data[r*k+3] *= c.scale
			}
			f := &Factor{n: n, k: k}
			require.Equal(t, c.taken, f.cholQR2(a, 2))
			nf, err := newFactor(a, 2)
			if c.name == "nan" {
				require.ErrorContains(t, err, "A")
				return
			}
			require.NoError(t, err)
			want, err := columnNorms(a)
			require.NoError(t, err)
			if c.scale == 0 {
				require.Equal(t, []int{3}, nf.ZeroColumns())
				want = append(want[:3], want[4:]...)
			}
			require.Len(t, nf.norm, len(want))
			for i := range want {
				require.InEpsilon(t, want[i], nf.norm[i], 4*float64(n)*eps, "‖a_%d‖", i)
			}
			checkQR(t, a, nf, 20*float64(k)*eps)
		})
	}
}

// BenchmarkFactorShapes times the factorisation of an n×k A (uniform
// entries) by Householder QR (tsqr where it applies) and by cholQR2, at
// the shapes where the rule of cholQRShape was measured.
func BenchmarkFactorShapes(b *testing.B) {
	for _, sh := range [][2]int{{400, 32}, {600, 32}, {800, 40}, {1000, 32}, {1500, 50}, {2000, 50}, {2000, 100}, {4000, 40}} {
		rng := rand.New(rand.NewPCG(1, 2))
		a := tensor.New(sh[0], sh[1])
		for i := range a.Data {
			a.Data[i] = rng.Float64()
		}
		b.Run(fmt.Sprintf("%dx%d/householder", sh[0], sh[1]), func(b *testing.B) {
			for b.Loop() {
				f := &Factor{n: a.Rows, k: a.Cols}
				if err := f.householder(a, 2); err != nil {
					b.Fatal(err)
				}
				f.releaseQ()
			}
		})
		b.Run(fmt.Sprintf("%dx%d/cholqr2", sh[0], sh[1]), func(b *testing.B) {
			for b.Loop() {
				f := &Factor{n: a.Rows, k: a.Cols}
				if !f.cholQR2Run(a, nil, nil, 2) {
					b.Fatal("cholQR2 refused a uniform A")
				}
				f.releaseQ()
			}
		})
	}
}
