package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/beam/internal/corpus"
	"github.com/neuralnmf/neuralnmf/beam/score"
	"github.com/neuralnmf/neuralnmf/matio"
	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
)

// The cross-process tests build this command, Beam's prism job server and
// neuralnmf
// and run them as a user would; they take about a minute, most of it the
// builds, and are skipped with -short.

// built holds the binaries the tests share: built once per test binary.
var built struct {
	once        sync.Once
	dir         string
	self, prism string
	neuralnmf   string
	err         error
}

// binaries builds neuralnmf-beam, prism and neuralnmf (once) and returns their paths.
func binaries(t *testing.T) (self, prism string) {
	if testing.Short() {
		t.Skip("builds two binaries and runs them")
	}
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "neuralnmf-beam-test-"); built.err != nil {
			return
		}
		for _, b := range []struct{ out, pkg string }{
			{"prism", "github.com/apache/beam/sdks/v2/go/cmd/prism"},
			{"neuralnmf-beam", "github.com/neuralnmf/neuralnmf/beam/cmd/neuralnmf-beam"},
			{"neuralnmf", "github.com/neuralnmf/neuralnmf/cmd/neuralnmf"},
		} {
			cmd := exec.Command("go", "build", "-o", filepath.Join(built.dir, b.out), b.pkg)
			cmd.Stderr = os.Stderr
			if err := cmd.Run(); err != nil {
				built.err = fmt.Errorf("go build %s: %w", b.pkg, err)
				return
			}
		}
		built.self, built.prism = filepath.Join(built.dir, "neuralnmf-beam"), filepath.Join(built.dir, "prism")
		built.neuralnmf = filepath.Join(built.dir, "neuralnmf")
	})
	require.NoError(t, built.err)
	return built.self, built.prism
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// fixture writes 16 shards (every fourth gzipped) of a generated corpus.
func fixture(t *testing.T) (dir, glob string) {
	dir = t.TempDir()
	_, err := corpus.WriteShards(corpus.Generate(48, 4, 16*80, 60, 1), 16, 4, dir)
	require.NoError(t, err)
	return dir, filepath.Join(dir, "shard-*")
}

// startServer starts a process that serves on a port and waits until the
// port answers; the process is killed and waited for at cleanup.
func startServer(t *testing.T, tmp, name string, args ...string) (addr string, cmd *exec.Cmd) {
	return startServerTo(t, tmp, &bytes.Buffer{}, name, args...)
}

// startServerTo is startServer writing the process's output to out (a
// file is written by the process itself; a bytes.Buffer's text is shown if
// the process does not start).
func startServerTo(t *testing.T, tmp string, out io.Writer, name string, args ...string) (addr string, cmd *exec.Cmd) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	for i, a := range args {
		args[i] = strings.ReplaceAll(a, "PORT", strconv.Itoa(port))
	}
	cmd = exec.Command(name, args...)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	cmd.Stdout, cmd.Stderr = out, out
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	addr = fmt.Sprintf("127.0.0.1:%d", port)
	for i := 0; ; i++ {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return addr, cmd
		}
		require.Less(t, i, 200, "%s did not start: %s", name, out)
		time.Sleep(50 * time.Millisecond)
	}
}

// runOK runs the command with TMPDIR tmp and returns its output.
func runOK(t *testing.T, tmp, name string, args ...string) string {
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s %s:\n%s", name, strings.Join(args, " "), out)
	return string(out)
}

// processesOf returns the PIDs of running processes of the executable exe.
func processesOf(t *testing.T, exe string) []int {
	entries, err := os.ReadDir("/proc")
	require.NoError(t, err)
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if target, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe")); err == nil && target == exe {
			pids = append(pids, pid)
		}
	}
	return pids
}

