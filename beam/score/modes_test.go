package score_test

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/beam/score"
	"github.com/neuralnmf/neuralnmf/matio"
	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
)

// freePort returns a TCP port free on the loopback interface.
func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// The command against a standalone Prism job server, a separate process,
// with the workers in the command's process (LOOPBACK): the outputs are the
// single-process transform's bytes, and the job server is stopped and
// waited for, so no process is left.
func TestScoreStandalonePrism(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two binaries")
	}
	bin := t.TempDir()
	for _, b := range []struct{ out, pkg string }{
		{"prism", "github.com/apache/beam/sdks/v2/go/cmd/prism"},
		{"neuralnmf-beam", "github.com/neuralnmf/neuralnmf/beam/cmd/neuralnmf-beam"},
	} {
		cmd := exec.Command("go", "build", "-o", filepath.Join(bin, b.out), b.pkg)
		cmd.Stderr = os.Stderr
		require.NoError(t, cmd.Run(), "go build %s", b.pkg)
	}
	port := freePort(t)
	server := exec.Command(filepath.Join(bin, "prism"), fmt.Sprintf("--job_port=%d", port), "--serve_http=false", "--log_level=warn")
	var serverLog bytes.Buffer
	server.Stdout, server.Stderr = &serverLog, &serverLog
	require.NoError(t, server.Start())
	defer func() {
		_ = server.Process.Kill()
		_ = server.Wait()
	}()
	endpoint := fmt.Sprintf("localhost:%d", port)
	for i := 0; ; i++ { // wait for the job server
		c, err := net.DialTimeout("tcp", endpoint, time.Second)
		if err == nil {
			c.Close()
			break
		}
		require.Less(t, i, 100, "prism did not start: %s", serverLog.String())
		time.Sleep(100 * time.Millisecond)
	}

	dir := t.TempDir()
	model, shards := fixture(t, dir)
	out := filepath.Join(dir, "out")
	tmp := t.TempDir()
	cmd := exec.Command(filepath.Join(bin, "neuralnmf-beam"), "score", "-model", model, "-shards", filepath.Join(dir, "shard-*"), "-out", out,
		"--runner=universal", "--endpoint="+endpoint, "--environment_type=LOOPBACK")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	got, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", got)
	require.Contains(t, string(got), "scored 16 shards")

	m, err := neuralnmf.Load(model)
	require.NoError(t, err)
	for _, sh := range shards {
		f, err := os.Open(sh)
		require.NoError(t, err)
		sv, err := score.Shard(m, f, sh, 2)
		f.Close()
		require.NoError(t, err)
		var b bytes.Buffer
		require.NoError(t, matio.WriteMatrixMarket(&b, &matio.Matrix{Dense: sv}))
		o, err := os.ReadFile(score.OutputPath(out, sh, 2))
		require.NoError(t, err)
		require.Equal(t, b.Bytes(), o, sh)
	}
	left, err := os.ReadDir(tmp)
	require.NoError(t, err)
	require.Empty(t, left, "the command removes its temporary directory")
	require.NotContains(t, strings.ToLower(serverLog.String()), "panic")
}
