package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// reference computes the same product with gonum's Dgemm and, in bound,
// the error bound k·2ε·(|α|·|op(A)|·|op(B)| + |β|·|C|) per entry.
func reference(tA, tB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) (want, bound []float64) {
	ta, tb := blas.NoTrans, blas.NoTrans
	ar, ac, br, bc := m, k, k, n
	if tA {
		ta, ar, ac = blas.Trans, k, m
	}
	if tB {
		tb, br, bc = blas.Trans, n, k
	}
	want = append([]float64(nil), c...)
	if beta == 0 {
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				want[i*ldc+j] = 0 // BLAS: β = 0 ignores C, NaN included
			}
		}
	}
	abs := func(x []float64) []float64 {
		out := make([]float64, len(x))
		for i, v := range x {
			out[i] = math.Abs(v)
		}
		return out
	}
	if m > 0 && n > 0 {
		if k > 0 {
			blas64.Gemm(ta, tb, alpha, blas64.General{Rows: ar, Cols: ac, Stride: lda, Data: a}, blas64.General{Rows: br, Cols: bc, Stride: ldb, Data: b},
				beta, blas64.General{Rows: m, Cols: n, Stride: ldc, Data: want})
		} else {
			for i := 0; i < m; i++ {
				for j := 0; j < n; j++ {
					want[i*ldc+j] *= beta
				}
			}
		}
	}
	bound = make([]float64, len(c))
	if m > 0 && n > 0 && k > 0 {
		blas64.Gemm(ta, tb, math.Abs(alpha), blas64.General{Rows: ar, Cols: ac, Stride: lda, Data: abs(a)}, blas64.General{Rows: br, Cols: bc, Stride: ldb, Data: abs(b)},
			0, blas64.General{Rows: m, Cols: n, Stride: ldc, Data: bound})
	}
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			cij := c[i*ldc+j]
			if beta == 0 || math.IsNaN(cij) {
				cij = 0
			}
			bound[i*ldc+j] = float64(k+2) * 2 * 0x1p-52 * (bound[i*ldc+j] + math.Abs(beta*cij))
		}
	}
	return want, bound
}

// check runs Dgemm on a random problem and compares with reference.
func check(t *testing.T, rng *rand.Rand, tA, tB bool, m, n, k int, alpha, beta float64, pad, workers int) {
	t.Helper()
	ar, ac, br, bc := m, k, k, n
	if tA {
		ar, ac = k, m
	}
	if tB {
		br, bc = n, k
	}
	lda, ldb, ldc := max(1, ac)+pad, max(1, bc)+pad, max(1, n)+pad
	fill := func(rows, ld int) []float64 {
		x := make([]float64, max(0, rows*ld))
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		return x
	}
	a, b, c := fill(ar, lda), fill(br, ldb), fill(m, ldc)
	if beta == 0 && len(c) > 0 {
		c[0] = math.NaN()
	}
	want, bound := reference(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	got := append([]float64(nil), c...)
	Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, got, ldc, workers)
	for i := range got {
		inC := i/ldc < m && i%ldc < n
		if !inC {
			if math.Float64bits(got[i]) != math.Float64bits(c[i]) {
				t.Fatalf("%v: element %d outside C changed", desc(tA, tB, m, n, k, alpha, beta, pad, workers), i)
			}
			continue
		}
		if d := math.Abs(got[i] - want[i]); !(d <= bound[i]) {
			t.Fatalf("%v: C[%d][%d] = %v, want %v (bound %.2g)", desc(tA, tB, m, n, k, alpha, beta, pad, workers), i/ldc, i%ldc, got[i], want[i], bound[i])
		}
	}
}

func desc(tA, tB bool, m, n, k int, alpha, beta float64, pad, workers int) string {
	return fmt.Sprintf("tA=%v tB=%v m=%d n=%d k=%d α=%v β=%v pad=%d workers=%d", tA, tB, m, n, k, alpha, beta, pad, workers)
}

