// Package autograd is a small reverse-mode automatic differentiation tape for
// matrix functions.
//
// # The tape
//
// A Tape records operations in the order they run; that order is already a
// topological order, so Backward is a single reverse walk. Leaves enter with
// Param (gradient wanted) or Const (no gradient). An op — built-in or custom —
// computes its output eagerly and calls Record with the output and a VJP
// closure that maps the upstream gradient ∂L/∂out to one gradient per input:
//
//	out := t.Alloc(r, c)            // or any *tensor.Dense the op owns
//	... compute out from a.Value() and b.Value() ...
//	return t.Record("mine", out, func(g *tensor.Dense, need []bool) []*tensor.Dense {
//		return []*tensor.Dense{ga, gb} // nil where need[i] is false or the gradient is zero
//	}, a, b)
//
// Gradients accumulate on fan-out (a variable used twice receives the sum).
// Backward checks that every gradient a VJP returns has its input's shape, and
// skips VJPs whose output does not depend on a parameter.
//
// # Errors
//
// Ops never panic on user data. An op that meets bad input (a shape mismatch, a
// singular system, negative data where the op needs nonnegative data) calls
// Fail; the error sticks to the tape, later ops return at once, and Err and
// Backward report the first error. Using a nil Var, mixing Vars of two tapes,
// or using a Var recorded before the last Reset are programmer errors and
// panic.
//
// # Memory
//
// Values recorded on a tape and the gradients returned by Backward may live in
// the tape's arena (Alloc): they stay valid until the next Reset, after which
// the same buffers are handed out again. Clone anything that must outlive the
// step. Reset keeps the arena, so a training loop that records the same ops
// each step allocates almost nothing after the first step.
package autograd
