package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Issue 50, item 2: what the fit cannot keep is refused before any work.
// Without -quiet, fit prints each phase as it starts: a refusal at the
// start prints no start of a factorisation.
func TestRefusedBeforeTheWork(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	writeLabelledPosts(t, p("posts.jsonl"))
	data, err := os.ReadFile(p("posts.jsonl"))
	require.NoError(t, err)
	// A class name with a tab (JSON's \t), which the model file refuses.
	require.NoError(t, os.WriteFile(p("tab.jsonl"), []byte(strings.Replace(string(data), `"topic":"cars"`, `"topic":"c\tars"`, 1)), 0o644))
	writeData(t, dir)
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"fit", "-text", p("tab.jsonl"), "-field", "body", "-label-field", "topic", "-ranks", "3,2", "-o", p("m.nnmf")}, 1,
			`-label-field topic: document 1's class name "c\tars" holds a control character`},
		{[]string{"fit", "-x", p("x.mtx"), "-ranks", "2", "-labels", p("y.txt"), "-loss", "kl", "-o", p("m.nnmf")}, 2, "Loss KL does not support Supervision"},
		{[]string{"fit", "-x", p("x.mtx"), "-ranks", "2", "-labels", p("y.txt"), "-loss", "kl", "-choose=false", "-o", p("m.nnmf")}, 2, "Loss KL does not support Supervision"},
	}
	for _, tc := range cases {
		code, out, errOut := cli(t, tc.args...)
		require.Equal(t, tc.code, code, "%v: %s%s", tc.args, out, errOut)
		require.Contains(t, errOut, tc.msg, "%v", tc.args)
		require.NotRegexp(t, `(?m)^start( [0-9]+ of [0-9]+)?: `, errOut, "%v: refused before the start", tc.args)
		_, err := os.Stat(p("m.nnmf"))
		require.ErrorIs(t, err, os.ErrNotExist)
	}
}
