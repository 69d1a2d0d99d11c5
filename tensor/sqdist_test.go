package tensor

import (
	"math"
	"testing"
)

// SqDist equals the sum of squares of X − W·H formed in full, on shapes
// around the block size (rows and columns), including an empty inner dimension.
func TestSqDist(t *testing.T) {
	rng := NewRand(5)
	for _, s := range [][3]int{{1, 1, 1}, {31, 7, 3}, {32, 5, 2}, {33, 40, 4}, {200, 90, 9}, {70, 30, 0}, {5, 2047, 3}, {5, 2048, 3}, {40, 4100, 2}} {
		x, w, h := Uniform(s[0], s[1], -1, 1, rng), Uniform(s[0], s[2], 0, 1, rng), Uniform(s[2], s[1], 0, 1, rng)
		r := MatMul(false, false, w, h)
		Sub(r, x, r)
		want := SqNorm(r)
		got := SqDist(x, w, h)
		if math.Abs(got-want) > 1e-12*want {
			t.Fatalf("%v: SqDist %v, want %v", s, got, want)
		}
	}
}
