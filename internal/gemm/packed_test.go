package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestSerialPacked checks that a product from a packed op(A) is Serial's
// bit for bit, over shapes that exercise every block edge (ragged strips of
// rows, several blocks along k and along the rows of C, B read in place and
// packed), both transposes and several α and β, and that packing leaves A
// unchanged.
func TestSerialPacked(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	fill := func(n int) []float64 { return normals(rng, n) }
	for _, cs := range []struct{ m, n, k int }{
		{1, 1, 1}, {7, 3, 5}, {9, 50, 300}, {50, 250, 2000}, {97, 24, 257}, {200, 50, 600}, {96, 100, 256}, {300, 7, 40},
	} {
		for _, tA := range []bool{false, true} {
			for _, tB := range []bool{false, true} {
				name := fmt.Sprintf("%dx%dx%d/tA=%v/tB=%v", cs.m, cs.n, cs.k, tA, tB)
				m, n, k := cs.m, cs.n, cs.k
				lda, ldb, ar, br := k+3, n+1, m, k
				if tA {
					lda, ar = m+2, k
				}
				if tB {
					ldb, br = k+1, n
				}
				a, b := fill(ar*lda), fill(br*ldb)
				a0 := append([]float64(nil), a...)
				pa := PackA(tA, m, k, a, lda)
				var ws, ws2 Workspace
				for _, ab := range [][2]float64{{1, 0}, {-0.5, 1}, {2, -3}} {
					ldc := n + 2
					c := fill(m * ldc)
					want := append([]float64(nil), c...)
					Serial(tA, tB, m, n, k, ab[0], a, lda, b, ldb, ab[1], want, ldc, &ws)
					SerialPacked(pa, tB, n, ab[0], b, ldb, ab[1], c, ldc, &ws2)
					for i := range c {
						if math.Float64bits(c[i]) != math.Float64bits(want[i]) {
							t.Fatalf("%s α=%v β=%v: C[%d] = %v, Serial gives %v", name, ab[0], ab[1], i, c[i], want[i])
						}
					}
				}
				for i := range a {
					if a[i] != a0[i] {
						t.Fatalf("%s: A changed at %d", name, i)
					}
				}
			}
		}
	}
}

// TestNarrowKernels checks that the narrower kernels a ragged last strip of
// B is given (kernel.narrow: 8×8 and 8×16 beside AVX-512's 8×24) change no
// bit of any product: every width of the last strip, B packed and read in
// place, α ≠ 1 and β ≠ 0, against the same products with the full kernel.
func TestNarrowKernels(t *testing.T) {
	if kernel.narrow == nil {
		t.Skipf("the %s kernel has no narrower variants", kernel.name)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	full := kernel
	full.narrow = nil
	for n := 1; n <= 3*full.nr; n++ {
		for _, tB := range []bool{false, true} {
			for _, m := range []int{5, 50, 200} {
				k := 300
				a, b := normals(rng, m*k), normals(rng, k*n)
				ldb := n
				if tB {
					ldb = k
				}
				c0 := normals(rng, m*n)
				for _, beta := range []float64{0, 0.5} {
					want := append([]float64(nil), c0...)
					got := append([]float64(nil), c0...)
					var ws Workspace
					serialWith(full, false, tB, m, n, k, 1.5, a, k, b, ldb, beta, want, n, &ws)
					serialWith(kernel, false, tB, m, n, k, 1.5, a, k, b, ldb, beta, got, n, &ws)
					for i := range got {
						if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
							t.Fatalf("n=%d m=%d tB=%v β=%v: C[%d] = %v with the narrow kernels, %v without", n, m, tB, beta, i, got[i], want[i])
						}
					}
				}
			}
		}
	}
}

// serialWith is Serial with the micro-kernel kern.
func serialWith(kern microKernel, tA, tB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int, ws *Workspace) {
	if work, overwrite := prologue(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc); work {
		serialKernel(kern, tA, tB, m, n, k, alpha, a, lda, b, ldb, c, ldc, overwrite, ws)
	}
}

// TestSerialPackedAB checks products from a packed op(A) and a packed B
// against Serial bit for bit: chunks of columns from every strip boundary,
// ragged chunk ends (whose strip runs on into the next chunk's columns) and
// the zero-padded last strip, several blocks along k, and B wider than nc.
func TestSerialPackedAB(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	fill := func(n int) []float64 { return normals(rng, n) }
	for _, cs := range []struct{ m, n, k int }{{50, 300, 600}, {9, 77, 5}, {100, nc + 100, 300}, {1, 24, 1}} {
		m, n, k := cs.m, cs.n, cs.k
		lda, ldb := m+1, n+3
		a, b := fill(k*lda), fill(k*ldb)
		pa := PackA(true, m, k, a, lda)
		for _, w := range []int{1, 2} {
			pb := PackB(k, n, b, ldb, w)
			for j0 := 0; j0 < n; j0 += pb.Strip() {
				for _, width := range []int{1, 7, 24, 50, n - j0} {
					width = min(width, n-j0)
					ldc := width + 1
					c := fill(m * ldc)
					want := append([]float64(nil), c...)
					var ws Workspace
					Serial(true, false, m, width, k, -1.5, a, lda, b[j0:], ldb, 0.5, want, ldc, &ws)
					SerialPackedAB(pa, pb, j0, width, -1.5, 0.5, c, ldc, nil)
					for i := range c {
						if math.Float64bits(c[i]) != math.Float64bits(want[i]) {
							t.Fatalf("%dx%dx%d j0=%d width=%d: C[%d] = %v, Serial gives %v", m, n, k, j0, width, i, c[i], want[i])
						}
					}
				}
			}
		}
	}
}

// normals returns n standard normal values from rng.
func normals(rng *rand.Rand, n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	return x
}
