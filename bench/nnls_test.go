package bench

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/neuralnmf/neuralnmf/nnls"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// nnlsSizes are (N, k, M): the synthetic demo's first layer, then three sizes
// of the kind a topic model meets.
var nnlsSizes = [][3]int{{90, 9, 87}, {1000, 20, 2000}, {2000, 50, 10000}, {5000, 100, 5000}}

// problem is one benchmark input: A and X uniform in [0, 1), A1 = A with
// every entry perturbed by up to ±1 %, and the solution at A (whose support
// warm-starts the solve at A1).
type problem struct {
	a, a1, x *tensor.Dense
	res      *nnls.Result
	gs       *tensor.Dense // an upstream gradient for the backward pass
}

var problems sync.Map // [3]int → *problem; built once per size, outside timers

func getProblem(b *testing.B, s [3]int) *problem {
	if p, ok := problems.Load(s); ok {
		return p.(*problem)
	}
	rng := tensor.NewRand(uint64(s[0]*s[1] + s[2]))
	p := &problem{
		a: tensor.Uniform(s[0], s[1], 0, 1, rng),
		x: tensor.Uniform(s[0], s[2], 0, 1, rng),
	}
	p.a1 = p.a.Clone()
	for i := range p.a1.Data {
		p.a1.Data[i] *= 1 + 0.01*(2*rng.Float64()-1)
	}
	var err error
	if p.res, err = nnls.Solve(p.a, p.x, nil); err != nil {
		b.Fatal(err)
	}
	p.gs = tensor.Uniform(s[1], s[2], -1, 1, rng)
	problems.Store(s, p)
	return p
}

func name(s [3]int) string { return fmt.Sprintf("%dx%dx%d", s[0], s[1], s[2]) }

