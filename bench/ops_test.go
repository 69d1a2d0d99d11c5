package bench

import (
	"fmt"
	"testing"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/neuralnmf/neuralnmf/autograd"
	"github.com/neuralnmf/neuralnmf/ops"
	"github.com/neuralnmf/neuralnmf/paper/news20"
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

// BenchmarkKLLayerNews20 is the KL layer's forward pass (KLLayerSparse)
// and backward pass (with SparseKLLoss on top) on the 20 Newsgroups matrix
// (45,534×1,000, 62,872 non-zeros) at k = 10 from a uniform random A,
// beside the NNLS layer's (NNLSSparse, the same loss) in the same run. It
// reports ms/forward and ms/backward of each and kl/nnls, the ratio of
// their whole steps. Skipped without ../shared/data/20news.
//
//	go test -run '^$' -bench KLLayerNews20 -count 3 ./bench/
func BenchmarkKLLayerNews20(b *testing.B) {
	d, err := news20.Load("../../shared/data/20news")
	if err != nil {
		b.Skipf("20 Newsgroups data not available: %v", err)
	}
	a := tensor.Uniform(d.X.Rows, 10, 0, 1, tensor.NewRand(7))
	layers := []struct {
		name  string
		layer func(*autograd.Var) *autograd.Var
	}{
		{"kl", func(av *autograd.Var) *autograd.Var { return ops.KLLayerSparse(av, d.X) }},
		{"nnls", func(av *autograd.Var) *autograd.Var { s, _ := ops.NNLSSparse(av, d.X, nil); return s }},
	}
	var fwd, bwd [2]time.Duration
	for b.Loop() {
		for i, l := range layers {
			tape := autograd.NewTape()
			av := tape.Param(a)
			t0 := time.Now()
			loss := ops.SparseKLLoss(d.X, av, l.layer(av))
			t1 := time.Now()
			if _, err := tape.Backward(loss); err != nil {
				b.Fatal(err)
			}
			fwd[i] += t1.Sub(t0)
			bwd[i] += time.Since(t1)
		}
	}
	n := float64(b.N)
	for i, l := range layers {
		b.ReportMetric(float64(fwd[i].Microseconds())/1e3/n, "ms/"+l.name+"-forward")
		b.ReportMetric(float64(bwd[i].Microseconds())/1e3/n, "ms/"+l.name+"-backward")
	}
	b.ReportMetric(float64(fwd[0]+bwd[0])/float64(fwd[1]+bwd[1]), "kl/nnls")
}
