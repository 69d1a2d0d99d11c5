package ssnmf

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/neuralnmf/neuralnmf/matio"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// validationMatrix is one sparse Matrix Market file of an opt-in choice
// test, named by its file.
type validationMatrix struct {
	name string
	x    *tensor.Sparse
}

// validationMatrices reads the comma-separated Matrix Market files of the
// environment variable env, skipping the test if it is unset.
func validationMatrices(t *testing.T, env string) []validationMatrix {
	paths := os.Getenv(env)
	if paths == "" {
		t.Skipf("set %s to Matrix Market files to measure", env)
	}
	var out []validationMatrix
	for _, path := range strings.Split(paths, ",") {
		m, err := matio.ReadMatrix(path)
		if err != nil {
			t.Fatal(err)
		}
		if m.Sparse == nil {
			t.Fatalf("%s: want a sparse matrix", path)
		}
		out = append(out, validationMatrix{strings.TrimSuffix(filepath.Base(path), ".mtx"), m.Sparse})
	}
	return out
}
