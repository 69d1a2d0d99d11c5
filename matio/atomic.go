package matio

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"
)

// Temporary files
//
// WriteAtomic and SortByColumn write through temporary files. This package
// removes only the temporary files it created itself, in this process, and
// never looks at other files: a user's ".notes.tmp-draft" beside an output,
// or another process's temporary file for the same output, is never
// touched.
//
// Where the system allows it (Linux, on file systems with O_TMPFILE), a
// temporary file has no name while it is written; once complete it is
// linked under the hidden name below and at once renamed over the output,
// so a process killed even by SIGKILL leaves nothing behind unless it dies
// between those two calls, when that complete file stays. Else
// the temporary file is the hidden .NAME.neuralnmf-RANDOM.tmp beside the
// output NAME (sort runs: .neuralnmf-sort-RANDOM.tmp, unlinked as soon as
// they are open on Unix). After SIGINT or SIGTERM a program removes them
// with RemoveTemporaries; after SIGKILL, which no program can catch, such a
// file may stay, and is recognised by that name; nothing here removes it
// later, since a name alone cannot prove who made it.

// tempSuffix ends the name of every named temporary file of this package.
const tempSuffix = ".tmp"

// temporaries is the set of named temporary files this process has
// created and not yet renamed or removed. It is process-wide because
// signals are: a signal handler must find every one of them
// (RemoveTemporaries). It is the package's only mutable state.
var temporaries = tempSet{names: map[string]bool{}}

type tempSet struct {
	mu     sync.Mutex
	names  map[string]bool
	closed bool // RemoveTemporaries ran: the process is exiting
}

var errExiting = errors.New("the process is exiting (interrupted)")

// create calls make, which creates the file name, and records name as
// this process's if make succeeds. It fails once RemoveTemporaries has
// run. Holding the lock, RemoveTemporaries never sees a name before its
// file is ours.
func (s *tempSet) create(name string, make func() error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errExiting
	}
	if err := make(); err != nil {
		return err
	}
	s.names[name] = true
	return nil
}

// remove removes the file name if this process still owns it.
func (s *tempSet) remove(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.names[name] {
		os.Remove(name)
		delete(s.names, name)
	}
}

// rename renames the owned temporary file from to to, atomically with
// respect to RemoveTemporaries.
func (s *tempSet) rename(from, to string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errExiting
	}
	if err := os.Rename(from, to); err != nil {
		return err
	}
	delete(s.names, from)
	return nil
}

// RemoveTemporaries removes every named temporary file that WriteAtomic
// and SortByColumn of this process have created and not yet renamed or
// removed, returns how many it removed, and makes later writes fail: it is
// for a signal handler that then exits. It removes nothing else; anonymous
// temporary files (see above) need no removal.
func RemoveTemporaries() int {
	s := &temporaries
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	n := 0
	for name := range s.names {
		if os.Remove(name) == nil {
			n++
		}
		delete(s.names, name)
	}
	return n
}

// claimName calls make with new hidden names .PREFIX-RANDOM.tmp in dir
// until one is free (make fails with an error wrapping os.ErrExist for a
// taken one), and records the name it made as this process's temporary
// file.
func claimName(dir, prefix string, make func(name string) error) (string, error) {
	for range 100 {
		name := filepath.Join(dir, "."+prefix+"-"+strconv.FormatUint(rand.Uint64(), 36)+tempSuffix)
		err := temporaries.create(name, func() error { return make(name) })
		if err == nil {
			return name, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return "", err
		}
	}
	return "", fmt.Errorf("no free temporary file name in %s", dir)
}

// createNamed creates a new hidden file .PREFIX-RANDOM.tmp in dir,
// recorded as this process's temporary file.
func createNamed(dir, prefix string) (f *os.File, err error) {
	_, err = claimName(dir, prefix, func(name string) (err error) {
		f, err = os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		return err
	})
	return f, err
}

// WriteAtomic calls write on a new temporary file in path's directory, syncs
// and closes it, and renames it to path (mode 0644). On any error the
// temporary file is removed and path is untouched, so a reader never sees a
// partially written file. Other files in the directory are never touched;
// see "Temporary files" above for what a killed process can leave.
func WriteAtomic(path string, write func(*os.File) error) error {
	return writeAtomic(path, write, true)
}

// writeAtomic is WriteAtomic; allowAnon false forces a named temporary
// file, as on systems without O_TMPFILE (for tests).
func writeAtomic(path string, write func(*os.File) error, allowAnon bool) (err error) {
	dir := filepath.Dir(path)
	prefix := filepath.Base(path) + ".neuralnmf"
	var f *os.File
	anon := false
	if allowAnon {
		f, anon = openAnonymous(dir)
	}
	tmp := "" // the temporary file's name, once it has one
	if !anon {
		if f, err = createNamed(dir, prefix); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
		tmp = f.Name()
	}
	defer func() {
		if err != nil {
			f.Close()
			if tmp != "" {
				temporaries.remove(tmp)
			}
			err = fmt.Errorf("writing %s: %w", path, err)
		}
	}()
	if err = write(f); err != nil {
		return err
	}
	if err = f.Chmod(0o644); err != nil { // temporary files are made 0600
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if anon {
		if tmp, err = linkAnonymous(f, dir, prefix); err != nil {
			return err
		}
	}
	if err = f.Close(); err != nil {
		return err
	}
	return temporaries.rename(tmp, path)
}

// createScratch creates a temporary file in dir for this process to write
// and read back (a sort run). Where possible it has no name (Linux
// O_TMPFILE, or unlinked at once on Unix), so that nothing is left however
// the process ends. The caller closes f and then calls
// temporaries.remove(f.Name()), which removes it if it still has a name.
func createScratch(dir string) (*os.File, error) {
	if f, ok := openAnonymous(dir); ok {
		return f, nil
	}
	f, err := createNamed(dir, "neuralnmf-sort")
	if err == nil && unlinkOpen {
		temporaries.remove(f.Name())
	}
	return f, err
}
