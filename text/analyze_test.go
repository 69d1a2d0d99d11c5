package text

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// Python's own answers (testdata/gen_python.py, Python 3.11, Unicode 14):
// str.lower, re's (?u)\b\w\w+\b, and scikit-learn's header/footer/quote
// stripping followed by re.sub(r'\d+', ”, ·), on hand-picked and random
// strings of Latin, Greek, punctuation, digits of other scripts, spaces
// and line breaks.
func TestMatchesPython(t *testing.T) {
	b, err := os.ReadFile("testdata/python_analysis.json")
	require.NoError(t, err)
	var f struct {
		Cases []struct {
			In          string   `json:"in"`
			Lower       string   `json:"lower"`
			Tokens      []string `json:"tokens"`
			Clean       string   `json:"clean"`
			CleanTokens []string `json:"clean_tokens"`
		} `json:"cases"`
	}
	require.NoError(t, json.Unmarshal(b, &f))
	require.Greater(t, len(f.Cases), 400)
	for i, c := range f.Cases {
		require.Equal(t, c.Lower, pyLower(c.In), "case %d: lower of %q", i, c.In)
		require.Equal(t, c.Tokens, nilIfEmpty(appendTokens(nil, pyLower(c.In))), "case %d: tokens of %q", i, c.In)
		require.Equal(t, c.Clean, removeDigits(StripNewsgroup(c.In)), "case %d: cleaning of %q", i, c.In)
		o := Options{Newsgroups: true}
		require.Equal(t, c.CleanTokens, nilIfEmpty(o.Analyze(c.In)), "case %d: analysis of %q", i, c.In)
	}
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return []string{}
	}
	return s
}

// JSON numbers become one text per value, so that 1 and 1.0 are one label;
// integer literals keep every digit (ids beyond float64's precision).
func TestScalarText(t *testing.T) {
	for _, tc := range []struct{ raw, want string }{
		{`"a b"`, "a b"}, {`1`, "1"}, {`1.0`, "1"}, {`1e0`, "1"}, {`1E2`, "100"}, {`2.50`, "2.5"},
		{`-0`, "0"}, {`-0.0`, "0"}, {`-3`, "-3"}, {`12345678901234567890`, "12345678901234567890"},
		{`1.5e300`, "1.5e+300"}, {`9007199254740993.0`, "9.007199254740992e+15"}, {`true`, "true"}, {`null`, ""},
	} {
		got, err := scalarText([]byte(tc.raw))
		if err != nil || got != tc.want {
			t.Errorf("scalarText(%s) = %q, %v; want %q", tc.raw, got, err, tc.want)
		}
	}
	if _, err := scalarText([]byte(`[1]`)); err == nil {
		t.Error("an array is not a scalar")
	}
}
