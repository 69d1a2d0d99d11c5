package gather

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// Axpy adds the terms in order of p, each as one fused multiply-add where
// the CPU has FMA (else a product and a sum): bit for bit the loop below,
// for widths 1 to 70, which take every kernel (32, 28, ..., 4, 2, 1); Add,
// one term at a time, gives the same sums.
func TestAxpyMatchesTheLoop(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for k := 1; k <= 70; k++ {
		rows, ldb := 50, k+3
		b := make([]float64, rows*ldb)
		for i := range b {
			b[i] = rng.NormFloat64()
		}
		n := 1 + rng.IntN(30)
		vals, idx := make([]float64, n), make([]int, n)
		for p := range vals {
			vals[p], idx[p] = rng.NormFloat64(), rng.IntN(rows)
		}
		alpha := 0.7
		acc, want := make([]float64, k), make([]float64, k)
		for j := range acc {
			acc[j] = rng.NormFloat64()
			want[j] = acc[j]
		}
		full := 0
		if haveFMA {
			full = k
		}
		for p, i := range idx {
			v := alpha * vals[p]
			for j := range want {
				if j < full {
					want[j] = math.FMA(v, b[i*ldb+j], want[j])
				} else {
					want[j] += v * b[i*ldb+j]
				}
			}
		}
		one := append([]float64(nil), acc...)
		Axpy(acc, alpha, vals, idx, b, ldb)
		for p, i := range idx {
			Add(one, alpha*vals[p], b[i*ldb:i*ldb+k])
		}
		for j := range acc {
			if acc[j] != want[j] || one[j] != want[j] {
				t.Fatalf("k %d: entry %d is %v (Axpy) and %v (Add), want %v", k, j, acc[j], one[j], want[j])
			}
		}
	}
}

func TestAxpyPanicsOutOfRange(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic for an index past b")
		}
	}()
	Axpy(make([]float64, 4), 1, []float64{1}, []int{3}, make([]float64, 12), 4)
}

func BenchmarkAxpy20(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	const rows, k, n = 50000, 20, 70
	m := make([]float64, rows*k)
	for i := range m {
		m[i] = rng.Float64()
	}
	vals, idx := make([]float64, n), make([]int, n)
	for p := range vals {
		vals[p], idx[p] = rng.Float64(), rng.IntN(rows)
	}
	acc := make([]float64, k)
	for b.Loop() {
		Axpy(acc, 1, vals, idx, m, k)
	}
}

// BenchmarkAxpyScattered gathers k-wide rows of a 100000-row matrix (16 MB
// at k = 20) for 10⁴ columns of 40 random non-zeros each, as a sparse
// product over a large vocabulary does: the rows come from memory, not
// from L1. k = 20, 30 (the randomized SVD's width at rank 20) and 50.
func BenchmarkAxpyScattered(b *testing.B) {
	for _, k := range []int{10, 20, 30, 50} {
		b.Run(fmt.Sprintf("k=%d", k), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			const rows, cols, nnz = 100000, 10000, 40
			m := make([]float64, rows*k)
			for i := range m {
				m[i] = rng.Float64()
			}
			vals, idx := make([]float64, cols*nnz), make([]int, cols*nnz)
			for p := range vals {
				vals[p], idx[p] = rng.Float64(), rng.IntN(rows)
			}
			acc := make([]float64, k)
			for b.Loop() {
				for c := range cols {
					Axpy(acc, 1, vals[c*nnz:(c+1)*nnz], idx[c*nnz:(c+1)*nnz], m, k)
				}
			}
		})
	}
}
