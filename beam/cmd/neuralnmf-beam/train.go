package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/neuralnmf/neuralnmf/beam/internal/files"
	"github.com/neuralnmf/neuralnmf/beam/train"
	"github.com/neuralnmf/neuralnmf/beam/vectorize"
	"github.com/neuralnmf/neuralnmf/internal/cpuprofile"
	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/text"
)

func runTrain(ctx context.Context) error {
	if *shards == "" || *work == "" || *modelOut == "" || *ranks == "" {
		return usageError{errors.New("-shards, -ranks, -work and -o are required")}
	}
	rs, err := parseRanks(*ranks)
	if err != nil {
		return usageError{err}
	}
	if *steps < 0 || *epochs < 0 || *workers < 0 {
		return usageError{errors.New("-steps, -epochs and -workers must not be negative")}
	}
	paths, err := expand(ctx, *shards)
	if err != nil {
		return err
	}
	if err := checkModelOut(ctx, *modelOut, *work); err != nil {
		return err
	}
	if *cpuProf != "" {
		if err := cpuprofile.Check("-cpuprofile", *cpuProf); err != nil {
			return usageError{err}
		}
	}
	set, err := checkShards(ctx, paths, max(*steps, 0))
	if err != nil {
		return err
	}
	if err := (neuralnmf.Config{Ranks: rs}).Validate(set.rows, set.docs); err != nil {
		msg := err.Error()
		var ce *neuralnmf.ConfigError
		if errors.As(err, &ce) {
			msg = ce.Msg
		}
		return usageError{fmt.Errorf("-ranks %s: the shards have %d rows (features) and %d documents: %s", *ranks, set.rows, set.docs, msg)}
	}
	vec, err := readVectorizer(ctx, *vecIn, paths, set)
	if err != nil {
		return err
	}
	unlock, err := train.LockWork(ctx, *work)
	if err != nil {
		return err
	}
	defer unlock()
	if err := cancelStopped(ctx, "train", *work); err != nil {
		return err
	}
	var eng train.Engine = train.Local{}
	if !*local {
		if err := stageSelf(); err != nil {
			return err
		}
		pipelines := run
		if strings.Contains(*work, "://") {
			done, err := ownTempDir()
			if err != nil {
				return err
			}
			defer done()
		} else { // Beam's temporary files in the work directory's tmp/ (runIn)
			pipelines = runIn(train.TempDir(*work))
		}
		eng = train.Beam{Run: pipelines}
	}
	opt := train.Options{Shards: paths, Work: *work, Steps: *steps, Workers: *workers,
		Config: neuralnmf.Config{Ranks: rs, Epochs: *epochs, Seed: *seed}}
	opt.Progress = func(p train.Progress) {
		steps := fmt.Sprintf("steps %d–%d", p.First, p.Step)
		if p.First > 1 {
			steps += " (resumed)"
		}
		how := "in this process"
		if !*local {
			how = fmt.Sprintf("in %d pipeline job", p.Jobs)
			if p.Jobs != 1 {
				how += "s"
			}
		}
		fmt.Printf("pass %d: %s %s; the pass's steps took %.1f s; the pass's relative error %.6f\n", p.Pass, steps, how, p.Elapsed.Seconds(), p.RelError)
	}
	var prof *cpuprofile.Profile
	if *cpuProf != "" {
		if prof, err = cpuprofile.Start("-cpuprofile", *cpuProf); err != nil {
			return usageError{err}
		}
	}
	t0 := time.Now()
	m, err := train.Train(ctx, opt, eng)
	if prof != nil {
		if perr := prof.Stop(); perr != nil && err == nil {
			err = perr
		}
	}
	if err != nil {
		return err
	}
	m.Vectorizer = vec
	var b bytes.Buffer
	if err := m.Write(&b); err != nil {
		return err
	}
	if err := files.WriteWhole(ctx, *modelOut, b.Bytes()); err != nil {
		return fmt.Errorf("-o: %w", err)
	}
	if files.Local(*work) {
		// Also a -local run resuming one that ran pipelines: their
		// temporary files are the run's too.
		_ = os.RemoveAll(strings.TrimPrefix(train.TempDir(*work), "file://"))
	}
	if !*keepWork {
		if err := train.Clean(ctx, *work); err != nil {
			return err
		}
		if !strings.Contains(*work, "://") {
			_ = os.Remove(*work) // only if empty: the run may have been given an existing directory
		}
	}
	h := m.History
	fmt.Printf("trained %d shards in %d passes (%s) in %.1f s; relative error %.6f; wrote %s\n",
		len(paths), len(h.Loss), h.Stopped, time.Since(t0).Seconds(), h.FinalRelError, *modelOut)
	return nil
}

