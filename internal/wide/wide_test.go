package wide

import (
	"math"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/tensor"
)

// wideMatrix returns an r×c matrix U·diag(σ)·V with random orthogonal-ish
// factors and singular values from 1 down to 1/cond (geometrically).
func wideMatrix(r, c int, cond float64, seed uint64) *tensor.Dense {
	rng := tensor.NewRand(seed)
	u := tensor.Uniform(r, r, -1, 1, rng)
	orthonormalizeRowsLQ(u)
	v := tensor.Uniform(r, c, -1, 1, rng)
	orthonormalizeRowsLQ(v)
	for i := 0; i < r; i++ {
		sigma := math.Pow(cond, -float64(i)/float64(max(r-1, 1)))
		for j := range v.Row(i) {
			v.Row(i)[j] *= sigma
		}
	}
	return tensor.MatMul(false, false, u, v)
}

// maxOffIdentity is max |(y·yᵀ − I)_ij|, computed apart from the package
// (MatMul's Gram, its own loop).
func maxOffIdentity(y *tensor.Dense) float64 {
	g := tensor.MatMul(false, true, y, y)
	worst := 0.0
	for i := 0; i < g.Rows; i++ {
		for j := 0; j < g.Cols; j++ {
			want := 0.0
			if i == j {
				want = 1
			}
			worst = max(worst, math.Abs(g.At(i, j)-want))
		}
	}
	return worst
}

// Cholesky QR twice returns rows orthonormal to 10⁻¹³ that span what y
// spanned, with y = L·Q for the lower-triangular L it returns (to 10⁻¹²
// of y's largest entry), for condition numbers up to 10⁷ and shapes with a
// partial last chunk; it declines (nil) where L's diagonal spans more than
// cholQRCond (a condition number of 3·10⁷ here, where it would still
// succeed), where the Cholesky factorisation fails (10¹⁰) and for
// rank-deficient rows, and OrthonormalizeRows then still returns
// orthonormal rows by Householder LQ.
func TestCholQR2(t *testing.T) {
	for _, c := range []struct {
		r, c   int
		cond   float64
		accept bool
	}{
		{30, 5000, 1, true},
		{30, 9000, 1e3, true},
		{7, 4097, 1e5, true},
		{1, 100, 1, true},
		{30, 5000, 1e7, true},
		{30, 5000, 3e7, false}, // Cholesky QR2 would still succeed: declined by cholQRCond
		{30, 5000, 1e10, false},
	} {
		y := wideMatrix(c.r, c.c, c.cond, 5)
		orig := y.Clone()
		l := CholQR2(y)
		if !c.accept {
			require.Nil(t, l, "%+v", c)
			continue
		}
		require.NotNil(t, l, "%+v", c)
		require.Less(t, maxOffIdentity(y), 1e-13, "%+v", c)
		for i := 0; i < l.Rows; i++ {
			for j := i + 1; j < l.Cols; j++ {
				require.Zero(t, l.At(i, j), "%+v: L not lower triangular", c)
			}
		}
		back := tensor.MatMul(false, false, l, y)
		scale := 0.0
		for _, v := range orig.Data {
			scale = max(scale, math.Abs(v))
		}
		for i, v := range orig.Data {
			require.InDelta(t, v, back.Data[i], 1e-12*scale, "%+v", c)
		}
	}
	// Rank-deficient rows: the fifth is the sum of the first two.
	y := wideMatrix(6, 3000, 10, 7)
	for j := range y.Row(4) {
		y.Row(4)[j] = y.Row(0)[j] + y.Row(1)[j]
	}
	require.Nil(t, CholQR2(y.Clone()))
	OrthonormalizeRows(y)
	require.Less(t, maxOffIdentity(y), 1e-13)
}

// SVD's singular values are Gesvd's to 10⁻¹² relative, and
// Ub·diag(σ)·Vᵀ rebuilds B with orthonormal Ub and Vᵀ, by the Cholesky
// path (well conditioned) and the Gesvd path (rank-deficient).
func TestSVDWide(t *testing.T) {
	for _, c := range []struct {
		name      string
		b         *tensor.Dense
		deficient bool
	}{
		{"conditioned", wideMatrix(30, 6000, 1e4, 11), false},
		{"deficient", wideMatrix(12, 800, 1e3, 13), true},
	} {
		b := c.b
		if c.deficient {
			clear(b.Row(11))
		}
		want := make([]float64, b.Rows)
		gesvd(b.Clone(), tensor.New(b.Rows, b.Rows), want, tensor.New(b.Rows, b.Cols))
		ub, sv, vt := SVD(b.Clone())
		for i := range want {
			require.InDelta(t, want[i], sv[i], 1e-12*want[0], "%s: σ_%d", c.name, i)
		}
		require.Less(t, maxOffIdentity(vt), 1e-12, c.name)
		require.Less(t, maxOffIdentity(ub), 1e-12, c.name)
		us := ub.Clone()
		for i := 0; i < us.Rows; i++ {
			for j := range us.Row(i) {
				us.Row(i)[j] *= sv[j]
			}
		}
		back := tensor.MatMul(false, false, us, vt)
		for i, v := range b.Data {
			require.InDelta(t, v, back.Data[i], 1e-12, "%s", c.name)
		}
	}
}

// Cholesky QR twice and SVD give the same bits on 1 and 3 goroutines:
// their products are summed over fixed chunks of columns in order.
func TestCholQR2Deterministic(t *testing.T) {
	y := wideMatrix(30, 3*rowChunk+17, 1e3, 17)
	run := func(procs int) (*tensor.Dense, *tensor.Dense, []float64) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		q := y.Clone()
		require.NotNil(t, CholQR2(q))
		_, sv, vt := SVD(y.Clone())
		return q, vt, sv
	}
	q1, vt1, sv1 := run(1)
	q3, vt3, sv3 := run(3)
	require.Equal(t, q1.Data, q3.Data)
	require.Equal(t, vt1.Data, vt3.Data)
	require.Equal(t, sv1, sv3)
}
