package ops

import (
	"fmt"

	"github.com/neuralnmf/neuralnmf/autograd"
	"github.com/neuralnmf/neuralnmf/tensor"
)

func shapeErr(op string, what string, a, b *autograd.Var) error {
	ar, ac := a.Shape()
	br, bc := b.Shape()
	return fmt.Errorf("%s: %w: %s (%d×%d and %d×%d)", op, tensor.ErrShape, what, ar, ac, br, bc)
}

// MatMul returns a·b for a of shape n×k and b of shape k×m; the result is n×m.
func MatMul(a, b *autograd.Var) *autograd.Var {
	const op = "ops.MatMul"
	t := autograd.TapeOf(op, a, b)
	if t.Err() != nil {
		return t.Failed()
	}
	av, bv := a.Value(), b.Value()
	if av.Cols != bv.Rows {
		return t.Fail(shapeErr(op, "inner dimensions differ", a, b))
	}
	out := t.Alloc(av.Rows, bv.Cols)
	gemm(false, false, 1, av, bv, 0, out)
	return t.Record(op, out, func(g *tensor.Dense, need []bool) []*tensor.Dense {
		var ga, gb *tensor.Dense
		if need[0] { // ∂/∂a = g bᵀ
			ga = t.Alloc(av.Rows, av.Cols)
			gemm(false, true, 1, g, bv, 0, ga)
		}
		if need[1] { // ∂/∂b = aᵀ g
			gb = t.Alloc(bv.Rows, bv.Cols)
			gemm(true, false, 1, av, g, 0, gb)
		}
		return []*tensor.Dense{ga, gb}
	}, a, b)
}

// MatMulTA returns aᵀ·b for a of shape k×n and b of shape k×m; the result is
// n×m. It never forms aᵀ.
func MatMulTA(a, b *autograd.Var) *autograd.Var {
	const op = "ops.MatMulTA"
	t := autograd.TapeOf(op, a, b)
	if t.Err() != nil {
		return t.Failed()
	}
	av, bv := a.Value(), b.Value()
	if av.Rows != bv.Rows {
		return t.Fail(shapeErr(op, "row counts differ", a, b))
	}
	out := t.Alloc(av.Cols, bv.Cols)
	gemm(true, false, 1, av, bv, 0, out)
	return t.Record(op, out, func(g *tensor.Dense, need []bool) []*tensor.Dense {
		var ga, gb *tensor.Dense
		if need[0] { // ∂/∂a = b gᵀ
			ga = t.Alloc(av.Rows, av.Cols)
			gemm(false, true, 1, bv, g, 0, ga)
		}
		if need[1] { // ∂/∂b = a g
			gb = t.Alloc(bv.Rows, bv.Cols)
			gemm(false, false, 1, av, g, 0, gb)
		}
		return []*tensor.Dense{ga, gb}
	}, a, b)
}

// MatMulTB returns a·bᵀ for a of shape n×k and b of shape m×k; the result is
// n×m. It never forms bᵀ.
func MatMulTB(a, b *autograd.Var) *autograd.Var {
	const op = "ops.MatMulTB"
	t := autograd.TapeOf(op, a, b)
	if t.Err() != nil {
		return t.Failed()
	}
	av, bv := a.Value(), b.Value()
	if av.Cols != bv.Cols {
		return t.Fail(shapeErr(op, "column counts differ", a, b))
	}
	out := t.Alloc(av.Rows, bv.Rows)
	gemm(false, true, 1, av, bv, 0, out)
	return t.Record(op, out, func(g *tensor.Dense, need []bool) []*tensor.Dense {
		var ga, gb *tensor.Dense
		if need[0] { // ∂/∂a = g b
			ga = t.Alloc(av.Rows, av.Cols)
			gemm(false, false, 1, g, bv, 0, ga)
		}
		if need[1] { // ∂/∂b = gᵀ a
			gb = t.Alloc(bv.Rows, bv.Cols)
			gemm(true, false, 1, g, av, 0, gb)
		}
		return []*tensor.Dense{ga, gb}
	}, a, b)
}

