// Package cpuprofile writes a CPU profile of the running process under the
// promises a command makes for its outputs: the profile's path is checked
// before any work (its folder must exist and take a new file; an existing
// file is refused, since it may be an input or a user's file), the profile
// is gathered in memory, and it is written whole at the end through a
// temporary file of this process's own (matio.WriteAtomic). An interrupted
// or failed run leaves nothing at the path.
package cpuprofile

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/pprof"

	"github.com/neuralnmf/neuralnmf/matio"
)

// Check reports whether path (named by name in errors, such as
// "-cpuprofile") can take a new profile: it must not exist, and its folder
// must exist and be writable.
func Check(name, path string) error {
	if path == "" {
		return fmt.Errorf("%s: empty path", name)
	}
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("%s %s exists; a profile is written only to a new file (it may be an input or a file of yours): remove it or name another", name, path)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s %s: %w", name, path, err)
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("%s %s: folder %s does not exist", name, path, dir)
	}
	probe, err := os.CreateTemp(dir, ".neuralnmf-probe-*")
	if err != nil {
		return fmt.Errorf("%s %s: cannot write to %s: %v", name, path, dir, err)
	}
	probe.Close()
	os.Remove(probe.Name())
	return nil
}

// Profile is a CPU profile being gathered; Stop writes it.
type Profile struct {
	name, path string
	buf        bytes.Buffer
}

// Start checks path (see Check) and starts profiling the process into
// memory. Only one profile may run at a time in a process.
func Start(name, path string) (*Profile, error) {
	if err := Check(name, path); err != nil {
		return nil, err
	}
	p := &Profile{name: name, path: path}
	if err := pprof.StartCPUProfile(&p.buf); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return p, nil
}

// Stop stops profiling and writes the profile to its path, unless a file
// has appeared there meanwhile, which is left as it is (an error).
func (p *Profile) Stop() error {
	pprof.StopCPUProfile()
	if _, err := os.Lstat(p.path); err == nil {
		return fmt.Errorf("%s %s: a file appeared there during the run; the profile was not written", p.name, p.path)
	}
	err := matio.WriteAtomic(p.path, func(f *os.File) error {
		_, err := f.Write(p.buf.Bytes())
		return err
	})
	if err != nil {
		return fmt.Errorf("%s: %w", p.name, err)
	}
	return nil
}
