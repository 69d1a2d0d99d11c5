package tensor_test

import (
	"fmt"
	"math"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/internal/gather"
	"github.com/neuralnmf/neuralnmf/internal/parallel"
	"github.com/neuralnmf/neuralnmf/internal/randmat"
	"github.com/neuralnmf/neuralnmf/tensor"
)

func TestSparseRoundTripAndProducts(t *testing.T) {
	rng := tensor.NewRand(1)
	d := randmat.Sparse(9, 7, 0.6, rng)
	s := tensor.SparseFromDense(d)
	require.NoError(t, tensor.CheckSparseData("X", s))
	require.Equal(t, d.Data, s.Dense().Data)
	require.InDelta(t, tensor.SqNorm(d), s.SqNorm(), 1e-14)

	a := tensor.Uniform(9, 3, 0, 1, rng)
	want := tensor.MatMul(true, false, a, d) // Aᵀ·X, 3×7
	dst := make([]float64, 3*10)
	s.MulTA(a, 2, 6, dst, 10)
	for i := 0; i < 3; i++ {
		for j := 2; j < 6; j++ {
			require.InDelta(t, want.At(i, j), dst[i*10+j-2], 1e-14)
		}
	}
	u := tensor.Uniform(3, 7, -1, 1, rng)
	got := tensor.New(9, 3)
	s.MulDenseT(1, u, 0, 4, got)
	s.MulDenseT(1, u, 4, 7, got)
	want2 := tensor.MatMul(false, true, d, u) // X·Uᵀ
	for i := range want2.Data {
		require.InDelta(t, want2.Data[i], got.Data[i], 1e-14)
	}
	h := tensor.Uniform(3, 7, 0, 1, rng)
	r := tensor.MatMul(false, false, a, h)
	tensor.Sub(r, d, r)
	require.InEpsilon(t, tensor.SqNorm(r), s.SqDist(a, h), 1e-12, "‖X − AH‖² without forming AH")
}

func TestNewSparse(t *testing.T) {
	s, err := tensor.NewSparse(2, 3, []tensor.Entry{{1, 2, 1}, {0, 0, 2}, {1, 2, 3}, {0, 1, 0}})
	require.NoError(t, err)
	require.Equal(t, []float64{2, 0, 0, 0, 0, 4}, s.Dense().Data, "duplicates summed, zeros dropped")
	require.Equal(t, 2, s.NNZ())
	_, err = tensor.NewSparse(2, 3, []tensor.Entry{{2, 0, 1}})
	require.ErrorIs(t, err, tensor.ErrShape)
	neg, _ := tensor.NewSparse(2, 2, []tensor.Entry{{1, 1, -1}})
	require.ErrorIs(t, tensor.CheckSparseData("X", neg), tensor.ErrNegative)
	inf, _ := tensor.NewSparse(2, 2, []tensor.Entry{{1, 0, math.Inf(1)}})
	require.ErrorIs(t, tensor.CheckSparseData("X", inf), tensor.ErrNotFinite)
	require.ErrorIs(t, tensor.CheckSparseData("X", &tensor.Sparse{Rows: 0, Cols: 3}), tensor.ErrEmpty)
}

// T is the transpose: its dense form is the dense form's transpose, each of
// its columns lists increasing indices, and T∘T is the identity.
func TestSparseTranspose(t *testing.T) {
	d := randmat.Sparse(37, 23, 0.8, tensor.NewRand(12))
	for r := 0; r < d.Rows; r++ { // an empty row: an empty column of Xᵀ
		d.Set(r, 5, 0)
	}
	s := tensor.SparseFromDense(d)
	st := s.T()
	require.Equal(t, d.T().Data, st.Dense().Data)
	for j := 0; j < st.Cols; j++ {
		for p := st.ColPtr[j] + 1; p < st.ColPtr[j+1]; p++ {
			require.Less(t, st.RowIdx[p-1], st.RowIdx[p])
		}
	}
	require.Equal(t, s, st.T())
}

