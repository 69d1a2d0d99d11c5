package nnls

// Test matrices shared with the external test package nnls_test.
var (
	Gaussian = gaussian
	WithCond = withCond
)
