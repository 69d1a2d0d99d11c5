// Package tensor provides Dense, the 2-D row-major float64 matrix that every
// other package of neuralnmf computes with, plus the element-wise kernels and
// input validation the differentiable ops need.
//
// # Storage and gonum interop
//
// A Dense exposes its storage: element (i, j) is Data[i*Stride+j]. RawMatrix
// returns a blas64.General that aliases Data, so gonum's blas64 and lapack64
// routines work on a Dense directly, and Mat returns a *mat.Dense view for the
// higher-level mat API. Neither copies.
//
// # Errors
//
// Constructors and kernels panic on programmer errors (negative dimensions, a
// shape mismatch between operands of an in-place kernel), as gonum's mat does.
// The Check functions are for user data: they return an error that wraps one of
// the sentinel errors below and names the argument and the offending entry, so
// callers can both print it and test it with errors.Is.
package tensor
