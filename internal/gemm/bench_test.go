package gemm

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// shapes are (N, k, M) of the product AᵀX (A N×k, X N×M) that the NNLS
// forward pass computes, and a square product.
var shapes = [][3]int{{1000, 20, 2000}, {2000, 50, 10000}, {5000, 100, 5000}, {1024, 1024, 1024}}

func randSlice(n int) []float64 {
	r := rand.New(rand.NewPCG(uint64(n), 1))
	x := make([]float64, n)
	for i := range x {
		x[i] = r.Float64()
	}
	return x
}

// BenchmarkAtX compares this package's Dgemm with gonum's for C = AᵀX
// (k×M): on all cores with the default kernel, and on one core with each
// kernel the CPU runs; GFLOP/s are reported.
func BenchmarkAtX(b *testing.B) {
	for _, s := range shapes {
		N, k, M := s[0], s[1], s[2]
		a, x, c := randSlice(N*k), randSlice(N*M), make([]float64, k*M)
		flops := 2 * float64(N) * float64(k) * float64(M)
		impls := []string{"gonum", "ours"}
		for _, kern := range kernels() {
			impls = append(impls, kern.name+"-1core")
		}
		for _, impl := range impls {
			b.Run(fmt.Sprintf("%dx%dx%d/%s", N, k, M, impl), func(b *testing.B) {
				workers := 0
				for _, kern := range kernels() {
					if impl == kern.name+"-1core" {
						defer useKernel(kern)()
						workers = 1
					}
				}
				for b.Loop() {
					if impl == "gonum" {
						blas64.Gemm(blas.Trans, blas.NoTrans, 1, blas64.General{Rows: N, Cols: k, Stride: k, Data: a},
							blas64.General{Rows: N, Cols: M, Stride: M, Data: x}, 0, blas64.General{Rows: k, Cols: M, Stride: M, Data: c})
					} else {
						Dgemm(true, false, k, M, N, 1, a, k, x, M, 0, c, M, workers)
					}
				}
				b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

// BenchmarkPackA packs one panel of kb rows (kc) of op(A), in strips of
// each kernel height, from both layouts: the generic path (strips of 24
// rows of a row-major A, as packB does for a transposed B) reads the
// strip's rows side by side.
func BenchmarkPackA(b *testing.B) {
	for _, MR := range []int{8, 24} {
		for _, tA := range []bool{false, true} {
			mb, kb := 10*MR, kc
			lda := kb
			if tA {
				lda = mb
			}
			a := randSlice(mb * kb)
			dst := make([]float64, mb*kb)
			b.Run(fmt.Sprintf("MR=%d/tA=%v", MR, tA), func(b *testing.B) {
				for b.Loop() {
					packA(MR, tA, mb, kb, a, lda, 0, 0, dst)
				}
				b.SetBytes(int64(8 * mb * kb))
			})
		}
	}
}