// Every transpose case, edge sizes (0, 1, around MR, NR, mc, kc and nc),
// strides, α and β, one and two workers, with both kernels.
func TestConformance(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	sizes := []int{0, 1, 2, 5, 6, 7, 8, 9, 13, 17, 23, 24, 25, mc - 1, mc + 1, kc + 3}
	for _, kern := range kernels() {
		t.Run(kern.name, func(t *testing.T) {
			defer useKernel(kern)()
			for _, tA := range []bool{false, true} {
				for _, tB := range []bool{false, true} {
					for trial := 0; trial < 60; trial++ {
						m, n, k := sizes[rng.IntN(len(sizes))], sizes[rng.IntN(len(sizes))], sizes[rng.IntN(len(sizes))]
						alpha := []float64{1, -0.5, 0, 2.25}[rng.IntN(4)]
						beta := []float64{0, 1, -1.5, 0.5}[rng.IntN(4)]
						check(t, rng, tA, tB, m, n, k, alpha, beta, rng.IntN(3), 1+rng.IntN(2))
					}
				}
			}
		})
	}
	// Shapes past nc and the parallel split, the project's skinny ones, and
	// B's too large to read in place (k·ldb > directMaxSpan: B packed a row
	// at a time, with a ragged last strip).
	for _, s := range [][3]int{{3, nc + 5, 40}, {nc + 9, 3, 40}, {20, 2000, 1000}, {1000, 20, 2000}, {300, 301, 302}, {50, 260, 4200}, {9, 1000, 1100}} {
		for _, tA := range []bool{false, true} {
			check(t, rng, tA, false, s[0], s[1], s[2], 1, 0, 1, 2)
			check(t, rng, tA, true, s[0], s[1], s[2], -1, 1, 0, 2)
		}
	}
}

func FuzzDgemm(f *testing.F) {
	f.Add(uint8(7), uint8(9), uint8(11), uint8(0), uint8(1), int8(2), int8(0), uint64(1))
	ks := kernels()
	f.Fuzz(func(t *testing.T, m, n, k, flags, pad uint8, alpha, beta int8, seed uint64) {
		rng := rand.New(rand.NewPCG(seed, 3))
		defer useKernel(ks[int(flags>>3)%len(ks)])()
		check(t, rng, flags&1 != 0, flags&2 != 0, int(m)%70, int(n)%70, int(k)%300, float64(alpha)/4, float64(beta)/4, int(pad)%4, 1+int(flags>>2)%2)
	})
}

// useKernel makes kern the package's kernel and returns the function that
// restores the previous one. Tests only: not safe while Dgemm runs.
func useKernel(kern microKernel) func() {
	saved := kernel
	kernel = kern
	return func() { kernel = saved }
}

// packA against its definition: strip s holds op(A)[i0+s·MR+r][p0+p] at
// s·kb + p·MR + r, zero past the last row, for every strip height the
// kernels use, both layouts of A, full and ragged strips, and a buffer
// that held garbage before.
func TestPackA(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, MR := range []int{6, 8, 24} {
		for _, tA := range []bool{false, true} {
			for _, sz := range [][2]int{{1, 1}, {2, 90}, {MR, 7}, {MR + 3, 33}, {3*MR - 1, 5}, {mc, kc}} {
				mb, kb := sz[0], sz[1]
				const i0, p0, pad = 2, 3, 1
				rows, cols := i0+mb, p0+kb // op(A)'s extent
				lda := cols + pad
				if tA {
					lda = rows + pad
				}
				a := make([]float64, max(rows, cols)*lda)
				for i := range a {
					a[i] = rng.NormFloat64()
				}
				at := func(i, p int) float64 { // op(A)[i][p]
					if tA {
						return a[p*lda+i]
					}
					return a[i*lda+p]
				}
				strips := (mb + MR - 1) / MR
				dst := make([]float64, strips*MR*kb)
				for i := range dst {
					dst[i] = math.NaN()
				}
				packA(MR, tA, mb, kb, a, lda, i0, p0, dst)
				for s := 0; s < strips; s++ {
					for p := 0; p < kb; p++ {
						for r := 0; r < MR; r++ {
							want := 0.0
							if i := s*MR + r; i < mb {
								want = at(i0+i, p0+p)
							}
							if got := dst[s*MR*kb+p*MR+r]; got != want {
								t.Fatalf("MR=%d tA=%v mb=%d kb=%d: strip %d, p=%d, r=%d: got %v, want %v", MR, tA, mb, kb, s, p, r, got, want)
							}
						}
					}
				}
			}
		}
	}
}
