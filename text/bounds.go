package text

import (
	"errors"
	"fmt"
	"math"
)

// ErrBoundsCross is returned (wrapped, by a BoundsError) by Fit and
// FitCounts when MaxDF, taken of the corpus's documents, is below MinDF: no
// word could be kept.
var ErrBoundsCross = errors.New("text: the document-frequency bounds cross")

// CheckBounds returns a *BoundsError when MaxDF, taken of a corpus of n
// documents, is below MinDF, so that no word could be kept; nil otherwise.
func (o *Options) CheckBounds(n int) error {
	hi, lo := math.Inf(1), math.Inf(-1)
	if o.MaxDF.IsSet {
		hi = o.MaxDF.limit(n)
	}
	if o.MinDF.IsSet {
		lo = o.MinDF.limit(n)
	}
	if hi < lo {
		return &BoundsError{MinDF: o.MinDF, MaxDF: o.MaxDF, Docs: n, Lo: lo, Hi: hi}
	}
	return nil
}

// BoundsError is CheckBounds' error: for a corpus of Docs documents, MaxDF
// keeps words in at most Hi documents, below MinDF's Lo. It wraps
// ErrBoundsCross.
type BoundsError struct {
	MinDF, MaxDF DocFreq
	Docs         int
	Lo, Hi       float64
}

func (e *BoundsError) Error() string {
	return fmt.Sprintf("%v: %s", ErrBoundsCross, e.Detail("max_df", "min_df"))
}

// Detail says what crosses, naming the bounds maxName and minName (a
// command passes its flags).
func (e *BoundsError) Detail(maxName, minName string) string {
	return fmt.Sprintf("%s %v keeps words in at most %.4g of the %d documents, %s %v in at least %.4g", maxName, e.MaxDF, e.Hi, e.Docs, minName, e.MinDF, e.Lo)
}

// Unwrap returns ErrBoundsCross.
func (e *BoundsError) Unwrap() error { return ErrBoundsCross }

// InBounds reports whether a word in df of n documents is kept by MinDF and
// MaxDF (scikit-learn's min_df ≤ df ≤ max_df, a fraction taken of n).
func (o *Options) InBounds(df, n int) bool {
	f := float64(df)
	return (!o.MaxDF.IsSet || f <= o.MaxDF.limit(n)) && (!o.MinDF.IsSet || f >= o.MinDF.limit(n))
}