// T of a matrix large enough to be shared among goroutines is the same
// (every index and value) on 1, 2 and 7 of them, and the transpose.
func TestSparseTransposeParallel(t *testing.T) {
	rng := tensor.NewRand(5)
	var entries []tensor.Entry
	for range 300000 {
		entries = append(entries, tensor.Entry{Row: rng.IntN(2000), Col: rng.IntN(3000), Val: rng.Float64() + 0.5})
	}
	s, err := tensor.NewSparse(2000, 3000, entries)
	require.NoError(t, err)
	require.GreaterOrEqual(t, s.NNZ(), 1<<18, "large enough to share")
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	runtime.GOMAXPROCS(1)
	one := s.T()
	for _, p := range []int{2, 7} {
		runtime.GOMAXPROCS(p)
		require.Equal(t, one, s.T(), "%d goroutines", p)
	}
	require.Equal(t, s.Dense().T().Data, one.Dense().Data)
	for j := 0; j < one.Cols; j++ {
		for p := one.ColPtr[j] + 1; p < one.ColPtr[j+1]; p++ {
			require.Less(t, one.RowIdx[p-1], one.RowIdx[p])
		}
	}
	require.Equal(t, s, one.T())
}

// Xᵀ.MulTRows forms X·B row by row, in any split of the rows, equal to the
// dense product to rounding, and adding to what dst holds.
func TestSparseMulTRows(t *testing.T) {
	rng := tensor.NewRand(13)
	d := randmat.Sparse(41, 29, 0.7, rng)
	b := tensor.Uniform(29, 4, -1, 1, rng)
	want := tensor.MatMul(false, false, d, b)
	xt := tensor.SparseFromDense(d).T()
	got := tensor.New(41, 4)
	for i := range got.Data {
		got.Data[i] = 1
	}
	for _, split := range [][2]int{{0, 7}, {7, 30}, {30, 41}} {
		xt.MulTRows(2, b, split[0], split[1], got)
	}
	for i := range want.Data {
		require.InDelta(t, 1+2*want.Data[i], got.Data[i], 1e-13)
	}
}

// MulTRows by blocks of B's rows (any block, down to one row, and with
// empty columns and columns whose entries all fall in one block) adds
// exactly, bit for bit, what one sweep over all of B adds.
func TestSparseMulTRowsBlocked(t *testing.T) {
	rng := tensor.NewRand(19)
	d := randmat.Sparse(37, 53, 0.8, rng) // 80 % zeros: some columns of Xᵀ are empty
	for j := 0; j < 53; j++ {
		d.Set(5, j, 0) // row 5 of X: no entries
	}
	d.Set(9, 50, 0.5) // row 9: entries only in the last rows of B
	xt := tensor.SparseFromDense(d).T()
	b := tensor.Uniform(53, 6, -1, 1, rng)
	whole := tensor.New(37, 6)
	xt.MulTRowsBlocked(-1.5, b, 0, 37, whole, 53)
	for i, v := range tensor.MatMul(false, false, d, b).Data {
		require.InDelta(t, -1.5*v, whole.Data[i], 1e-13)
	}
	for _, block := range []int{1, 2, 7, 16, 52, 1000} {
		for _, split := range [][2]int{{0, 37}, {3, 21}, {9, 10}, {20, 20}} {
			got := tensor.New(37, 6)
			xt.MulTRowsBlocked(-1.5, b, split[0], split[1], got, block)
			for i := 0; i < 37; i++ {
				want := make([]float64, 6)
				if i >= split[0] && i < split[1] {
					copy(want, whole.Row(i))
				}
				require.Equal(t, want, got.Row(i), "block %d, rows %v, row %d", block, split, i)
			}
		}
	}
}

