//go:build !amd64

package gemm

const hasFMA = false

func kernel(k int, a, b []float64, ldb int, c []float64, ldc int, alpha float64) {
	kernelGo(k, a, b, ldb, c, ldc, alpha)
}