// TestModes trains 16 shards in the single-process run (-local), on
// in-process Prism, against a standalone Prism job server with LOOPBACK
// workers, and with EXTERNAL workers started by the worker pool as
// separate processes, and scores them in the three Prism modes: every
// model is the same file, every score file is the single-process
// transform's bytes, and no process or temporary file is left.
func TestModes(t *testing.T) {
	self, prism := binaries(t)
	dir, glob := fixture(t)
	tmp := t.TempDir()
	trainArgs := func(name string, extra ...string) []string {
		return append([]string{"train", "-shards", glob, "-ranks", "4,2", "-steps", "4", "-epochs", "3", "-seed", "7",
			"-work", filepath.Join(dir, "work-"+name), "-o", filepath.Join(dir, name+".nnmf")}, extra...)
	}
	scoreArgs := func(name string, extra ...string) []string {
		return append([]string{"score", "-model", filepath.Join(dir, "local.nnmf"), "-shards", glob, "-out", filepath.Join(dir, "scores-"+name)}, extra...)
	}
	out := runOK(t, tmp, self, trainArgs("local", "-local")...)
	require.Contains(t, out, "pass 3: steps 1–4 in this process")
	require.Contains(t, out, "trained 16 shards in 3 passes")
	want, err := os.ReadFile(filepath.Join(dir, "local.nnmf"))
	require.NoError(t, err)

	endpoint, server := startServer(t, tmp, prism, "--job_port=PORT", "--serve_http=false", "--log_level=warn")
	poolAddr, pool := startServer(t, tmp, self, "worker-pool", "-addr", "127.0.0.1:PORT")
	modes := map[string][]string{
		"inprocess": nil,
		"loopback":  {"--runner=universal", "--endpoint=" + endpoint, "--environment_type=LOOPBACK"},
		"external":  {"--runner=universal", "--endpoint=" + endpoint, "--environment_type=EXTERNAL", "--environment_config=" + poolAddr},
	}
	for name, flags := range modes {
		runOK(t, tmp, self, trainArgs(name, flags...)...)
		got, err := os.ReadFile(filepath.Join(dir, name+".nnmf"))
		require.NoError(t, err)
		require.Equal(t, want, got, "the model of %s", name)
		_, err = os.Stat(filepath.Join(dir, "work-"+name))
		require.True(t, os.IsNotExist(err), "the work directory of %s is removed", name)
		runOK(t, tmp, self, scoreArgs(name, flags...)...)
	}
	ref, err := os.ReadDir(filepath.Join(dir, "scores-inprocess"))
	require.NoError(t, err)
	require.Len(t, ref, 16)
	// The in-process scores are the single-process transform's bytes.
	m, err := neuralnmf.Load(filepath.Join(dir, "local.nnmf"))
	require.NoError(t, err)
	shards, err := filepath.Glob(glob)
	require.NoError(t, err)
	for _, sh := range shards {
		f, err := os.Open(sh)
		require.NoError(t, err)
		sv, err := score.Shard(m, f, sh, 2)
		f.Close()
		require.NoError(t, err)
		var b bytes.Buffer
		require.NoError(t, matio.WriteMatrixMarket(&b, &matio.Matrix{Dense: sv}))
		got, err := os.ReadFile(score.OutputPath(filepath.Join(dir, "scores-inprocess"), sh, 2))
		require.NoError(t, err)
		require.Equal(t, b.Bytes(), got, sh)
	}
	for _, name := range []string{"loopback", "external"} {
		for _, e := range ref {
			a, err := os.ReadFile(filepath.Join(dir, "scores-inprocess", e.Name()))
			require.NoError(t, err)
			b, err := os.ReadFile(filepath.Join(dir, "scores-"+name, e.Name()))
			require.NoError(t, err)
			require.Equal(t, a, b, "%s of %s", e.Name(), name)
		}
	}

	// The pool stops on SIGTERM, and with it every worker it started.
	require.NoError(t, pool.Process.Signal(syscall.SIGTERM))
	require.NoError(t, pool.Wait())
	require.NoError(t, server.Process.Kill())
	_ = server.Wait()
	require.Empty(t, processesOf(t, self), "no neuralnmf-beam process is left")
	left, err := os.ReadDir(tmp)
	require.NoError(t, err)
	require.Empty(t, left, "no temporary file is left")
}

// sockets counts the sockets process pid holds open.
func sockets(pid int) int {
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return 0
	}
	n := 0
	for _, fd := range fds {
		if l, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name())); err == nil && strings.HasPrefix(l, "socket:") {
			n++
		}
	}
	return n
}

// waitFor polls until a file matching glob exists.
func waitFor(t *testing.T, glob string, cmd *exec.Cmd, log *bytes.Buffer) {
	for i := 0; ; i++ {
		m, err := filepath.Glob(glob)
		require.NoError(t, err)
		if len(m) > 0 {
			return
		}
		require.Less(t, i, 20000, "no %s: %s", glob, log.String())
		time.Sleep(time.Millisecond)
	}
}

