package nnls

import (
	"fmt"
	"hash/fnv"
	"math"
	"testing"

	"github.com/neuralnmf/neuralnmf/tensor"
)

func TestZZHash(t *testing.T) {
	h := fnv.New64a()
	put := func(v []float64) {
		for _, x := range v {
			b := math.Float64bits(x)
			h.Write([]byte{byte(b), byte(b >> 8), byte(b >> 16), byte(b >> 24), byte(b >> 32), byte(b >> 40), byte(b >> 48), byte(b >> 56)})
		}
	}
	for i, sh := range [][3]int{{300, 7, 200}, {5000, 10, 300}, {3000, 40, 100}, {90, 9, 87}} {
		rng := tensor.NewRand(uint64(i + 1))
		n, k, m := sh[0], sh[1], sh[2]
		a := tensor.Uniform(n, k, 0, 1, rng)
		var es []tensor.Entry
		for j := 0; j < m; j++ {
			for r := 0; r < n; r++ {
				if rng.Float64() < 0.05 {
					es = append(es, tensor.Entry{Row: r, Col: j, Val: rng.Float64()})
				}
			}
		}
		x, _ := tensor.NewSparse(n, m, es)
		for _, w := range []int{1, 2} {
			res, err := SolveSparse(a, x, &Options{Workers: w})
			if err != nil {
				t.Fatal(err)
			}
			gs := tensor.Uniform(k, m, -1, 1, rng)
			ga := tensor.New(n, k)
			if err := res.BackwardSparse(a, x, gs, ga, w); err != nil {
				t.Fatal(err)
			}
			put(res.S.Data)
			put(ga.Data)
		}
	}
	fmt.Printf("HASH %x\n", h.Sum64())
}
