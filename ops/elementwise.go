package ops

import (
	"fmt"
	"math"

	"github.com/neuralnmf/neuralnmf/autograd"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// Elementwise returns f applied to every entry of a, recorded under name
// with the derivative df: df(x, y) is f′(x), given x and y = f(x) (so that,
// for example, Exp's derivative is y). It is how the unary ops of this file
// are written, and how a caller writes another in one line:
//
//	softplus := ops.Elementwise("softplus", a,
//		func(x float64) float64 { return math.Log1p(math.Exp(x)) },
//		func(x, _ float64) float64 { return 1 / (1 + math.Exp(-x)) })
//
// An entry where f is not finite while x is (outside f's domain, like the
// logarithm of 0) records an error naming name, the entry and its value;
// so does the backward pass, for an entry where a gradient flows (g ≠ 0)
// and df is not finite while x is (the square root's slope at 0). Entries
// (i, j) are 0-based, as the tape's other errors.
func Elementwise(name string, a *autograd.Var, f func(x float64) float64, df func(x, y float64) float64) *autograd.Var {
	return elementwise(name, "", a, f, df)
}

// elementwise is Elementwise with a hint appended to its domain errors.
func elementwise(name, hint string, a *autograd.Var, f func(x float64) float64, df func(x, y float64) float64) *autograd.Var {
	t := autograd.TapeOf(name, a)
	if t.Err() != nil {
		return t.Failed()
	}
	av := a.Value()
	out := t.Alloc(a.Shape())
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	for i, x := range av.Data {
		y := f(x)
		if !finite(y) && finite(x) {
			return t.Fail(fmt.Errorf("%s: entry (%d, %d) is %v, outside the function's domain (the result is %v)%s", name, i/av.Cols, i%av.Cols, x, y, hint))
		}
		out.Data[i] = y
	}
	return t.Record(name, out, func(g *tensor.Dense, need []bool) []*tensor.Dense {
		ga := t.Alloc(g.Rows, g.Cols)
		for i, x := range av.Data {
			if g.Data[i] == 0 {
				continue // no gradient flows through this entry
			}
			d := df(x, out.Data[i])
			if !finite(d) && finite(x) && finite(g.Data[i]) {
				t.Fail(fmt.Errorf("%s: the derivative at entry (%d, %d) = %v is %v, and a gradient flows through it: keep the entries where the function is differentiable (away from 0 for a square root)", name, i/av.Cols, i%av.Cols, x, d))
				return []*tensor.Dense{nil}
			}
			ga.Data[i] = g.Data[i] * d
		}
		return []*tensor.Dense{ga}
	}, a)
}

// Log returns the natural logarithm of every entry of a (all positive).
// For the terms x·log(x/y) of a divergence, where x may be 0, use
// KLDivergence or SparseKLLoss, which take 0·log 0 as 0.
func Log(a *autograd.Var) *autograd.Var {
	return elementwise("ops.Log", "; for the terms x·log(x/y) of a divergence use ops.KLDivergence or ops.SparseKLLoss, which take 0·log 0 as 0, or add a positive constant to the entries", a, math.Log, func(x, _ float64) float64 { return 1 / x })
}

// Exp returns e to the power of every entry of a.
func Exp(a *autograd.Var) *autograd.Var {
	return Elementwise("ops.Exp", a, math.Exp, func(_, y float64) float64 { return y })
}

// Sqrt returns the square root of every entry of a (all nonnegative; the
// derivative at 0 is +Inf: where a gradient flows through a 0, the
// backward pass records an error).
func Sqrt(a *autograd.Var) *autograd.Var {
	return Elementwise("ops.Sqrt", a, math.Sqrt, func(_, y float64) float64 { return 0.5 / y })
}

// Abs returns |x| of every entry x of a, with the subgradient 0 at 0.
func Abs(a *autograd.Var) *autograd.Var {
	return Elementwise("ops.Abs", a, math.Abs, func(x, _ float64) float64 {
		switch {
		case x > 0:
			return 1
		case x < 0:
			return -1
		}
		return 0
	})
}

// Pow returns x^p of every entry x of a. For a p that is not an integer
// the entries must be nonnegative (positive where p < 1 and a gradient
// flows).
func Pow(a *autograd.Var, p float64) *autograd.Var {
	return Elementwise("ops.Pow", a, func(x float64) float64 { return math.Pow(x, p) },
		func(x, _ float64) float64 { return p * math.Pow(x, p-1) })
}

// AddScalar returns a + s, s added to every entry.
func AddScalar(a *autograd.Var, s float64) *autograd.Var {
	return Elementwise("ops.AddScalar", a, func(x float64) float64 { return x + s }, func(float64, float64) float64 { return 1 })
}

// ClampMin returns max(x, lo) of every entry x of a, with the subgradient
// 1 where x > lo and 0 elsewhere (ClampMin(a, 0) is the ReLU).
func ClampMin(a *autograd.Var, lo float64) *autograd.Var {
	return Elementwise("ops.ClampMin", a, func(x float64) float64 { return math.Max(x, lo) }, func(x, _ float64) float64 {
		if x > lo {
			return 1
		}
		return 0
	})
}

// Div returns the element-wise quotient a ⊘ b; a and b must have the same
// shape and b no zero entry.
func Div(a, b *autograd.Var) *autograd.Var {
	const op = "ops.Div"
	t, ok := elementwise2(op, a, b)
	if !ok {
		return t.Failed()
	}
	av, bv := a.Value(), b.Value()
	for i, v := range bv.Data {
		if v == 0 {
			return t.Fail(fmt.Errorf("%s: entry (%d, %d) of the divisor is 0", op, i/bv.Cols, i%bv.Cols))
		}
	}
	out := t.Alloc(a.Shape())
	for i := range out.Data {
		out.Data[i] = av.Data[i] / bv.Data[i]
	}
	return t.Record(op, out, func(g *tensor.Dense, need []bool) []*tensor.Dense {
		var ga, gb *tensor.Dense
		if need[0] {
			ga = t.Alloc(g.Rows, g.Cols)
			for i := range ga.Data {
				ga.Data[i] = g.Data[i] / bv.Data[i]
			}
		}
		if need[1] {
			gb = t.Alloc(g.Rows, g.Cols)
			for i := range gb.Data {
				gb.Data[i] = -g.Data[i] * out.Data[i] / bv.Data[i]
			}
		}
		return []*tensor.Dense{ga, gb}
	}, a, b)
}

// RowSums returns the r×1 sums of the rows of a (r×c).
func RowSums(a *autograd.Var) *autograd.Var { return reduce("ops.RowSums", a, true, 1) }

// ColSums returns the 1×c sums of the columns of a (r×c).
func ColSums(a *autograd.Var) *autograd.Var { return reduce("ops.ColSums", a, false, 1) }

// RowMeans returns the r×1 means of the rows of a (r×c).
func RowMeans(a *autograd.Var) *autograd.Var {
	_, c := a.Shape()
	return reduce("ops.RowMeans", a, true, 1/float64(max(c, 1)))
}

// ColMeans returns the 1×c means of the columns of a (r×c).
func ColMeans(a *autograd.Var) *autograd.Var {
	r, _ := a.Shape()
	return reduce("ops.ColMeans", a, false, 1/float64(max(r, 1)))
}

// reduce sums a's rows (byRow) or columns, times scale.
func reduce(op string, a *autograd.Var, byRow bool, scale float64) *autograd.Var {
	t := autograd.TapeOf(op, a)
	if t.Err() != nil {
		return t.Failed()
	}
	av := a.Value()
	var out *tensor.Dense
	if byRow {
		out = t.Alloc(av.Rows, 1)
	} else {
		out = t.Alloc(1, av.Cols)
	}
	for i := 0; i < av.Rows; i++ {
		for j := 0; j < av.Cols; j++ {
			if byRow {
				out.Data[i] += scale * av.Data[i*av.Cols+j]
			} else {
				out.Data[j] += scale * av.Data[i*av.Cols+j]
			}
		}
	}
	return t.Record(op, out, func(g *tensor.Dense, need []bool) []*tensor.Dense {
		ga := t.Alloc(av.Rows, av.Cols)
		for i := 0; i < av.Rows; i++ {
			for j := 0; j < av.Cols; j++ {
				if byRow {
					ga.Data[i*av.Cols+j] = scale * g.Data[i]
				} else {
					ga.Data[i*av.Cols+j] = scale * g.Data[j]
				}
			}
		}
		return []*tensor.Dense{ga}
	}, a)
}

// BroadcastRow returns the rows×c matrix whose every row is v (1×c), so
// that a row vector combines with a matrix through Add, Hadamard or Div.
func BroadcastRow(v *autograd.Var, rows int) *autograd.Var {
	return broadcast("ops.BroadcastRow", v, rows, false)
}

// BroadcastCol returns the r×cols matrix whose every column is v (r×1).
func BroadcastCol(v *autograd.Var, cols int) *autograd.Var {
	return broadcast("ops.BroadcastCol", v, cols, true)
}

// broadcast repeats v (a column when col, else a row) n times.
func broadcast(op string, v *autograd.Var, n int, col bool) *autograd.Var {
	t := autograd.TapeOf(op, v)
	if t.Err() != nil {
		return t.Failed()
	}
	vr, vc := v.Shape()
	switch {
	case col && vc != 1, !col && vr != 1:
		return t.Fail(fmt.Errorf("%s: %w: want a %s vector, got %d×%d", op, tensor.ErrShape, map[bool]string{true: "column (r×1)", false: "row (1×c)"}[col], vr, vc))
	case n < 1:
		return t.Fail(fmt.Errorf("%s: %w: %d copies, want at least 1", op, tensor.ErrShape, n))
	}
	vv := v.Value()
	var out *tensor.Dense
	if col {
		out = t.Alloc(vr, n)
		for i := 0; i < vr; i++ {
			for j := 0; j < n; j++ {
				out.Data[i*n+j] = vv.Data[i]
			}
		}
	} else {
		out = t.Alloc(n, vc)
		for i := 0; i < n; i++ {
			copy(out.Data[i*vc:(i+1)*vc], vv.Data)
		}
	}
	return t.Record(op, out, func(g *tensor.Dense, need []bool) []*tensor.Dense {
		gv := t.Alloc(vr, vc) // zeroed
		for i := 0; i < g.Rows; i++ {
			for j := 0; j < g.Cols; j++ {
				if col {
					gv.Data[i] += g.Data[i*g.Cols+j]
				} else {
					gv.Data[j] += g.Data[i*g.Cols+j]
				}
			}
		}
		return []*tensor.Dense{gv}
	}, v)
}
