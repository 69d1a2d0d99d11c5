// Package lookalike plants, for tests, files named like temporary files
// beside a command's outputs, and checks that the command left them alone.
package lookalike

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Plant writes, in dir, files named like the temporary files of this tool,
// of its older versions or of a user (.x.tmp-1-a, .c.tmp-old, …, and for
// each output NAME .NAME.tmp-keep, .NAME.tmp-99999-v2,
// .NAME.neuralnmf-keep.tmp), each two days old, and returns a check that
// every one is still there and unchanged; after names what ran, for the
// failure message.
func Plant(t testing.TB, dir string, outputs ...string) (check func(after string)) {
	t.Helper()
	names := []string{".x.tmp-1-a", ".c.tmp-old", ".config.tmp-old", ".notes.txt.tmp-20240501-draft",
		".thesis.tex.tmp-99999-v2", ".neuralnmf-sort-123", ".neuralnmf-sort-abc.tmp"}
	for _, o := range outputs {
		b := filepath.Base(o)
		names = append(names, "."+b+".tmp-keep", "."+b+".tmp-99999-v2", "."+b+".tmp-1-123456", "."+b+".neuralnmf-keep.tmp")
	}
	old := time.Now().Add(-48 * time.Hour)
	for _, n := range names {
		p := filepath.Join(dir, n)
		if err := os.WriteFile(p, []byte("user's "+n), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	return func(after string) {
		t.Helper()
		for _, n := range names {
			got, err := os.ReadFile(filepath.Join(dir, n))
			if err != nil {
				t.Fatalf("%s: the user's %s is gone: %v", after, n, err)
			}
			if string(got) != "user's "+n {
				t.Fatalf("%s changed the user's %s", after, n)
			}
		}
	}
}
