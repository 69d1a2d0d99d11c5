package main

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
)

// runnerLog is the log of in-process Prism: warnings only, as they come
// (its job-by-job progress is noise on a command's terminal), and its
// errors held until the pipeline ends, then printed (flush) if the
// pipeline failed, or dropped (drop) if it failed because an element's
// input could not be used, which the command reports in one line.
type runnerLog struct {
	mu   sync.Mutex
	held bytes.Buffer
	now  slog.Handler // warnings, to stderr
	late slog.Handler // errors, into held
	// quiet drops every record from now on: once the command is
	// interrupted, what the cancelled runner says of its cancelled bundles
	// is noise after the command's own one-line report.
	quiet atomic.Bool
}

func newRunnerLog() *runnerLog {
	l := &runnerLog{now: slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})}
	l.late = slog.NewTextHandler(lockedWriter{l}, &slog.HandlerOptions{Level: slog.LevelError})
	return l
}

// lockedWriter appends to the held errors.
type lockedWriter struct{ l *runnerLog }

func (w lockedWriter) Write(p []byte) (int, error) {
	w.l.mu.Lock()
	defer w.l.mu.Unlock()
	if w.l.held.Len() > 1<<20 {
		return len(p), nil // enough to see what failed
	}
	return w.l.held.Write(p)
}

// flush prints the held errors; drop forgets them.
func (l *runnerLog) flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	os.Stderr.Write(l.held.Bytes())
	l.held.Reset()
}

func (l *runnerLog) drop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.held.Reset()
}

// silence drops every later record (see quiet).
func (l *runnerLog) silence() { l.quiet.Store(true) }

// logHandler routes records to a runnerLog.
type logHandler struct {
	l         *runnerLog
	now, late slog.Handler
}

func (h logHandler) Enabled(ctx context.Context, lv slog.Level) bool { return h.now.Enabled(ctx, lv) }

func (h logHandler) Handle(ctx context.Context, r slog.Record) error {
	if h.l.quiet.Load() {
		return nil
	}
	if r.Level >= slog.LevelError {
		return h.late.Handle(ctx, r)
	}
	return h.now.Handle(ctx, r)
}

func (h logHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return logHandler{h.l, h.now.WithAttrs(as), h.late.WithAttrs(as)}
}

func (h logHandler) WithGroup(name string) slog.Handler {
	return logHandler{h.l, h.now.WithGroup(name), h.late.WithGroup(name)}
}

// runnerLogs is the command's runnerLog (nil when --log_level was given:
// Beam's own log then).
var runnerLogs *runnerLog