// BenchmarkNNLSCold is the forward solve from scratch at A1.
func BenchmarkNNLSCold(b *testing.B) {
	for _, s := range nnlsSizes {
		b.Run(name(s), func(b *testing.B) {
			p := getProblem(b, s)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := nnls.Solve(p.a1, p.x, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkNNLSWarm is the forward solve at A1 warm-started from the support
// at A (1 % drift): what a training step does.
func BenchmarkNNLSWarm(b *testing.B) {
	for _, s := range nnlsSizes {
		b.Run(name(s), func(b *testing.B) {
			p := getProblem(b, s)
			opt := &nnls.Options{Warm: p.res.Support}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := nnls.Solve(p.a1, p.x, opt); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkNNLSBackward computes both ∂L/∂A and ∂L/∂X.
func BenchmarkNNLSBackward(b *testing.B) {
	for _, s := range nnlsSizes {
		b.Run(name(s), func(b *testing.B) {
			p := getProblem(b, s)
			ga, gx := tensor.New(s[0], s[1]), tensor.New(s[0], s[2])
			b.ReportAllocs()
			for b.Loop() {
				if err := p.res.Backward(p.a, p.x, p.gs, ga, gx, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDgemmAtX is the baseline for the forward pass: AᵀX (k×N times
// N×M), which any NNLS of this shape must at least compute, by the
// project's GEMM (tensor.Gemm) and by gonum's Dgemm.
func BenchmarkDgemmAtX(b *testing.B) {
	for _, s := range nnlsSizes {
		for _, impl := range []string{"ours", "gonum"} {
			b.Run(name(s)+"/"+impl, func(b *testing.B) {
				p := getProblem(b, s)
				c := tensor.New(s[1], s[2])
				b.ReportAllocs()
				for b.Loop() {
					if impl == "ours" {
						tensor.Gemm(true, false, 1, p.a, p.x, 0, c)
					} else {
						blas64.Gemm(blas.Trans, blas.NoTrans, 1, p.a.RawMatrix(), p.x.RawMatrix(), 0, c.RawMatrix())
					}
				}
				b.ReportMetric(2*float64(s[0]*s[1])*float64(s[2])*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

// BenchmarkDgemm2NKM is the baseline for the backward pass: two Dgemms of
// shape N×k×M (A·U and X·Uᵀ).
func BenchmarkDgemm2NKM(b *testing.B) {
	for _, s := range nnlsSizes {
		b.Run(name(s), func(b *testing.B) {
			p := getProblem(b, s)
			u := tensor.Uniform(s[1], s[2], -1, 1, tensor.NewRand(1))
			au, xu := tensor.New(s[0], s[2]), tensor.New(s[0], s[1])
			b.ReportAllocs()
			for b.Loop() {
				blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, p.a.RawMatrix(), u.RawMatrix(), 0, au.RawMatrix())
				blas64.Gemm(blas.NoTrans, blas.Trans, 1, p.x.RawMatrix(), u.RawMatrix(), 0, xu.RawMatrix())
			}
		})
	}
}

// BenchmarkNNLSRatios interleaves, in every iteration, the AᵀX product
// (tensor.Gemm, the project's GEMM, and gonum's Dgemm), the cold solve, the
// warm solve, the backward pass and two N×k×M products, and reports the
// ratios the project's targets are stated in: to the project's GEMM of the
// same shapes (the floor), and gonum/ours for the GEMM itself. On a shared,
// noisy machine interleaving keeps numerator and denominator under the same
// load, which separate benchmarks cannot. The ns/op it reports is the sum of
// all six parts.
//
//	go test -run '^$' -bench NNLSRatios -count 6 ./bench/
func BenchmarkNNLSRatios(b *testing.B) {
	for _, s := range nnlsSizes {
		b.Run(name(s), func(b *testing.B) {
			p := getProblem(b, s)
			c := tensor.New(s[1], s[2])
			u := tensor.Uniform(s[1], s[2], -1, 1, tensor.NewRand(1))
			au, xu := tensor.New(s[0], s[2]), tensor.New(s[0], s[1])
			ga, gx := tensor.New(s[0], s[1]), tensor.New(s[0], s[2])
			warm := &nnls.Options{Warm: p.res.Support}
			var tGemm, tGonum, tCold, tWarm, tBack, t2Gemm time.Duration
			lap := func(d *time.Duration, f func()) {
				t0 := time.Now()
				f()
				*d += time.Since(t0)
			}
			for b.Loop() {
				lap(&tGemm, func() { tensor.Gemm(true, false, 1, p.a1, p.x, 0, c) })
				lap(&tGonum, func() {
					blas64.Gemm(blas.Trans, blas.NoTrans, 1, p.a1.RawMatrix(), p.x.RawMatrix(), 0, c.RawMatrix())
				})
				lap(&tCold, func() {
					if _, err := nnls.Solve(p.a1, p.x, nil); err != nil {
						b.Fatal(err)
					}
				})
				lap(&tWarm, func() {
					if _, err := nnls.Solve(p.a1, p.x, warm); err != nil {
						b.Fatal(err)
					}
				})
				lap(&tBack, func() {
					if err := p.res.Backward(p.a, p.x, p.gs, ga, gx, 0); err != nil {
						b.Fatal(err)
					}
				})
				lap(&t2Gemm, func() {
					tensor.Gemm(false, false, 1, p.a, u, 0, au)
					tensor.Gemm(false, true, 1, p.x, u, 0, xu)
				})
			}
			b.ReportMetric(float64(tCold)/float64(tGemm), "cold/AtX-gemm")
			b.ReportMetric(float64(tGonum)/float64(tGemm), "gonum/ours")
			b.ReportMetric(float64(tCold)/float64(tWarm), "cold/warm")
			b.ReportMetric(float64(tBack)/float64(t2Gemm), "backward/2gemm")
		})
	}
}

// BenchmarkNNLSIllConditioned measures what ill-conditioning costs: at
// (1000, 20, 2000) it interleaves the AᵀX Dgemm, the cold solve with a
// uniform A (every column on the fast path), and the cold solve with an A
// whose columns differ from a common one by 10⁻⁸ of it (cond ≈ 10⁹ after
// column scaling, every column by Lawson–Hanson on R, small supports), and
// with a uniform A whose columns 0 and 1 differ by 10⁻⁸ (every column by
// Lawson–Hanson, supports as large as the uniform A's), and reports the
// solves as ratios to the Dgemm.
//
//	go test -run '^$' -bench NNLSIllConditioned -count 3 ./bench/
func BenchmarkNNLSIllConditioned(b *testing.B) {
	const n, k, m = 1000, 20, 2000
	rng := tensor.NewRand(7)
	well := tensor.Uniform(n, k, 0, 1, rng)
	ill := tensor.Uniform(n, k, 0, 1, rng)
	w := tensor.Uniform(n, 1, 0.5, 1, rng)
	for r := 0; r < n; r++ {
		for j := 0; j < k; j++ {
			ill.Set(r, j, w.At(r, 0)+1e-8*ill.At(r, j))
		}
	}
	// pair: a uniform A whose column 1 is column 0 plus 10⁻⁸ noise, so A is
	// ill-conditioned (every column by Lawson–Hanson) but supports are as
	// large as for the uniform A.
	pair := well.Clone()
	for r := 0; r < n; r++ {
		pair.Set(r, 1, pair.At(r, 0)*(1+1e-8*rng.Float64()))
	}
	x := tensor.Uniform(n, m, 0, 1, rng)
	c := tensor.New(k, m)
	var tGemm, tWell, tIll, tPair time.Duration
	var fallbacks int
	lap := func(d *time.Duration, f func()) {
		t0 := time.Now()
		f()
		*d += time.Since(t0)
	}
	for b.Loop() {
		lap(&tGemm, func() {
			tensor.Gemm(true, false, 1, well, x, 0, c)
		})
		lap(&tWell, func() {
			if _, err := nnls.Solve(well, x, nil); err != nil {
				b.Fatal(err)
			}
		})
		lap(&tIll, func() {
			r, err := nnls.Solve(ill, x, nil)
			if err != nil {
				b.Fatal(err)
			}
			fallbacks = r.Stats.Fallbacks
		})
		lap(&tPair, func() {
			if _, err := nnls.Solve(pair, x, nil); err != nil {
				b.Fatal(err)
			}
		})
	}
	b.ReportMetric(float64(tWell)/float64(tGemm), "well/AtX-gemm")
	b.ReportMetric(float64(tIll)/float64(tGemm), "ill/AtX-gemm")
	b.ReportMetric(float64(tPair)/float64(tGemm), "pair/AtX-gemm")
	b.ReportMetric(float64(fallbacks)/m, "ill-LH-share")
}
