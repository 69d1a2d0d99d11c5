// Package gradcheck verifies gradients computed on an autograd.Tape against
// central finite differences.
//
// Check evaluates a user function at the given inputs, runs Backward, and
// compares each analytic derivative with a central difference computed by
// gonum's diff/fd. Full mode checks every entry of every input; Random mode
// checks directional derivatives ⟨∇L, d⟩ along seeded random unit directions,
// which costs two evaluations per direction whatever the input size.
//
// # Non-smooth functions
//
// NNLS is only piecewise smooth: its derivative jumps where a support changes.
// Ops with pieces mark them on the tape (autograd.Tape.MarkPiece). A finite
// difference whose x+h or x−h evaluation lands on another piece than x does
// is not a derivative, so Check skips it and counts it in the report
// (SkippedPiece). Evaluations that fail (the step left the op's domain, such
// as a negative entry in NNLS data) are skipped and counted too
// (SkippedDomain). Assert fails when more than MaxSkipFraction of the checks
// were skipped, so a checker that skips everything cannot pass.
//
// # Tolerances
//
// An entry passes when |analytic − numeric| ≤ AbsTol + RelTol·max(|analytic|,
// |numeric|). The central difference with step h has truncation error O(h²)
// and rounding error about ε·|L|/h; the default AbsTol is 1000·ε·(|L|+ε)/h
// (2.2e-7·|L| at the default h = 1e-6), and the default RelTol is 1e-5.
package gradcheck

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/diff/fd"

	"github.com/neuralnmf/neuralnmf/autograd"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// Func builds a 1×1 loss on t from in. The checker records every input as a
// Param, so in[i] has the shape of the i-th input matrix. Func must be
// deterministic: equal inputs must give equal losses. To hold an argument
// constant, close over it and record it with t.Const.
type Func func(t *autograd.Tape, in []*autograd.Var) *autograd.Var

// Mode selects what Check perturbs.
type Mode int

const (
	// Full perturbs every entry of every input: 2 evaluations per entry.
	Full Mode = iota
	// Random checks Directions random directional derivatives per input.
	Random
)

func (m Mode) String() string {
	if m == Random {
		return "random-direction"
	}
	return "full"
}

// Options configures Check. The zero value (or nil) gives Full mode with the
// defaults documented on each field.
type Options struct {
	Mode Mode
	// Directions is the number of random directions per input in Random
	// mode. Default 8.
	Directions int
	// Step is the relative finite-difference step: entry x is perturbed by
	// h = Step·max(1, |x|) in Full mode; in Random mode by h = Step·max(1,
	// max|x|) along a unit direction. Default 1e-6.
	Step float64
	// RelTol and AbsTol are the tolerances; see the package doc. Defaults
	// 1e-5 and 1000·ε·(|L|+ε)/h.
	RelTol, AbsTol float64
	// Seed seeds the random directions.
	Seed uint64
	// IgnorePieces disables the piece test, for checking that a kink is
	// really there.
	IgnorePieces bool
	// MaxSkipFraction is the largest share of skipped checks Assert accepts.
	// Default 0.1. Check itself only reports.
	MaxSkipFraction float64
}

func (o *Options) withDefaults() Options {
	var r Options
	if o != nil {
		r = *o
	}
	if r.Directions <= 0 {
		r.Directions = 8
	}
	if r.Step <= 0 {
		r.Step = 1e-6
	}
	if r.RelTol <= 0 {
		r.RelTol = 1e-5
	}
	if r.MaxSkipFraction <= 0 {
		r.MaxSkipFraction = 0.1
	}
	return r
}

// Entry is one compared derivative. In Full mode Row and Col locate the entry
// of input Input; in Random mode Row and Col are −1 and Direction numbers the
// direction.
type Entry struct {
	Input, Row, Col, Direction int
	Analytic, Numeric          float64
	// AbsErr is |Analytic − Numeric|; Ratio is AbsErr over the tolerance, so
	// a check passes when Ratio ≤ 1.
	AbsErr, Ratio float64
}

