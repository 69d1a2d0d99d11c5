package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestExitCodes(t *testing.T) {
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{nil, 2, "Usage"},
		{[]string{"--help"}, 0, "Commands"},
		{[]string{"nope"}, 2, `unknown command "nope"`},
		{[]string{"demo", "--help"}, 0, "Usage: neuralnmf demo"},
		{[]string{"demo", "-trials", "0"}, 2, "-trials 0"},
		{[]string{"demo", "-trials", "x"}, 2, "invalid value"},
		{[]string{"demo", "extra"}, 2, `unexpected argument "extra"`},
	}
	for _, tc := range cases {
		var out, errOut bytes.Buffer
		code := run(tc.args, &out, &errOut)
		require.Equal(t, tc.code, code, "%v", tc.args)
		require.Contains(t, out.String()+errOut.String(), tc.msg, "%v", tc.args)
	}
}
