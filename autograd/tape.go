package autograd

import (
	"errors"
	"fmt"

	"github.com/neuralnmf/neuralnmf/tensor"
)

// VJP maps the upstream gradient g = ∂L/∂out (same shape as the op's output)
// to one gradient per input, in the order the inputs were given to Record. An
// entry may be nil for "zero" and must be nil or ignored where need[i] is
// false: need[i] reports whether input i requires a gradient, so a VJP can
// skip work nobody uses. The VJP must not modify g, must not retain g or need
// after it returns, and must not return g itself or share one returned matrix
// between two inputs unless it never writes to it again; Backward only reads
// the returned matrices. A VJP that cannot compute its gradient (the function
// is not differentiable at this point) calls Tape.Fail and returns nils;
// Backward then returns that error.
type VJP func(g *tensor.Dense, need []bool) []*tensor.Dense

// Var is a matrix-valued variable recorded on a Tape.
type Var struct {
	value        *tensor.Dense
	tape         *Tape
	id           int
	gen          uint64
	requiresGrad bool
}

// Value returns the variable's value. It is owned by the tape (or, for Param
// and Const, by the caller) and must not be modified.
func (v *Var) Value() *tensor.Dense { return v.value }

// Shape returns the dimensions of the value.
func (v *Var) Shape() (rows, cols int) { return v.value.Rows, v.value.Cols }

// RequiresGrad reports whether the variable depends on a parameter.
func (v *Var) RequiresGrad() bool { return v.requiresGrad }

// Tape returns the tape the variable was recorded on.
func (v *Var) Tape() *Tape { return v.tape }

type node struct {
	op  string
	out *Var
	in  []*Var
	vjp VJP
}

// Tape records operations for reverse-mode differentiation. The zero value is
// not usable; create one with NewTape. A Tape is not safe for concurrent use.
type Tape struct {
	gen    uint64
	nvars  int
	nodes  []node
	params []*Var
	err    error
	piece  uint64
	arena  arena
	grads  []*tensor.Dense
	need   []bool
	failed *Var
	// fresh holds, while Backward runs (tracking), the matrices Alloc has
	// handed out since it started and no gradient has adopted yet.
	fresh    map[*tensor.Dense]struct{}
	tracking bool
}

// NewTape returns an empty tape.
func NewTape() *Tape { return &Tape{gen: 1} }

// Reset forgets every recorded variable and error so the tape can record the
// next step. Buffers handed out by Alloc and gradients returned by Backward
// are recycled: values obtained before Reset must not be used after it.
func (t *Tape) Reset() {
	t.gen++
	t.nvars = 0
	clear(t.nodes)
	t.nodes = t.nodes[:0]
	clear(t.params)
	t.params = t.params[:0]
	t.err = nil
	t.piece = 0
	t.failed = nil
	t.arena.reset()
}

// Param records x as a leaf that requires a gradient. x is not copied: the
// tape reads it during this step, and the caller may update it in place
// between Reset and the next recording.
func (t *Tape) Param(x *tensor.Dense) *Var {
	if x == nil {
		panic("autograd: Param(nil)")
	}
	v := t.newVar(x, true)
	t.params = append(t.params, v)
	return v
}

// Const records x as a leaf that needs no gradient. x is not copied.
func (t *Tape) Const(x *tensor.Dense) *Var {
	if x == nil {
		panic("autograd: Const(nil)")
	}
	return t.newVar(x, false)
}

func (t *Tape) newVar(x *tensor.Dense, grad bool) *Var {
	v := &Var{value: x, tape: t, id: t.nvars, gen: t.gen, requiresGrad: grad}
	t.nvars++
	return v
}

