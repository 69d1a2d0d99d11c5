//go:build !amd64

package gemm

// kernels lists the micro-kernels this CPU runs: the portable one.
func kernels() []microKernel { return []microKernel{goKernel} }

// kernel is the micro-kernel Dgemm uses.
var kernel = goKernel
