package neuralnmf_test

import (
	"bytes"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/models/ssnmf"
	"github.com/neuralnmf/neuralnmf/nnkl"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// klCounts is a word-count-like matrix: Poisson counts of a nonnegative
// rank-r model whose topics use a third of the words each.
func klCounts(n, m, r int, seed uint64) *tensor.Dense {
	rng := tensor.NewRand(seed)
	w, h := tensor.Uniform(n, r, 0, 2, rng), tensor.Uniform(r, m, 0, 1, rng)
	for i := range w.Data {
		if rng.Float64() < 0.67 {
			w.Data[i] = 0
		}
	}
	y := tensor.MatMul(false, false, w, h)
	x := tensor.New(n, m)
	for i, v := range y.Data {
		l, p, c := math.Exp(-v), rng.Float64(), 0
		for ; p > l; p *= rng.Float64() {
			c++
		}
		x.Data[i] = float64(c)
	}
	return x
}

// Loss KL trains every layer as a KL layer: its recorded losses are the
// divergence D(X ‖ A⁽⁰⁾⋯S⁽ᴸ⁾) of the model's own factors, they fall from
// the KL-HNMF start, each S is the certified KL solve of its input (as
// Transform recomputes it), and dense and sparse X train alike.
func TestTrainKL(t *testing.T) {
	x := klCounts(80, 120, 4, 11)
	xs := tensor.SparseFromDense(x)
	for _, ranks := range [][]int{{4}, {4, 2}} {
		cfg := neuralnmf.Config{Ranks: ranks, Loss: neuralnmf.KL, Epochs: 60, Tol: -1}
		m, err := neuralnmf.Train(x, cfg)
		require.NoError(t, err)
		h := m.History.Loss
		require.Len(t, h, 60)
		require.Less(t, h[len(h)-1], h[0], "ranks %v: the epochs lower D", ranks)
		require.InEpsilon(t, ssnmf.KLDivergence(xs, m.A[0], belowFirstOf(m)), h[len(h)-1], 1e-9)

		in := x
		for l, a := range m.A {
			res, err := nnkl.Solve(a, in, nil)
			require.NoError(t, err)
			s := res.S
			for i, v := range s.Data {
				require.InDelta(t, v, m.S[l].Data[i], 1e-9*(1+math.Abs(v)), "layer %d entry %d", l, i)
			}
			in = s
		}
		out, err := m.Transform(x)
		require.NoError(t, err)
		for l := range out {
			for i, v := range out[l].Data {
				require.InDelta(t, m.S[l].Data[i], v, 1e-9*(1+math.Abs(v)))
			}
		}

		ms, err := neuralnmf.Train(xs, cfg)
		require.NoError(t, err)
		require.InEpsilon(t, h[len(h)-1], ms.History.Loss[len(h)-1], 1e-9, "sparse and dense X")
		outS, err := ms.Transform(xs)
		require.NoError(t, err)
		require.InDelta(t, ms.S[0].Data[0], outS[0].Data[0], 1e-9*(1+ms.S[0].Data[0]))

		var buf bytes.Buffer
		require.NoError(t, m.Write(&buf))
		back, err := neuralnmf.Read(&buf)
		require.NoError(t, err)
		again, err := back.Transform(x)
		require.NoError(t, err)
		require.Equal(t, out[len(out)-1].Data, again[len(again)-1].Data, "a read model solves KL layers too")
	}
}

// belowFirstOf is A⁽¹⁾⋯A⁽ᴸ⁾S⁽ᴸ⁾ of m.
func belowFirstOf(m *neuralnmf.Model) *tensor.Dense {
	r := m.S[len(m.S)-1]
	for l := len(m.A) - 1; l >= 1; l-- {
		r = tensor.MatMul(false, false, m.A[l], r)
	}
	return r
}

func TestTrainKLConfigErrors(t *testing.T) {
	x := klCounts(20, 30, 2, 3)
	base := neuralnmf.Config{Ranks: []int{2}, Loss: neuralnmf.KL, Epochs: 2}
	for name, edit := range map[string]func(*neuralnmf.Config){
		"DataMask":    func(c *neuralnmf.Config) { c.DataMask = tensor.New(20, 30) },
		"AlphaS":      func(c *neuralnmf.Config) { c.AlphaS = 0.1 },
		"AlphaA":      func(c *neuralnmf.Config) { c.AlphaA = 0.1 },
		"BatchSize":   func(c *neuralnmf.Config) { c.BatchSize = 10 },
		"Supervision": func(c *neuralnmf.Config) { c.Supervision = &neuralnmf.Supervision{Labels: make([]int, 30), Classes: 1} },
		"Algorithm1":  func(c *neuralnmf.Config) { c.Algorithm1, c.Optimizer = true, neuralnmf.GD },
	} {
		cfg := base
		edit(&cfg)
		_, err := neuralnmf.Train(x, cfg)
		require.ErrorIs(t, err, neuralnmf.ErrConfig, name)
		require.ErrorContains(t, err, name)
	}
	cfg := base
	cfg.Loss = 7
	_, err := neuralnmf.Train(x, cfg)
	require.ErrorIs(t, err, neuralnmf.ErrConfig)
}
