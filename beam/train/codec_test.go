package train

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/tensor"
)

// The work directory's files round-trip bit for bit, and no corruption of
// their bytes (a flipped byte, a cut, bytes appended) makes a decoder
// panic: it returns an error, or, for a flipped value byte, a matrix.
func TestCodecs(t *testing.T) {
	rng := tensor.NewRand(3)
	dense := tensor.Uniform(7, 5, -1, 1, rng)
	x := tensor.SparseFromDense(tensor.Uniform(9, 6, 0, 1, rng))
	x = x.SelectColumns([]int{0, 2, 3, 5})
	db := encodeDenses([]*tensor.Dense{dense, tensor.New(0, 3)})
	ms, err := decodeDenses(db)
	require.NoError(t, err)
	require.Equal(t, dense.Data, ms[0].Data)
	require.Equal(t, 0, ms[1].Rows)
	sb := encodeSparse(x)
	y, err := decodeSparse(sb)
	require.NoError(t, err)
	require.Equal(t, x.ColPtr, y.ColPtr)
	require.Equal(t, x.RowIdx, y.RowIdx)
	require.Equal(t, x.Val, y.Val)
	v, err := addVector(nil, encodeDenses([]*tensor.Dense{{Rows: 1, Cols: 3, Stride: 3, Data: []float64{1, 2, 3}}}), true)
	require.NoError(t, err)
	v, err = addVector(v, encodeDenses([]*tensor.Dense{{Rows: 1, Cols: 3, Stride: 3, Data: []float64{1, 1, 1}}}), false)
	require.NoError(t, err)
	require.Equal(t, []float64{2, 3, 4}, v)
	_, err = addVector(v, db, false)
	require.Error(t, err, "two matrices are not a vector")

	r := rand.New(rand.NewPCG(1, 2))
	for _, good := range [][]byte{db, sb} {
		for range 2000 {
			b := append([]byte(nil), good...)
			switch r.IntN(3) {
			case 0:
				b[r.IntN(len(b))] ^= byte(1 + r.IntN(255))
			case 1:
				b = b[:r.IntN(len(b))]
			default:
				b = append(b, byte(r.IntN(256)))
			}
			require.NotPanics(t, func() {
				_, _ = decodeDenses(b)
				_, _ = decodeSparse(b)
				_, _ = addVector(nil, b, true)
			})
		}
	}
	huge := append([]byte(denseMagic), make([]byte, 24)...)
	huge[8], huge[16+5], huge[24+5] = 1, 1, 1 // one 2⁴⁰×2⁴⁰ matrix: the product overflows 64 bits
	_, err = decodeDenses(huge)
	require.ErrorIs(t, err, errFormat)
	_, err = decodeSparse(append([]byte(nil), sb[:len(sb)-1]...))
	require.ErrorIs(t, err, errFormat)
	_, err = decodeDenses(append(append([]byte(nil), db...), 0))
	require.ErrorIs(t, err, errFormat)
}