// checkModelOut checks train's -o before any work: it must not exist, nor
// lie inside the work directory (which the end empties), and a local one's
// directory must exist and take a new file.
func checkModelOut(ctx context.Context, p, work string) error {
	if ok, err := files.Exists(ctx, p); err != nil {
		return fmt.Errorf("-o: %w", err)
	} else if ok {
		return usageError{fmt.Errorf("-o: %s exists; give a new file", p)}
	}
	if !files.Local(p) {
		return nil
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return usageError{fmt.Errorf("-o %s: %w", p, err)}
	}
	if files.Local(work) {
		w, err := filepath.Abs(work)
		if err == nil && (abs == w || strings.HasPrefix(abs, w+string(filepath.Separator))) {
			return usageError{fmt.Errorf("-o %s is inside the work directory %s, which training empties: write the model elsewhere", p, work)}
		}
	}
	dir := filepath.Dir(abs)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return usageError{fmt.Errorf("-o %s: directory %s does not exist", p, filepath.Dir(p))}
	}
	probe, err := os.CreateTemp(dir, ".neuralnmf-beam-probe-*")
	if err != nil {
		return usageError{fmt.Errorf("-o %s: cannot write to %s: %v", p, filepath.Dir(p), err)}
	}
	probe.Close()
	os.Remove(probe.Name())
	return nil
}

// shardSet is what the shards' headers say: their rows (features), their
// documents in all, and each one's vectoriser fingerprint ("" for a shard
// made otherwise than by neuralnmf-beam vectorize).
type shardSet struct {
	rows, docs int
	fps        []string
}

// checkShards reads the shards' headers, once each, before any work: they
// must declare the same rows (features), documents, and at least one
// document a step (steps 0: the default), not all be empty of entries, and
// come from one vectoriser (their fingerprints, where they carry one).
func checkShards(ctx context.Context, paths []string, steps int) (shardSet, error) {
	if steps == 0 {
		steps = train.DefaultSteps
	}
	set := shardSet{rows: -1, fps: make([]string, len(paths))}
	entries := 0
	for i, p := range paths {
		if !strings.HasSuffix(p, ".mtx") && !strings.HasSuffix(p, ".mtx.gz") {
			return set, fmt.Errorf("-shards: %s: want .mtx or .mtx.gz files", p)
		}
		h, err := files.MatrixHeader(ctx, p)
		if err != nil {
			return set, fmt.Errorf("-shards: %w", err)
		}
		if set.rows < 0 {
			set.rows = h.Rows
		} else if h.Rows != set.rows {
			return set, fmt.Errorf("-shards: %s has %d rows (features), %s has %d: shards must share their features", p, h.Rows, paths[0], set.rows)
		}
		if h.Cols == 0 {
			return set, fmt.Errorf("-shards: %s holds no documents (0 columns): leave it out", p)
		}
		if h.Cols < steps {
			return set, usageError{fmt.Errorf("-steps %d: shard %s has %d documents, and every step takes a slice of every shard: give -steps %d or fewer, or larger shards", steps, p, h.Cols, h.Cols)}
		}
		set.fps[i] = h.Comment(vectorize.FingerprintKey)
		if set.fps[i] != "" && set.fps[0] != "" && set.fps[i] != set.fps[0] {
			return set, fmt.Errorf("-shards: %s and %s were made by different vectorisers (runs of neuralnmf-beam vectorize): their rows are not the same words; give the shards of one run", paths[0], p)
		}
		set.docs += h.Cols
		entries += h.Entries
	}
	if entries == 0 {
		return set, fmt.Errorf("-shards: the %d shard(s) hold no entry: every document is empty, and there is nothing to factorise", len(paths))
	}
	return set, nil
}

// readVectorizer reads the -vectorizer file p (none if empty), checks that
// its vocabulary has a word for each row of the shards and that it is the
// vectoriser that made them (set's fingerprints; a shard without one has
// only its word count checked), and returns the vectoriser's JSON to keep
// in the model.
func readVectorizer(ctx context.Context, p string, shards []string, set shardSet) (json.RawMessage, error) {
	if p == "" {
		return nil, nil
	}
	raw, err := files.Read(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("-vectorizer: %w", err)
	}
	var v text.Vectorizer
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("-vectorizer %s: not a vectoriser (vectorizer.json of neuralnmf-beam vectorize, or neuralnmf vectorize -save): %w", p, err)
	}
	if len(v.Vocab) != set.rows {
		return nil, fmt.Errorf("-vectorizer %s has %d words, the shards %d rows: give the vectoriser the shards were made with", p, len(v.Vocab), set.rows)
	}
	fp, err := vectorize.Fingerprint(&v)
	if err != nil {
		return nil, fmt.Errorf("-vectorizer %s: %w", p, err)
	}
	for i, s := range shards {
		if set.fps[i] != "" && set.fps[i] != fp {
			return nil, fmt.Errorf("-vectorizer %s did not make the shards (%s carries the fingerprint %s, the vectoriser's is %s): the topics would be named with another corpus's words; give the vectorizer.json written beside the shards", p, s, set.fps[i], fp)
		}
	}
	return json.Marshal(&v)
}

func parseRanks(s string) ([]int, error) {
	var rs []int
	for _, f := range strings.Split(s, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || k < 1 {
			return nil, fmt.Errorf("-ranks %q: want positive integers separated by commas, such as 20,5", s)
		}
		rs = append(rs, k)
	}
	return rs, nil
}
