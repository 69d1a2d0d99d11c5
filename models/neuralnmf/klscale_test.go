package neuralnmf_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/nnkl"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// D(cX ‖ cY) = c·D(X ‖ Y): the KL fit of c·X is the fit of X with every S
// and loss times c and the same A's, over the whole range Train accepts
// (issue 50: at 1e6, 1e10 and 1e-90 the divergence ended 6–48 % worse).
// A power of two scales exactly, so its dense fit is the same bits; any
// other c changes c·X by rounding, and the fit by as little: 1e-9
// relative allows the 1e-16 of c·X's rounding grown through 40 epochs of
// Newton solves and Adam steps (4e-16 is measured), while the 1e-3 a
// scale-dependent start gave (an absolute floor) fails it.
func TestKLScaleEquivariant(t *testing.T) {
	x := klCounts(30, 40, 3, 5)
	cfg := neuralnmf.Config{Ranks: []int{3, 2}, Loss: neuralnmf.KL, Epochs: 40}
	ref, err := neuralnmf.Train(x, cfg)
	require.NoError(t, err)
	for _, c := range []float64{0x1p-290, 0x1p40, 1e-90, 1e-30, 1e-6, 0.3, 7, 1e6, 1e10, 1e30, 1e90} {
		cx := tensor.New(x.Rows, x.Cols)
		tensor.Scale(cx, c, x)
		for _, sparse := range []bool{false, true} {
			var m *neuralnmf.Model
			if sparse {
				m, err = neuralnmf.Train(tensor.SparseFromDense(cx), cfg)
			} else {
				m, err = neuralnmf.Train(cx, cfg)
			}
			require.NoError(t, err, "c = %g", c)
			exact := math.Abs(math.Log2(c)-math.Round(math.Log2(c))) == 0 && !sparse
			tol := 1e-9
			if exact {
				tol = 0
			}
			require.Len(t, m.History.Loss, len(ref.History.Loss), "c = %g: as many epochs", c)
			for i, l := range ref.History.Loss {
				require.InDelta(t, l, m.History.Loss[i]/c, tol*l, "c = %g: loss of epoch %d", c, i+1)
			}
			require.InDelta(t, ref.History.FinalRelError, m.History.FinalRelError, tol+1e-12, "c = %g", c)
			for l := range ref.A {
				requireClose(t, ref.A[l].Data, m.A[l].Data, 1, tol, "c = %g: A%d", c, l+1)
				requireClose(t, ref.S[l].Data, m.S[l].Data, c, tol, "c = %g: S%d", c, l+1)
			}
			out, err := m.Transform(cx)
			require.NoError(t, err, "c = %g", c)
			requireClose(t, ref.S[1].Data, out[1].Data, c, 1e-6, "c = %g: Transform's S2", c)
		}
	}
}

// requireClose requires got/c to equal want entry by entry, to tol
// relative to the largest entry of want.
func requireClose(t *testing.T, want, got []float64, c, tol float64, msg string, args ...any) {
	t.Helper()
	var mx float64
	for _, v := range want {
		mx = math.Max(mx, math.Abs(v))
	}
	for i, v := range want {
		require.InDelta(t, v, got[i]/c, tol*mx, append([]any{msg + " entry %d"}, append(args, i)...)...)
	}
}

// Issue 50, item 5: a KL model transforms columns with entries in a
// feature its training data never used (the divergence there is infinite
// for any S) by fitting their other entries: the same S as the columns
// without those entries, at every layer, dense and sparse.
func TestKLTransformUnusedFeature(t *testing.T) {
	x := klCounts(30, 40, 3, 5)
	for j := 0; j < x.Cols; j++ {
		x.Set(4, j, 0) // feature 5 is absent from the training data
	}
	m, err := neuralnmf.Train(x, neuralnmf.Config{Ranks: []int{3, 2}, Loss: neuralnmf.KL, Epochs: 20})
	require.NoError(t, err)
	unused := m.UnusedFeatures()
	require.Contains(t, unused, 4)
	require.Equal(t, neuralnmf.KL, m.Loss())
	xWithout := klCounts(30, 6, 3, 9)
	for _, r := range unused {
		for j := 0; j < 6; j++ {
			xWithout.Set(r, j, 0)
		}
	}
	xNew := xWithout.Clone()
	for j := 1; j < 6; j += 2 {
		xNew.Set(4, j, 3) // columns 2, 4 and 6 use feature 5
	}
	require.Equal(t, []int{1, 3, 5}, neuralnmf.ColumnsUsing(tensor.SparseFromDense(xNew), unused))
	_, err = nnkl.Solve(m.A[0], xNew, nil)
	require.Error(t, err, "the plain solve cannot fit them")
	want, err := m.Transform(xWithout)
	require.NoError(t, err)
	got, err := m.Transform(xNew)
	require.NoError(t, err)
	gotS, err := m.Transform(tensor.SparseFromDense(xNew))
	require.NoError(t, err)
	for l := range want {
		require.Equal(t, want[l].Data, got[l].Data, "layer %d", l+1)
		requireClose(t, want[l].Data, gotS[l].Data, 1, 1e-12, "sparse, layer %d", l+1)
	}
}
