package matio

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/neuralnmf/neuralnmf/tensor"
)

// ReadMatrixMarket parses a Matrix Market file. Supported: "matrix
// coordinate" (returned sparse) and "matrix array" (returned dense), with
// field real, integer or pattern (coordinate only; entries are 1) and
// symmetry general, symmetric or skew-symmetric (the mirrored entries are
// added). Complex and hermitian matrices are rejected. Entries that repeat
// a position are summed, as scipy.io.mmread does, and counted in
// Matrix.Duplicates so that the caller can say so. name is used in error
// messages. The default Limits apply.
func ReadMatrixMarket(r io.Reader, name string) (*Matrix, error) {
	return ReadMatrixMarketLimits(r, name, Limits{})
}

// ReadMatrixMarketLimits is ReadMatrixMarket with the given limits.
func ReadMatrixMarketLimits(r io.Reader, name string, lim Limits) (*Matrix, error) {
	lim = lim.resolve()
	ls := newLines(r, name)
	h, err := readHeader(ls, name, lim)
	if err != nil {
		return nil, err
	}
	if h.layout == "array" {
		return readArray(ls, name, h.rows, h.cols, h.sym)
	}
	return readCoordinate(ls, name, h.rows, h.cols, h.nnz, entryRoom(r), h.pattern, h.sym)
}

// entryRoom is how many entries a coordinate file read from r may be
// given room for before they are read: 2²⁰, or as many as a regular file
// of r's size could hold (an entry line takes at least 4 bytes).
func entryRoom(r io.Reader) int {
	room := 1 << 20
	if f, ok := r.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			room = max(room, int(min(st.Size()/4, int64(MaxEntries))))
		}
	}
	return room
}

// ReadMatrixMarketHeader reads only the banner and size line of a Matrix
// Market file from r (name is for errors) and returns the rows and columns
// it declares, and its entries (a coordinate file's stored entries; an
// array file's rows × columns): what a caller checks of many large files
// before it reads any whole. Errors are ReadMatrixMarket's for a malformed
// header.
func ReadMatrixMarketHeader(r io.Reader, name string) (rows, cols, entries int, err error) {
	h, err := readHeader(newLines(r, name), name, Limits{MaxEntries: int(^uint(0) >> 1)}.resolve())
	if err != nil {
		return 0, 0, 0, err
	}
	if h.layout == "array" {
		return h.rows, h.cols, h.rows * h.cols, nil
	}
	return h.rows, h.cols, h.nnz, nil
}

// header is what the banner and size line of a Matrix Market file say.
type header struct {
	layout, sym     string
	pattern         bool
	rows, cols, nnz int
}

