package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/beam/train"
)

// runCode runs the command with TMPDIR tmp and returns its exit code and
// output.
func runCode(t *testing.T, tmp, name string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), string(out)
	}
	require.NoError(t, err, "%s", out)
	return 0, string(out)
}

// Issue 50, items 1 and 6: neuralnmf-beam keeps the promise of neuralnmf
// (no command removes, renames or changes a file it did not create,
// however it is named), refuses a wrong command line or input before any
// work with the documented exit codes, locks its work directory, and
// resumes an interrupted run.
func TestHostileInput(t *testing.T) {
	self, _ := binaries(t)
	dir, glob := fixture(t)
	tmp := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	// Files of the user's named as this tool's temporary files were.
	require.NoError(t, os.Mkdir(p("out"), 0o755))
	mine := map[string]string{
		p("m.nnmf.partial"):                 "the user's draft",
		p(".m.nnmf.neuralnmf-abc.tmp"):      "the user's",
		p("out/shard-00.S2.mtx.partial"):    "the user's",
		p("out/notes.txt"):                  "the user's",
		p("out/.neuralnmf-beam-score.tmpx"): "the user's",
	}
	for f, c := range mine {
		require.NoError(t, os.WriteFile(f, []byte(c), 0o644))
	}
	train1 := []string{"train", "-shards", glob, "-ranks", "4,2", "-steps", "4", "-epochs", "2", "-seed", "7", "-work", p("work"), "-o", p("m.nnmf")}
	code, out := runCode(t, tmp, self, append(train1, "-local")...)
	require.Equal(t, 0, code, out)
	code, out = runCode(t, tmp, self, "score", "-model", p("m.nnmf"), "-shards", glob, "-out", p("out"))
	require.Equal(t, 0, code, out)
	for f, c := range mine {
		b, err := os.ReadFile(f)
		require.NoError(t, err, "%s is kept", f)
		require.Equal(t, c, string(b), f)
	}
	entries, err := os.ReadDir(p("out"))
	require.NoError(t, err)
	require.Len(t, entries, 16+3, "the 16 outputs beside the user's files, nothing else")
	left, err := os.ReadDir(tmp)
	require.NoError(t, err)
	require.Empty(t, left)

	// A model one feature too wide for the shards.
	shards, err := filepath.Glob(glob)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(p("bad.mtx"), []byte("%%MatrixMarket matrix coordinate real general\n48 3\n"), 0o644))
	// A shard whose header is fine and whose entries are not, for both
	// commands on in-process Prism.
	require.NoError(t, os.WriteFile(p("neg.mtx"), []byte("%%MatrixMarket matrix coordinate real general\n48 20 2\n1 1 1\n2 2 -1\n"), 0o644))
	require.NoError(t, os.Mkdir(p("mixed"), 0o755))
	b0, err := os.ReadFile(shards[0])
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(p("mixed/a.mtx"), b0, 0o644))
	require.NoError(t, os.WriteFile(p("mixed/b.mtx"), []byte("%%MatrixMarket matrix coordinate real general\n3 40 1\n1 1 1\n"), 0o644))
	require.NoError(t, os.Mkdir(p("nodocs"), 0o755))
	require.NoError(t, os.WriteFile(p("nodocs/a.mtx"), b0, 0o644))
	require.NoError(t, os.WriteFile(p("nodocs/b.mtx"), []byte("%%MatrixMarket matrix coordinate real general\n48 0 0\n"), 0o644))
	require.NoError(t, os.Mkdir(p("zero"), 0o755))
	for _, n := range []string{"a", "b"} {
		require.NoError(t, os.WriteFile(p("zero/"+n+".mtx"), []byte("%%MatrixMarket matrix coordinate real general\n48 20 0\n"), 0o644))
	}
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"trian", "-shards", glob}, 2, `unknown command "trian"`},
		{[]string{"train", "-shards", shards[0], shards[1], "-ranks", "4", "-work", p("w1"), "-o", p("x.nnmf")}, 2, "unexpected argument"},
		{[]string{"train", "-shards", glob, "-ranks", "4", "-work", p("w2"), "-o", p("x.nnmf"), "-model", p("m.nnmf")}, 2, "-model is a flag of score, not of train"},
		{[]string{"score", "-model", p("m.nnmf"), "-shards", glob, "-out", p("o2"), "-steps", "3"}, 2, "-steps is a flag of train, not of score"},
		{[]string{"train", "-shards", glob, "-ranks", "4", "-steps", "100000", "-work", p("w3"), "-o", p("x.nnmf")}, 2, "-steps 100000: shard"},
		{[]string{"train", "-shards", glob, "-ranks", "4", "-work", p("w4"), "-o", p("w4/x.nnmf")}, 2, "inside the work directory"},
		{[]string{"train", "-shards", glob, "-ranks", "4", "-work", p("w5"), "-o", p("none/x.nnmf")}, 2, "does not exist"},
		// Issue 66, item 1: a profile never overwrites a file (a shard, a
		// user's), and one in a missing folder is refused before the work
		// directory is made.
		{[]string{"train", "-shards", glob, "-ranks", "4", "-work", p("w1"), "-o", p("x.nnmf"), "-cpuprofile", shards[0]}, 2, "exists; a profile is written only to a new file"},
		{[]string{"train", "-shards", glob, "-ranks", "4", "-work", p("w1"), "-o", p("x.nnmf"), "-cpuprofile", p("out/notes.txt")}, 2, "exists; a profile is written only to a new file"},
		{[]string{"train", "-shards", glob, "-ranks", "4", "-work", p("w1"), "-o", p("x.nnmf"), "-cpuprofile", p("none/cpu.prof")}, 2, "does not exist"},
		{[]string{"train", "-shards", p("bad.mtx"), "-ranks", "4", "-work", p("w6"), "-o", p("x.nnmf")}, 1, "bad.mtx:2: malformed input: size line has 2 numbers"},
		{[]string{"train", "-shards", p("neg.mtx"), "-ranks", "2", "-steps", "2", "-work", p("w8"), "-o", p("x.nnmf")}, 1, "neg.mtx: row 2, column 2 is -1: X must be nonnegative"},
		{[]string{"score", "-model", p("m.nnmf"), "-shards", p("neg.mtx"), "-out", p("o4")}, 1, "neg.mtx: row 2, column 2 is -1: X must be nonnegative"},
		{[]string{"train", "-shards", p("mixed/*.mtx"), "-ranks", "1", "-steps", "2", "-work", p("w7"), "-o", p("x.nnmf")}, 1, "shards must share their features"},
		// Issue 66, item 7: what the headers tell is refused before any work.
		{[]string{"train", "-shards", glob, "-ranks", "49,2", "-work", p("w1"), "-o", p("x.nnmf")}, 2, "-ranks 49,2: the shards have 48 rows (features)"},
		{[]string{"train", "-shards", p("nodocs/*.mtx"), "-ranks", "2", "-work", p("w1"), "-o", p("x.nnmf")}, 1, "holds no documents (0 columns): leave it out"},
		{[]string{"train", "-shards", p("zero/*.mtx"), "-ranks", "2", "-steps", "2", "-work", p("w1"), "-o", p("x.nnmf")}, 1, "the 2 shard(s) hold no entry"},
		{[]string{"score", "-model", p("m.nnmf"), "-shards", p("out/*.S2.mtx"), "-out", p("o3")}, 1, "rows (features); the model was trained on 48"},
		{[]string{"score", "-model", p("m.nnmf"), "-shards", glob, "-out", p("out")}, 1, "exists; write to a new directory"},
	}
	for _, tc := range cases {
		code, out := runCode(t, tmp, self, tc.args...)
		require.Equal(t, tc.code, code, "%v: %s", tc.args, out)
		require.Contains(t, out, tc.msg, "%v", tc.args)
		require.NotContains(t, out, "pipeline", "%v: refused before any pipeline", tc.args)
		for _, w := range []string{"w1", "w2", "w3", "w4", "w5", "w6", "w7", "o2", "o3", "x.nnmf"} {
			_, err := os.Stat(p(w))
			require.True(t, os.IsNotExist(err), "%v: %s was not created", tc.args, w)
		}
	}

	b, err := os.ReadFile(shards[0])
	require.NoError(t, err)
	require.Equal(t, b0, b, "the shard named as -cpuprofile is untouched")
	b, err = os.ReadFile(p("out/notes.txt"))
	require.NoError(t, err)
	require.Equal(t, "the user's", string(b))

	// A second driver on a work directory in use is refused.
	ctx := context.Background()
	unlock, err := train.LockWork(ctx, p("busy"))
	require.NoError(t, err)
	code, out = runCode(t, tmp, self, "train", "-shards", glob, "-ranks", "4", "-work", p("busy"), "-o", p("y.nnmf"), "-local")
	require.Equal(t, 1, code, out)
	require.Contains(t, out, "another process is training in")
	unlock()

	// Interrupted (SIGINT) mid-step, training exits 130 and resumes.
	cmd := exec.Command(self, train1[0], "-shards", glob, "-ranks", "4,2", "-steps", "4", "-epochs", "2", "-seed", "7", "-work", p("work2"), "-o", p("m2.nnmf"))
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	require.NoError(t, cmd.Start())
	waitFor(t, p("work2/step-0000002-a.bin"), cmd, &log)
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	err = cmd.Wait()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "%s", log.String())
	require.Equal(t, 130, exit.ExitCode(), log.String())
	require.Contains(t, log.String(), "run the same command again to resume")
	require.NotContains(t, log.String(), "rpc")
	code, out = runCode(t, tmp, self, train1[0], "-shards", glob, "-ranks", "4,2", "-steps", "4", "-epochs", "2", "-seed", "7", "-work", p("work2"), "-o", p("m2.nnmf"))
	require.Equal(t, 0, code, out)
	want, err := os.ReadFile(p("m.nnmf"))
	require.NoError(t, err)
	got, err := os.ReadFile(p("m2.nnmf"))
	require.NoError(t, err)
	require.Equal(t, want, got, "the resumed model is the uninterrupted one")
	require.False(t, strings.Contains(out, "pass 1: steps 1–"), "the resumed run does not redo its steps")

	// Score killed by SIGKILL once it has begun: nothing is left in
	// $TMPDIR (its temporary files are in -out, its own), and the same
	// command resumes to the outputs of an uninterrupted run.
	scoreArgs := []string{"score", "-model", p("m.nnmf"), "-shards", glob, "-out", p("out2")}
	cmd = exec.Command(self, scoreArgs...)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	log.Reset()
	cmd.Stdout, cmd.Stderr = &log, &log
	require.NoError(t, cmd.Start())
	waitFor(t, p("out2/.neuralnmf-beam-score.json"), cmd, &log)
	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	left, err = os.ReadDir(tmp)
	require.NoError(t, err)
	require.Empty(t, left, "a killed score leaves nothing in $TMPDIR")
	code, out = runCode(t, tmp, self, scoreArgs...)
	require.Equal(t, 0, code, out)
	for _, sh := range shards {
		name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(sh), ".gz"), ".mtx") + ".S2.mtx"
		a, err := os.ReadFile(p("out/" + name))
		require.NoError(t, err)
		b, err := os.ReadFile(p("out2/" + name))
		require.NoError(t, err)
		require.Equal(t, a, b, name)
	}
	entries, err = os.ReadDir(p("out2"))
	require.NoError(t, err)
	require.Len(t, entries, 16, "the outputs alone")
	left, err = os.ReadDir(tmp)
	require.NoError(t, err)
	require.Empty(t, left)
}
