package neuralnmf

import (
	"math"
	"runtime"

	"github.com/neuralnmf/neuralnmf/internal/parallel"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// onlineStats is the running quadratic model of the loss in A⁽⁰⁾ that the
// Statistics batch update minimises (see BatchUpdate). With P the columns
// that A⁽⁰⁾ multiplies in the loss's term on X (A⁽¹⁾⋯A⁽ᴸ⁾S⁽ᴸ⁾ for the
// reconstruction loss, S⁽⁰⁾ for the energy loss), a batch's gradient in
// A⁽⁰⁾ is coef·(A⁽⁰⁾PPᵀ − XPᵀ) + R, where R is what flows through the S's
// (zero for one layer without supervision: S⁽⁰⁾ minimises the same
// term). The model is ½tr(A C Aᵀ) − tr(Aᵀ E) with C = Σ βᵃ PPᵀ and
// E = Σ βᵃ (XPᵀ − R/coef) = Σ βᵃ (A⁽⁰⁾PPᵀ − G/coef), sums over the batches
// seen, each weighted by β to the power of its age in batches. E is
// formed from the gradient G the tape gives and the A⁽⁰⁾ it was taken at,
// so no X·Pᵀ is computed and the terms through S are kept.
type onlineStats struct {
	c, e   *tensor.Dense // k×k and N×k
	cb     *tensor.Dense // k×k scratch: the batch's PPᵀ
	forget float64       // per pass
	cols   int           // M, the columns of a pass
}

func newOnlineStats(n, k, cols int, forget float64) *onlineStats {
	return &onlineStats{c: tensor.New(k, k), e: tensor.New(n, k), cb: tensor.New(k, k), forget: forget, cols: cols}
}

// add folds in one batch of b columns: P
// (k×B), the gradient g of the loss in a (N×k) and the factor coef of the
// loss's term on X (the gradient of coef/2·‖X − aP‖² is coef·(aP − X)Pᵀ).
func (o *onlineStats) add(a, p, g *tensor.Dense, coef float64, b int) {
	tensor.Gemm(false, true, 1, p, p, 0, o.cb)
	o.addGram(a, o.cb, g, coef, b)
}

// addGram is add given the batch's PPᵀ (k×k) instead of P.
func (o *onlineStats) addGram(a, ppt, g *tensor.Dense, coef float64, b int) {
	beta := math.Pow(o.forget, float64(b)/float64(o.cols))
	tensor.Scale(o.c, beta, o.c)
	tensor.AddScaled(o.c, 1, ppt)
	// E ← βE + a·PPᵀ − g/coef.
	tensor.Gemm(false, false, 1, a, ppt, beta, o.e)
	tensor.AddScaled(o.e, -1/coef, g)
}

// prime sets the model to that of columns whose P is p, with a as its
// minimiser: C = PPᵀ, E = aC.
func (o *onlineStats) prime(a, p *tensor.Dense) {
	tensor.Gemm(false, true, 1, p, p, 0, o.c)
	tensor.Gemm(false, false, 1, a, o.c, 0, o.e)
}

// sweep takes one HALS sweep on a (N×k) over the model: each column j in
// turn is set to its nonnegative minimiser with the others fixed,
// a_j ← max(0, a_j + (e_j − a·c_j)/c_jj). A column whose c_jj is zero
// (no batch used that topic) is left alone. The rows are independent, so
// they are split over at most workers goroutines (0: GOMAXPROCS) with the
// same result for any number.
func (o *onlineStats) sweep(a *tensor.Dense, workers int) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	parallel.ForChunks(a.Rows, sweepChunk, workers, func(_, r0, r1 int) { o.sweepRows(a, r0, r1) })
}

// sweepChunk is the rows a goroutine of sweep takes at a time.
const sweepChunk = 2048

func (o *onlineStats) sweepRows(a *tensor.Dense, r0, r1 int) {
	k := a.Cols
	for i := r0; i < r1; i++ {
		ai, ei := a.Row(i), o.e.Row(i)
		for j := 0; j < k; j++ {
			cj := o.c.Row(j) // C is symmetric: row j is column j
			d := cj[j]
			if !(d > 0) {
				continue
			}
			num := ei[j]
			for l, v := range ai {
				num -= v * cj[l]
			}
			ai[j] = math.Max(0, ai[j]+num/d)
		}
	}
}