// Record adds the result of an op to the tape and returns it as a Var. The
// output requires a gradient if any input does and vjp is not nil; only then
// is the VJP kept. op names the operation in error messages. If the tape
// already holds an error, Record returns the failed variable and ignores out.
// Record panics if an input is nil, belongs to another tape, or was recorded
// before the last Reset.
func (t *Tape) Record(op string, out *tensor.Dense, vjp VJP, in ...*Var) *Var {
	t.checkInputs(op, in)
	if t.err != nil {
		return t.Failed()
	}
	if out == nil {
		return t.Fail(fmt.Errorf("%s: op recorded a nil output", op))
	}
	grad := false
	if vjp != nil {
		for _, v := range in {
			grad = grad || v.requiresGrad
		}
	}
	v := t.newVar(out, grad)
	if grad {
		t.nodes = append(t.nodes, node{op: op, out: v, in: append([]*Var(nil), in...), vjp: vjp})
	}
	return v
}

// TapeOf returns the tape that all of vs belong to. It panics if vs is empty,
// if a Var is nil, if they belong to different tapes, or if one was recorded
// before the tape's last Reset. Ops call it first, then return t.Failed() if
// t.Err() is not nil.
func TapeOf(op string, vs ...*Var) *Tape {
	if len(vs) == 0 || vs[0] == nil {
		panic(op + ": nil or missing input variable")
	}
	t := vs[0].tape
	t.checkInputs(op, vs)
	return t
}

func (t *Tape) checkInputs(op string, in []*Var) {
	for i, v := range in {
		switch {
		case v == nil:
			panic(fmt.Sprintf("%s: input %d is a nil *Var", op, i))
		case v.tape != t:
			panic(fmt.Sprintf("%s: input %d belongs to another tape", op, i))
		case v.gen != t.gen:
			panic(fmt.Sprintf("%s: input %d was recorded before the tape was Reset", op, i))
		}
	}
}

// Fail records err as the tape's error if it has none yet, and returns the
// failed variable. Ops call it on bad input instead of panicking.
func (t *Tape) Fail(err error) *Var {
	if t.err == nil {
		t.err = err
	}
	return t.Failed()
}

// Failed returns the variable that ops return once the tape holds an error:
// an empty 0×0 value that needs no gradient.
func (t *Tape) Failed() *Var {
	if t.failed == nil {
		t.failed = t.newVar(tensor.New(0, 0), false)
	}
	return t.failed
}

// Err returns the first error any op met since the last Reset, or nil.
func (t *Tape) Err() error { return t.err }

// Alloc returns a zeroed r×c matrix from the tape's arena. It stays valid until
// the next Reset; after that the storage is reused.
func (t *Tape) Alloc(r, c int) *tensor.Dense {
	d := t.arena.alloc(r, c)
	if t.tracking {
		t.fresh[d] = struct{}{}
	}
	return d
}

// MarkPiece folds key into the tape's piece fingerprint. Ops that are only
// piecewise smooth (NNLS: one piece per set of supports) call it with a hash
// of the piece they evaluated, so that a finite-difference checker can tell
// when a perturbation moved the function onto another piece.
func (t *Tape) MarkPiece(key uint64) {
	t.piece = (t.piece ^ key) * 0x100000001b3
	t.piece ^= t.piece >> 29
}

// Piece returns the fingerprint of every MarkPiece call since the last Reset;
// 0 if there were none.
func (t *Tape) Piece() uint64 { return t.piece }

// Params returns the variables recorded with Param since the last Reset, in
// order. The slice is owned by the tape.
func (t *Tape) Params() []*Var { return t.params }

// ErrNotScalar is wrapped by Backward's error when the loss is not 1×1.
var ErrNotScalar = errors.New("loss is not a 1×1 scalar")

// Grads holds the gradients computed by Backward. They live in the tape's
// arena and stay valid until the next Reset.
type Grads struct {
	t    *Tape
	gen  uint64
	byID []*tensor.Dense
}

