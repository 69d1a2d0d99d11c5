//go:build linux

package matio

import (
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// openAnonymous opens a new unnamed file in dir (O_TMPFILE), or reports
// false where the file system or kernel does not support it, or where
// /proc is not there to give it a name later (linkAnonymous).
func openAnonymous(dir string) (*os.File, bool) {
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, false
	}
	f := os.NewFile(uintptr(fd), filepath.Join(dir, "(unnamed temporary file)"))
	if _, err := os.Stat(procPath(f)); err != nil {
		f.Close()
		return nil, false
	}
	return f, true
}

func procPath(f *os.File) string { return "/proc/self/fd/" + strconv.Itoa(int(f.Fd())) }

// linkAnonymous gives the unnamed file f a new hidden name
// .PREFIX-RANDOM.tmp in dir, recorded as this process's temporary file,
// and returns the name. The caller renames it over the output at once.
func linkAnonymous(f *os.File, dir, prefix string) (string, error) {
	return claimName(dir, prefix, func(name string) error {
		if err := unix.Linkat(unix.AT_FDCWD, procPath(f), unix.AT_FDCWD, name, unix.AT_SYMLINK_FOLLOW); err != nil {
			return &os.LinkError{Op: "link", Old: f.Name(), New: name, Err: err} // unix.EEXIST is os.ErrExist
		}
		return nil
	})
}

// unlinkOpen: an open file stays readable after its name is removed.
const unlinkOpen = true
