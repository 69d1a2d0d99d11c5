package neuralnmf

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"math"
	"math/rand/v2"

	"github.com/neuralnmf/neuralnmf/optim"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// shardedHeader is the JSON header of MarshalBinary's bytes; the
// matrices follow it: the A's, C and E of the running statistics, then
// Adam's two moments of every optimiser that has stepped.
type shardedHeader struct {
	Ranks             []int
	Seed              uint64
	LR                float64
	Decay             optim.StepDecay
	Init              Init
	InitRestarts      int
	InitIters         int
	Epochs, Window    int
	Tol, Forget       float64
	Rows, Cols, Steps int
	Step              int
	AdamLR            []float64
	AdamSteps         []int
	RNG               []byte
	LRScale, XNorm    float64
	PassLoss, PassSq  float64
	PassXSq, PassXMax float64
	MeasureX, Done    bool
	// The history (the accuracies are NaN: no labels).
	Loss, RelError                []float64
	Resets, Backtracks, Collinear int
	Stopped                       string
}

// MarshalBinary encodes the trainer's whole state, so that
// UnmarshalShardedTrainer gives a trainer whose next steps are this one's,
// bit for bit: a checkpoint. The layout is that of a model file (see
// Save): magic bytes, a JSON header, the matrices as little-endian
// float64s, a CRC-32.
func (s *ShardedTrainer) MarshalBinary() ([]byte, error) {
	t := s.t
	rng, err := s.pcg.MarshalBinary()
	if err != nil {
		return nil, err
	}
	h := shardedHeader{
		Ranks: t.cfg.Ranks, Seed: t.cfg.Seed, LR: t.cfg.LR, Decay: t.cfg.Decay,
		Init: t.cfg.Init, InitRestarts: t.cfg.InitRestarts, InitIters: t.cfg.InitIters,
		Epochs: t.cfg.Epochs, Window: t.cfg.Window, Tol: t.cfg.Tol, Forget: s.forget,
		Rows: s.rows, Cols: s.cols, Steps: s.steps, Step: s.step,
		RNG: rng, LRScale: t.lrScale, XNorm: t.xNorm,
		PassLoss: s.pass.loss, PassSq: s.pass.sq, PassXSq: s.pass.xsq, PassXMax: s.pass.xmax, MeasureX: s.pass.measureX, Done: t.done,
		Loss: t.hist.Loss, RelError: t.hist.RelError, Resets: t.hist.Resets, Backtracks: t.hist.Backtracks,
		Collinear: t.hist.Collinear, Stopped: t.hist.Stopped,
	}
	mats := append([]*tensor.Dense{}, t.a...)
	mats = append(mats, t.online.c, t.online.e)
	for _, o := range t.adams {
		st := o.State()
		h.AdamLR, h.AdamSteps = append(h.AdamLR, o.LR), append(h.AdamSteps, st.Step)
		mats = append(mats, st.M...)
		mats = append(mats, st.V...)
	}
	hdr, err := json.Marshal(h)
	if err != nil {
		return nil, fmt.Errorf("neuralnmf: ShardedTrainer.MarshalBinary: %w", err)
	}
	n := len(shardedMagic) + 4 + len(hdr) + 4
	for _, m := range mats {
		n += 8 + 8*m.Len()
	}
	le := binary.LittleEndian
	b := make([]byte, 0, n)
	b = append(b, shardedMagic[:]...)
	b = le.AppendUint32(b, uint32(len(hdr)))
	b = append(b, hdr...)
	for _, m := range mats {
		b = le.AppendUint32(b, uint32(m.Rows))
		b = le.AppendUint32(b, uint32(m.Cols))
		for i := 0; i < m.Rows; i++ {
			for _, v := range m.Row(i) {
				b = le.AppendUint64(b, math.Float64bits(v))
			}
		}
	}
	return le.AppendUint32(b, crc32.ChecksumIEEE(b)), nil
}

