// Package matio reads and writes the file formats of the neuralnmf command
// line: Matrix Market (coordinate and array, optionally gzipped), dense CSV
// (optional header row), and label files (one integer per line).
//
// Every parse error names the file, the line and the problem, e.g.
// "docs.mtx:12: column index 0 out of range 1..1000". Sizes declared in a
// header are checked against Limits and are never trusted for allocation, so
// a corrupt header cannot exhaust memory.
//
// Numbers are decimal only: an optional sign, digits with an optional
// decimal point, and an optional exponent (12, -0.5, .5, 3e-4, 1.5E+10).
// Digit separators (309_1), hex floats (0x1p-2) and Inf/NaN spellings are
// errors, as is a value beyond float64's range (1e400).
package matio

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unsafe"

	"github.com/neuralnmf/neuralnmf/tensor"
)

// Matrix is a matrix read from a file: exactly one of Dense and Sparse is set.
type Matrix struct {
	Dense  *tensor.Dense
	Sparse *tensor.Sparse
	// Duplicates counts the entries of a Matrix Market coordinate file
	// that repeated an earlier entry's position and were summed into it.
	Duplicates int
}

// Dims returns the dimensions.
func (m *Matrix) Dims() (int, int) {
	if m.Sparse != nil {
		return m.Sparse.Rows, m.Sparse.Cols
	}
	return m.Dense.Rows, m.Dense.Cols
}

// ToDense returns the matrix as a dense one (a copy for a sparse matrix).
func (m *Matrix) ToDense() *tensor.Dense {
	if m.Sparse != nil {
		return m.Sparse.Dense()
	}
	return m.Dense
}

// MaxEntries bounds rows×cols of a dense matrix and the number of entries
// of a sparse one that the readers accept by default: 2²⁸ (2 GiB of
// float64). MaxDim bounds the rows and the columns: 2²⁴, so that a size line
// alone (a sparse matrix's column pointers, the models' N×k factors) cannot
// ask for more than about 128 MiB per unit of k.
const (
	MaxEntries = 1 << 28
	MaxDim     = 1 << 24
)

// Limits bounds what a reader accepts, checked before anything is allocated.
// Zero fields take MaxDim and MaxEntries; raise them to read larger files
// (ReadMatrixLimits).
type Limits struct {
	MaxDim, MaxEntries int
}

func (l Limits) resolve() Limits {
	if l.MaxDim <= 0 {
		l.MaxDim = MaxDim
	}
	if l.MaxEntries <= 0 {
		l.MaxEntries = MaxEntries
	}
	return l
}

// ErrFormat is wrapped by every parse error.
var ErrFormat = errors.New("malformed input")

func formatErr(name string, line int, format string, args ...any) error {
	return fmt.Errorf("%s:%d: %w: %s", name, line, ErrFormat, fmt.Sprintf(format, args...))
}

// open opens path, transparently decompressing a .gz file.
func open(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if !strings.HasSuffix(path, ".gz") {
		return f, nil
	}
	z, err := gzip.NewReader(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: not a gzip file: %w", path, err)
	}
	return newAheadReader(z, f), nil
}

// aheadReader decompresses in a goroutine of its own, a few blocks ahead of
// the reader, so that decompressing and parsing a large .gz file share two
// cores instead of taking turns on one.
type aheadReader struct {
	blocks chan []byte // filled blocks, then closed
	free   chan []byte // emptied blocks
	done   chan struct{}
	err    error // the decompressor's, read after blocks is closed
	cur    []byte
	buf    []byte // cur's block, to hand back
	f      *os.File
	closed bool
}

const aheadBlock, aheadBlocks = 1 << 20, 4

func newAheadReader(z io.Reader, f *os.File) *aheadReader {
	r := &aheadReader{blocks: make(chan []byte, aheadBlocks), free: make(chan []byte, aheadBlocks+1), done: make(chan struct{}), f: f}
	for range aheadBlocks + 1 {
		r.free <- make([]byte, aheadBlock)
	}
	go func() {
		defer close(r.blocks)
		for {
			var b []byte
			select {
			case b = <-r.free:
			case <-r.done:
				return
			}
			n := 0
			var err error
			for n < len(b) && err == nil {
				var m int
				m, err = z.Read(b[n:])
				n += m
			}
			if n > 0 {
				select {
				case r.blocks <- b[:n]:
				case <-r.done:
					return
				}
			}
			if err != nil {
				if err != io.EOF { // a truncated stream is gzip's io.ErrUnexpectedEOF: kept
					r.err = err
				}
				return
			}
		}
	}()
	return r
}

func (r *aheadReader) Read(p []byte) (int, error) {
	for len(r.cur) == 0 {
		if r.buf != nil {
			r.free <- r.buf[:cap(r.buf)]
			r.buf = nil
		}
		b, ok := <-r.blocks
		if !ok {
			if r.err != nil {
				return 0, r.err
			}
			return 0, io.EOF
		}
		r.cur, r.buf = b, b
	}
	n := copy(p, r.cur)
	r.cur = r.cur[n:]
	return n, nil
}

func (r *aheadReader) Close() error {
	if !r.closed {
		r.closed = true
		close(r.done)
		for range r.blocks { // let the goroutine end
		}
	}
	return r.f.Close()
}

// ReadMatrix reads a matrix file, choosing the format by name: .mtx or
// .mtx.gz is Matrix Market, .csv or .csv.gz is CSV. It applies the default
// Limits.
func ReadMatrix(path string) (*Matrix, error) { return ReadMatrixLimits(path, Limits{}) }

// ReadMatrixLimits is ReadMatrix with the given limits.
func ReadMatrixLimits(path string, lim Limits) (*Matrix, error) {
	rc, err := open(path)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	base := strings.TrimSuffix(path, ".gz")
	switch {
	case strings.HasSuffix(base, ".mtx"):
		return ReadMatrixMarketLimits(rc, path, lim)
	case strings.HasSuffix(base, ".csv"):
		d, err := readCSV(rc, path, lim.resolve())
		if err != nil {
			return nil, err
		}
		return &Matrix{Dense: d}, nil
	}
	return nil, fmt.Errorf("%s: unknown matrix format: want .mtx, .mtx.gz, .csv or .csv.gz", path)
}

// ReadLabelsFile reads a label file; see ReadLabels.
func ReadLabelsFile(path string) ([]int, error) {
	rc, err := open(path)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return ReadLabels(rc, path)
}

// lines iterates over the lines of r with their 1-based numbers.
type lines struct {
	sc   *bufio.Scanner
	name string
	n    int
}

func newLines(r io.Reader, name string) *lines {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	return &lines{sc: sc, name: name}
}

func (l *lines) next() (string, bool) {
	if !l.sc.Scan() {
		return "", false
	}
	l.n++
	return l.sc.Text(), true
}

// nextTransient is next for a line that the caller parses and drops
// before the next call: the string shares the scanner's buffer (no copy
// per line, which on a file of millions of entries was a tenth of the
// reading's time), so nothing of it may be kept.
func (l *lines) nextTransient() (string, bool) {
	if !l.sc.Scan() {
		return "", false
	}
	l.n++
	b := l.sc.Bytes()
	if len(b) == 0 {
		return "", true
	}
	return unsafe.String(unsafe.SliceData(b), len(b)), true
}

func (l *lines) err() error {
	if err := l.sc.Err(); err != nil {
		return fmt.Errorf("%s:%d: %w", l.name, l.n+1, err)
	}
	return nil
}