// MulDenseTRows over any split of the rows, including empty and single-row
// parts and rows with no entries, adds exactly (bit for bit) what
// MulDenseT over all columns adds, and that is X·Uᵀ to rounding.
func TestSparseMulDenseTRows(t *testing.T) {
	rng := tensor.NewRand(17)
	d := randmat.Sparse(53, 31, 0.8, rng)
	for c := 0; c < d.Cols; c++ {
		d.Set(20, c, 0) // an empty row
	}
	s := tensor.SparseFromDense(d)
	u := tensor.Uniform(5, 31, -1, 1, rng)
	want := tensor.New(53, 5)
	want.Fill(1)
	s.MulDenseT(-1.5, u, 0, 31, want)
	for _, x := range []*tensor.Sparse{s, s.WithRows()} { // by search, and from the transpose
		for _, splits := range [][]int{{0, 53}, {0, 20, 21, 22, 53}, {0, 0, 1, 52, 53}, {0, 7, 30, 41, 53}} {
			got := tensor.New(53, 5)
			got.Fill(1)
			for i := 1; i < len(splits); i++ {
				x.MulDenseTRows(-1.5, u, splits[i-1], splits[i], got)
			}
			require.Equal(t, want.Data, got.Data, "split %v", splits)
		}
	}
	w := s.WithRows()
	require.Same(t, w, w.WithRows(), "a transpose is attached once")
	require.Equal(t, s.Dense().Data, w.Dense().Data)
	require.Equal(t, 4, s.RowBlock(1), "53 rows: 16 blocks of at most 4")
	require.Equal(t, 64, s.RowBlock(64))
	xu := tensor.MatMul(false, true, d, u)
	for i := range xu.Data {
		require.InDelta(t, 1-1.5*xu.Data[i], want.Data[i], 1e-13)
	}
}

// MulTAParallel and MulDenseTParallel give MulTA's and MulDenseT's results
// over all columns, bit for bit, on 1, 2 and 3 goroutines, on a matrix
// large enough to be shared out (k·nnz ≈ 5·2¹⁶); beta = 0 ignores NaN in
// dst, beta = 1 adds, another beta scales first. Bad shapes panic.
func TestSparseParallelProducts(t *testing.T) {
	rng := tensor.NewRand(23)
	d := randmat.Sparse(3000, 700, 0.85, rng) // about 315,000 nonzeros
	s := tensor.SparseFromDense(d)
	a := tensor.Uniform(3000, 7, -1, 1, rng)
	u := tensor.Uniform(7, 700, -1, 1, rng)
	start := tensor.Uniform(3000, 7, -1, 1, rng)
	wantTA := tensor.New(7, 700)
	s.MulTA(a, 0, 700, wantTA.Data, wantTA.Stride)
	// MulTA's sums, bit for bit, are those of adding each entry's
	// products into the output in column order (each with one fused
	// multiply-add where the CPU has them, as internal/gather does).
	naive := tensor.New(7, 700)
	for j := 0; j < 700; j++ {
		for p := s.ColPtr[j]; p < s.ColPtr[j+1]; p++ {
			for c := 0; c < 7; c++ {
				if gather.HasFMA() {
					naive.Data[c*700+j] = math.FMA(s.Val[p], a.At(s.RowIdx[p], c), naive.Data[c*700+j])
				} else {
					naive.Data[c*700+j] += s.Val[p] * a.At(s.RowIdx[p], c)
				}
			}
		}
	}
	require.Equal(t, naive.Data, wantTA.Data)
	wants := map[float64]*tensor.Dense{}
	for _, beta := range []float64{0, 1, 0.5} {
		w := tensor.New(3000, 7)
		if beta != 0 {
			w.Copy(start)
			tensor.Scale(w, beta, w)
		}
		s.MulDenseT(-1.5, u, 0, 700, w)
		wants[beta] = w
	}
	sr := s.WithRows()
	for _, procs := range []int{1, 2, 3} {
		prev := runtime.GOMAXPROCS(procs)
		ta := tensor.New(7, 700)
		ta.Fill(math.NaN())
		s.MulTAParallel(a, ta)
		require.Equal(t, wantTA.Data, ta.Data, "MulTAParallel on %d goroutines", procs)
		for beta, want := range wants {
			for _, x := range []*tensor.Sparse{s, sr} {
				got := start.Clone()
				if beta == 0 {
					got.Fill(math.NaN())
				}
				x.MulDenseTParallel(-1.5, u, beta, got)
				require.Equal(t, want.Data, got.Data, "MulDenseTParallel, beta %v, %d goroutines, transpose held %v", beta, procs, x == sr)
				got = start.Clone()
				if beta == 0 {
					got.Fill(math.NaN())
				}
				x.MulParallel(-1.5, u.T(), beta, got)
				require.Equal(t, want.Data, got.Data, "MulParallel, beta %v, %d goroutines, transpose held %v", beta, procs, x == sr)
			}
		}
		runtime.GOMAXPROCS(prev)
	}
	require.Panics(t, func() { s.MulTAParallel(a, tensor.New(7, 699)) })
	require.Panics(t, func() { s.MulDenseTParallel(1, u, 0, tensor.New(3000, 6)) })
	require.Panics(t, func() { s.MulParallel(1, u, 0, tensor.New(3000, 7)) }, "B is U, not Uᵀ")
}

