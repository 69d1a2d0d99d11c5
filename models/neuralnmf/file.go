package neuralnmf

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"unicode"

	"github.com/neuralnmf/neuralnmf/matio"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// Model files
//
// A model file is, in order:
//
//	magic    8 bytes  "NNMFMODL"
//	version  uint32   little-endian, FileVersion
//	hdrLen   uint32   length of the JSON header
//	header   JSON     fileHeader (docs/model-file.md)
//	matrices          for each matrix listed in the header, in order:
//	                  rows uint32, cols uint32, rows·cols float64 (row-major,
//	                  little-endian IEEE 754)
//	crc      uint32   CRC-32 (IEEE) of every byte before it
//
// Readers reject a wrong magic, a version newer than FileVersion, a header or
// matrix larger than the bytes that remain, a shape that disagrees with the
// header, non-finite values, trailing bytes and a checksum mismatch; so a
// truncated or corrupted file is always an error, never a panic or a silently
// wrong model.

// FileVersion is the model file version this package writes and the newest
// it reads.
const FileVersion = 1

var fileMagic = [8]byte{'N', 'N', 'M', 'F', 'M', 'O', 'D', 'L'}

// ErrModelFile is wrapped by every error about the content of a model file.
var ErrModelFile = errors.New("invalid model file")

// fileHeader is the JSON header of a model file (docs/model-file.md).
type fileHeader struct {
	Ranks   []int  `json:"ranks"`
	Loss    string `json:"loss"`
	Classes int    `json:"classes,omitempty"`
	// Matrices names the stored matrices in order: "A0", "A1", …, "S0", …
	// (absent for a model trained on Columns, which has no S), and
	// "B" when the model has a classifier, then "BX" and "Intercept" when
	// it has them.
	Matrices []string `json:"matrices"`
	Epochs   int      `json:"epochs"`
	// FinalLoss is the last epoch's loss; FinalRelError is
	// History.FinalRelError (the last epoch's relative error in files
	// written before that existed).
	FinalLoss     float64 `json:"final_loss"`
	FinalRelError float64 `json:"final_rel_error"`
	// LossHistory and RelErrorHistory are History.Loss and
	// History.RelError (every epoch); TrainAccuracy is History.Accuracy
	// when the model is supervised. Files written before they existed
	// lack them; Load then gives an empty History.
	LossHistory     []float64 `json:"loss_history,omitempty"`
	RelErrorHistory []float64 `json:"rel_error_history,omitempty"`
	TrainAccuracy   []float64 `json:"train_accuracy,omitempty"`
	// Vectorizer is Model.Vectorizer, when set. Readers of version 1 that
	// predate it ignore it.
	Vectorizer json.RawMessage `json:"vectorizer,omitempty"`
	// ClassNames is Model.ClassNames, when set.
	ClassNames []string `json:"class_names,omitempty"`
	// ClassifierLayer is Model.ClassifierLayer when B reads a layer other
	// than the last (absent: the last).
	ClassifierLayer int `json:"classifier_layer,omitempty"`
	// AlphaS and L1Ratio are Model.AlphaS and Model.L1Ratio, when AlphaS
	// is set (absent: unpenalised layers).
	AlphaS  float64 `json:"alpha_s,omitempty"`
	L1Ratio float64 `json:"l1_ratio,omitempty"`
}

// Save writes the model to path atomically (temporary file, then rename).
func (m *Model) Save(path string) error {
	return matio.WriteAtomic(path, func(f *os.File) error { return m.Write(f) })
}

