package ops_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/autograd"
	"github.com/neuralnmf/neuralnmf/gradcheck"
	"github.com/neuralnmf/neuralnmf/nnls"
	"github.com/neuralnmf/neuralnmf/ops"
	"github.com/neuralnmf/neuralnmf/tensor"
)

func mustData(x *tensor.Dense) *nnls.Data {
	d, err := nnls.NewData(x)
	if err != nil {
		panic(err)
	}
	return d
}

// dataNet builds a network of len(a) layers on x (the first an
// ops.DataLayer when fused, else NNLS or NNLSSparse) and returns its loss
// ‖X − A⁽⁰⁾⋯A⁽ᴸ⁾S⁽ᴸ⁾‖², fused (DataLayer.Loss) or not (FactorLoss,
// SparseFrobeniusLoss).
func dataNet(t *autograd.Tape, x *tensor.Dense, xs *tensor.Sparse, a []*autograd.Var, fused bool) *autograd.Var {
	var dl *ops.DataLayer
	var s *autograd.Var
	switch {
	case fused && xs != nil:
		d, err := nnls.NewSparseData(xs)
		if err != nil {
			panic(err)
		}
		dl = ops.NNLSData(a[0], d, nil)
		s = dl.S
	case fused:
		dl = ops.NNLSData(a[0], mustData(x), nil)
		s = dl.S
	case xs != nil:
		s, _ = ops.NNLSSparse(a[0], xs, nil)
	default:
		s, _ = ops.NNLS(a[0], t.Const(x), nil)
	}
	var ss []*autograd.Var
	ss = append(ss, s)
	for _, al := range a[1:] {
		s, _ = ops.NNLS(al, s, nil)
		ss = append(ss, s)
	}
	h := ss[len(ss)-1]
	for l := len(a) - 1; l >= 1; l-- {
		h = ops.MatMul(a[l], h)
	}
	switch {
	case fused:
		return dl.Loss(h)
	case xs != nil:
		return ops.SparseFrobeniusLoss(xs, a[0], h)
	default:
		return ops.FactorLoss(t.Const(x), a[0], h)
	}
}

// The fused first layer and loss give the unfused network's value and
// gradients to rounding, for 1, 2 and 3 layers, dense and sparse, at a size
// where FactorLoss takes its blocked form.
func TestDataLayerMatchesUnfused(t *testing.T) {
	for _, sparse := range []bool{false, true} {
		for _, ranks := range [][]int{{8}, {8, 5}, {8, 5, 3}} {
			t.Run(fmt.Sprintf("sparse=%v/layers=%d", sparse, len(ranks)), func(t *testing.T) {
				x, xs := sparseX(uint64(31+len(ranks)), 220, 180, 0.3)
				if !sparse {
					xs = nil
				}
				rng := tensor.NewRand(uint64(7 * len(ranks)))
				var a0 []*tensor.Dense
				rows := x.Rows
				for _, k := range ranks {
					a0 = append(a0, tensor.Uniform(rows, k, 0.1, 1, rng))
					rows = k
				}
				var vals [2]float64
				var grads [2][]*tensor.Dense
				for i, fused := range []bool{false, true} {
					tape := autograd.NewTape()
					var a []*autograd.Var
					for _, ai := range a0 {
						a = append(a, tape.Param(ai))
					}
					loss := dataNet(tape, x, xs, a, fused)
					g, err := tape.Backward(loss)
					require.NoError(t, err)
					vals[i] = loss.Value().Data[0]
					for _, ai := range a {
						grads[i] = append(grads[i], g.Of(ai).Clone())
					}
				}
				require.InEpsilon(t, vals[0], vals[1], 1e-12)
				for l := range grads[0] {
					scale := tensor.MaxAbs(grads[0][l])
					for i := range grads[0][l].Data {
						require.InDelta(t, grads[0][l].Data[i], grads[1][l].Data[i], 1e-11*scale, "layer %d gradient entry %d", l, i)
					}
				}
			})
		}
	}
}

// The paper's theorem through the fused layer: gradcheck of the fused
// network in every A, through 1, 2 and 3 layers, dense and sparse.
func TestDataLayerGradcheck(t *testing.T) {
	for _, sparse := range []bool{false, true} {
		for _, ranks := range [][]int{{5}, {5, 3}, {5, 3, 2}} {
			t.Run(fmt.Sprintf("sparse=%v/layers=%d", sparse, len(ranks)), func(t *testing.T) {
				x, xs := sparseX(uint64(50+len(ranks)), 14, 11, 0.6)
				if !sparse {
					xs = nil
				}
				rng := tensor.NewRand(uint64(3 * len(ranks)))
				var in []*tensor.Dense
				rows := x.Rows
				for _, k := range ranks {
					in = append(in, tensor.Uniform(rows, k, 0.1, 1, rng))
					rows = k
				}
				f := func(t *autograd.Tape, a []*autograd.Var) *autograd.Var {
					return dataNet(t, x, xs, a, true)
				}
				rep := gradcheck.Assert(t, f, in, &gradcheck.Options{MaxSkipFraction: maxSkip})
				t.Log(rep)
			})
		}
	}
}

