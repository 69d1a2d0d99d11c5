package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// A driver killed (SIGKILL) while its job runs on a job server leaves the
// job running there; the same command run again cancels it before it
// submits its own, and writes the uninterrupted run's model. The stopped
// run's worker processes are frozen (SIGSTOP) so that its job cannot end
// by itself before the second run looks.
func TestOrphanJobCancelled(t *testing.T) {
	self, prism := binaries(t)
	dir, glob := fixture(t)
	tmp := t.TempDir()
	args := func(name string, extra ...string) []string {
		return append([]string{"train", "-shards", glob, "-ranks", "4,2", "-steps", "4", "-epochs", "2", "-seed", "3",
			"-work", filepath.Join(dir, "work-"+name), "-o", filepath.Join(dir, name+".nnmf")}, extra...)
	}
	runOK(t, tmp, self, args("whole", "-local")...)
	want, err := os.ReadFile(filepath.Join(dir, "whole.nnmf"))
	require.NoError(t, err)

	endpoint, _ := startServer(t, tmp, prism, "--job_port=PORT", "--serve_http=false", "--log_level=warn")
	poolAddr, pool := startServer(t, tmp, self, "worker-pool", "-addr", "127.0.0.1:PORT")
	ext := []string{"--runner=universal", "--endpoint=" + endpoint, "--environment_type=EXTERNAL", "--environment_config=" + poolAddr}
	cmd := exec.Command(self, args("orphan", ext...)...)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	require.NoError(t, cmd.Start())
	waitFor(t, filepath.Join(dir, "work-orphan", "step-0000005-a.bin"), cmd, &log)
	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	var frozen []int
	for _, pid := range processesOf(t, self) {
		if pid != pool.Process.Pid && syscall.Kill(pid, syscall.SIGSTOP) == nil {
			frozen = append(frozen, pid)
		}
	}
	t.Cleanup(func() {
		for _, pid := range frozen {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	out := runOK(t, tmp, self, args("orphan", ext...)...)
	require.Contains(t, out, "cancelled job", "the stopped run's job is cancelled: %s", out)
	got, err := os.ReadFile(filepath.Join(dir, "orphan.nnmf"))
	require.NoError(t, err)
	require.Equal(t, want, got)
}
