//go:build amd64

package gemm

func setFMA(on bool) { hasFMA = on }
