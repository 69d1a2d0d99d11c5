package news20

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
)

func TestWrap(t *testing.T) {
	cases := []struct {
		text  string
		width int
		want  string
	}{
		{"", 10, ""},
		{"one", 10, "one"},
		{"one two three", 7, "one two\nthree"},
		{"αβγ δεζ", 7, "αβγ δεζ"}, // runes, not bytes
		{"averylongword x", 4, "averylongword\nx"},
	}
	for _, c := range cases {
		require.Equal(t, c.want, wrap(c.text, c.width), "%q", c.text)
	}
}

func TestDescribe(t *testing.T) {
	d := DefaultUnsupervised.Describe(false)
	require.Contains(t, d, "300 epochs of projected Adam (step 0.01) from a converged HNMF")
	require.Contains(t, d, "authors' objective")
	require.NotContains(t, d, "plus")
	d = DefaultSemiSupervised.Describe(true)
	require.Contains(t, d, "100 epochs of projected gradient descent (step 1e+10, × 0.995 every 5 epochs) from U(0, 1) factors")
	require.Contains(t, d, "1e-06‖Z∘(Y − BS⁽¹⁾)‖²")
	p := DefaultUnsupervised
	p.AuthorsLoss, p.Loss, p.Lambda, p.Classifier = false, neuralnmf.Reconstruction, 10, neuralnmf.CrossEntropy
	d = p.Describe(true)
	require.Contains(t, d, "on ‖X − A⁽⁰⁾A⁽¹⁾S⁽¹⁾‖²")
	require.Contains(t, d, "10 × the cross-entropy")
	for _, line := range strings.Split(wrap(d, 80), "\n") {
		require.LessOrEqual(t, utf8.RuneCountInString(line), 80)
	}
}
