package bench

import (
	"fmt"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/neuralnmf/neuralnmf/autograd"
	"github.com/neuralnmf/neuralnmf/ops"
	"github.com/neuralnmf/neuralnmf/tensor"
)

var matmulShapes = [][3]int{{90, 9, 87}, {1000, 20, 2000}, {500, 500, 500}}

// BenchmarkMatMul records a·b on a reused tape; BenchmarkDgemm is the raw
// BLAS call of the same shape, the baseline.
func BenchmarkMatMul(b *testing.B) {
	for _, s := range matmulShapes {
		b.Run(fmt.Sprintf("%dx%dx%d", s[0], s[1], s[2]), func(b *testing.B) {
			rng := tensor.NewRand(1)
			x := tensor.Uniform(s[0], s[1], 0, 1, rng)
			y := tensor.Uniform(s[1], s[2], 0, 1, rng)
			t := autograd.NewTape()
			b.ReportAllocs()
			for b.Loop() {
				t.Reset()
				ops.MatMul(t.Const(x), t.Const(y))
			}
		})
	}
}

func BenchmarkDgemm(b *testing.B) {
	for _, s := range matmulShapes {
		b.Run(fmt.Sprintf("%dx%dx%d", s[0], s[1], s[2]), func(b *testing.B) {
			rng := tensor.NewRand(1)
			x := tensor.Uniform(s[0], s[1], 0, 1, rng)
			y := tensor.Uniform(s[1], s[2], 0, 1, rng)
			c := tensor.New(s[0], s[2])
			b.ReportAllocs()
			for b.Loop() {
				blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, x.RawMatrix(), y.RawMatrix(), 0, c.RawMatrix())
			}
		})
	}
}

// BenchmarkComposedLoss is forward + backward of the semi-supervised NMF loss
// ‖X − AS‖² + λ‖Z∘(Y − (Z∘Y)S†S)‖² on a reused tape: the shape of one Neural
// NMF training step without the NNLS layer.
func BenchmarkComposedLoss(b *testing.B) {
	const n, k, m, p = 90, 9, 87, 9
	rng := tensor.NewRand(2)
	x := tensor.Uniform(n, m, 0, 1, rng)
	a := tensor.Uniform(n, k, 0, 1, rng)
	s := tensor.Uniform(k, m, 0, 1, rng)
	y := tensor.Uniform(p, m, 0, 1, rng)
	known := make([]bool, m)
	for i := range known {
		known[i] = i%5 < 2
	}
	z := tensor.ColumnMask(p, known)
	t := autograd.NewTape()
	b.ReportAllocs()
	for b.Loop() {
		t.Reset()
		av, sv := t.Param(a), t.Param(s)
		zv, yv := t.Const(z), t.Const(y)
		rec := ops.FrobeniusLoss(t.Const(x), ops.MatMul(av, sv))
		bm := ops.MatMul(ops.Hadamard(zv, yv), ops.Pinv(sv))
		sup := ops.MaskedLoss(zv, yv, ops.MatMul(bm, sv))
		loss := ops.Add(rec, ops.Scale(sup, 0.5))
		if _, err := t.Backward(loss); err != nil {
			b.Fatal(err)
		}
	}
}
