package ssnmf_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/datasets/synthetic"
	"github.com/neuralnmf/neuralnmf/internal/randmat"
	"github.com/neuralnmf/neuralnmf/models/ssnmf"
	"github.com/neuralnmf/neuralnmf/tensor"
)

func relErr(x, r *tensor.Dense) float64 {
	d := tensor.New(x.Rows, x.Cols)
	tensor.Sub(d, x, r)
	return tensor.Norm(d) / tensor.Norm(x)
}

func synthLabels(t *testing.T, classes, percent int) *ssnmf.Labels {
	labels, err := synthetic.Labels(classes)
	require.NoError(t, err)
	y, err := tensor.OneHot(labels, classes)
	require.NoError(t, err)
	known, err := synthetic.Known(percent)
	require.NoError(t, err)
	return &ssnmf.Labels{Y: y, Z: tensor.ColumnMask(classes, known), Lambda: 1}
}

// The multiplicative updates must never increase the objective, with or
// without labels and masks. Relative slack 1e-12 covers rounding only.
func TestObjectiveNeverIncreases(t *testing.T) {
	x := synthetic.X()
	rng := tensor.NewRand(3)
	w := tensor.New(x.Rows, x.Cols)
	for i := range w.Data {
		if rng.Float64() < 0.9 {
			w.Data[i] = 1
		}
	}
	cases := []struct {
		name string
		lab  *ssnmf.Labels
		w    *tensor.Dense
	}{
		{"NMF", nil, nil},
		{"NMF-masked", nil, w},
		{"SSNMF-40%", synthLabels(t, 9, 40), nil},
		{"SSNMF-masked", synthLabels(t, 9, 90), w},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, err := ssnmf.SSNMF(x, 9, tc.lab, &ssnmf.Options{MaxIter: 300, Tol: -1, W: tc.w, Seed: 5})
			require.NoError(t, err)
			require.Len(t, f.Objective, 300)
			for i := 1; i < len(f.Objective); i++ {
				require.LessOrEqual(t, f.Objective[i], f.Objective[i-1]*(1+1e-12), "iteration %d", i)
			}
			require.Less(t, f.Objective[len(f.Objective)-1], f.Objective[0]/2)
		})
	}
}

func TestNMFRecoversLowRank(t *testing.T) {
	rng := tensor.NewRand(7)
	a := tensor.Uniform(30, 4, 0, 1, rng)
	s := tensor.Uniform(4, 40, 0, 1, rng)
	x := tensor.MatMul(false, false, a, s)
	f, err := ssnmf.NMF(x, 4, &ssnmf.Options{MaxIter: 5000, Tol: -1})
	require.NoError(t, err)
	require.Less(t, relErr(x, tensor.MatMul(false, false, f.A, f.S)), 0.01)
}

func TestHNMFShapes(t *testing.T) {
	x := synthetic.X()
	h, err := ssnmf.HNMF(x, []int{9, 4, 2}, synthLabels(t, 2, 40), &ssnmf.Options{MaxIter: 50})
	require.NoError(t, err)
	dims := [][2]int{{87, 9}, {9, 4}, {4, 2}}
	for l, d := range dims {
		require.Equal(t, d[0], h.A[l].Rows)
		require.Equal(t, d[1], h.A[l].Cols)
		require.Equal(t, d[1], h.S[l].Rows)
		require.Equal(t, 90, h.S[l].Cols)
	}
	require.Equal(t, 2, h.B.Rows)
	require.Equal(t, 87, h.Reconstruction().Rows)
}

func TestDeepNMF(t *testing.T) {
	x := synthetic.X()
	h, err := ssnmf.DeepNMF(x, []int{9, 4}, nil, &ssnmf.DeepOptions{Options: ssnmf.Options{MaxIter: 300}, Sweeps: 50})
	require.NoError(t, err)
	e := relErr(x, h.Reconstruction())
	require.Less(t, e, 0.9)
	require.False(t, math.IsNaN(e))
	bad := func(s *tensor.Dense) *tensor.Dense { return tensor.New(1, 1) }
	_, err = ssnmf.DeepNMF(x, []int{9, 4}, nil, &ssnmf.DeepOptions{Pool: bad})
	require.ErrorContains(t, err, "Pool changed the shape")
}

func TestMaxPool(t *testing.T) {
	s := tensor.MustFromRows([][]float64{{1, 5}, {3, 2}, {0, 4}})
	require.Equal(t, []float64{3, 5, 3, 4, 0, 4}, ssnmf.MaxPoolRows(s).Data)
	require.Equal(t, []float64{5, 5, 3, 2, 4, 4}, ssnmf.MaxPoolCols(s).Data)
}