func TestSparseSelectColumns(t *testing.T) {
	d := tensor.MustFromRows([][]float64{{1, 0, 2}, {0, 3, 0}, {4, 0, 5}})
	got := tensor.SparseFromDense(d).SelectColumns([]int{2, 0, 2, 1})
	want := tensor.MustFromRows([][]float64{{2, 1, 2, 0}, {0, 0, 0, 3}, {5, 4, 5, 0}})
	require.Equal(t, want.Data, got.Dense().Data)
	require.Equal(t, 0, tensor.SparseFromDense(d).SelectColumns(nil).Cols)
}

func TestConcatColumns(t *testing.T) {
	a := tensor.SparseFromDense(tensor.MustFromRows([][]float64{{1, 0}, {0, 3}}))
	b := tensor.SparseFromDense(tensor.MustFromRows([][]float64{{0}, {7}}))
	got := tensor.ConcatColumns([]*tensor.Sparse{a, b, a})
	want := tensor.MustFromRows([][]float64{{1, 0, 0, 1, 0}, {0, 3, 7, 0, 3}})
	require.Equal(t, want.Data, got.Dense().Data)
	require.NoError(t, tensor.CheckSparseFinite("got", got))
	require.Panics(t, func() { tensor.ConcatColumns([]*tensor.Sparse{a, tensor.SparseFromDense(tensor.New(3, 1))}) })
}

// BenchmarkSparseMulDenseT measures X·Uᵀ on a javadoc-shaped sparse X
// (17,000 words × 11,500 documents, 40 entries a column) two ways with the
// same sums: MulDenseT, which reads U's columns with stride M, and
// MulRows on Uᵀ (formed once, as MulDenseTParallel and the NNLS backward
// pass do), which reads them contiguously.
//
//	go test -run '^$' -bench SparseMulDenseT -cpu 1 -count 3 ./tensor/
func BenchmarkSparseMulDenseT(b *testing.B) {
	rng := tensor.NewRand(1)
	var es []tensor.Entry
	for j := 0; j < 11500; j++ {
		for range 40 {
			es = append(es, tensor.Entry{Row: rng.IntN(17000), Col: j, Val: rng.Float64()})
		}
	}
	s, err := tensor.NewSparse(17000, 11500, es)
	require.NoError(b, err)
	for _, k := range []int{10, 38} {
		u := tensor.Uniform(k, s.Cols, 0, 1, rng)
		dst := tensor.New(s.Rows, k)
		b.Run(fmt.Sprintf("k=%d/strided", k), func(b *testing.B) {
			for b.Loop() {
				s.MulDenseT(1, u, 0, s.Cols, dst)
			}
		})
		b.Run(fmt.Sprintf("k=%d/transposed", k), func(b *testing.B) {
			for b.Loop() {
				ut := tensor.New(s.Cols, k)
				tensor.TransposeInto(ut, u)
				s.MulRows(1, ut, 0, s.Rows, dst)
			}
		})
		sr := s.WithRows()
		b.Run(fmt.Sprintf("k=%d/rows", k), func(b *testing.B) {
			for b.Loop() {
				ut := tensor.New(s.Cols, k)
				tensor.TransposeInto(ut, u)
				sr.MulRows(1, ut, 0, s.Rows, dst)
			}
		})
		a := tensor.Uniform(s.Rows, k, 0, 1, rng)
		b.Run(fmt.Sprintf("k=%d/AtX", k), func(b *testing.B) {
			for b.Loop() {
				s.MulTA(a, 0, s.Cols, u.Data, u.Stride)
			}
		})
	}
}