// readHeader parses the banner and the size line, checking them against
// lim.
func readHeader(ls *lines, name string, lim Limits) (header, error) {
	head, ok := ls.next()
	if !ok {
		if err := ls.err(); err != nil {
			return header{}, err
		}
		return header{}, formatErr(name, 1, "empty file")
	}
	f := strings.Fields(strings.ToLower(head))
	if len(f) != 5 || f[0] != "%%matrixmarket" || f[1] != "matrix" {
		return header{}, formatErr(name, 1, "want a header %%%%MatrixMarket matrix <coordinate|array> <field> <symmetry>, got %q", trunc(head))
	}
	layout, field, sym := f[2], f[3], f[4]
	if layout != "coordinate" && layout != "array" {
		return header{}, formatErr(name, 1, "unknown layout %q: want coordinate or array", f[2])
	}
	switch field {
	case "real", "integer", "double":
	case "pattern":
		if layout == "array" {
			return header{}, formatErr(name, 1, "field pattern is only valid with coordinate layout")
		}
	default:
		return header{}, formatErr(name, 1, "unsupported field %q: want real, integer or pattern", f[3])
	}
	if sym != "general" && sym != "symmetric" && sym != "skew-symmetric" {
		return header{}, formatErr(name, 1, "unsupported symmetry %q: want general, symmetric or skew-symmetric", f[4])
	}
	// Size line, after comments and blank lines.
	var size []string
	for {
		line, ok := ls.next()
		if !ok {
			if err := ls.err(); err != nil {
				return header{}, err
			}
			return header{}, formatErr(name, ls.n+1, "missing size line")
		}
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "%") {
			continue
		}
		size = strings.Fields(t)
		break
	}
	want := 3
	if layout == "array" {
		want = 2
	}
	if len(size) != want {
		return header{}, formatErr(name, ls.n, "size line has %d numbers, want %d", len(size), want)
	}
	dims := make([]int, want)
	for i, s := range size {
		v, err := strconv.Atoi(s)
		if err != nil || v < 0 {
			return header{}, formatErr(name, ls.n, "size %q is not a nonnegative integer", s)
		}
		dims[i] = v
	}
	h := header{layout: layout, sym: sym, pattern: field == "pattern", rows: dims[0], cols: dims[1]}
	if h.rows > lim.MaxDim || h.cols > lim.MaxDim {
		return header{}, formatErr(name, ls.n, "size %d×%d: more than the %d rows or columns this reader accepts (matio.Limits.MaxDim)", h.rows, h.cols, lim.MaxDim)
	}
	if sym != "general" && h.rows != h.cols {
		return header{}, formatErr(name, ls.n, "a %s matrix must be square, got %d×%d", sym, h.rows, h.cols)
	}
	if layout == "array" {
		if h.rows > 0 && h.cols > lim.MaxEntries/h.rows {
			return header{}, formatErr(name, ls.n, "%d×%d is larger than the %d entries this reader accepts (matio.Limits.MaxEntries)", h.rows, h.cols, lim.MaxEntries)
		}
		return h, nil
	}
	h.nnz = dims[2]
	if h.nnz > lim.MaxEntries {
		return header{}, formatErr(name, ls.n, "%d entries is more than the %d this reader accepts (matio.Limits.MaxEntries)", h.nnz, lim.MaxEntries)
	}
	return h, nil
}

// splitFields appends to dst the space-separated fields of t (no leading
// or trailing space) and reports whether there were at most max; it
// allocates nothing for dst of capacity max.
func splitFields(t string, dst []string, max int) ([]string, bool) {
	for len(t) > 0 {
		if len(dst) == max {
			return dst, false
		}
		i := 0
		for i < len(t) && t[i] != ' ' && t[i] != '\t' {
			i++
		}
		dst = append(dst, t[:i])
		for i < len(t) && (t[i] == ' ' || t[i] == '\t' || t[i] == '\r' || t[i] == '\v' || t[i] == '\f') {
			i++
		}
		t = t[i:]
	}
	return dst, true
}

// atoiPositive parses a string of 1 to 18 decimal digits: the fast path of
// an index; ok is false for anything else (strconv.Atoi decides then).
func atoiPositive(s string) (int, bool) {
	if len(s) == 0 || len(s) > 18 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

func readArray(ls *lines, name string, rows, cols int, sym string) (*Matrix, error) {
	// Positions are generated as values arrive, so memory grows with the
	// data, not with the declared size.
	var vals []float64
	if err := arrayValues(ls, name, rows, cols, sym, func(_, _ int, v float64) error {
		vals = append(vals, v)
		return nil
	}); err != nil {
		return nil, err
	}
	d := tensor.New(rows, cols)
	p := 0
	for j := 0; j < cols; j++ {
		for i := arrayStart(sym, j); i < rows; i++ {
			v := vals[p]
			p++
			d.Set(i, j, v)
			switch {
			case sym == "symmetric" && i != j:
				d.Set(j, i, v)
			case sym == "skew-symmetric":
				d.Set(j, i, -v)
			}
		}
	}
	return &Matrix{Dense: d}, nil
}

// arrayStart is the first stored row of column j of an array file: values
// are column-major, and symmetric arrays store the lower triangle
// (skew-symmetric: strictly lower).
func arrayStart(sym string, j int) int {
	switch sym {
	case "symmetric":
		return j
	case "skew-symmetric":
		return j + 1
	}
	return 0
}

// arrayValues reads the values of an array file after its size line,
// calling put with each one and its 0-based position (the stored
// positions, in file order), then checks that nothing but comments
// follows.
func arrayValues(ls *lines, name string, rows, cols int, sym string, put func(i, j int, v float64) error) error {
	total := 0
	for j := 0; j < cols; j++ {
		total += max(0, rows-arrayStart(sym, j))
	}
	i, j := 0, 0
	for read := 0; read < total; {
		line, ok := ls.next()
		if !ok {
			if err := ls.err(); err != nil {
				return err
			}
			return formatErr(name, ls.n+1, "file ends after %d of %d values", read, total)
		}
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "%") {
			continue
		}
		f := strings.Fields(t)
		if len(f) != 1 {
			return formatErr(name, ls.n, "array entry has %d fields, want 1", len(f))
		}
		v, err := parseFloat(f[0])
		if err != nil {
			return formatErr(name, ls.n, "value %q: %v", trunc(f[0]), err)
		}
		for i = max(i, arrayStart(sym, j)); i >= rows; i = arrayStart(sym, j) {
			j++
		}
		if err := put(i, j, v); err != nil {
			return err
		}
		read++
		i++
	}
	return trailing(ls, name)
}

