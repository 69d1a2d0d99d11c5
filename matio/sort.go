package matio

import (
	"bufio"
	"compress/gzip"
	"container/heap"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/neuralnmf/neuralnmf/tensor"
)

// SortStats says what SortByColumn did.
type SortStats struct {
	Rows, Cols, Entries int
	Runs                int // sorted runs written to temporary files (0: it fitted in memory)
}

// entryBytes is the size of one tensor.Entry in memory, for the memory bound.
const entryBytes = 24

// SortByColumn writes the Matrix Market file src (.mtx or .mtx.gz,
// coordinate or array, any symmetry) to dst as a general coordinate file
// whose entries are sorted by column and then row, so that ColumnReader
// streams it, holding at most memBytes of entries at a time: an external
// merge sort whose runs go to temporary files in tmpDir (dst's directory
// if empty), gone when it returns and, where the system allows, however
// the process ends (see "Temporary files" in WriteAtomic's file).
// Symmetric files are expanded; an array file keeps its nonzero entries;
// entries that repeat a position are kept (readers sum them). dst is written atomically, gzipped if it ends
// in .gz. Errors name the file and line.
func SortByColumn(src, dst, tmpDir string, memBytes int) (SortStats, error) {
	if memBytes < entryBytes {
		return SortStats{}, fmt.Errorf("matio: SortByColumn: a memory bound of %d bytes holds no entry", memBytes)
	}
	if tmpDir == "" {
		tmpDir = filepath.Dir(dst)
	}
	rc, err := open(src)
	if err != nil {
		return SortStats{}, err
	}
	defer rc.Close()
	ls := newLines(rc, src)
	h, err := readHeader(ls, src, Limits{MaxEntries: math.MaxInt}.resolve())
	if err != nil {
		return SortStats{}, err
	}
	st := SortStats{Rows: h.rows, Cols: h.cols}
	chunk := make([]tensor.Entry, 0, min(memBytes/entryBytes, 1<<20))
	limit := memBytes / entryBytes
	var runs []*os.File
	defer func() {
		for _, r := range runs {
			r.Close()
			temporaries.remove(r.Name()) // a run that still has a name
		}
	}()
	flush := func() error {
		sortEntries(chunk)
		f, err := createScratch(tmpDir)
		if err != nil {
			return fmt.Errorf("a sort run in %s: %w", tmpDir, err)
		}
		runs = append(runs, f)
		w := bufio.NewWriterSize(f, 1<<20)
		var buf [16]byte
		for _, e := range chunk {
			binary.LittleEndian.PutUint32(buf[0:], uint32(e.Row))
			binary.LittleEndian.PutUint32(buf[4:], uint32(e.Col))
			binary.LittleEndian.PutUint64(buf[8:], math.Float64bits(e.Val))
			w.Write(buf[:])
		}
		if err := w.Flush(); err != nil {
			return fmt.Errorf("a sort run in %s: %w", tmpDir, err)
		}
		chunk = chunk[:0]
		return nil
	}
	add := func(e tensor.Entry) error {
		if len(chunk) == limit {
			if err := flush(); err != nil {
				return err
			}
		}
		chunk = append(chunk, e)
		st.Entries++
		return nil
	}
	if err := eachEntry(ls, src, h, add); err != nil {
		return st, err
	}
	if len(runs) == 0 {
		sortEntries(chunk)
		return st, writeSorted(dst, h, st.Entries, func(yield func(tensor.Entry) error) error {
			for _, e := range chunk {
				if err := yield(e); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if len(chunk) > 0 {
		if err := flush(); err != nil {
			return st, err
		}
	}
	chunk = nil
	st.Runs = len(runs)
	return st, writeSorted(dst, h, st.Entries, func(yield func(tensor.Entry) error) error { return mergeRuns(runs, yield) })
}

// eachEntry calls add with every entry of the file after its header
// (mirrored entries of a symmetric file too; nonzeros of an array file),
// then checks that nothing but comments follows.
func eachEntry(ls *lines, name string, h header, add func(tensor.Entry) error) error {
	if h.layout == "array" {
		return arrayValues(ls, name, h.rows, h.cols, h.sym, func(i, j int, v float64) error {
			return addMirrored(tensor.Entry{Row: i, Col: j, Val: v}, h.sym, add)
		})
	}
	fields := 3
	if h.pattern {
		fields = 2
	}
	for read := 0; read < h.nnz; {
		e, ok, err := nextEntry(ls, name, h.rows, h.cols, fields, read, h.nnz)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		read++
		if err := addMirrored(e, h.sym, add); err != nil {
			return err
		}
	}
	return trailing(ls, name)
}

// addMirrored adds e and, for a symmetric or skew-symmetric file, its mirror.
// An array file's zeros are dropped.
func addMirrored(e tensor.Entry, sym string, add func(tensor.Entry) error) error {
	if e.Val == 0 {
		return nil
	}
	if err := add(e); err != nil {
		return err
	}
	if sym == "general" || e.Row == e.Col {
		return nil
	}
	m := tensor.Entry{Row: e.Col, Col: e.Row, Val: e.Val}
	if sym == "skew-symmetric" {
		m.Val = -m.Val
	}
	return add(m)
}

func sortEntries(es []tensor.Entry) {
	slices.SortFunc(es, func(a, b tensor.Entry) int {
		if a.Col != b.Col {
			return a.Col - b.Col
		}
		return a.Row - b.Row
	})
}

// writeSorted writes the general coordinate file dst with entries entries,
// given in order by each.
func writeSorted(dst string, h header, entries int, each func(yield func(tensor.Entry) error) error) error {
	return WriteAtomic(dst, func(f *os.File) error {
		var w io.Writer = f
		var z *gzip.Writer
		if strings.HasSuffix(strings.ToLower(dst), ".gz") {
			z = gzip.NewWriter(f)
			w = z
		}
		bw := bufio.NewWriterSize(w, 1<<20)
		field := "real"
		if h.pattern {
			field = "pattern"
		}
		fmt.Fprintf(bw, "%%%%MatrixMarket matrix coordinate %s general\n%d %d %d\n", field, h.rows, h.cols, entries)
		var line []byte
		err := each(func(e tensor.Entry) error {
			line = strconv.AppendInt(line[:0], int64(e.Row+1), 10)
			line = append(line, ' ')
			line = strconv.AppendInt(line, int64(e.Col+1), 10)
			if !h.pattern {
				line = append(line, ' ')
				line = strconv.AppendFloat(line, e.Val, 'g', -1, 64)
			}
			line = append(line, '\n')
			_, err := bw.Write(line)
			return err
		})
		if err != nil {
			return err
		}
		if err := bw.Flush(); err != nil {
			return err
		}
		if z != nil {
			return z.Close()
		}
		return nil
	})
}

// run is one sorted temporary file being merged.
type run struct {
	r   *bufio.Reader
	cur tensor.Entry
}

func (r *run) advance() (bool, error) {
	var buf [16]byte
	if _, err := io.ReadFull(r.r, buf[:]); err != nil {
		if err == io.EOF {
			return false, nil
		}
		return false, err
	}
	le := binary.LittleEndian
	r.cur = tensor.Entry{Row: int(le.Uint32(buf[0:])), Col: int(le.Uint32(buf[4:])), Val: math.Float64frombits(le.Uint64(buf[8:]))}
	return true, nil
}

type runHeap []*run

func (h runHeap) Len() int { return len(h) }
func (h runHeap) Less(i, j int) bool {
	a, b := h[i].cur, h[j].cur
	return a.Col < b.Col || (a.Col == b.Col && a.Row < b.Row)
}
func (h runHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *runHeap) Push(x any)   { *h = append(*h, x.(*run)) }
func (h *runHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// mergeRuns yields the entries of the sorted run files in order, reading
// each from its start. The caller closes the files.
func mergeRuns(files []*os.File, yield func(tensor.Entry) error) error {
	var h runHeap
	for _, f := range files {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return err
		}
		r := &run{r: bufio.NewReaderSize(f, 1<<16)}
		ok, err := r.advance()
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		h = append(h, r)
	}
	heap.Init(&h)
	for len(h) > 0 {
		r := h[0]
		if err := yield(r.cur); err != nil {
			return err
		}
		ok, err := r.advance()
		if err != nil {
			return err
		}
		if ok {
			heap.Fix(&h, 0)
		} else {
			heap.Pop(&h)
		}
	}
	return nil
}
