//go:build unix

package matio_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/matio"
)

// TestHelperProcess is not a test: run by the tests below as a process to
// kill or interrupt (MATIO_HELPER names what it does).
func TestHelperProcess(t *testing.T) {
	dir := os.Getenv("MATIO_HELPER_DIR")
	switch os.Getenv("MATIO_HELPER") {
	case "":
		t.Skip("a helper process")
	case "write":
		err := matio.WriteAtomic(filepath.Join(dir, "out.csv"), func(f *os.File) error {
			f.WriteString("partial\n")
			fmt.Println("writing")
			time.Sleep(time.Minute)
			return nil
		})
		fmt.Println(err)
	case "sort":
		_, err := matio.SortByColumn(filepath.Join(dir, "in.mtx"), filepath.Join(dir, "out.mtx"), "", 24*1000)
		fmt.Println(err)
	}
	os.Exit(0)
}

// A writer killed by SIGKILL in the middle of writing leaves no file
// behind where the system gives temporary files no name (Linux).
func TestKilledWriterLeavesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a subprocess")
	}
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc: named temporary files are used")
	}
	for _, what := range []string{"write", "sort"} {
		t.Run(what, func(t *testing.T) {
			dir := t.TempDir()
			if what == "sort" {
				require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "in.mtx"), 0o600))
			}
			before, _ := os.ReadDir(dir)
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
			cmd.Env = append(os.Environ(), "MATIO_HELPER="+what, "MATIO_HELPER_DIR="+dir)
			out, err := cmd.StdoutPipe()
			require.NoError(t, err)
			require.NoError(t, cmd.Start())
			if what == "write" {
				buf := make([]byte, 8)
				_, err = out.Read(buf) // "writing": the temporary file exists
				require.NoError(t, err)
			} else {
				// Feed the sort through a pipe: once 20,000 entries (more
				// than the pipe holds) are written, at least 13 runs of
				// 1,000 have been made, and it waits for the rest.
				fifo, err := os.OpenFile(filepath.Join(dir, "in.mtx"), os.O_WRONLY, 0)
				require.NoError(t, err)
				defer fifo.Close()
				var b strings.Builder
				fmt.Fprintf(&b, "%%%%MatrixMarket matrix coordinate real general\n1000 1000 100000\n")
				for i := range 20000 {
					fmt.Fprintf(&b, "%d %d 1\n", i%1000+1, (i*7)%1000+1)
				}
				_, err = fifo.WriteString(b.String())
				require.NoError(t, err)
			}
			require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
			_ = cmd.Wait()
			after, _ := os.ReadDir(dir)
			require.Equal(t, len(before), len(after), "a killed writer left %v", after)
		})
	}
}
