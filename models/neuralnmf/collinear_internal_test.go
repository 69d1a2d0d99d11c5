package neuralnmf

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/tensor"
)

// Topics that become collinear during training (here: after init, as a
// step could make them) are found from the next forward pass's
// factorisations, re-initialised and counted once, and the epoch is run
// again: training goes on, all epochs are recorded, and the topics differ.
func TestCollinearAfterAStep(t *testing.T) {
	rng := tensor.NewRand(8)
	x := tensor.Uniform(30, 25, 0, 1, rng)
	for _, sparse := range []bool{false, true} {
		d := data{dense: x}
		if sparse {
			d = data{sparse: tensor.SparseFromDense(x)}
		}
		c := Config{Ranks: []int{5, 3}, Epochs: 6, Tol: -1}.withDefaults()
		tr, err := newTrainer(d, c, 1)
		require.NoError(t, err)
		require.Zero(t, tr.hist.Collinear)
		for _, l := range []int{0, 1} {
			a := tr.a[l]
			for r := range a.Rows {
				a.Set(r, 2, 2*a.At(r, 0)) // column 2 ∥ column 0
			}
		}
		require.NoError(t, tr.train(c.Epochs))
		require.Equal(t, 2, tr.hist.Collinear, "one topic in each layer")
		require.Len(t, tr.hist.Loss, c.Epochs)
		for l := range 2 {
			g := tensor.MatMul(true, false, tr.a[l], tr.a[l])
			require.Less(t, g.At(0, 2)/math.Sqrt(g.At(0, 0)*g.At(2, 2)), 0.9999, "layer %d", l)
		}
	}
}
