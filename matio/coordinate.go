package matio

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"unsafe"

	"github.com/neuralnmf/neuralnmf/tensor"
)

// readCoordinate reads the nnz entry lines of a coordinate file (after its
// header) and builds the matrix (tensor.SparseBuilder: a file in column
// order goes straight into the matrix's arrays, others into blocks, so
// that millions of entries are never copied to grow a slice). Room for
// the entries is made at once for the header's count, but for no more
// than room (entryRoom: 2²⁰, or what the file's size can hold where it is
// known), so that a header that lies about their number costs at most
// 16 MB of address space, untouched. From
// parallelEntries entries the lines are parsed on GOMAXPROCS goroutines.
func readCoordinate(ls *lines, name string, rows, cols, nnz, room int, pattern bool, sym string) (*Matrix, error) {
	b := tensor.NewSparseBuilder(rows, cols)
	if sym == "general" {
		b.Reserve(min(nnz, room))
	}
	fields := 3
	if pattern {
		fields = 2
	}
	workers := 1
	if nnz >= parallelEntries {
		workers = runtime.GOMAXPROCS(0)
	}
	if err := readEntries(ls, name, b, rows, cols, fields, nnz, sym, workers); err != nil {
		return nil, err
	}
	s, dups, err := b.Build()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &Matrix{Sparse: s, Duplicates: dups}, nil
}

// parallelEntries is the number of entries from which a coordinate file's
// lines are parsed on several goroutines.
const parallelEntries = 1 << 16

// entryBatch is a run of a coordinate file's entry lines, copied, and
// parsed apart from the reading.
type entryBatch struct {
	buf     []byte // the lines, one after another
	ends    []int  // where each line ends in buf
	lineNos []int  // each line's number in the file
	entries []tensor.Entry
	err     error
	done    chan struct{}
}

// batchLines is the number of entry lines in an entryBatch.
const batchLines = 1 << 13

// parse parses the batch's lines into its entries (both of a mirrored
// pair for a symmetric or skew-symmetric file), stopping at the first
// error.
func (bt *entryBatch) parse(name string, rows, cols, fields int, sym string) {
	per := 1
	if sym != "general" {
		per = 2
	}
	if cap(bt.entries) < len(bt.ends)*per {
		bt.entries = make([]tensor.Entry, 0, len(bt.ends)*per)
	}
	bt.entries = bt.entries[:0]
	start := 0
	for i, end := range bt.ends {
		line := unsafe.String(unsafe.SliceData(bt.buf[start:end]), end-start) // not kept past parseEntry
		start = end
		e, _, err := parseEntry(line, bt.lineNos[i], name, rows, cols, fields)
		if err != nil {
			bt.err = err
			return
		}
		bt.entries = append(bt.entries, e)
		if sym != "general" && e.Row != e.Col {
			mv := e.Val
			if sym == "skew-symmetric" {
				mv = -mv
			}
			bt.entries = append(bt.entries, tensor.Entry{Row: e.Col, Col: e.Row, Val: mv})
		}
	}
}

