package text_test

import (
	"iter"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/neuralnmf/neuralnmf/text"
)

// synthetic yields n documents of about 150 words each, drawn from a
// Zipf-distributed vocabulary of 50,000 made-up words, generated on the fly
// so that the benchmark measures the vectoriser's memory, not the corpus's.
func synthetic(n int) iter.Seq2[string, error] {
	words := make([]string, 50000)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range words {
		var b strings.Builder
		for k := 0; k < 3+r.IntN(7); k++ {
			b.WriteByte(byte('a' + r.IntN(26)))
		}
		words[i] = b.String()
	}
	return func(yield func(string, error) bool) {
		r := rand.New(rand.NewPCG(3, 4))
		z := rand.NewZipf(r, 1.1, 1, uint64(len(words)-1))
		var b strings.Builder
		for d := 0; d < n; d++ {
			b.Reset()
			for k := 0; k < 100+r.IntN(100); k++ {
				b.WriteString(words[z.Uint64()])
				b.WriteString(" ")
			}
			if !yield(b.String(), nil) {
				return
			}
		}
	}
}

// BenchmarkFit100k fits TF-IDF on 100,000 documents (about 15 million
// tokens; report -benchmem beside the matrix's size: 16 bytes per
// non-zero).
func BenchmarkFit100k(b *testing.B) {
	for b.Loop() {
		_, x, err := text.Fit(synthetic(100000), text.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(x.NNZ()), "nnz")
	}
}

// BenchmarkGenerate100k is the cost of making the benchmark's documents,
// to subtract from BenchmarkFit100k.
func BenchmarkGenerate100k(b *testing.B) {
	for b.Loop() {
		for range synthetic(100000) {
		}
	}
}
