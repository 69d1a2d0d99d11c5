package text

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxDocumentBytes bounds one document (a JSON line, a CSV record or a .txt
// file); a larger one is an error rather than an allocation a hostile file
// controls.
const MaxDocumentBytes = 64 << 20

// Source says where documents come from: a JSON Lines file (.jsonl, .json,
// .ndjson, optionally .gz) whose objects hold the text in Field, a CSV file
// (.csv, optionally .gz) with a header row naming Field, or a directory whose
// .txt files (at any depth, in sorted path order) are one document each.
type Source struct {
	Path string
	// Field names the JSON member or CSV column holding the text; "text"
	// if empty.
	Field string
	// Extra names more JSON members or CSV columns to read with each
	// document, such as a label or an id (Document.Extra). A CSV file must
	// have every one as a column; a JSON object may lack one. A directory
	// of .txt files has none, and naming any is an error.
	Extra []string
}

// Document is one document of a Source.
type Document struct {
	// Name says where it came from: "file:line" for JSON Lines, "file:row"
	// for CSV, the path relative to the directory for .txt files.
	Name string
	Text string
	// Extra holds the Source's Extra fields that the document has, by
	// name: a CSV cell as written; a JSON string as is, a JSON number or
	// boolean as its literal text, null as "". A field the JSON object
	// lacks is absent.
	Extra map[string]string
}

// Documents returns the documents of s in order. Reading stops at the first
// error, which names the file and line; text that is not valid UTF-8 is an
// error too (as in scikit-learn, whose default decoding is strict).
func (s Source) Documents() iter.Seq2[Document, error] {
	field := s.Field
	if field == "" {
		field = "text"
	}
	return func(yield func(Document, error) bool) {
		st, err := os.Stat(s.Path)
		if err != nil {
			yield(Document{}, err)
			return
		}
		if st.IsDir() {
			if len(s.Extra) > 0 {
				yield(Document{}, fmt.Errorf("%s: a directory of .txt files has no fields such as %q: give a .jsonl or .csv file", s.Path, s.Extra[0]))
				return
			}
			readDir(s.Path, yield)
			return
		}
		name := strings.TrimSuffix(strings.ToLower(s.Path), ".gz")
		switch {
		case strings.HasSuffix(name, ".csv"):
			readCSV(s.Path, field, s.Extra, yield)
		case strings.HasSuffix(name, ".jsonl"), strings.HasSuffix(name, ".json"), strings.HasSuffix(name, ".ndjson"):
			readJSONL(s.Path, field, s.Extra, yield)
		default:
			yield(Document{}, fmt.Errorf("%s: unknown document format: want a directory of .txt files, .jsonl or .csv (optionally .gz)", s.Path))
		}
	}
}

// Texts returns just the texts of s's documents.
func (s Source) Texts() iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		for d, err := range s.Documents() {
			if !yield(d.Text, err) || err != nil {
				return
			}
		}
	}
}

func open(path string) (io.Reader, func() error, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	if !strings.HasSuffix(strings.ToLower(path), ".gz") {
		return f, f.Close, nil
	}
	z, err := gzip.NewReader(f)
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%s: not a gzip file: %w", path, err)
	}
	return z, f.Close, nil
}

func readJSONL(path, field string, extra []string, yield func(Document, error) bool) {
	r, closeFn, err := open(path)
	if err != nil {
		yield(Document{}, err)
		return
	}
	defer closeFn()
	br := bufio.NewReaderSize(r, 1<<16)
	for line := 1; ; line++ {
		b, err := readLine(br)
		if err == io.EOF && len(b) == 0 {
			return
		}
		if err != nil && err != io.EOF {
			yield(Document{}, fmt.Errorf("%s:%d: %w", path, line, err))
			return
		}
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		if !utf8.Valid(b) {
			yield(Document{}, fmt.Errorf("%s:%d: not valid UTF-8", path, line))
			return
		}
		var obj map[string]json.RawMessage
		if e := json.Unmarshal(b, &obj); e != nil {
			yield(Document{}, fmt.Errorf("%s:%d: not a JSON object: %v", path, line, e))
			return
		}
		raw, ok := obj[field]
		if !ok {
			yield(Document{}, fmt.Errorf("%s:%d: %w: no %q member", path, line, ErrNoField, field))
			return
		}
		var t string
		if e := json.Unmarshal(raw, &t); e != nil {
			yield(Document{}, fmt.Errorf("%s:%d: member %q is not a string", path, line, field))
			return
		}
		d := Document{Name: fmt.Sprintf("%s:%d", path, line), Text: t}
		for _, name := range extra {
			raw, ok := obj[name]
			if !ok {
				continue
			}
			v, err := scalarText(raw)
			if err != nil {
				yield(Document{}, fmt.Errorf("%s:%d: member %q: %v", path, line, name, err))
				return
			}
			if d.Extra == nil {
				d.Extra = map[string]string{}
			}
			d.Extra[name] = v
		}
		if !yield(d, nil) {
			return
		}
	}
}

// scalarText returns a JSON string as is, a boolean as its literal text,
// null as "" and a number in one canonical form, so that equal numbers are
// one label: an integer literal as written (digits beyond float64's
// precision kept, as ids need), any other as the shortest form of its
// value, without a fraction when it is a whole number below 2⁵³ (1.0 and
// 1e0 are "1", 2.50 is "2.5").
func scalarText(raw json.RawMessage) (string, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", err
	}
	switch v := v.(type) {
	case nil:
		return "", nil
	case string:
		return v, nil
	case bool:
		return string(bytes.TrimSpace(raw)), nil
	case float64:
		lit := string(bytes.TrimSpace(raw))
		if !strings.ContainsAny(lit, ".eE") {
			if lit == "-0" {
				return "0", nil
			}
			return lit, nil
		}
		if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
			return strconv.FormatInt(int64(v), 10), nil
		}
		return strconv.FormatFloat(v, 'g', -1, 64), nil
	}
	return "", errors.New("is an array or object, want a string, number or boolean")
}

