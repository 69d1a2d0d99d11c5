package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Each command's help shows the tool's own flags in its first screen: at
// most 40 lines before Beam's flags are mentioned (issue 55), and every
// flag of the command is there.
func TestUsageFirstScreen(t *testing.T) {
	for _, c := range []string{"vectorize", "train", "score", "worker-pool"} {
		var b bytes.Buffer
		printUsage(&b, c)
		lines := strings.Split(b.String(), "\n")
		at := -1
		for i, l := range lines {
			if strings.HasPrefix(l, "Beam's own flags") {
				at = i
				break
			}
		}
		require.GreaterOrEqual(t, at, 0, "%s: no line about Beam's flags:\n%s", c, b.String())
		require.LessOrEqual(t, at, 40, "%s: %d lines before Beam's flags", c, at)
		for _, f := range ownFlags[c] {
			require.Contains(t, b.String(), "\n  -"+f+"\n", "%s: flag -%s", c, f)
		}
	}
}

// Issue 66, item 7: a pipeline's own cause (a full disk) comes first, not
// ten lines below the runner's "job failed".
func TestOwnCauseFirst(t *testing.T) {
	msg := "job failed\n\tstage 3: bundle failed\n\t\tinstruction 7: \"vectorize: writing /out/docs-00001.mtx.gz: write /out/x: no space left on device\"\n\tcaused by: ..."
	require.Equal(t, "vectorize: writing /out/docs-00001.mtx.gz: write /out/x: no space left on device", ownCause(msg))
	require.Empty(t, ownCause("job failed: rpc error: code = Unavailable"))
}
