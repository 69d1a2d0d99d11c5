package main

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDemoErrorDecreases(t *testing.T) {
	var out, errOut bytes.Buffer
	code := run([]string{"demo", "-epochs", "200"}, &out, &errOut)
	require.Equal(t, 0, code, errOut.String())
	var errs []float64
	for _, line := range strings.Split(out.String(), "\n")[2:] {
		f := strings.Fields(line)
		if len(f) == 2 {
			v, err := strconv.ParseFloat(f[1], 64)
			require.NoError(t, err)
			errs = append(errs, v)
		}
	}
	require.Len(t, errs, 11)
	require.Less(t, errs[len(errs)-1], errs[0]/2, out.String())
}

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
		{[]string{"demo", "-rank", "0"}, 2, "-rank 0"},
		{[]string{"demo", "-rank", "x"}, 2, "invalid value"},
		{[]string{"demo", "extra"}, 2, `unexpected argument "extra"`},
	}
	for _, tc := range cases {
		var out, errOut bytes.Buffer
		code := run(tc.args, &out, &errOut)
		require.Equal(t, tc.code, code, "%v", tc.args)
		require.Contains(t, out.String()+errOut.String(), tc.msg, "%v", tc.args)
	}
}
