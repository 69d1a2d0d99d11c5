package nnls

import "golang.org/x/sys/cpu"

// magnitudesAVX2 is magnitudes for a positive multiple of 8 entries, with
// AVX2 (magnitude_amd64.s); mnz is 1<<63 − 1 when every entry is zero.
//
//go:noescape
func magnitudesAVX2(x []float64) (mx, mnz uint64)

// useAVX2 is fixed at start-up: whether this CPU runs magnitudesAVX2.
var useAVX2 = cpu.X86.HasAVX2

// magnitudes returns, as bits (which order like the values), the largest
// magnitude in x (NaN above +Inf) and the smallest nonzero one (MaxUint64
// if there is none).
func magnitudes(x []float64) (mx, mn uint64) {
	n := len(x) &^ 7
	if !useAVX2 || n == 0 {
		return magnitudesGo(x)
	}
	mx, mn = magnitudesAVX2(x[:n])
	if mn == 1<<63-1 {
		mn = 1<<64 - 1
	}
	tx, tn := magnitudesGo(x[n:])
	return max(mx, tx), min(mn, tn)
}
