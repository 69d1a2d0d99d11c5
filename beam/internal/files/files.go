// Package files reads and writes whole files through Beam's filesystem
// layer (package filesystem), so that local paths and cloud storage
// (gs://, with its package imported) work alike.
package files

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"

	"github.com/neuralnmf/neuralnmf/matio"
)

// Read returns the contents of p.
func Read(ctx context.Context, p string) ([]byte, error) {
	var buf bytes.Buffer
	if err := ReadInto(ctx, p, &buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// ReadInto reads the contents of p into buf, which it resets first: a
// caller reading many files of one size reuses buf's memory (fresh memory
// costs a page fault every 4 KB).
func ReadInto(ctx context.Context, p string, buf *bytes.Buffer) error {
	fsys, err := filesystem.New(ctx, p)
	if err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	defer fsys.Close()
	r, err := fsys.OpenRead(ctx, p)
	if err != nil {
		return err
	}
	defer r.Close()
	buf.Reset()
	// One allocation of the file's size where the filesystem tells it
	// (io.ReadAll would grow and copy its buffer a dozen times for 4 MB).
	if n, err := fsys.Size(ctx, p); err == nil && n > 0 && n < 1<<40 {
		buf.Grow(int(n) + 1)
	}
	if _, err := buf.ReadFrom(r); err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	return nil
}

// Open opens p for reading; the caller closes it.
func Open(ctx context.Context, p string) (io.ReadCloser, error) {
	fsys, err := filesystem.New(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	defer fsys.Close()
	return fsys.OpenRead(ctx, p)
}

// Write writes data to p, replacing it, in place: a reader of a local p
// may see a partial file while it is written (see WriteWhole). It is for
// the files of a work directory that only this run reads, after the
// stage that writes them has ended.
func Write(ctx context.Context, p string, data []byte) error {
	fsys, err := filesystem.New(ctx, p)
	if err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	defer fsys.Close()
	return write(ctx, fsys, p, data)
}

// WriteWhole writes data to p so that p never holds a partial file, and
// replaces an existing p. A local p is written by matio.WriteAtomic: a
// temporary file of this process's own beside p (nameless on Linux until
// it replaces p), renamed over p when complete, never a name a user's
// file may have; matio.RemoveTemporaries removes the named ones of an
// interrupted process. Cloud storage (gs://) makes an object
// visible only when its upload completes, so p is written directly there.
func WriteWhole(ctx context.Context, p string, data []byte) error {
	if Local(p) {
		p = strings.TrimPrefix(p, "file://")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil { // as Beam's local filesystem does
			return err
		}
		return matio.WriteAtomic(p, func(f *os.File) error {
			_, err := f.Write(data)
			return err
		})
	}
	return Write(ctx, p, data)
}

// Local reports whether p is a path of the local filesystem (no scheme,
// or file://).
func Local(p string) bool { return !strings.Contains(p, "://") || strings.HasPrefix(p, "file://") }

// write writes data to p on fsys.
func write(ctx context.Context, fsys filesystem.Interface, p string, data []byte) error {
	w, err := fsys.OpenWrite(ctx, p)
	if err != nil {
		return err
	}
	if _, err := w.Write(data); err != nil {
		w.Close()
		return fmt.Errorf("%s: %w", p, err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	return nil
}

// List returns the files that glob matches (nil if none).
func List(ctx context.Context, glob string) ([]string, error) {
	fsys, err := filesystem.New(ctx, glob)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", glob, err)
	}
	defer fsys.Close()
	return fsys.List(ctx, glob)
}

// Exists reports whether p exists.
func Exists(ctx context.Context, p string) (bool, error) {
	fsys, err := filesystem.New(ctx, p)
	if err != nil {
		return false, fmt.Errorf("%s: %w", p, err)
	}
	defer fsys.Close()
	if _, err := fsys.Size(ctx, p); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		// Filesystems differ in how they say "no such file": ask List.
		m, lerr := fsys.List(ctx, p)
		if lerr != nil {
			return false, err
		}
		return len(m) > 0, nil
	}
	return true, nil
}

// Remove removes the file p, if the filesystem can remove files; a
// missing p is not an error.
func Remove(ctx context.Context, p string) error {
	fsys, err := filesystem.New(ctx, p)
	if err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	defer fsys.Close()
	rm, ok := fsys.(filesystem.Remover)
	if !ok {
		return fmt.Errorf("%s: the filesystem cannot remove files", p)
	}
	if err := rm.Remove(ctx, p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// Record reports whether the file p exists (there) and, if it does,
// whether its bytes are want (same): how a command tells its own
// interrupted run, whose record it wrote at the start, from others.
func Record(ctx context.Context, p string, want []byte) (there, same bool, err error) {
	if there, err = Exists(ctx, p); err != nil || !there {
		return there, false, err
	}
	got, err := Read(ctx, p)
	if err != nil {
		return true, false, err
	}
	return true, bytes.Equal(got, want), nil
}

// RemoveGlob removes the files glob matches.
func RemoveGlob(ctx context.Context, glob string) error {
	paths, err := List(ctx, glob)
	if err != nil {
		return err
	}
	for _, p := range paths {
		if err := Remove(ctx, p); err != nil {
			return err
		}
	}
	return nil
}

// InputError marks the error of a pipeline element whose input file
// cannot be used (a malformed or negative shard): a command finds it in
// the runner's error and reports that line, as an input error (exit 1),
// instead of a failed pipeline.
const InputError = "[input error] "

// Join joins a directory (local or a URL such as gs://b/d) and a name.
func Join(dir, name string) string {
	return strings.TrimSuffix(dir, "/") + "/" + name
}

// Header is what the header of a Matrix Market file says: the rows,
// columns and entries it declares, and its comment lines ("% …", after
// the banner, before the size line).
type Header struct {
	Rows, Cols, Entries int
	Comments            []string
}

// Comment returns the value of the first comment line "% key value", or
// "" if there is none.
func (h Header) Comment(key string) string {
	for _, c := range h.Comments {
		if v, ok := strings.CutPrefix(c, "% "+key+" "); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// MatrixHeader reads only the header of the Matrix Market file p (.mtx, or
// .mtx.gz gunzipped), once.
func MatrixHeader(ctx context.Context, p string) (Header, error) {
	r, err := Open(ctx, p)
	if err != nil {
		return Header{}, err
	}
	defer r.Close()
	var in io.Reader = r
	if strings.HasSuffix(p, ".gz") {
		z, err := gzip.NewReader(r)
		if err != nil {
			return Header{}, fmt.Errorf("%s: %w", p, err)
		}
		defer z.Close()
		in = z
	}
	// The banner and the comments, kept for the header's parser, which
	// reads on from them to the size line.
	var h Header
	var head bytes.Buffer
	br := bufio.NewReader(in)
	for first := true; ; first = false {
		line, err := br.ReadString('\n')
		head.WriteString(line)
		if !first && !strings.HasPrefix(line, "%") || err != nil {
			break
		}
		if !first {
			h.Comments = append(h.Comments, strings.TrimSpace(line))
		}
	}
	h.Rows, h.Cols, h.Entries, err = matio.ReadMatrixMarketHeader(io.MultiReader(&head, br), p)
	return h, err
}

// DecodeMatrix reads a Matrix Market matrix from r, gunzipping it first if
// name (which errors name) ends in .gz.
func DecodeMatrix(r io.Reader, name string) (*matio.Matrix, error) {
	if strings.HasSuffix(name, ".gz") {
		z, err := gzip.NewReader(r)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		defer z.Close()
		r = z
	}
	return matio.ReadMatrixMarket(r, name)
}