// Report is the result of Check.
type Report struct {
	Mode Mode
	// Loss is L at the inputs.
	Loss float64
	// Checked counts compared derivatives, Failed those out of tolerance.
	Checked, Failed int
	// SkippedPiece counts finite differences that crossed a kink;
	// SkippedDomain counts those whose evaluation failed.
	SkippedPiece, SkippedDomain int
	// Worst is the compared derivative with the largest Ratio.
	Worst Entry
	// Passed is true when at least one derivative was compared and none
	// failed.
	Passed bool
}

// Skipped returns SkippedPiece + SkippedDomain.
func (r *Report) Skipped() int { return r.SkippedPiece + r.SkippedDomain }

// SkipFraction returns the share of attempted checks that were skipped.
func (r *Report) SkipFraction() float64 {
	n := r.Checked + r.Skipped()
	if n == 0 {
		return 0
	}
	return float64(r.Skipped()) / float64(n)
}

func (r *Report) String() string {
	var b strings.Builder
	status := "PASS"
	if !r.Passed {
		status = "FAIL"
	}
	fmt.Fprintf(&b, "gradcheck %s (%s): %d checked, %d failed, %d skipped (%d at kinks, %d outside the domain), L=%.6g",
		status, r.Mode, r.Checked, r.Failed, r.Skipped(), r.SkippedPiece, r.SkippedDomain, r.Loss)
	if r.Checked > 0 {
		w := r.Worst
		where := fmt.Sprintf("input %d entry (%d, %d)", w.Input, w.Row, w.Col)
		if r.Mode == Random {
			where = fmt.Sprintf("input %d direction %d", w.Input, w.Direction)
		}
		fmt.Fprintf(&b, "; worst at %s: analytic %.10g, numeric %.10g, |diff| %.3g (%.3g× tolerance)",
			where, w.Analytic, w.Numeric, w.AbsErr, w.Ratio)
	}
	return b.String()
}

// evaluator runs f on a private tape over private, contiguous copies of the
// inputs; base holds their unperturbed values.
type evaluator struct {
	f    Func
	tape *autograd.Tape
	xs   []*tensor.Dense
	base [][]float64
	vars []*autograd.Var
}

// eval returns the loss variable, L, the piece fingerprint and the tape's
// error. The variable is valid until the next eval.
func (e *evaluator) eval() (*autograd.Var, float64, uint64, error) {
	e.tape.Reset()
	e.vars = e.vars[:0]
	for _, x := range e.xs {
		e.vars = append(e.vars, e.tape.Param(x))
	}
	loss := e.f(e.tape, e.vars)
	if err := e.tape.Err(); err != nil {
		return nil, 0, 0, err
	}
	if loss == nil {
		return nil, 0, 0, fmt.Errorf("gradcheck: Func returned nil")
	}
	if r, c := loss.Shape(); r != 1 || c != 1 {
		return nil, 0, 0, fmt.Errorf("gradcheck: Func returned a %d×%d value, want 1×1", r, c)
	}
	return loss, loss.Value().Data[0], e.tape.Piece(), nil
}

