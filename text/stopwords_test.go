package text_test

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/text"
)

func TestEnglishStopWords(t *testing.T) {
	ws := text.EnglishStopWords()
	require.Len(t, ws, 318, "scikit-learn's list has 318 words")
	require.True(t, slices.IsSorted(ws))
	require.Len(t, slices.Compact(slices.Clone(ws)), 318, "no word twice")
	for _, w := range []string{"the", "and", "to", "is", "of", "amoungst", "thick"} {
		require.Contains(t, ws, w, "scikit-learn's list, misspellings included")
	}
	ws[0] = "changed"
	require.Equal(t, "a", text.EnglishStopWords()[0], "each call returns a new slice")

	// A document of stop words only has no word left.
	_, _, err := text.Fit(text.Strings([]string{"the cat and the dog", "of the moon"}), text.Options{StopWords: text.EnglishStopWords()})
	require.NoError(t, err)
	_, _, err = text.Fit(text.Strings([]string{"to be or not to be"}), text.Options{StopWords: text.EnglishStopWords()})
	require.ErrorIs(t, err, text.ErrNoWords)
}

// TestEnglishStopWordsSklearn compares the list with scikit-learn's own
// (opt-in: NEURALNMF_SKLEARN=1, with python3-sklearn installed; $PYTHON
// names the interpreter, /usr/bin/python3 by default).
func TestEnglishStopWordsSklearn(t *testing.T) {
	if os.Getenv("NEURALNMF_SKLEARN") == "" {
		t.Skip("set NEURALNMF_SKLEARN=1 (needs python3-sklearn)")
	}
	py := os.Getenv("PYTHON")
	if py == "" {
		py = "/usr/bin/python3"
	}
	out, err := exec.Command(py, "-c", "from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS as E; print('\\n'.join(sorted(E)))").Output()
	require.NoError(t, err)
	require.Equal(t, strings.Fields(string(out)), text.EnglishStopWords())
}