// elementwise2 checks that a and b have one shape and returns the tape.
func elementwise2(op string, a, b *autograd.Var) (*autograd.Tape, bool) {
	t := autograd.TapeOf(op, a, b)
	if t.Err() != nil {
		return t, false
	}
	if !a.Value().SameShape(b.Value()) {
		t.Fail(shapeErr(op, "shapes differ", a, b))
		return t, false
	}
	return t, true
}

// Add returns a + b; a and b must have the same shape.
func Add(a, b *autograd.Var) *autograd.Var {
	const op = "ops.Add"
	t, ok := elementwise2(op, a, b)
	if !ok {
		return t.Failed()
	}
	out := t.Alloc(a.Shape())
	tensor.Add(out, a.Value(), b.Value())
	return t.Record(op, out, func(g *tensor.Dense, need []bool) []*tensor.Dense {
		return []*tensor.Dense{g, g} // Backward only reads them.
	}, a, b)
}

// Sub returns a − b; a and b must have the same shape.
func Sub(a, b *autograd.Var) *autograd.Var {
	const op = "ops.Sub"
	t, ok := elementwise2(op, a, b)
	if !ok {
		return t.Failed()
	}
	out := t.Alloc(a.Shape())
	tensor.Sub(out, a.Value(), b.Value())
	return t.Record(op, out, func(g *tensor.Dense, need []bool) []*tensor.Dense {
		var gb *tensor.Dense
		if need[1] {
			gb = t.Alloc(g.Rows, g.Cols)
			tensor.Scale(gb, -1, g)
		}
		return []*tensor.Dense{g, gb}
	}, a, b)
}

// Hadamard returns the element-wise product a ∘ b; a and b must have the same
// shape.
func Hadamard(a, b *autograd.Var) *autograd.Var {
	const op = "ops.Hadamard"
	t, ok := elementwise2(op, a, b)
	if !ok {
		return t.Failed()
	}
	av, bv := a.Value(), b.Value()
	out := t.Alloc(a.Shape())
	tensor.Mul(out, av, bv)
	return t.Record(op, out, func(g *tensor.Dense, need []bool) []*tensor.Dense {
		var ga, gb *tensor.Dense
		if need[0] {
			ga = t.Alloc(g.Rows, g.Cols)
			tensor.Mul(ga, g, bv)
		}
		if need[1] {
			gb = t.Alloc(g.Rows, g.Cols)
			tensor.Mul(gb, g, av)
		}
		return []*tensor.Dense{ga, gb}
	}, a, b)
}

// Scale returns s·a.
func Scale(a *autograd.Var, s float64) *autograd.Var {
	const op = "ops.Scale"
	t := autograd.TapeOf(op, a)
	if t.Err() != nil {
		return t.Failed()
	}
	out := t.Alloc(a.Shape())
	tensor.Scale(out, s, a.Value())
	return t.Record(op, out, func(g *tensor.Dense, need []bool) []*tensor.Dense {
		ga := t.Alloc(g.Rows, g.Cols)
		tensor.Scale(ga, s, g)
		return []*tensor.Dense{ga}
	}, a)
}

// Transpose returns aᵀ; for a of shape r×c the result is c×r.
func Transpose(a *autograd.Var) *autograd.Var {
	const op = "ops.Transpose"
	t := autograd.TapeOf(op, a)
	if t.Err() != nil {
		return t.Failed()
	}
	r, c := a.Shape()
	out := t.Alloc(c, r)
	tensor.TransposeInto(out, a.Value())
	return t.Record(op, out, func(g *tensor.Dense, need []bool) []*tensor.Dense {
		ga := t.Alloc(r, c)
		tensor.TransposeInto(ga, g)
		return []*tensor.Dense{ga}
	}, a)
}

// Sum returns the 1×1 sum of all elements of a.
func Sum(a *autograd.Var) *autograd.Var {
	const op = "ops.Sum"
	t := autograd.TapeOf(op, a)
	if t.Err() != nil {
		return t.Failed()
	}
	out := t.Alloc(1, 1)
	out.Data[0] = tensor.Sum(a.Value())
	return t.Record(op, out, func(g *tensor.Dense, need []bool) []*tensor.Dense {
		ga := t.Alloc(a.Shape())
		ga.Fill(g.Data[0])
		return []*tensor.Dense{ga}
	}, a)
}
