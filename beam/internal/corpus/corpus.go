// Package corpus generates term–document matrices of a known topic
// hierarchy and writes them as shard files, for the tests and timings of
// the Beam module.
package corpus

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"

	"github.com/neuralnmf/neuralnmf/matio"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// Generate returns a words × docs count matrix of a two-level topic
// hierarchy: topics topics of words/topics words each, in pairs (the
// groups); every document is in one group, mixes its two topics at random
// and draws length words from the mixture (each topic's words weighted at
// random, fixed per word), plus one word at random.
func Generate(words, topics, docs, length int, seed uint64) *tensor.Sparse {
	rng := tensor.NewRand(seed)
	per := words / topics
	weights := make([]float64, words)
	for i := range weights {
		weights[i] = 0.2 + rng.Float64()
	}
	var es []tensor.Entry
	counts := make([]float64, words)
	for j := range docs {
		g := rng.IntN(topics / 2)
		mix := rng.Float64()
		for range length {
			topic := 2 * g
			if rng.Float64() > mix {
				topic++
			}
			for { // a word of the topic, by weight (rejection sampling)
				w := topic*per + rng.IntN(per)
				if rng.Float64()*1.2 < weights[w] {
					counts[w]++
					break
				}
			}
		}
		counts[rng.IntN(words)]++
		for w, c := range counts {
			if c != 0 {
				es = append(es, tensor.Entry{Row: w, Col: j, Val: c})
				counts[w] = 0
			}
		}
	}
	x, err := tensor.NewSparse(words, docs, es)
	if err != nil {
		panic(err) // the entries are in range by construction
	}
	return x
}

// WriteShards writes x's columns as n Matrix Market shard files
// shard-NN.mtx in dir, of nearly equal size, gzipping every gz-th one
// (.mtx.gz; gz 0: none), and returns their paths in order.
func WriteShards(x *tensor.Sparse, n, gz int, dir string) ([]string, error) {
	var paths []string
	for i := range n {
		lo, hi := i*x.Cols/n, (i+1)*x.Cols/n
		cols := make([]int, 0, hi-lo)
		for j := lo; j < hi; j++ {
			cols = append(cols, j)
		}
		var b bytes.Buffer
		if err := matio.WriteMatrixMarket(&b, &matio.Matrix{Sparse: x.SelectColumns(cols)}); err != nil {
			return nil, err
		}
		name := filepath.Join(dir, fmt.Sprintf("shard-%02d.mtx", i))
		data := b.Bytes()
		if gz > 0 && i%gz == gz-1 {
			name += ".gz"
			var z bytes.Buffer
			w := gzip.NewWriter(&z)
			if _, err := w.Write(data); err != nil {
				return nil, err
			}
			if err := w.Close(); err != nil {
				return nil, err
			}
			data = z.Bytes()
		}
		if err := os.WriteFile(name, data, 0o644); err != nil {
			return nil, err
		}
		paths = append(paths, name)
	}
	return paths, nil
}
