package train

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/neuralnmf/neuralnmf/beam/internal/files"
)

// shardInfo is what preparing a shard finds: its size, and what
// identifies the content its slices were cut from (the file's size in
// bytes and modification time, read before it was opened, and the SHA-256
// of the bytes read), so that a resumed run can tell a shard that kept its
// name but changed.
type shardInfo struct {
	Rows, Cols, NNZ int
	Bytes           int64
	ModTime         int64 // Unix nanoseconds; 0 where the filesystem does not tell
	SHA256          string
}

// fileStamp returns p's size and modification time (Unix nanoseconds, 0
// where the filesystem does not tell).
func fileStamp(ctx context.Context, p string) (size, mod int64, err error) {
	fsys, err := filesystem.New(ctx, p)
	if err != nil {
		return 0, 0, err
	}
	defer fsys.Close()
	if size, err = fsys.Size(ctx, p); err != nil {
		return 0, 0, err
	}
	if lm, ok := fsys.(filesystem.LastModifiedGetter); ok {
		t, err := lm.LastModified(ctx, p)
		if err != nil {
			return 0, 0, err
		}
		mod = t.UnixNano()
	}
	return size, mod, nil
}

// spec is what a work directory's marker records of the Options, to
// resume only the same run.
type spec struct {
	Version      int
	Shards       []string
	Steps        int
	Ranks        []int
	Seed         uint64
	Epochs       int
	Tol          float64
	Window       int
	LR           float64
	DecayEvery   int
	DecayFactor  float64
	Forget       float64
	Init         int
	InitRestarts int
	InitIters    int
}

func specOf(opt Options) spec {
	c := opt.Config
	return spec{Version: 2, Shards: opt.Shards, Steps: opt.Steps, Ranks: c.Ranks, Seed: c.Seed, Epochs: c.Epochs, Tol: c.Tol,
		Window: c.Window, LR: c.LR, DecayEvery: c.Decay.Every, DecayFactor: c.Decay.Factor, Forget: c.Forget,
		Init: int(c.Init), InitRestarts: c.InitRestarts, InitIters: c.InitIters}
}

// ErrWorkInUse is returned (wrapped) when the work directory holds files
// that are not an earlier run of the same Options.
var ErrWorkInUse = errors.New("the work directory is in use")

// openWork makes the work directory the run's: a new one gets the marker;
// one with the marker of the same spec is resumed (true).
func openWork(ctx context.Context, opt Options) (resumed bool, err error) {
	want, _ := json.Marshal(specOf(opt))
	marker := files.Join(opt.Work, markerName)
	if ok, err := files.Exists(ctx, marker); err != nil {
		return false, fmt.Errorf("train: Work: %w", err)
	} else if ok {
		got, err := files.Read(ctx, marker)
		if err != nil {
			return false, fmt.Errorf("train: Work: %w", err)
		}
		var a, b spec
		if json.Unmarshal(got, &a) != nil || json.Unmarshal(want, &b) != nil || !reflect.DeepEqual(a, b) {
			return false, fmt.Errorf("train: %w: %s holds a run of other options (shards, steps or configuration); use a new directory, or the same options to resume it", ErrWorkInUse, opt.Work)
		}
		return true, nil
	}
	all, err := files.List(ctx, files.Join(opt.Work, "*"))
	if err != nil {
		return false, fmt.Errorf("train: Work: %w", err)
	}
	var existing []string
	for _, e := range all {
		if path.Base(e) != lockName && path.Base(e) != tempName { // LockWork's, TempDir
			existing = append(existing, e)
		}
	}
	if len(existing) > 0 {
		return false, fmt.Errorf("train: %w: %s holds %d files that are not a training run's (%s, …); give an empty or new directory", ErrWorkInUse, opt.Work, len(existing), existing[0])
	}
	if err := files.WriteWhole(ctx, marker, want); err != nil {
		return false, fmt.Errorf("train: Work: %w", err)
	}
	return false, nil
}