// TransposeInto is the transpose for shapes below and above its blocks and
// its parallel threshold, with strides wider than the columns, on 1 and 3
// goroutines.
func TestTransposeInto(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, p := range []int{1, 3} {
		runtime.GOMAXPROCS(p)
		for _, sh := range [][2]int{{1, 1}, {3, 70}, {30, 20000}, {200, 7}} {
			rng := tensor.NewRand(uint64(sh[0]))
			src := &tensor.Dense{Rows: sh[0], Cols: sh[1], Stride: sh[1] + 2, Data: make([]float64, sh[0]*(sh[1]+2))}
			for i := range src.Data {
				src.Data[i] = rng.Float64()
			}
			dst := &tensor.Dense{Rows: sh[1], Cols: sh[0], Stride: sh[0] + 1, Data: make([]float64, sh[1]*(sh[0]+1))}
			tensor.TransposeInto(dst, src)
			for i := 0; i < sh[0]; i++ {
				for j := 0; j < sh[1]; j++ {
					require.Equal(t, src.At(i, j), dst.At(j, i), "%v (%d, %d)", sh, i, j)
				}
			}
		}
	}
}

// A SparseBuilder builds what NewSparseDuplicates builds from the same
// entries in the same order (the matrix, every index and value, the
// duplicates and the error), whether they come in column-major order (the
// direct path), leave it part way, repeat a position, hold explicit zeros
// or fall outside, and whatever room was reserved (none, part, more than
// all).
func TestSparseBuilderIsNewSparseDuplicates(t *testing.T) {
	rng := tensor.NewRand(21)
	const rows, cols = 13, 11
	sorted := func(n int) []tensor.Entry {
		var es []tensor.Entry
		for j := 0; j < cols; j++ {
			for i := 0; i < rows; i++ {
				if rng.IntN(rows*cols) < n {
					es = append(es, tensor.Entry{Row: i, Col: j, Val: rng.Float64()})
				}
			}
		}
		return es
	}
	cases := map[string]func() []tensor.Entry{
		"empty":        func() []tensor.Entry { return nil },
		"column-major": func() []tensor.Entry { return sorted(60) },
		"explicit zeros": func() []tensor.Entry {
			es := sorted(60)
			for i := range es {
				if i%3 == 0 {
					es[i].Val = 0
				}
			}
			return es
		},
		"a zero repeated later": func() []tensor.Entry {
			es := sorted(60)
			es[2].Val = 0
			return append(es, tensor.Entry{Row: es[2].Row, Col: es[2].Col, Val: 5})
		},
		"out of order half way": func() []tensor.Entry {
			es := sorted(60)
			h := len(es) / 2
			es[h], es[h+3] = es[h+3], es[h]
			return es
		},
		"a position twice in a row": func() []tensor.Entry {
			es := sorted(60)
			return append(es[:5:5], append([]tensor.Entry{es[4]}, es[5:]...)...)
		},
		"by rows": func() []tensor.Entry {
			var es []tensor.Entry
			for i := 0; i < rows; i++ {
				for j := 0; j < cols; j++ {
					if rng.IntN(2) == 0 {
						es = append(es, tensor.Entry{Row: i, Col: j, Val: rng.Float64()})
					}
				}
			}
			return es
		},
		"random with repeats": func() []tensor.Entry {
			var es []tensor.Entry
			for range 200 {
				es = append(es, tensor.Entry{Row: rng.IntN(rows), Col: rng.IntN(cols), Val: rng.Float64() - 0.3})
			}
			return es
		},
		"a row outside": func() []tensor.Entry {
			es := sorted(60)
			return append(es, tensor.Entry{Row: rows, Col: cols - 1, Val: 1})
		},
		"a negative column first": func() []tensor.Entry {
			return append([]tensor.Entry{{Row: 0, Col: -1, Val: 1}}, sorted(60)...)
		},
	}
	for name, make := range cases {
		for _, reserve := range []int{0, 1, 2} { // none, half, twice the entries
			t.Run(fmt.Sprintf("%s/reserve %d", name, reserve), func(t *testing.T) {
				es := make()
				want, wantDups, wantErr := tensor.NewSparseDuplicates(rows, cols, append([]tensor.Entry(nil), es...))
				b := tensor.NewSparseBuilder(rows, cols)
				b.Reserve(reserve * len(es) / 2)
				for _, e := range es {
					b.Add(e)
				}
				got, dups, err := b.Build()
				if wantErr != nil {
					require.Error(t, err)
					require.Equal(t, wantErr.Error(), err.Error())
					return
				}
				require.NoError(t, err)
				require.Equal(t, wantDups, dups)
				require.Equal(t, want.ColPtr, got.ColPtr)
				require.Equal(t, want.RowIdx, got.RowIdx)
				require.Equal(t, want.Val, got.Val)
				require.Equal(t, len(got.Val), cap(got.Val), "no room left over to write into")
			})
		}
	}
}

