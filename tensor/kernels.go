package tensor

import (
	"fmt"
	"math"
)

// The kernels below write into dst, which may alias any operand. They panic
// if operand shapes differ, as gonum's kernels do: shape agreement is the
// caller's responsibility, and user-facing entry points check it first.

// segments returns how an element-wise kernel walks same-shape operands:
// as one segment of Rows·Cols elements when every operand is contiguous,
// else as Rows segments of Cols elements; segment returns operand d's i-th.
// One long loop instead of a short one per row matters for narrow
// matrices: on a 45,534×10 topic matrix the per-row slicing cost more than
// the arithmetic.
func segments(ds ...*Dense) (n, length int) {
	for _, d := range ds {
		if !d.Contiguous() {
			return ds[0].Rows, ds[0].Cols
		}
	}
	return 1, ds[0].Rows * ds[0].Cols
}

// segment returns the i-th of the segments of d that segments described.
func segment(d *Dense, i, length int) []float64 { return d.Data[i*d.Stride : i*d.Stride+length] }

// Add sets dst = a + b.
func Add(dst, a, b *Dense) {
	mustSameShape("Add", dst, a)
	mustSameShape("Add", a, b)
	n, l := segments(dst, a, b)
	for i := range n {
		ra, rb, rd := segment(a, i, l), segment(b, i, l), segment(dst, i, l)
		ra, rb = ra[:len(rd)], rb[:len(rd)]
		for j := range rd {
			rd[j] = ra[j] + rb[j]
		}
	}
}

// Sub sets dst = a − b.
func Sub(dst, a, b *Dense) {
	mustSameShape("Sub", dst, a)
	mustSameShape("Sub", a, b)
	n, l := segments(dst, a, b)
	for i := range n {
		ra, rb, rd := segment(a, i, l), segment(b, i, l), segment(dst, i, l)
		ra, rb = ra[:len(rd)], rb[:len(rd)]
		for j := range rd {
			rd[j] = ra[j] - rb[j]
		}
	}
}

// Mul sets dst = a ∘ b, the element-wise (Hadamard) product.
func Mul(dst, a, b *Dense) {
	mustSameShape("Mul", dst, a)
	mustSameShape("Mul", a, b)
	n, l := segments(dst, a, b)
	for i := range n {
		ra, rb, rd := segment(a, i, l), segment(b, i, l), segment(dst, i, l)
		ra, rb = ra[:len(rd)], rb[:len(rd)]
		for j := range rd {
			rd[j] = ra[j] * rb[j]
		}
	}
}

// Scale sets dst = s·a.
func Scale(dst *Dense, s float64, a *Dense) {
	mustSameShape("Scale", dst, a)
	n, l := segments(dst, a)
	for i := range n {
		ra, rd := segment(a, i, l), segment(dst, i, l)
		ra = ra[:len(rd)]
		for j := range rd {
			rd[j] = s * ra[j]
		}
	}
}

// AddScaled sets dst = dst + s·a (an axpy).
func AddScaled(dst *Dense, s float64, a *Dense) {
	mustSameShape("AddScaled", dst, a)
	n, l := segments(dst, a)
	for i := range n {
		ra, rd := segment(a, i, l), segment(dst, i, l)
		ra = ra[:len(rd)]
		for j := range rd {
			rd[j] += s * ra[j]
		}
	}
}

// ClampZero sets every negative element of d to 0, in place: the projection
// onto the nonnegative orthant. NaN elements are left as they are, and −0
// becomes +0.
func ClampZero(d *Dense) {
	n, l := segments(d)
	for i := range n {
		r := segment(d, i, l)
		for j, v := range r {
			r[j] = max(v, 0) // no branch on the sign, which is mispredicted on mixed signs
		}
	}
}

// Sum returns the sum of all elements.
func Sum(d *Dense) float64 {
	var s float64
	n, l := segments(d)
	for i := range n {
		for _, v := range segment(d, i, l) {
			s += v
		}
	}
	return s
}

// Dot returns the Frobenius inner product ⟨a, b⟩ = Σ a_ij b_ij. The terms,
// in row-major order, are summed in four interleaved partial sums (term e
// into partial e mod 4, combined as (s₀ + s₁) + (s₂ + s₃)): twice as fast
// as one running sum, as accurate or more, and the same bits for a strided
// matrix as for a contiguous copy.
func Dot(a, b *Dense) float64 {
	mustSameShape("Dot", a, b)
	return sumLanes(a, b, (*lanes).dot)
}

// SqNorm returns ‖d‖²_F, the sum of squared elements, summed as Dot(d, d).
func SqNorm(d *Dense) float64 { return Dot(d, d) }

// SqDiff returns ‖a − b‖²_F, the sum of (a_ij − b_ij)², summed in the order
// Dot uses. It panics if the shapes differ.
func SqDiff(a, b *Dense) float64 {
	mustSameShape("SqDiff", a, b)
	return sumLanes(a, b, (*lanes).sqDiff)
}

// sumLanes adds the terms of a and b (same shape) with add, a segment at
// a time, carrying the phase from one segment to the next, and returns the
// total.
func sumLanes(a, b *Dense, add func(s *lanes, a, b []float64, ph int) int) float64 {
	var s lanes
	n, l := segments(a, b)
	ph := 0
	for i := range n {
		ph = add(&s, segment(a, i, l), segment(b, i, l), ph)
	}
	return s.total()
}

// Norm returns ‖d‖_F, computed with scaling so that it neither overflows nor
// underflows for finite input.
func Norm(d *Dense) float64 {
	var scale, ssq float64 = 0, 1
	n, l := segments(d)
	for i := range n {
		for _, v := range segment(d, i, l) {
			if v == 0 {
				continue
			}
			a := math.Abs(v)
			if scale < a {
				ssq = 1 + ssq*(scale/a)*(scale/a)
				scale = a
			} else {
				ssq += (a / scale) * (a / scale)
			}
		}
	}
	return scale * math.Sqrt(ssq)
}

// MaxAbs returns max |d_ij|, or 0 for an empty matrix.
func MaxAbs(d *Dense) float64 {
	var m float64
	n, l := segments(d)
	for i := range n {
		for _, v := range segment(d, i, l) {
			if a := math.Abs(v); a > m {
				m = a
			}
		}
	}
	return m
}

// OneHot returns the classes×len(labels) indicator matrix Y with Y[labels[m], m]
// = 1: columns are samples, as everywhere in neuralnmf. A negative label marks
// an unknown label and gives a zero column. It returns an error wrapping
// ErrShape if a label is ≥ classes.
func OneHot(labels []int, classes int) (*Dense, error) {
	y := New(classes, len(labels))
	for m, l := range labels {
		if l >= classes {
			return nil, fmt.Errorf("%w: label %d of sample %d is not below the number of classes %d", ErrShape, l, m, classes)
		}
		if l >= 0 {
			y.Data[l*y.Stride+m] = 1
		}
	}
	return y, nil
}

// ColumnMask returns the rows×len(known) matrix Z whose column m is all ones
// where known[m] is true and all zeros otherwise: the paper's label mask Z.
func ColumnMask(rows int, known []bool) *Dense {
	z := New(rows, len(known))
	for i := 0; i < rows; i++ {
		r := z.Row(i)
		for m, k := range known {
			if k {
				r[m] = 1
			}
		}
	}
	return z
}
