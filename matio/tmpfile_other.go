//go:build !linux

package matio

import (
	"errors"
	"os"
	"runtime"
)

// openAnonymous: unnamed files need Linux's O_TMPFILE.
func openAnonymous(string) (*os.File, bool) { return nil, false }

func linkAnonymous(*os.File, string, string) (string, error) {
	return "", errors.New("matio: linkAnonymous without openAnonymous")
}

// unlinkOpen: on Unix an open file stays readable after its name is
// removed; Windows refuses to remove an open file.
const unlinkOpen = runtime.GOOS != "windows"
