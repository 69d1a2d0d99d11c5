// Package randmat makes the random test matrices that several packages'
// tests and benchmarks share.
package randmat

import (
	"math/rand/v2"

	"github.com/neuralnmf/neuralnmf/tensor"
)

// Sparse returns an r×c dense matrix of U(0, 1) entries of which each is then
// set to zero with probability zero: r·c draws for the values, then one per
// entry, both in row-major order, so a seed fixes the matrix.
func Sparse(r, c int, zero float64, rng *rand.Rand) *tensor.Dense {
	d := tensor.Uniform(r, c, 0, 1, rng)
	for i := range d.Data {
		if rng.Float64() < zero {
			d.Data[i] = 0
		}
	}
	return d
}
