//go:build openblas

// OpenBLAS beside the project's GEMM. Opt-in: it needs cgo and OpenBLAS
// (Debian: apt-get install libopenblas-dev):
//
//	OPENBLAS_NUM_THREADS=1 CGO_LDFLAGS=-lopenblas go test -tags openblas -run OpenBLAS -bench OpenBLAS ./bench/
//
// A program plugs OpenBLAS in the gonum way, blas64.Use(netlib.Implementation{}),
// and every product of neuralnmf (tensor.Gemm, the NNLS solver) then runs on it.

package bench

import (
	"fmt"
	"testing"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/netlib/blas/netlib"

	"github.com/neuralnmf/neuralnmf/internal/gemm"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// blas64.Use(netlib.Implementation{}) routes tensor.Gemm to OpenBLAS.
func TestOpenBLASPlugsIn(t *testing.T) {
	rng := tensor.NewRand(1)
	a, x := tensor.Uniform(300, 20, 0, 1, rng), tensor.Uniform(300, 400, 0, 1, rng)
	want := tensor.New(20, 400)
	netlib.Implementation{}.Dgemm(blas.Trans, blas.NoTrans, 20, 400, 300, 1, a.Data, a.Stride, x.Data, x.Stride, 0, want.Data, want.Stride)
	blas64.Use(netlib.Implementation{})
	defer blas64.Use(gonum.Implementation{})
	got := tensor.MatMul(true, false, a, x)
	for i := range got.Data {
		if got.Data[i] != want.Data[i] {
			t.Fatalf("entry %d: %v, OpenBLAS gives %v", i, got.Data[i], want.Data[i])
		}
	}
}

// BenchmarkOpenBLAS interleaves, per iteration, AᵀX by OpenBLAS (threads as
// OPENBLAS_NUM_THREADS says) and by internal/gemm on one core, and reports
// ours/openblas (time ratio) and each one's GFLOP/s.
func BenchmarkOpenBLAS(b *testing.B) {
	for _, s := range [][3]int{{1000, 20, 2000}, {2000, 50, 10000}, {5000, 100, 5000}, {1024, 1024, 1024}} {
		n, k, m := s[0], s[1], s[2]
		b.Run(fmt.Sprintf("%dx%dx%d", n, k, m), func(b *testing.B) {
			rng := tensor.NewRand(2)
			a, x := tensor.Uniform(n, k, 0, 1, rng), tensor.Uniform(n, m, 0, 1, rng)
			c := tensor.New(k, m)
			var tOurs, tOpen float64
			for b.Loop() {
				t0 := nanotime()
				netlib.Implementation{}.Dgemm(blas.Trans, blas.NoTrans, k, m, n, 1, a.Data, a.Stride, x.Data, x.Stride, 0, c.Data, c.Stride)
				t1 := nanotime()
				gemm.Dgemm(true, false, k, m, n, 1, a.Data, a.Stride, x.Data, x.Stride, 0, c.Data, c.Stride, 1)
				t2 := nanotime()
				tOpen += t1 - t0
				tOurs += t2 - t1
			}
			flops := 2 * float64(n) * float64(k) * float64(m) * float64(b.N)
			b.ReportMetric(tOurs/tOpen, "ours-1core/openblas")
			b.ReportMetric(flops/tOpen, "openblas-GFLOP/s")
			b.ReportMetric(flops/tOurs, "ours-1core-GFLOP/s")
		})
	}
}

var epoch0 = time.Now()

// nanotime is a monotonic clock in nanoseconds.
func nanotime() float64 { return float64(time.Since(epoch0).Nanoseconds()) }
