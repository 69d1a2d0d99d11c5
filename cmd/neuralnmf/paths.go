package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// input is a command's input path and the flag that named it.
type input struct{ flag, path string }

// checkOutput validates the output path out (named by flag) before any work
// starts, so that a typo costs nothing and no input is destroyed: its
// directory must exist and be writable, out may not be a directory, and it
// may not be any of the inputs (the same path, or the same file through a
// link). Inputs with an empty path are skipped. Errors are usage errors.
func checkOutput(flag, out string, inputs ...input) error {
	abs, err := filepath.Abs(out)
	if err != nil {
		return usageError{fmt.Errorf("%s %s: %w", flag, out, err)}
	}
	if st, err := os.Stat(abs); err == nil && st.IsDir() {
		return usageError{fmt.Errorf("%s %s is a directory; name a file", flag, out)}
	}
	outInfo, outErr := os.Stat(abs)
	for _, in := range inputs {
		if in.path == "" {
			continue
		}
		inAbs, err := filepath.Abs(in.path)
		same := err == nil && inAbs == abs
		if !same && outErr == nil {
			if inInfo, err := os.Stat(in.path); err == nil {
				same = os.SameFile(inInfo, outInfo)
			}
		}
		if same {
			return usageError{fmt.Errorf("%s %s is also the input %s; writing it would destroy the input: choose another output path", flag, out, in.flag)}
		}
	}
	dir := filepath.Dir(abs)
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() {
		return usageError{fmt.Errorf("%s %s: directory %s does not exist", flag, out, filepath.Dir(out))}
	}
	probe, err := os.CreateTemp(dir, ".neuralnmf-probe-*")
	if err != nil {
		return usageError{fmt.Errorf("%s %s: cannot write to %s: %v", flag, out, filepath.Dir(out), err)}
	}
	probe.Close()
	os.Remove(probe.Name())
	return nil
}

// distinctOutputs refuses two outputs of one command that name the same
// file (the second write would replace the first), before any work.
// Outputs with an empty path are skipped. Errors are usage errors.
func distinctOutputs(outs ...input) error {
	seen := map[string]string{}
	for _, o := range outs {
		if o.path == "" {
			continue
		}
		abs, err := filepath.Abs(o.path)
		if err != nil {
			return usageError{fmt.Errorf("%s %s: %w", o.flag, o.path, err)}
		}
		if prev, ok := seen[abs]; ok {
			return usageError{fmt.Errorf("%s and %s both name %s: one would overwrite the other; give each its own file", prev, o.flag, o.path)}
		}
		seen[abs] = o.flag
	}
	return nil
}
