package main

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
)

// fitProgress reports a fit on stderr: each phase (reading, vectorising,
// start, training) when it begins, then training epochs. A run stops by its
// tolerance long before the cap as a rule, so no ETA to the cap is shown as
// if it were the expected time: the line gives the epochs so far, the
// relative decrease the stopping rule watches against its tolerance, the
// time elapsed since the command started (reading and the start included),
// and an upper bound on what is left (the epochs to the cap at the mean
// epoch time so far, timed from the training phase, which every training
// path announces before its first epoch). On a terminal the training line is rewritten in
// place; otherwise a line is written at most every 2 s.
type fitProgress struct {
	w         io.Writer
	tty       bool
	begin     time.Time // the command's start
	epochs    int       // epochs reported so far, all restarts of this fit
	cap       int       // the most epochs the run can take, all restarts
	tol       float64   // the stopping rule, as configured
	window    int       // its window
	trainTime time.Time // when training began (the "training" phase)
	lastLine  time.Time
	open      bool // a tty line is waiting for its newline
	pending   bool // an epoch was reported but not yet written
	lastEpoch neuralnmf.Epoch
}

func newFitProgress(w io.Writer) *fitProgress {
	return &fitProgress{w: w, begin: time.Now(), tty: isTerminal(w)}
}

// phase announces a phase; what says what it does.
func (p *fitProgress) phase(what string) {
	if p == nil {
		return
	}
	p.endLine()
	fmt.Fprintf(p.w, "%s (%s elapsed)\n", what, roundDur(time.Since(p.begin)))
}

// note writes a line of its own (a fit's configuration).
func (p *fitProgress) note(line string) {
	if p == nil {
		return
	}
	p.endLine()
	fmt.Fprintln(p.w, line)
}

// run announces the next of several fits (fit -labels' choice trains an
// unsupervised fit, validation fits and a refit): what says which it is,
// and its epochs are counted from 1 again.
func (p *fitProgress) run(what string) {
	if p == nil {
		return
	}
	if p.pending && !p.tty {
		p.writeEpoch(p.lastEpoch, time.Now()) // the last fit's last epoch
	}
	p.endLine()
	fmt.Fprintf(p.w, "fit: %s (%s elapsed)\n", what, roundDur(time.Since(p.begin)))
	p.epochs, p.trainTime, p.pending = 0, time.Time{}, false
}

// configure tells the reporter the run's cap and stopping rule, from the
// configuration the library reported it runs (Stage.Run).
func (p *fitProgress) configure(r neuralnmf.Config) {
	if p != nil {
		p.cap, p.tol, p.window = epochCap(r), r.Tol, r.Window
	}
}

// epoch reports one training epoch.
func (p *fitProgress) epoch(e neuralnmf.Epoch) {
	if p == nil {
		return
	}
	now := time.Now()
	p.epochs++
	p.pending = true
	if !p.tty && now.Sub(p.lastLine) < 2*time.Second && p.epochs > 1 {
		p.lastEpoch = e
		return
	}
	p.writeEpoch(e, now)
}

// writeEpoch writes the training line for e.
func (p *fitProgress) writeEpoch(e neuralnmf.Epoch, now time.Time) {
	p.pending = false
	p.lastLine = now
	line := fmt.Sprintf("training: epoch %d (cap %d), relative error %.6f", p.epochs, p.cap, e.RelError)
	if p.tol > 0 && !math.IsNaN(e.Decrease) {
		line += fmt.Sprintf(", loss fell %.1e over %d epochs (stops at %.3g)", e.Decrease, p.window, p.tol)
	}
	line += fmt.Sprintf(", %s elapsed", roundDur(now.Sub(p.begin)))
	if left, ok := p.left(now); ok {
		line += fmt.Sprintf(", at most %s to go", roundDur(left))
	}
	if p.tty {
		fmt.Fprintf(p.w, "\r%s%s", line, strings.Repeat(" ", 4))
		p.open = true
		return
	}
	fmt.Fprintln(p.w, line)
}

// training marks the start of training (the first, with restarts).
func (p *fitProgress) training() {
	if p != nil && p.trainTime.IsZero() {
		p.trainTime = time.Now()
	}
}

// left bounds the time to the cap at now: the mean epoch time since the
// training phase times the epochs left. ok is false without that phase.
func (p *fitProgress) left(now time.Time) (time.Duration, bool) {
	rest := float64(max(0, p.cap-p.epochs))
	switch {
	case rest == 0:
		return 0, true
	case p.trainTime.IsZero():
		return 0, false
	}
	return time.Duration(float64(now.Sub(p.trainTime)) / float64(p.epochs) * rest), true
}

func (p *fitProgress) endLine() {
	if p.open {
		fmt.Fprintln(p.w)
		p.open = false
	}
}

// finish ends the report.
func (p *fitProgress) finish() {
	if p == nil {
		return
	}
	if p.pending && !p.tty {
		p.writeEpoch(p.lastEpoch, time.Now()) // the last epoch, if it was not shown
	}
	p.endLine()
	fmt.Fprintf(p.w, "done in %s\n", roundDur(time.Since(p.begin)))
}

// roundDur rounds d for display: to 0.1 s below a minute, to seconds above.
func roundDur(d time.Duration) time.Duration {
	if d < time.Minute {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Second)
}

