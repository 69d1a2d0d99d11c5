package matio

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// WriteAtomic calls write on a new temporary file in path's directory, syncs
// and closes it, and renames it to path (mode 0644). On any error the
// temporary file is removed and path is untouched, so a reader never sees a
// partially written file.
//
// The temporary file is named .NAME.tmp-PID-RANDOM. A process killed with
// SIGKILL cannot remove it, so WriteAtomic first removes the stale
// temporary files in the directory: those of processes that no longer run
// (RemoveStaleTemporaries).
func WriteAtomic(path string, write func(*os.File) error) (err error) {
	dir := filepath.Dir(path)
	RemoveStaleTemporaries(dir)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-"+strconv.Itoa(os.Getpid())+"-*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err = write(f); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = f.Chmod(0o644); err != nil { // CreateTemp makes 0600 files
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// staleAge is the age after which a temporary file whose writer cannot be
// checked (no PID in its name, or a system without signal 0) is stale.
const staleAge = 24 * time.Hour

// RemoveStaleTemporaries removes the temporary files WriteAtomic left in
// dir when its process was killed: hidden files .NAME.tmp-PID-RANDOM whose
// process PID no longer runs, and, where that cannot be told, such files
// older than a day. It returns how many it removed; errors are ignored
// (a file that cannot be removed stays, as it was).
func RemoveStaleTemporaries(dir string) int {
	tmps, _ := filepath.Glob(filepath.Join(dir, ".*.tmp-*"))
	n := 0
	for _, t := range tmps {
		rest := t[strings.LastIndex(t, ".tmp-")+len(".tmp-"):]
		stale := false
		if pidText, _, ok := strings.Cut(rest, "-"); ok {
			if pid, err := strconv.Atoi(pidText); err == nil && pid > 0 {
				if alive, known := processAlive(pid); known {
					stale = !alive
				}
			}
		}
		if !stale {
			if st, err := os.Stat(t); err == nil && time.Since(st.ModTime()) > staleAge {
				stale = true
			}
		}
		if stale && os.Remove(t) == nil {
			n++
		}
	}
	return n
}