// prepare splits the shards into slices, unless an earlier run did, and
// returns the shards' sizes.
func prepare(ctx context.Context, opt Options, eng Engine) ([]shardInfo, error) {
	p := files.Join(opt.Work, preparedName)
	if ok, err := files.Exists(ctx, p); err != nil {
		return nil, err
	} else if !ok {
		tasks := make([]PrepareTask, len(opt.Shards))
		for i, s := range opt.Shards {
			tasks[i] = PrepareTask{Index: i, Shard: s, Work: opt.Work, Steps: opt.Steps}
		}
		if err := eng.Prepare(ctx, tasks); err != nil {
			return nil, fmt.Errorf("train: preparing the shards: %w", err)
		}
		var info []shardInfo
		for i, s := range opt.Shards {
			b, err := files.Read(ctx, files.Join(opt.Work, infoName(i)))
			if err != nil {
				return nil, fmt.Errorf("train: %w", err)
			}
			var si shardInfo
			if err := json.Unmarshal(b, &si); err != nil {
				return nil, fmt.Errorf("train: %s: %w", infoName(i), err)
			}
			if i > 0 && si.Rows != info[0].Rows {
				return nil, fmt.Errorf("train: shard %s has %d rows, %s has %d: shards must share their features", s, si.Rows, opt.Shards[0], info[0].Rows)
			}
			info = append(info, si)
		}
		b, _ := json.Marshal(info)
		if err := files.WriteWhole(ctx, p, b); err != nil {
			return nil, fmt.Errorf("train: %w", err)
		}
	}
	b, err := files.Read(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	var info []shardInfo
	if err := json.Unmarshal(b, &info); err != nil || len(info) != len(opt.Shards) {
		return nil, fmt.Errorf("train: %s: %w", p, errFormat)
	}
	for i, s := range opt.Shards {
		size, mod, err := fileStamp(ctx, s)
		if err != nil {
			return nil, fmt.Errorf("train: shard %s: %w", s, err)
		}
		was := info[i]
		if size != was.Bytes || mod != was.ModTime {
			return nil, fmt.Errorf("train: %w: shard %s changed since %s cut it into slices (%d bytes modified %s, now %d bytes modified %s): the slices and the checkpoint there are of its old content; give a new work directory (or remove this one) to train on the shards as they are now",
				ErrShardChanged, s, opt.Work, was.Bytes, time.Unix(0, was.ModTime).UTC().Format(time.RFC3339Nano), size, time.Unix(0, mod).UTC().Format(time.RFC3339Nano))
		}
		// The same size and time can hold other bytes (cp -p, rsync -a,
		// tar x of another version): compare the content too, one read.
		sum, err := fileHash(ctx, s)
		if err != nil {
			return nil, fmt.Errorf("train: shard %s: %w", s, err)
		}
		if sum != was.SHA256 {
			return nil, fmt.Errorf("train: %w: shard %s holds other bytes than when %s cut it into slices, with the same size and modification time (copied with its times kept?): the slices and the checkpoint there are of its old content; give a new work directory (or remove this one) to train on the shards as they are now",
				ErrShardChanged, s, opt.Work)
		}
	}
	return info, nil
}

// fileHash returns the SHA-256 of p's bytes, in hexadecimal.
func fileHash(ctx context.Context, p string) (string, error) {
	r, err := files.Open(ctx, p)
	if err != nil {
		return "", err
	}
	defer r.Close()
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// ErrShardChanged is returned (wrapped) when a resumed run finds a shard
// whose size or modification time differs from when its slices were cut.
var ErrShardChanged = errors.New("a shard changed")

// removeGlob removes the files glob matches (files.RemoveGlob), its
// error said as the package's.
func removeGlob(ctx context.Context, glob string) error {
	if err := files.RemoveGlob(ctx, glob); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	return nil
}

// Clean removes the files a run wrote into work (its marker, slices,
// sizes, step files, checkpoint, and partial writes of any), nothing else.
func Clean(ctx context.Context, work string) error {
	for _, g := range []string{"slice-*", "info-*", "step-*", checkpointPrefix + "*", preparedName + "*", markerName + "*", lockName} {
		if err := removeGlob(ctx, files.Join(work, g)); err != nil {
			return err
		}
	}
	return nil
}

// LockWork locks the local work directory work against a second driver
// until unlock is called, creating the directory if it is missing. It
// refuses (ErrWorkInUse) a directory that holds files but no run of Train,
// without writing into it, and a directory another process has locked. The
// lock is an advisory lock (flock) on the file "lock" in it, which the
// system releases when the process ends, even by SIGKILL, so a killed
// run's directory can be resumed at once. Train does not lock: a program
// that may start two drivers on one directory calls LockWork before Train
// and unlock after Clean. Directories in cloud storage cannot be locked
// this way: LockWork returns a no-op unlock for them.
func LockWork(ctx context.Context, work string) (unlock func(), err error) {
	if !files.Local(work) {
		return func() {}, nil
	}
	dir := strings.TrimPrefix(work, "file://")
	if _, err := os.Stat(filepath.Join(dir, markerName)); err != nil {
		entries, err := os.ReadDir(dir)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("train: Work: %w", err)
		}
		for _, e := range entries {
			if e.Name() != lockName && e.Name() != tempName {
				return nil, fmt.Errorf("train: %w: %s holds %d files that are not a training run's (%s, …); give an empty or new directory", ErrWorkInUse, work, len(entries), e.Name())
			}
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("train: Work: %w", err)
		}
	}
	f, err := os.OpenFile(filepath.Join(dir, lockName), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("train: Work: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("train: %w: another process is training in %s (it holds %s); wait for it, or stop it and run this command again to resume", ErrWorkInUse, work, filepath.Join(dir, lockName))
		}
		return nil, fmt.Errorf("train: Work: locking: %w", err)
	}
	return func() { f.Close() }, nil
}
