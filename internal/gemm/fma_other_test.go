//go:build !amd64

package gemm

func setFMA(bool) {}
