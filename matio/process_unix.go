//go:build unix

package matio

import (
	"errors"
	"syscall"
)

// processAlive reports whether process pid runs (signal 0 reaches it or
// is refused for permission) and whether that could be told.
func processAlive(pid int) (alive, known bool) {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM), true
}