// validate checks that m is a usable model: at least one layer, an S for
// every A or none (a model trained on Columns), shapes that chain (A⁽ˡ⁾ k⁽ˡ⁻¹⁾×k⁽ˡ⁾ and S⁽ˡ⁾ k⁽ˡ⁾×M), finite and
// nonnegative A, finite S, and a B (if any) with k⁽ᴸ⁾ columns. A zero Model
// fails it, so its methods return errors instead of panicking.
func (m *Model) validate() error {
	L := len(m.A)
	if L == 0 {
		return fmt.Errorf("the model has no layers (a zero Model: train one with Train or read one with Load)")
	}
	if len(m.S) != L && len(m.S) != 0 {
		return fmt.Errorf("the model has %d A matrices and %d S matrices", L, len(m.S))
	}
	for l := 0; l < L; l++ {
		a := m.A[l]
		if a == nil || a.Len() == 0 {
			return fmt.Errorf("layer %d: A is missing or empty", l+1)
		}
		if l > 0 && a.Rows != m.A[l-1].Cols {
			return fmt.Errorf("layer %d: A is %d×%d after a layer of rank %d", l+1, a.Rows, a.Cols, m.A[l-1].Cols)
		}
		if err := tensor.CheckNonnegative(fmt.Sprintf("layer %d's A", l+1), a); err != nil {
			return err
		}
		if !slices.ContainsFunc(a.Data, func(v float64) bool { return v != 0 }) {
			return fmt.Errorf("layer %d: A is all zero, so every column maps to S = 0: the model is unusable", l+1)
		}
		if len(m.S) == 0 {
			continue
		}
		s := m.S[l]
		if s == nil || s.Len() == 0 {
			return fmt.Errorf("layer %d: S is missing or empty", l+1)
		}
		if s.Rows != a.Cols || s.Cols != m.S[0].Cols {
			return fmt.Errorf("layer %d: shapes A %d×%d and S %d×%d do not chain", l+1, a.Rows, a.Cols, s.Rows, s.Cols)
		}
		if err := tensor.CheckNonnegative(fmt.Sprintf("layer %d's S", l+1), s); err != nil {
			return err
		}
	}
	if !(m.AlphaS >= 0) || math.IsInf(m.AlphaS, 0) || !(m.L1Ratio >= 0 && m.L1Ratio <= 1) {
		return fmt.Errorf("the layers' penalty is AlphaS %v, L1Ratio %v: want a finite AlphaS ≥ 0 and L1Ratio in [0, 1]", m.AlphaS, m.L1Ratio)
	}
	if a := m.AlphaS * float64(m.A[0].Rows); a > MaxPenalty { // as training refuses it (Config.Validate)
		return fmt.Errorf("the layers' penalty AlphaS %g times the %d rows is %g, above %g, where the penalised problem overflows float64 (training refuses it)", m.AlphaS, m.A[0].Rows, a, MaxPenalty)
	}
	if m.ClassifierLayer < 0 || m.ClassifierLayer > L || (m.ClassifierLayer > 0 && m.B == nil) {
		return fmt.Errorf("the classifier's layer is %d, want 1..%d with a classifier B", m.ClassifierLayer, L)
	}
	if cl := m.ReadoutLayer(); m.B != nil && m.B.Cols != m.A[cl-1].Cols {
		return fmt.Errorf("the classifier B is %d×%d, want P×%d (the rank of layer %d, which it reads)", m.B.Rows, m.B.Cols, m.A[cl-1].Cols, cl)
	}
	if (m.BX != nil || m.Intercept != nil) && m.B == nil {
		return fmt.Errorf("the classifier has a BX or an Intercept and no B")
	}
	if m.BX != nil && (m.BX.Rows != m.B.Rows || m.BX.Cols != m.A[0].Rows) {
		return fmt.Errorf("the classifier's BX is %d×%d, want %d×%d (classes × rows of X)", m.BX.Rows, m.BX.Cols, m.B.Rows, m.A[0].Rows)
	}
	if m.Intercept != nil && (m.Intercept.Rows != m.B.Rows || m.Intercept.Cols != 1) {
		return fmt.Errorf("the classifier's Intercept is %d×%d, want %d×1", m.Intercept.Rows, m.Intercept.Cols, m.B.Rows)
	}
	if err := m.cfg.Loss.impl().checkModel(m); err != nil {
		return err
	}
	if m.ClassNames != nil && (m.B == nil || len(m.ClassNames) != m.B.Rows) {
		p := 0
		if m.B != nil {
			p = m.B.Rows
		}
		return fmt.Errorf("%d class names for the %d classes of the classifier B", len(m.ClassNames), p)
	}
	return CheckClassNames(m.ClassNames)
}

// CheckClassNames returns an error, naming the class (from 0) and the name,
// if a class name is empty or only spaces, holds a control character (a
// line break or a tab, which would break the printed tables and the CSV of
// predict), or is repeated; the model file refuses such names. A command
// that takes names from its input checks them with it before any work.
func CheckClassNames(names []string) error {
	seen := map[string]int{}
	for c, n := range names {
		if strings.TrimSpace(n) == "" || strings.ContainsFunc(n, unicode.IsControl) {
			return fmt.Errorf("class %d's name %q is empty or holds a control character (a line break, a tab)", c, n)
		}
		if prev, ok := seen[n]; ok {
			return fmt.Errorf("classes %d and %d are both named %q", prev, c, n)
		}
		seen[n] = c
	}
	return nil
}