// BenchmarkSparseMulTRowsBlocks measures X·B (Xᵀ.MulTRows on 2 goroutines,
// as MulParallel shares it) for B far larger than a cache, reading B whole
// and by blocks of 2¹⁵ to 2¹⁹ rows, on a random X of 5·10⁴ words × 4·10⁵
// documents with 60 entries a document at uniformly random words (not the
// Zipf-like words of bench/gencorpus, whose 10⁶-document corpus the block
// was first tried on). MulTRows's block, 16 MB of B, is 104,857 rows at
// k = 20. It builds 2.4·10⁷ entries (about 1 GB with the transpose).
//
//	go test -run '^$' -bench SparseMulTRowsBlocks -count 3 ./tensor/
func BenchmarkSparseMulTRowsBlocks(b *testing.B) {
	const words, docs, perDoc, k = 50000, 400000, 60, 20
	rng := tensor.NewRand(3)
	bld := tensor.NewSparseBuilder(words, docs)
	for j := 0; j < docs; j++ {
		for range perDoc {
			bld.Add(tensor.Entry{Row: rng.IntN(words), Col: j, Val: rng.Float64()})
		}
	}
	x, _, err := bld.Build()
	require.NoError(b, err)
	xt := x.T()
	bm := tensor.Uniform(docs, k, 0, 1, rng)
	dst := tensor.New(words, k)
	for _, block := range []int{docs, 1 << 15, 1 << 16, 1 << 17, 1 << 18, 1 << 19} {
		b.Run(fmt.Sprintf("block=%d", block), func(b *testing.B) {
			for b.Loop() {
				parallel.ForChunks(words, x.RowBlock(64), 2, func(_, r0, r1 int) {
					xt.MulTRowsBlocked(1, bm, r0, r1, dst, block)
				})
			}
		})
	}
}