// trailing rejects data after the declared entries.
func trailing(ls *lines, name string) error {
	for {
		line, ok := ls.next()
		if !ok {
			return ls.err()
		}
		if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "%") {
			return formatErr(name, ls.n, "data after the declared number of entries")
		}
	}
}

// parseFloat parses a finite float64 written in decimal: an optional sign,
// digits with an optional decimal point (at least one digit), and an
// optional exponent (e or E, optional sign, digits). Nothing else is a
// number here: no digit separators (Go would read "309_1" as 3091), no hex
// floats, no "Inf" or "NaN" spellings. A value beyond float64's range is an
// error, not ±Inf.
func parseFloat(s string) (float64, error) {
	if !decimalSyntax(s) {
		return 0, fmt.Errorf("not a decimal number (want forms like 12, -0.5, 3e-4)")
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Errorf("out of float64's range")
	}
	return v, nil
}

// decimalSyntax reports whether s is [+-]? (d+ (. d*)? | . d+) ([eE][+-]?d+)?.
func decimalSyntax(s string) bool {
	i, n := 0, len(s)
	if i < n && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := func() int {
		j := i
		for i < n && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - j
	}
	mant := digits()
	if i < n && s[i] == '.' {
		i++
		mant += digits()
	}
	if mant == 0 {
		return false
	}
	if i < n && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < n && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == n
}

func trunc(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// WriteMatrixMarket writes m as "matrix coordinate real general" (sparse)
// or "matrix array real general" (dense), with values in full precision.
func WriteMatrixMarket(w io.Writer, m *Matrix) error {
	bw := bufio.NewWriter(w)
	if s := m.Sparse; s != nil {
		fmt.Fprintf(bw, "%%%%MatrixMarket matrix coordinate real general\n%d %d %d\n", s.Rows, s.Cols, s.NNZ())
		var line []byte
		for j := 0; j < s.Cols; j++ {
			rows, vals := s.Column(j)
			for p, i := range rows {
				line = strconv.AppendInt(line[:0], int64(i+1), 10)
				line = append(line, ' ')
				line = strconv.AppendInt(line, int64(j+1), 10)
				line = append(line, ' ')
				line = strconv.AppendFloat(line, vals[p], 'g', -1, 64)
				line = append(line, '\n')
				bw.Write(line)
			}
		}
	} else {
		d := m.Dense
		fmt.Fprintf(bw, "%%%%MatrixMarket matrix array real general\n%d %d\n", d.Rows, d.Cols)
		for j := 0; j < d.Cols; j++ {
			for i := 0; i < d.Rows; i++ {
				fmt.Fprintf(bw, "%s\n", strconv.FormatFloat(d.At(i, j), 'g', -1, 64))
			}
		}
	}
	return bw.Flush()
}