func TestErrors(t *testing.T) {
	x := synthetic.X()
	neg := x.Clone()
	neg.Set(3, 4, -1)
	cases := []struct {
		name string
		err  error
		msg  string
	}{
		{"rank0", func() error { _, e := ssnmf.NMF(x, 0, nil); return e }(), "rank 0"},
		{"rank-big", func() error { _, e := ssnmf.NMF(x, 88, nil); return e }(), "rank 88"},
		{"negative", func() error { _, e := ssnmf.NMF(neg, 3, nil); return e }(), "X: negative entry: entry (3, 4)"},
		{"mask-shape", func() error { _, e := ssnmf.NMF(x, 3, &ssnmf.Options{W: tensor.New(2, 2)}); return e }(), "W: shape mismatch"},
		{"labels-shape", func() error {
			_, e := ssnmf.SSNMF(x, 3, &ssnmf.Labels{Y: tensor.New(2, 5), Z: tensor.New(2, 5)}, nil)
			return e
		}(), "Y: shape mismatch"},
		{"lambda", func() error {
			l := synthLabels(t, 2, 40)
			l.Lambda = -1
			_, e := ssnmf.SSNMF(x, 3, l, nil)
			return e
		}(), "lambda"},
		{"ranks-increase", func() error { _, e := ssnmf.HNMF(x, []int{4, 9}, nil, nil); return e }(), "ranks must decrease"},
		{"no-ranks", func() error { _, e := ssnmf.HNMF(x, nil, nil, nil); return e }(), "no layer ranks"},
		{"eps-negative", func() error { _, e := ssnmf.NMF(x, 3, &ssnmf.Options{Eps: -1}); return e }(), "Eps is -1"},
		{"eps-nan", func() error {
			_, e := ssnmf.NMFSparse(tensor.SparseFromDense(x), 3, &ssnmf.Options{Eps: math.NaN()})
			return e
		}(), "Eps is NaN"},
	}
	for _, tc := range cases {
		require.Error(t, tc.err, tc.name)
		require.Contains(t, tc.err.Error(), tc.msg, tc.name)
	}
}

// A sparse X and its dense copy give the same factorisations (fixed
// iteration counts, so the stopping rules cannot differ at the margin).
func TestSparseMatchesDense(t *testing.T) {
	rng := tensor.NewRand(9)
	x := randmat.Sparse(60, 40, 0.85, rng)
	xs := tensor.SparseFromDense(x)
	opt := &ssnmf.Options{MaxIter: 200, Tol: -1, Seed: 4, Restarts: 3, RestartIters: 20}
	hd, err := ssnmf.HNMF(x, []int{6, 3}, nil, opt)
	require.NoError(t, err)
	hs, err := ssnmf.HNMFSparse(xs, []int{6, 3}, nil, opt)
	require.NoError(t, err)
	for l := range hd.A {
		for i := range hd.A[l].Data {
			require.InDelta(t, hd.A[l].Data[i], hs.A[l].Data[i], 1e-10, "A[%d]", l)
		}
		for i := range hd.S[l].Data {
			require.InDelta(t, hd.S[l].Data[i], hs.S[l].Data[i], 1e-10, "S[%d]", l)
		}
	}
	f, err := ssnmf.NMFSparse(xs, 4, &ssnmf.Options{MaxIter: 100, Stop: ssnmf.StopFirst, Tol: 1e-4})
	require.NoError(t, err)
	require.Less(t, len(f.Objective), 100, "StopFirst stops early")
	for i := 1; i < len(f.Objective); i++ {
		require.LessOrEqual(t, f.Objective[i], f.Objective[i-1]*(1+1e-9))
	}
}

// With Options.Rand the start is drawn from the given source (A, then S,
// row-major, unscaled with UnscaledInit) and Eps is added to every
// denominator: one update from a known start, checked against the update
// computed by hand.
func TestRandSourceAndEps(t *testing.T) {
	x, err := tensor.FromRows([][]float64{{1, 2}, {3, 4}})
	require.NoError(t, err)
	seq := &counter{}
	calls := []int{}
	opt := &ssnmf.Options{MaxIter: 1, UnscaledInit: true, Eps: 0.5,
		Rand: func(layer, restart int) ssnmf.Float64Source { calls = append(calls, layer, restart); return seq }}
	f, err := ssnmf.NMF(x, 1, opt)
	require.NoError(t, err)
	require.Equal(t, []int{0, 0}, calls)
	// Start A = [0.1; 0.2], S = [0.3 0.4] (the counter's draws).
	// A ← A∘(XSᵀ)/(A·SSᵀ + ε): SSᵀ = 0.25, XSᵀ = [1.1; 2.5].
	a0 := 0.1 * 1.1 / (0.1*0.25 + 0.5)
	a1 := 0.2 * 2.5 / (0.2*0.25 + 0.5)
	// S ← S∘(AᵀX)/(AᵀA·S + ε) with the new A.
	ata := a0*a0 + a1*a1
	s0 := 0.3 * (a0*1 + a1*3) / (ata*0.3 + 0.5)
	s1 := 0.4 * (a0*2 + a1*4) / (ata*0.4 + 0.5)
	require.InDeltaSlice(t, []float64{a0, a1}, f.A.Data, 1e-15)
	require.InDeltaSlice(t, []float64{s0, s1}, f.S.Data, 1e-15)
}

// counter yields 0.1, 0.2, 0.3, ...
type counter struct{ n int }

func (c *counter) Float64() float64 { c.n++; return float64(c.n) / 10 }

// Data whose squares overflow made every restart's error NaN, and HNMF
// dereferenced a start it never chose. It must return, not panic.
func TestHNMFOverflowingDataDoesNotPanic(t *testing.T) {
	x := tensor.Uniform(8, 6, 0, 1, tensor.NewRand(3))
	tensor.Scale(x, 1e300, x)
	require.NotPanics(t, func() {
		_, _ = ssnmf.HNMF(x, []int{3, 2}, nil, &ssnmf.Options{Restarts: 3, Seed: 1})
	})
}