// UnmarshalShardedTrainer decodes MarshalBinary's bytes. cfg.Workers of
// the result is workers; nothing else of the configuration is taken from
// the caller. It returns an error wrapping ErrCheckpoint for bytes that do
// not decode to a consistent state (a wrong header, a checksum mismatch,
// shapes that do not agree).
func UnmarshalShardedTrainer(b []byte, workers int) (*ShardedTrainer, error) {
	bad := func(what string) error { return fmt.Errorf("neuralnmf: %w: %s", ErrCheckpoint, what) }
	le := binary.LittleEndian
	if len(b) < len(shardedMagic)+8 || !bytes.Equal(b[:len(shardedMagic)], shardedMagic[:]) {
		return nil, bad("the header is missing")
	}
	body := b[:len(b)-4]
	if crc32.ChecksumIEEE(body) != le.Uint32(b[len(b)-4:]) {
		return nil, bad("checksum mismatch: the checkpoint is corrupted or truncated")
	}
	p := len(shardedMagic)
	n := int(le.Uint32(body[p:]))
	p += 4
	if n > len(body)-p {
		return nil, bad("the header runs past the end")
	}
	var h shardedHeader
	if err := json.Unmarshal(body[p:p+n], &h); err != nil {
		return nil, bad(err.Error())
	}
	p += n
	var mats []*tensor.Dense
	for p < len(body) {
		if len(body)-p < 8 {
			return nil, bad("a matrix is cut short")
		}
		r, c := int(le.Uint32(body[p:])), int(le.Uint32(body[p+4:]))
		p += 8
		if c != 0 && r > (len(body)-p)/8/c {
			return nil, bad("a matrix runs past the end")
		}
		m := tensor.New(r, c)
		for i := range m.Data {
			m.Data[i] = math.Float64frombits(le.Uint64(body[p:]))
			p += 8
		}
		mats = append(mats, m)
	}
	L := len(h.Ranks)
	if L == 0 || len(h.AdamLR) != L || len(h.AdamSteps) != L {
		return nil, bad("the layers do not agree")
	}
	if h.Steps < 1 || h.Cols < h.Steps || h.Step < 0 || h.Rows < 1 || len(h.Loss) != len(h.RelError) {
		return nil, bad("the sizes are out of range")
	}
	want := L + 2
	for _, st := range h.AdamSteps {
		if st > 0 {
			want += 2
		}
	}
	if len(mats) != want {
		return nil, bad(fmt.Sprintf("%d matrices, want %d", len(mats), want))
	}
	a, rest := mats[:L], mats[L:]
	rows := h.Rows
	for l, al := range a {
		if al.Rows != rows || al.Cols != h.Ranks[l] {
			return nil, bad(fmt.Sprintf("A⁽%d⁾ has the wrong shape", l))
		}
		if err := tensor.CheckNonnegative(fmt.Sprintf("A⁽%d⁾", l), al); err != nil {
			return nil, fmt.Errorf("neuralnmf: %w: %v", ErrCheckpoint, err)
		}
		rows = al.Cols
	}
	k := h.Ranks[0]
	cm, em := rest[0], rest[1]
	rest = rest[2:]
	if cm.Rows != k || cm.Cols != k || em.Rows != h.Rows || em.Cols != k {
		return nil, bad("the running statistics have the wrong shape")
	}
	pcg := &rand.PCG{}
	if err := pcg.UnmarshalBinary(h.RNG); err != nil {
		return nil, fmt.Errorf("neuralnmf: %w: the random source: %v", ErrCheckpoint, err)
	}
	c := Config{Ranks: h.Ranks, Seed: h.Seed, LR: h.LR, Decay: h.Decay, Init: h.Init, InitRestarts: h.InitRestarts,
		InitIters: h.InitIters, Epochs: h.Epochs, Window: h.Window, Tol: h.Tol, Forget: h.Forget,
		BatchSize: (h.Cols + h.Steps - 1) / h.Steps, BatchUpdate: Statistics, Optimizer: Adam, Workers: workers}
	hist := History{Loss: h.Loss, RelError: h.RelError, Resets: h.Resets, Backtracks: h.Backtracks, Collinear: h.Collinear, Stopped: h.Stopped}
	for range h.Loss {
		hist.Accuracy = append(hist.Accuracy, math.NaN())
		hist.HeldOutAccuracy = append(hist.HeldOutAccuracy, math.NaN())
	}
	t := &trainer{cfg: c, seed: c.Seed, rng: rand.New(pcg), a: a, hist: hist, lrScale: h.LRScale, xNorm: h.XNorm, done: h.Done}
	t.online = &onlineStats{c: cm, e: em, cb: tensor.New(k, k), forget: h.Forget, cols: h.Cols}
	for l, lr := range h.AdamLR { // one per A, as init makes them; A⁽⁰⁾'s is not used
		o := &optim.Adam{LR: lr, Decay: c.Decay}
		st := optim.AdamState{Step: h.AdamSteps[l]}
		if st.Step > 0 {
			st.M, st.V = []*tensor.Dense{rest[0]}, []*tensor.Dense{rest[1]}
			rest = rest[2:]
		}
		if err := o.SetState(st); err != nil {
			return nil, fmt.Errorf("neuralnmf: %w: %v", ErrCheckpoint, err)
		}
		t.adams = append(t.adams, o)
		t.steps = append(t.steps, adamStep(o))
	}
	t.steps[0] = t.sweepStep
	return &ShardedTrainer{t: t, pcg: pcg, rows: h.Rows, cols: h.Cols, steps: h.Steps, step: h.Step, forget: h.Forget,
		pass: passSums{loss: h.PassLoss, sq: h.PassSq, xsq: h.PassXSq, xmax: h.PassXMax, measureX: h.MeasureX}}, nil
}