// Write writes the model in the model file format. It returns an error,
// and writes nothing, for a model that Load would reject (for example a zero
// Model).
func (m *Model) Write(w io.Writer) error {
	if err := m.validate(); err != nil {
		return fmt.Errorf("neuralnmf: Write: %w", err)
	}
	h := fileHeader{Loss: m.cfg.Loss.String(), Epochs: len(m.History.Loss), Vectorizer: m.Vectorizer, ClassNames: m.ClassNames}
	if m.ClassifierLayer != len(m.A) {
		h.ClassifierLayer = m.ClassifierLayer
	}
	if m.AlphaS > 0 {
		h.AlphaS, h.L1Ratio = m.AlphaS, m.L1Ratio
	}
	if finiteAll(m.History.Loss) && finiteAll(m.History.RelError) && len(m.History.Loss) == len(m.History.RelError) {
		h.LossHistory, h.RelErrorHistory = m.History.Loss, m.History.RelError
		if len(m.History.Accuracy) == len(m.History.Loss) && finiteAll(m.History.Accuracy) {
			h.TrainAccuracy = m.History.Accuracy
		}
	}
	if m.Vectorizer != nil && !json.Valid(m.Vectorizer) {
		return errors.New("neuralnmf: Write: Vectorizer is not valid JSON")
	}
	for _, a := range m.A {
		h.Ranks = append(h.Ranks, a.Cols)
	}
	if n := len(m.History.Loss); n > 0 {
		h.FinalLoss, h.FinalRelError = m.History.Loss[n-1], m.History.RelError[n-1]
	}
	if m.History.FinalRelError > 0 {
		h.FinalRelError = m.History.FinalRelError
	}
	var mats []*tensor.Dense
	for l, a := range m.A {
		h.Matrices = append(h.Matrices, fmt.Sprintf("A%d", l))
		mats = append(mats, a)
	}
	for l, s := range m.S {
		h.Matrices = append(h.Matrices, fmt.Sprintf("S%d", l))
		mats = append(mats, s)
	}
	if m.B != nil {
		h.Matrices = append(h.Matrices, "B")
		h.Classes = m.B.Rows
		mats = append(mats, m.B)
		if m.BX != nil {
			h.Matrices = append(h.Matrices, "BX")
			mats = append(mats, m.BX)
		}
		if m.Intercept != nil {
			h.Matrices = append(h.Matrices, "Intercept")
			mats = append(mats, m.Intercept)
		}
	}
	hdr, err := json.Marshal(h)
	if err != nil {
		return err
	}
	// The file is streamed through a buffer of 64 KB, its checksum formed
	// on the way: a model of a million documents is hundreds of MB, which
	// building it whole in memory would hold twice over.
	bw := bufio.NewWriterSize(w, 1<<16)
	crc := crc32.NewIEEE()
	out := io.MultiWriter(bw, crc)
	le := binary.LittleEndian
	out.Write(fileMagic[:])
	out.Write(le.AppendUint32(nil, FileVersion))
	out.Write(le.AppendUint32(nil, uint32(len(hdr))))
	out.Write(hdr)
	for _, d := range mats {
		out.Write(le.AppendUint32(nil, uint32(d.Rows)))
		out.Write(le.AppendUint32(nil, uint32(d.Cols)))
		row := make([]byte, 8*d.Cols)
		for i := 0; i < d.Rows; i++ {
			for j, v := range d.Row(i) {
				le.PutUint64(row[8*j:], math.Float64bits(v))
			}
			out.Write(row)
		}
	}
	// A write error sticks in bw: Flush returns it.
	bw.Write(le.AppendUint32(nil, crc.Sum32()))
	return bw.Flush()
}