// describeConfig says in flag terms what a fit ran: start, optimiser,
// loss, supervision, stopping rule, from the configuration the library
// reported (s.Run), so the line names the defaults Train applied, not
// zeros; cfg is the configuration as the flags gave it, to say which
// values Train sized to X.
func describeConfig(cfg neuralnmf.Config, s neuralnmf.Stage) string {
	r := s.Run
	var b strings.Builder
	fmt.Fprintf(&b, "configuration: -ranks %s, -init %s", joinInts(r.Ranks), r.Init)
	if cfg.Init == neuralnmf.DefaultInit && r.Init == neuralnmf.NNDSVDInit {
		if len(r.Ranks) == 1 {
			b.WriteString(" (HALS from NNDSVDa: the start of one layer of a sparse or large X)")
		} else {
			b.WriteString(" (HALS from NNDSVDa: the start for X of this size)")
		}
	}
	klStart := r.Loss == neuralnmf.KL && r.Init != neuralnmf.RandomInit && r.Init != neuralnmf.GivenInit
	if klStart {
		b.WriteString(" (KL-HNMF by multiplicative updates from NNDSVDa")
		if r.InitIters > 0 {
			fmt.Fprintf(&b, ", at most %d updates", r.InitIters)
		}
		b.WriteString(")")
	} else if r.Init == neuralnmf.HNMFInit {
		fmt.Fprintf(&b, " (%d random start(s) per layer", r.InitRestarts)
		if r.InitIters > 0 {
			fmt.Fprintf(&b, ", at most %d updates", r.InitIters)
		}
		b.WriteString(")")
	}
	if r.Algorithm1 {
		b.WriteString(", -algorithm1 (fixed-step projected gradient descent, no safeguard)")
	}
	fmt.Fprintf(&b, ", -optimizer %s -lr %g", r.Optimizer, r.LR)
	if r.Decay.Every > 0 {
		fmt.Fprintf(&b, " (× %g every %d epochs)", r.Decay.Factor, r.Decay.Every)
	}
	fmt.Fprintf(&b, ", -loss %s", r.Loss)
	if r.Normalize {
		b.WriteString(" -normalize")
	}
	if r.AlphaS > 0 || r.AlphaA > 0 {
		fmt.Fprintf(&b, ", -alpha-s %g -alpha-a %g -l1-ratio %g (elastic-net penalties, scikit-learn's alpha_W, alpha_H and l1_ratio)", r.AlphaS, r.AlphaA, r.L1Ratio)
	}
	if s := r.Supervision; s != nil {
		fmt.Fprintf(&b, ", -classifier %s", s.Classifier)
		if s.Lambda == 0 {
			fmt.Fprintf(&b, " -balance %g (λ set so that the label term starts at %g × the reconstruction term)", s.Balance, s.Balance)
		} else {
			fmt.Fprintf(&b, " -lambda %g", s.Lambda)
		}
	}
	if r.Restarts > 1 {
		fmt.Fprintf(&b, ", -restarts %d (%d epochs each)", r.Restarts, r.BurnIn)
	}
	epochs := "epochs"
	if r.BatchSize > 0 {
		epochs = "passes"
		fmt.Fprintf(&b, ", -batch-size %d -batch-update %s", r.BatchSize, r.BatchUpdate)
		if r.BatchUpdate == neuralnmf.Statistics {
			fmt.Fprintf(&b, " -forget %g", r.Forget)
		}
	}
	sized := ""
	if cfg.Tol == 0 && r.BatchSize == 0 && r.Tol != neuralnmf.DefaultTol {
		sized = " (sized to X)"
	}
	switch {
	case s.StartOnly:
		b.WriteString("; no training after the start: one layer from a converged HALS start is already the fit (give -epochs to train)")
	case r.Tol > 0:
		fmt.Fprintf(&b, "; stops when the loss falls by less than -tol %.3g%s (relative) over -window %d %s, or at -epochs %d", r.Tol, sized, r.Window, epochs, r.Epochs)
	default:
		fmt.Fprintf(&b, "; runs -epochs %d (no tolerance)", r.Epochs)
	}
	fmt.Fprintf(&b, ", -seed %d", r.Seed)
	return b.String()
}

// epochCap is the most epochs a run of the resolved r can report to
// Progress: every restart's burn-in, then the rest of the chosen one's.
func epochCap(r neuralnmf.Config) int {
	if r.Restarts <= 1 {
		return r.Epochs
	}
	return r.Epochs + (r.Restarts-1)*min(r.BurnIn, r.Epochs)
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, k := range v {
		s[i] = fmt.Sprint(k)
	}
	return strings.Join(s, ",")
}

// startPhase names the start of restart n (from 1) of the resolved c.
func startPhase(c neuralnmf.Config, n int) string {
	var what string
	switch {
	case c.Loss == neuralnmf.KL && c.Init != neuralnmf.RandomInit && c.Init != neuralnmf.GivenInit:
		what = "KL-HNMF of X by multiplicative updates from NNDSVDa"
	case c.Init == neuralnmf.HNMFInit:
		what = fmt.Sprintf("HNMF of X by multiplicative updates, %d random start(s) per layer", c.InitRestarts)
	case c.Init == neuralnmf.NNDSVDInit:
		what = "HNMF of X by HALS from NNDSVDa starts"
	case c.Init == neuralnmf.HNMFBestInit:
		what = fmt.Sprintf("HNMF of X by multiplicative updates and by HALS, %d random start(s) per layer, the better kept", c.InitRestarts)
	case c.Init == neuralnmf.RandomInit:
		what = "random A's"
	default:
		what = "the given A's"
	}
	if c.Restarts > 1 {
		return fmt.Sprintf("start %d of %d: %s", n, c.Restarts, what)
	}
	return "start: " + what
}