// TestKillResume kills the training command in the middle of a step, and
// the same command run again resumes from the last checkpoint and writes
// the uninterrupted run's model, bit for bit; then the same with a worker
// process killed mid-step under the EXTERNAL worker pool.
func TestKillResume(t *testing.T) {
	self, prism := binaries(t)
	dir, glob := fixture(t)
	tmp := t.TempDir()
	args := func(name string, extra ...string) []string {
		return append([]string{"train", "-shards", glob, "-ranks", "4,2", "-steps", "4", "-epochs", "3", "-seed", "7",
			"-work", filepath.Join(dir, "work-"+name), "-o", filepath.Join(dir, name+".nnmf")}, extra...)
	}
	runOK(t, tmp, self, args("whole", "-local")...)
	want, err := os.ReadFile(filepath.Join(dir, "whole.nnmf"))
	require.NoError(t, err)

	// The driver, killed while step 6 (pass 2) runs on in-process Prism.
	cmd := exec.Command(self, args("killed")...)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	require.NoError(t, cmd.Start())
	waitFor(t, filepath.Join(dir, "work-killed", "step-0000005-a.bin"), cmd, &log)
	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	_, err = os.Stat(filepath.Join(dir, "killed.nnmf"))
	require.True(t, os.IsNotExist(err), "no model from a killed run: %s", log.String())
	out := runOK(t, tmp, self, args("killed")...)
	require.NotContains(t, out, "pass 1: steps 1–", "the resumed run does not redo finished steps")
	require.Contains(t, out, " (resumed) in 1 pipeline job", "killed inside pass 2, resumed inside it:\n%s", out)
	got, err := os.ReadFile(filepath.Join(dir, "killed.nnmf"))
	require.NoError(t, err)
	require.Equal(t, want, got)

	// A worker killed mid-step: the pipeline fails, the command exits 3,
	// and running it again resumes.
	endpoint, _ := startServer(t, tmp, prism, "--job_port=PORT", "--serve_http=false", "--log_level=warn")
	poolAddr, pool := startServer(t, tmp, self, "worker-pool", "-addr", "127.0.0.1:PORT")
	ext := []string{"--runner=universal", "--endpoint=" + endpoint, "--environment_type=EXTERNAL", "--environment_config=" + poolAddr}
	cmd = exec.Command(self, args("worker", ext...)...)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	log.Reset()
	cmd.Stdout, cmd.Stderr = &log, &log
	require.NoError(t, cmd.Start())
	waitFor(t, filepath.Join(dir, "work-worker", "step-0000005-a.bin"), cmd, &log)
	// Kill every worker that has connected to the runner, until the
	// command exits: it cannot finish its last seven steps meanwhile.
	// Prism (v2.77.0) sometimes spins forever on a bundle whose worker
	// died before its data finished, instead of failing the job (its
	// stage.Execute loop keeps reading the bundle's closed response
	// channel); then, as a user would, stop the command (SIGTERM, exit
	// 130), which cancels the job: either way the same command resumes.
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	killed, stopped := 0, false
	var firstKill time.Time
	for done := false; !done; {
		select {
		case err = <-exited:
			done = true
		case <-time.After(time.Millisecond):
			for _, pid := range processesOf(t, self) {
				if pid != cmd.Process.Pid && pid != pool.Process.Pid && sockets(pid) >= 2 {
					if syscall.Kill(pid, syscall.SIGKILL) == nil {
						if killed++; killed == 1 {
							firstKill = time.Now()
						}
					}
				}
			}
			if !stopped && killed > 0 && time.Since(firstKill) > 100*time.Second { // Prism waits a minute for a worker
				t.Logf("the job did not fail %v after its worker was killed: stopping the command", time.Since(firstKill).Round(time.Second))
				require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
				stopped = true
			}
		}
	}
	t.Logf("killed %d connected workers", killed)
	require.Positive(t, killed)
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "%s", log.String())
	if stopped {
		require.Equal(t, 130, exit.ExitCode(), "stopped: %s", log.String())
	} else {
		require.Equal(t, 3, exit.ExitCode(), "a failed pipeline: %s", log.String())
	}
	runOK(t, tmp, self, args("worker", ext...)...)
	got, err = os.ReadFile(filepath.Join(dir, "worker.nnmf"))
	require.NoError(t, err)
	require.Equal(t, want, got)
	require.NoError(t, pool.Process.Signal(syscall.SIGTERM))
	require.NoError(t, pool.Wait())
	left, err := os.ReadDir(tmp)
	require.NoError(t, err)
	require.Empty(t, left, "no temporary file is left")
}