// Of returns ∂L/∂v, with v's shape. For a variable that does not influence
// the loss, or one that needs no gradient, it returns a zero matrix. It panics
// if v belongs to another tape or step.
func (g Grads) Of(v *Var) *tensor.Dense {
	if v == nil || v.tape != g.t || v.gen != g.gen || g.t.gen != g.gen {
		panic("autograd: Grads.Of: variable is not from the step these gradients were computed for")
	}
	if d := g.byID[v.id]; d != nil {
		return d
	}
	return g.t.Alloc(v.value.Rows, v.value.Cols)
}

// Reached reports whether the loss depends on v through the recorded ops
// (a path from v to the loss exists), so that a caller can tell a
// variable the loss ignores from one whose gradient happens to be zero. It
// panics as Of does.
func (g Grads) Reached(v *Var) bool {
	if v == nil || v.tape != g.t || v.gen != g.gen || g.t.gen != g.gen {
		panic("autograd: Grads.Reached: variable is not from the step these gradients were computed for")
	}
	return g.byID[v.id] != nil
}

// Backward computes the gradient of loss, which must be a 1×1 variable on t,
// with respect to every variable that requires one. It returns the tape's
// sticky error if an op failed, an error wrapping ErrNotScalar for a loss
// that is not 1×1, and an error naming the op and both shapes if a VJP
// returns a gradient whose shape differs from its input's.
//
// Backward reads the gradients a VJP returns when it returns. The first
// gradient to reach a variable is copied into the arena, unless the VJP
// allocated it with Alloc during this Backward: that matrix becomes the
// variable's gradient as it is (later gradients are added to it), so a VJP
// must not keep a matrix it returns to write to it later.
func (t *Tape) Backward(loss *Var) (Grads, error) {
	t.checkInputs("autograd.Backward", []*Var{loss})
	if t.err != nil {
		return Grads{}, t.err
	}
	if r, c := loss.Shape(); r != 1 || c != 1 {
		return Grads{}, fmt.Errorf("autograd.Backward: %w: loss is %d×%d", ErrNotScalar, r, c)
	}
	if cap(t.grads) < t.nvars {
		t.grads = make([]*tensor.Dense, t.nvars)
	}
	grads := t.grads[:t.nvars]
	clear(grads)
	g := Grads{t: t, gen: t.gen, byID: grads}
	if !loss.requiresGrad {
		return g, nil
	}
	seed := t.Alloc(1, 1)
	seed.Data[0] = 1
	grads[loss.id] = seed
	if t.fresh == nil {
		t.fresh = make(map[*tensor.Dense]struct{})
	}
	t.tracking = true
	defer func() { t.tracking = false; clear(t.fresh) }()
	for i := len(t.nodes) - 1; i >= 0; i-- {
		n := &t.nodes[i]
		up := grads[n.out.id]
		if up == nil {
			continue
		}
		need := t.need[:0]
		for _, v := range n.in {
			need = append(need, v.requiresGrad)
		}
		t.need = need
		res := n.vjp(up, need)
		if t.err != nil {
			return Grads{}, t.err
		}
		if len(res) != len(n.in) {
			return Grads{}, fmt.Errorf("autograd.Backward: op %q returned %d gradients for %d inputs", n.op, len(res), len(n.in))
		}
		for j, v := range n.in {
			gj := res[j]
			if !need[j] || gj == nil {
				continue
			}
			if !gj.SameShape(v.value) {
				return Grads{}, fmt.Errorf("autograd.Backward: op %q: %w: gradient for input %d is %d×%d, input is %d×%d",
					n.op, tensor.ErrShape, j, gj.Rows, gj.Cols, v.value.Rows, v.value.Cols)
			}
			if acc := grads[v.id]; acc != nil {
				tensor.AddScaled(acc, 1, gj)
			} else if _, ok := t.fresh[gj]; ok {
				// The VJP allocated gj for this input: keep it, no copy.
				delete(t.fresh, gj)
				grads[v.id] = gj
			} else {
				acc = t.arena.alloc(gj.Rows, gj.Cols) // not a VJP's: untracked
				acc.Copy(gj)
				grads[v.id] = acc
			}
		}
	}
	return g, nil
}
