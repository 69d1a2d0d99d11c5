package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestMain lets the test binary run as the command (NEURALNMF_RUN_MAIN=1),
// so TestInterruptRemovesTemporaryFiles can signal a real process.
func TestMain(m *testing.M) {
	if os.Getenv("NEURALNMF_RUN_MAIN") == "1" {
		os.Exit(runMain(strings.Fields(os.Getenv("NEURALNMF_ARGS"))))
	}
	os.Exit(m.Run())
}

// An interrupted fit removes the temporary file of its output and exits
// 130, leaving no output. The temporary file is planted before the signal:
// the real one exists only for the moment of the write.
func TestInterruptRemovesTemporaryFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a subprocess")
	}
	dir := t.TempDir()
	writeData(t, dir)
	out := filepath.Join(dir, "m.nnmf")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "NEURALNMF_RUN_MAIN=1",
		"NEURALNMF_ARGS=fit -x "+filepath.Join(dir, "x.mtx")+" -ranks 4,2 -init hnmf -init-restarts 100000 -quiet -o "+out)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	tmp := filepath.Join(dir, ".m.nnmf.tmp-123")
	require.NoError(t, os.WriteFile(tmp, []byte("partial"), 0o600))
	time.Sleep(500 * time.Millisecond) // past flag checks, into training
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	err := cmd.Wait()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, stderr.String())
	require.Equal(t, 130, exit.ExitCode(), stderr.String())
	require.Contains(t, stderr.String(), "removed 1 temporary file(s)")
	_, err = os.Stat(tmp)
	require.ErrorIs(t, err, os.ErrNotExist, "the temporary file is gone")
	_, err = os.Stat(out)
	require.ErrorIs(t, err, os.ErrNotExist, "no output was written")
}