// readLine reads one line of at most MaxDocumentBytes, without its newline.
func readLine(br *bufio.Reader) ([]byte, error) {
	var out []byte
	for {
		chunk, err := br.ReadSlice('\n')
		out = append(out, chunk...)
		if len(out) > MaxDocumentBytes {
			return nil, fmt.Errorf("line longer than %d bytes", MaxDocumentBytes)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return bytes.TrimRight(out, "\r\n"), err
	}
}

func readCSV(path, field string, extra []string, yield func(Document, error) bool) {
	r, closeFn, err := open(path)
	if err != nil {
		yield(Document{}, err)
		return
	}
	defer closeFn()
	cr := csv.NewReader(&limitedLines{r: r})
	cr.FieldsPerRecord = -1
	head, err := cr.Read()
	if err != nil {
		yield(Document{}, fmt.Errorf("%s: reading the header: %w", path, err))
		return
	}
	column := func(name string) int {
		col := -1
		for i, h := range head {
			if strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")) == name {
				col = i
			}
		}
		return col
	}
	col := column(field)
	if col < 0 {
		yield(Document{}, fmt.Errorf("%s: %w: no column named %q in the header %q", path, ErrNoField, field, head))
		return
	}
	extraCols := make([]int, len(extra))
	for k, name := range extra {
		if extraCols[k] = column(name); extraCols[k] < 0 {
			yield(Document{}, fmt.Errorf("%s: no column named %q in the header %q", path, name, head))
			return
		}
	}
	for row := 2; ; row++ {
		rec, err := cr.Read()
		if err == io.EOF {
			return
		}
		if err != nil {
			yield(Document{}, fmt.Errorf("%s: %w", path, err))
			return
		}
		line, _ := cr.FieldPos(0)
		if col >= len(rec) {
			yield(Document{}, fmt.Errorf("%s:%d: %d fields, no column %d (%q)", path, line, len(rec), col+1, field))
			return
		}
		if !utf8.ValidString(rec[col]) {
			yield(Document{}, fmt.Errorf("%s:%d: text is not valid UTF-8", path, line))
			return
		}
		d := Document{Name: fmt.Sprintf("%s:%d", path, line), Text: rec[col]}
		for k, c := range extraCols {
			if c >= len(rec) {
				yield(Document{}, fmt.Errorf("%s:%d: %d fields, no column %d (%q)", path, line, len(rec), c+1, extra[k]))
				return
			}
			if d.Extra == nil {
				d.Extra = map[string]string{}
			}
			d.Extra[extra[k]] = rec[c]
		}
		if !yield(d, nil) {
			return
		}
	}
}

// limitedLines fails a read once more than MaxDocumentBytes arrive without
// a newline, so that one endless CSV record cannot exhaust memory.
type limitedLines struct {
	r   io.Reader
	run int
}

func (l *limitedLines) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	for _, c := range p[:n] {
		if c == '\n' {
			l.run = 0
		} else if l.run++; l.run > MaxDocumentBytes {
			return 0, fmt.Errorf("a line longer than %d bytes", MaxDocumentBytes)
		}
	}
	return n, err
}

func readDir(dir string, yield func(Document, error) bool) {
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(strings.ToLower(d.Name()), ".txt") {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		yield(Document{}, err)
		return
	}
	if len(paths) == 0 {
		yield(Document{}, fmt.Errorf("%s: no .txt files", dir))
		return
	}
	sort.Strings(paths)
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			if target, lerr := os.Readlink(p); lerr == nil && errors.Is(err, fs.ErrNotExist) {
				err = fmt.Errorf("%s is a link to %s, which does not exist: remove the link or restore its file (every .txt file of %s is a document)", p, target, dir)
			} else {
				err = fmt.Errorf("%s: cannot read this document: %w", p, err)
			}
			yield(Document{}, err)
			return
		}
		if !st.Mode().IsRegular() {
			yield(Document{}, fmt.Errorf("%s is not a regular file (every .txt file of %s is a document)", p, dir))
			return
		}
		if st.Size() > MaxDocumentBytes {
			yield(Document{}, fmt.Errorf("%s: larger than %d bytes", p, MaxDocumentBytes))
			return
		}
		b, err := os.ReadFile(p)
		if err != nil {
			yield(Document{}, err)
			return
		}
		if !utf8.Valid(b) {
			yield(Document{}, fmt.Errorf("%s: not valid UTF-8", p))
			return
		}
		rel, _ := filepath.Rel(dir, p)
		if !yield(Document{Name: rel, Text: string(b)}, nil) {
			return
		}
	}
}

// ReadStopWords reads a stop-word file: one word per line, surrounding
// whitespace trimmed, blank lines skipped.
func ReadStopWords(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var words []string
	for _, w := range strings.Split(string(b), "\n") {
		if w = strings.TrimSpace(w); w != "" {
			words = append(words, w)
		}
	}
	return words, nil
}

// ErrNoField is wrapped by the error for a JSON object or CSV header
// without the Source's text Field.
var ErrNoField = errors.New("no text field")

// ErrNoDocuments is returned when a source holds no document.
var ErrNoDocuments = errors.New("text: no documents")