// readEntries reads nnz entry lines of a coordinate file into b. This
// goroutine splits the lines (blank and comment lines skipped) into
// batches that workers goroutines parse (with one, this goroutine parses
// each as it is made), and adds each batch's entries in the file's order,
// so the matrix, its duplicates and the error reported (the first in the
// file's order) do not depend on workers.
func readEntries(ls *lines, name string, b *tensor.SparseBuilder, rows, cols, fields, nnz int, sym string, workers int) error {
	var pending []*entryBatch
	// free holds batches whose entries the builder has taken: their
	// buffers are filled again, so that the reading touches a few batches'
	// worth of fresh memory rather than copies of the whole file and of
	// its entries (on a machine whose first touch of a page is costly,
	// that was most of the time of reading a file of half a million
	// entries).
	var free []*entryBatch
	// wait adds the oldest batches' entries while more than keep are in
	// flight, and returns the first error met.
	wait := func(keep int) error {
		for len(pending) > keep {
			bt := pending[0]
			<-bt.done
			pending = pending[1:]
			if bt.err != nil {
				for _, rest := range pending { // let every goroutine end
					<-rest.done
				}
				pending = nil
				return bt.err
			}
			for _, e := range bt.entries {
				b.Add(e)
			}
			bt.buf, bt.ends, bt.lineNos = bt.buf[:0], bt.ends[:0], bt.lineNos[:0]
			free = append(free, bt)
		}
		return nil
	}
	dispatch := func(bt *entryBatch) {
		bt.done = make(chan struct{})
		pending = append(pending, bt)
		if workers == 1 {
			bt.parse(name, rows, cols, fields, sym)
			close(bt.done)
			return
		}
		go func() {
			defer close(bt.done)
			bt.parse(name, rows, cols, fields, sym)
		}()
	}
	var cur *entryBatch
	read := 0
	var tail error // the reading's own error: after every line batched before it
	for read < nnz {
		line, more := ls.nextTransient()
		if !more {
			tail = endErr(ls, name, read, nnz)
			break
		}
		if t := strings.TrimSpace(line); t == "" || strings.HasPrefix(t, "%") {
			continue
		}
		if cur == nil {
			if k := len(free); k > 0 {
				cur, free = free[k-1], free[:k-1]
			} else {
				n := min(batchLines, nnz-read)
				cur = &entryBatch{buf: make([]byte, 0, n*32), ends: make([]int, 0, n), lineNos: make([]int, 0, n)}
			}
		}
		cur.buf = append(cur.buf, line...)
		cur.ends = append(cur.ends, len(cur.buf))
		cur.lineNos = append(cur.lineNos, ls.n)
		read++
		if len(cur.ends) == batchLines {
			dispatch(cur)
			cur = nil
			if err := wait(2 * workers); err != nil {
				return err
			}
		}
	}
	if cur != nil {
		dispatch(cur)
	}
	if err := wait(0); err != nil {
		return err
	}
	if tail != nil {
		return tail
	}
	return trailing(ls, name)
}

// endErr is the error of a file that ends (or fails to read) after read
// of nnz entries.
func endErr(ls *lines, name string, read, nnz int) error {
	if err := ls.err(); err != nil {
		return err
	}
	return formatErr(name, ls.n+1, "file ends after %d of %d entries", read, nnz)
}

// nextEntry reads the next line of a coordinate file's entries (see
// parseEntry); the end of the file before nnz entries is an error.
func nextEntry(ls *lines, name string, rows, cols, fields, read, nnz int) (e tensor.Entry, ok bool, err error) {
	line, more := ls.nextTransient() // parseEntry keeps nothing of it
	if !more {
		return e, false, endErr(ls, name, read, nnz)
	}
	return parseEntry(line, ls.n, name, rows, cols, fields)
}

// parseEntry parses line n of a coordinate file's entries (0-based
// indices; pattern entries, with 2 fields, are 1). ok is false for a blank
// or comment line. Nothing of line is kept.
func parseEntry(line string, n int, name string, rows, cols, fields int) (e tensor.Entry, ok bool, err error) {
	t := strings.TrimSpace(line)
	if t == "" || strings.HasPrefix(t, "%") {
		return e, false, nil
	}
	var fb [3]string
	f, ok := splitFields(t, fb[:0], 3)
	if !ok || len(f) != fields {
		return e, false, formatErr(name, n, "entry has %d fields, want %d", len(strings.Fields(t)), fields)
	}
	i, ok1 := atoiPositive(f[0])
	j, ok2 := atoiPositive(f[1])
	if !ok1 || !ok2 {
		var err1, err2 error
		i, err1 = strconv.Atoi(f[0])
		j, err2 = strconv.Atoi(f[1])
		if err1 != nil || err2 != nil {
			return e, false, formatErr(name, n, "indices %q %q are not integers", f[0], f[1])
		}
	}
	if i < 1 || i > rows {
		return e, false, formatErr(name, n, "row index %d out of range 1..%d", i, rows)
	}
	if j < 1 || j > cols {
		return e, false, formatErr(name, n, "column index %d out of range 1..%d", j, cols)
	}
	v := 1.0
	if fields == 3 {
		if v, err = parseFloat(f[2]); err != nil {
			return e, false, formatErr(name, n, "value %q: %v", trunc(f[2]), err)
		}
	}
	return tensor.Entry{Row: i - 1, Col: j - 1, Val: v}, true, nil
}
