//go:build !amd64

package nnls

// magnitudes returns, as bits (which order like the values), the largest
// magnitude in x (NaN above +Inf) and the smallest nonzero one (MaxUint64
// if there is none).
func magnitudes(x []float64) (mx, mn uint64) { return magnitudesGo(x) }