// Load reads a model file written by Save.
func Load(path string) (*Model, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m, err := Read(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// Read parses a model file; see the format above. The returned model can
// Transform, Predict and be saved again; it has no training history beyond
// the header's summary.
func Read(r io.Reader) (*Model, error) {
	raw, err := io.ReadAll(io.LimitReader(r, 1<<34))
	if err != nil {
		return nil, err
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrModelFile, fmt.Sprintf(format, args...))
	}
	le := binary.LittleEndian
	if len(raw) < 8+4+4+4 {
		return nil, bad("%d bytes is too short to be a model file (truncated?)", len(raw))
	}
	if !bytes.Equal(raw[:8], fileMagic[:]) {
		return nil, bad("not a neuralnmf model file (wrong magic bytes)")
	}
	if v := le.Uint32(raw[8:]); v > FileVersion {
		return nil, bad("version %d is newer than this program supports (%d); upgrade neuralnmf", v, FileVersion)
	} else if v == 0 {
		return nil, bad("version 0 is not a valid version")
	}
	body, sum := raw[:len(raw)-4], le.Uint32(raw[len(raw)-4:])
	hdrLen := int(le.Uint32(raw[12:16]))
	p := 16
	if hdrLen > len(body)-p {
		return nil, bad("header of %d bytes runs past the end of the file (truncated?)", hdrLen)
	}
	var h fileHeader
	if err := json.Unmarshal(body[p:p+hdrLen], &h); err != nil {
		return nil, bad("header: %v", err)
	}
	p += hdrLen
	if crc32.ChecksumIEEE(body) != sum {
		return nil, bad("checksum mismatch: the file is corrupted or truncated")
	}
	L := len(h.Ranks)
	withS := L > 0 && len(h.Matrices) >= 2*L && h.Matrices[L] == "S0"
	nS := 0
	if withS {
		nS = L
	}
	if L == 0 || len(h.Matrices) < L+nS || len(h.Matrices) > L+nS+3 {
		return nil, bad("header lists %d ranks and %d matrices", L, len(h.Matrices))
	}
	classifier := []string{"B", "BX", "Intercept"}
	for i, name := range h.Matrices {
		var want string
		switch {
		case i < L:
			want = fmt.Sprintf("A%d", i)
		case i < L+nS:
			want = fmt.Sprintf("S%d", i-L)
		case i == L+nS:
			want = "B"
		default:
			// After B, BX and Intercept in that order, each optional.
			if k := slices.Index(classifier, name); k > 0 && k > slices.Index(classifier, h.Matrices[i-1]) {
				want = name
			} else {
				want = "BX or Intercept"
			}
		}
		if name != want {
			return nil, bad("header lists matrix %d as %q, want %q (matrices: A0…A%d, S0…S%d for a model that keeps S, then B, BX and Intercept for a classifier)", i+1, name, want, L-1, L-1)
		}
	}
	mats := make([]*tensor.Dense, 0, len(h.Matrices))
	for _, name := range h.Matrices {
		if len(body)-p < 8 {
			return nil, bad("matrix %s: missing (truncated?)", name)
		}
		rows, cols := int(le.Uint32(body[p:])), int(le.Uint32(body[p+4:]))
		p += 8
		if cols != 0 && rows > (len(body)-p)/8/cols {
			return nil, bad("matrix %s: %d×%d runs past the end of the file", name, rows, cols)
		}
		d := tensor.New(rows, cols)
		for i := range d.Data {
			v := math.Float64frombits(le.Uint64(body[p:]))
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, bad("matrix %s: entry %d is %v", name, i, v)
			}
			d.Data[i] = v
			p += 8
		}
		mats = append(mats, d)
	}
	if p != len(body) {
		return nil, bad("%d unexpected bytes after the matrices", len(body)-p)
	}
	m := &Model{History: History{Stopped: "loaded"}, Vectorizer: h.Vectorizer, ClassNames: h.ClassNames, ClassifierLayer: h.ClassifierLayer, AlphaS: h.AlphaS, L1Ratio: h.L1Ratio}
	if n := len(h.LossHistory); n > 0 && n == len(h.RelErrorHistory) && finiteAll(h.LossHistory) && finiteAll(h.RelErrorHistory) {
		m.History.Loss, m.History.RelError = h.LossHistory, h.RelErrorHistory
		if len(h.TrainAccuracy) == n && finiteAll(h.TrainAccuracy) {
			m.History.Accuracy = h.TrainAccuracy
		}
	}
	loss, ok := lossNamed(h.Loss)
	if !ok {
		// A misspelt loss must not load as another: a KL model's layers
		// solve another problem than NNLS.
		return nil, bad("the loss is %q: want %q, %q or %q", h.Loss, Reconstruction.String(), Energy.String(), KL.String())
	}
	m.cfg.Loss = loss
	m.cfg.Ranks = h.Ranks
	m.A, mats = mats[:L], mats[L:]
	if withS {
		m.S, mats = mats[:L], mats[L:]
	}
	for i, mat := range mats {
		switch h.Matrices[len(h.Matrices)-len(mats)+i] {
		case "B":
			m.B = mat
		case "BX":
			m.BX = mat
		case "Intercept":
			m.Intercept = mat
		}
	}
	for l := 0; l < L; l++ {
		if m.A[l].Cols != h.Ranks[l] {
			return nil, bad("layer %d: A is %d×%d, the header's rank is %d", l+1, m.A[l].Rows, m.A[l].Cols, h.Ranks[l])
		}
	}
	if err := m.validate(); err != nil {
		return nil, bad("%v", err)
	}
	m.History.FinalRelError = h.FinalRelError
	if h.Epochs > 0 && m.History.Loss == nil {
		// A file without the per-epoch curve (an older one, or one whose
		// curve was not finite) still says where training ended.
		m.History.Loss, m.History.RelError = []float64{h.FinalLoss}, []float64{h.FinalRelError}
	}
	return m, nil
}

// finiteAll reports whether every value of v is finite.
func finiteAll(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}
