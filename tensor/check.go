package tensor

import (
	"errors"
	"fmt"
	"math"
)

// Sentinel errors wrapped by the Check functions and by every user-facing
// entry point of neuralnmf that validates input. Test with errors.Is.
var (
	// ErrShape reports dimensions that do not agree.
	ErrShape = errors.New("shape mismatch")
	// ErrEmpty reports a matrix with no elements where data is required.
	ErrEmpty = errors.New("empty matrix")
	// ErrNotFinite reports a NaN or infinite element.
	ErrNotFinite = errors.New("not finite")
	// ErrNegative reports a negative element where nonnegative data is required.
	ErrNegative = errors.New("negative entry")
)

// CheckShape returns an error wrapping ErrShape, naming name, unless d is r×c.
func CheckShape(name string, d *Dense, r, c int) error {
	if d == nil {
		return fmt.Errorf("%s: %w: nil matrix, want %d×%d", name, ErrShape, r, c)
	}
	if d.Rows != r || d.Cols != c {
		return fmt.Errorf("%s: %w: is %d×%d, want %d×%d", name, ErrShape, d.Rows, d.Cols, r, c)
	}
	return nil
}

// CheckNotEmpty returns an error wrapping ErrEmpty, naming name, if d is nil
// or has a zero dimension.
func CheckNotEmpty(name string, d *Dense) error {
	if d == nil || d.Rows == 0 || d.Cols == 0 {
		r, c := 0, 0
		if d != nil {
			r, c = d.Rows, d.Cols
		}
		return fmt.Errorf("%s: %w (%d×%d)", name, ErrEmpty, r, c)
	}
	return nil
}

// CheckFinite returns an error wrapping ErrNotFinite that names name and the
// first offending entry, if any element of d is NaN or ±Inf.
func CheckFinite(name string, d *Dense) error {
	for i := 0; i < d.Rows; i++ {
		for j, v := range d.Row(i) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%s: %w: entry (%d, %d) is %v", name, ErrNotFinite, i, j, v)
			}
		}
	}
	return nil
}

// CheckNonnegative returns an error naming name and the first offending entry
// if any element of d is negative (wrapping ErrNegative) or not finite
// (wrapping ErrNotFinite).
func CheckNonnegative(name string, d *Dense) error {
	for i := 0; i < d.Rows; i++ {
		for j, v := range d.Row(i) {
			// One test catches negatives, NaN and +Inf; diagnose only then.
			if !(v >= 0 && v <= math.MaxFloat64) {
				if v < 0 && !math.IsInf(v, -1) {
					return fmt.Errorf("%s: %w: entry (%d, %d) is %g", name, ErrNegative, i, j, v)
				}
				return fmt.Errorf("%s: %w: entry (%d, %d) is %v", name, ErrNotFinite, i, j, v)
			}
		}
	}
	return nil
}

// CheckData is the validation every nonnegative data matrix gets: not empty,
// finite and nonnegative.
func CheckData(name string, d *Dense) error {
	if err := CheckNotEmpty(name, d); err != nil {
		return err
	}
	return CheckNonnegative(name, d)
}