// Check compares the gradient of f at inputs with central finite differences.
// inputs are copied, never modified. It returns an error if inputs is empty,
// an input is empty or not finite, or f or Backward fails at the inputs
// themselves.
func Check(f Func, inputs []*tensor.Dense, opt *Options) (*Report, error) {
	o := opt.withDefaults()
	if len(inputs) == 0 {
		return nil, fmt.Errorf("gradcheck: no inputs")
	}
	e := &evaluator{f: f, tape: autograd.NewTape()}
	for i, x := range inputs {
		name := fmt.Sprintf("input %d", i)
		if err := tensor.CheckNotEmpty(name, x); err != nil {
			return nil, fmt.Errorf("gradcheck: %w", err)
		}
		if err := tensor.CheckFinite(name, x); err != nil {
			return nil, fmt.Errorf("gradcheck: %w", err)
		}
		c := x.Clone()
		e.xs = append(e.xs, c)
		e.base = append(e.base, append([]float64(nil), c.Data...))
	}
	loss, l0, piece0, err := e.eval()
	if err != nil {
		return nil, fmt.Errorf("gradcheck: at the inputs: %w", err)
	}
	grads, err := e.tape.Backward(loss)
	if err != nil {
		return nil, fmt.Errorf("gradcheck: at the inputs: %w", err)
	}
	analytic := make([]*tensor.Dense, len(e.xs))
	for i, v := range e.vars {
		analytic[i] = grads.Of(v).Clone() // the tape's arena is reused below
	}

	rep := &Report{Mode: o.Mode, Loss: l0}
	check := func(en Entry, dir []float64, input int, h float64) {
		x := e.xs[input]
		crossed, failed := false, false
		fn := func(s float64) float64 {
			for j, d := range dir {
				x.Data[j] = e.base[input][j] + s*d
			}
			_, l, p, err := e.eval()
			if err != nil {
				failed = true
				return 0
			}
			if p != piece0 {
				crossed = true
			}
			return l
		}
		num := fd.Derivative(fn, 0, &fd.Settings{Formula: fd.Central, Step: h})
		copy(x.Data, e.base[input])
		switch {
		case failed:
			rep.SkippedDomain++
			return
		case crossed && !o.IgnorePieces:
			rep.SkippedPiece++
			return
		}
		en.Numeric = num
		en.AbsErr = math.Abs(en.Analytic - num)
		tol := o.AbsTol
		if tol <= 0 {
			tol = 1000 * 0x1p-52 * (math.Abs(l0) + 0x1p-52) / h
		}
		tol += o.RelTol * math.Max(math.Abs(en.Analytic), math.Abs(num))
		en.Ratio = en.AbsErr / tol
		rep.Checked++
		if en.Ratio > 1 || math.IsNaN(en.Ratio) {
			rep.Failed++
		}
		if rep.Checked == 1 || en.Ratio > rep.Worst.Ratio || math.IsNaN(en.Ratio) {
			rep.Worst = en
		}
	}

	switch o.Mode {
	case Full:
		for i, x := range e.xs {
			dir := make([]float64, len(x.Data))
			for r := 0; r < x.Rows; r++ {
				for c := 0; c < x.Cols; c++ {
					j := r*x.Stride + c
					dir[j] = 1
					h := o.Step * math.Max(1, math.Abs(e.base[i][j]))
					check(Entry{Input: i, Row: r, Col: c, Direction: -1, Analytic: analytic[i].Data[j]}, dir, i, h)
					dir[j] = 0
				}
			}
		}
	case Random:
		rng := tensor.NewRand(o.Seed)
		for i, x := range e.xs {
			h := o.Step * math.Max(1, tensor.MaxAbs(x))
			dir := make([]float64, len(x.Data))
			for k := 0; k < o.Directions; k++ {
				var nrm float64
				for j := range dir {
					dir[j] = rng.NormFloat64()
					nrm += dir[j] * dir[j]
				}
				nrm = math.Sqrt(nrm)
				var a float64
				for j := range dir {
					dir[j] /= nrm
					a += analytic[i].Data[j] * dir[j]
				}
				check(Entry{Input: i, Row: -1, Col: -1, Direction: k, Analytic: a}, dir, i, h)
			}
		}
	default:
		return nil, fmt.Errorf("gradcheck: unknown mode %d", o.Mode)
	}
	rep.Passed = rep.Checked > 0 && rep.Failed == 0
	return rep, nil
}

// Assert runs Check and reports through tb: a fatal error if Check fails to
// run, an error with the report if a derivative is out of tolerance or if
// more than MaxSkipFraction of the checks were skipped. It returns the report.
func Assert(tb testing.TB, f Func, inputs []*tensor.Dense, opt *Options) *Report {
	tb.Helper()
	rep, err := Check(f, inputs, opt)
	if err != nil {
		tb.Fatal(err)
		return nil
	}
	o := opt.withDefaults()
	if !rep.Passed {
		tb.Error(rep.String())
	} else if rep.SkipFraction() > o.MaxSkipFraction {
		tb.Errorf("gradcheck: %.0f%% of checks skipped (limit %.0f%%): %s", 100*rep.SkipFraction(), 100*o.MaxSkipFraction, rep)
	}
	return rep
}