// A loss of an H that does not depend on the layer still gets the X·Hᵀ term
// (the layer's backward pass runs because S is an input of the loss); two
// losses on one layer add their terms; a second backward pass on the same
// tape gives the same gradients (the term is owed once per pass).
func TestDataLayerLossTerms(t *testing.T) {
	x, _ := sparseX(61, 30, 25, 0.7)
	rng := tensor.NewRand(62)
	a0, h0, h1 := tensor.Uniform(30, 4, 0.1, 1, rng), tensor.Uniform(4, 25, 0, 1, rng), tensor.Uniform(4, 25, 0, 1, rng)

	tape := autograd.NewTape()
	a, h, hh := tape.Param(a0), tape.Param(h0), tape.Param(h1)
	dl := ops.NNLSData(a, mustData(x), nil)
	loss := ops.Add(dl.Loss(h), ops.Scale(dl.Loss(hh), 0.5))
	g1, err := tape.Backward(loss)
	require.NoError(t, err)
	first := g1.Of(a).Clone()
	g2, err := tape.Backward(loss)
	require.NoError(t, err)
	require.Equal(t, first.Data, g2.Of(a).Data)

	ref := autograd.NewTape()
	ra, rh, rhh := ref.Param(a0), ref.Param(h0), ref.Param(h1)
	xv := ref.Const(x)
	rl := ops.Add(ops.FactorLoss(xv, ra, rh), ops.Scale(ops.FactorLoss(xv, ra, rhh), 0.5))
	gr, err := ref.Backward(rl)
	require.NoError(t, err)
	require.InEpsilon(t, rl.Value().Data[0], loss.Value().Data[0], 1e-12)
	scale := tensor.MaxAbs(gr.Of(ra))
	for i, v := range gr.Of(ra).Data {
		require.InDelta(t, v, first.Data[i], 1e-12*scale, "∂A entry %d", i)
	}
	for i, v := range gr.Of(rh).Data {
		require.InDelta(t, v, g1.Of(h).Data[i], 1e-12*scale, "∂H entry %d", i)
	}
}

// Where the fit is nearly exact the expansion would have lost the value to
// cancellation; for a dense X the loss is then computed directly and
// equals FactorLoss's.
func TestDataLayerLossNearlyExact(t *testing.T) {
	rng := tensor.NewRand(71)
	w, hm := tensor.Uniform(60, 4, 0.1, 1, rng), tensor.Uniform(4, 50, 0.1, 1, rng)
	x := tensor.MatMul(false, false, w, hm)
	x.Data[0] += 1e-9
	tape := autograd.NewTape()
	a := tape.Param(w)
	dl := ops.NNLSData(a, mustData(x), nil)
	got := dl.Loss(dl.S).Value().Data[0]
	ref := autograd.NewTape()
	want := ops.FactorLoss(ref.Const(x), ref.Param(w), ref.Const(dl.S.Value())).Value().Data[0]
	require.Positive(t, want)
	require.Less(t, want, 1e-17)
	require.Equal(t, want, got)
}

func TestDataLayerErrors(t *testing.T) {
	tape := autograd.NewTape()
	rng := tensor.NewRand(1)
	x := tensor.Uniform(6, 5, 0, 1, rng)
	dl := ops.NNLSData(tape.Param(tensor.Uniform(6, 2, 0, 1, rng)), mustData(x), nil)
	bad := dl.Loss(tape.Param(tensor.Uniform(3, 5, 0, 1, rng)))
	_, err := tape.Backward(bad)
	require.ErrorIs(t, err, tensor.ErrShape)
	require.Contains(t, err.Error(), "ops.DataLayer.Loss")

	tape = autograd.NewTape()
	dl = ops.NNLSData(tape.Param(tensor.Uniform(7, 2, 0, 1, rng)), mustData(x), nil)
	require.Nil(t, dl.Result)
	_, err = tape.Backward(ops.Sum(dl.Loss(dl.S)))
	require.ErrorIs(t, err, tensor.ErrShape)
	require.Contains(t, err.Error(), "ops.NNLSData")
}
