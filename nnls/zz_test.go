package nnls

import (
	"fmt"
	"testing"

	"github.com/neuralnmf/neuralnmf/tensor"
)

func BenchmarkZZNewFactor(b *testing.B) {
	for _, s := range [][2]int{{45534, 10}, {20000, 50}, {100000, 20}, {2000, 50}} {
		a := tensor.Uniform(s[0], s[1], 0, 1, tensor.NewRand(1))
		b.Run(fmt.Sprint(s), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				NewFactor(a)
			}
		})
	}
}
