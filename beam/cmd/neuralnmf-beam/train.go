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

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
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
	rows, cols, err := checkShards(ctx, paths, max(*steps, 0))
	if err != nil {
		return err
	}
	if err := (neuralnmf.Config{Ranks: rs}).Validate(rows, cols); err != nil {
		return usageError{fmt.Errorf("-ranks %s: the shards have %d rows (features) and %d documents: %s", *ranks, rows, cols, strings.TrimPrefix(err.Error(), "neuralnmf: "+neuralnmf.ErrConfig.Error()+": "))}
	}
	vec, err := readVectorizer(ctx, *vecIn, paths)
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
	// Beam's loopback environment leaves a file in the temporary directory
	// of every job: the runs of a local work directory keep them in its
	// tmp/, which a resumed run reuses and the end removes, even after a
	// killed run.
	tmp := ""
	if !*local {
		if err := stageSelf(); err != nil {
			return err
		}
		if strings.Contains(*work, "://") {
			done, err := ownTempDir()
			if err != nil {
				return err
			}
			defer done()
		} else {
			tmp = train.TempDir(*work)
		}
		eng = train.Beam{Run: func(ctx context.Context, p *beam.Pipeline) error {
			if tmp != "" && os.Getenv("TMPDIR") != tmp { // the work directory is the run's by now
				if err := os.MkdirAll(tmp, 0o755); err != nil {
					return err
				}
				if err := os.Setenv("TMPDIR", tmp); err != nil {
					return err
				}
			}
			return run(ctx, p)
		}}
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

// checkShards reads the shards' headers before any work: they must
// declare the same rows (features), documents, and at least one document
// a step (steps 0: the default), and not all be empty of entries. It
// returns the rows and the documents of all the shards.
func checkShards(ctx context.Context, paths []string, steps int) (rows0, docs int, err error) {
	if steps == 0 {
		steps = train.DefaultSteps
	}
	rows0 = -1
	entries := 0
	for _, p := range paths {
		if !strings.HasSuffix(p, ".mtx") && !strings.HasSuffix(p, ".mtx.gz") {
			return 0, 0, fmt.Errorf("-shards: %s: want .mtx or .mtx.gz files", p)
		}
		rows, cols, nnz, err := files.MatrixHeader(ctx, p)
		if err != nil {
			return 0, 0, fmt.Errorf("-shards: %w", err)
		}
		if rows0 < 0 {
			rows0 = rows
		} else if rows != rows0 {
			return 0, 0, fmt.Errorf("-shards: %s has %d rows (features), %s has %d: shards must share their features", p, rows, paths[0], rows0)
		}
		if cols == 0 {
			return 0, 0, fmt.Errorf("-shards: %s holds no documents (0 columns): leave it out", p)
		}
		if cols < steps {
			return 0, 0, usageError{fmt.Errorf("-steps %d: shard %s has %d documents, and every step takes a slice of every shard: give -steps %d or fewer, or larger shards", steps, p, cols, cols)}
		}
		docs += cols
		entries += nnz
	}
	if entries == 0 {
		return 0, 0, fmt.Errorf("-shards: the %d shard(s) hold no entry: every document is empty, and there is nothing to factorise", len(paths))
	}
	return rows0, docs, nil
}

// readVectorizer reads the -vectorizer file p (none if empty), checks that
// its vocabulary has a word for each row of the shards and that it is the
// vectoriser that made them (the fingerprint neuralnmf-beam vectorize
// writes into each shard's header; shards made otherwise carry none, and
// only the word count is checked), and returns the vectoriser's JSON to
// keep in the model. Without p, shards of different vectorisers are
// refused all the same.
func readVectorizer(ctx context.Context, p string, shards []string) (json.RawMessage, error) {
	fps := make([]string, len(shards))
	for i, s := range shards {
		fp, err := files.MatrixComment(ctx, s, vectorize.FingerprintKey)
		if err != nil {
			return nil, fmt.Errorf("-shards: %w", err)
		}
		fps[i] = fp
		if fp != "" && fps[0] != "" && fp != fps[0] {
			return nil, fmt.Errorf("-shards: %s and %s were made by different vectorisers (runs of neuralnmf-beam vectorize): their rows are not the same words; give the shards of one run", shards[0], s)
		}
	}
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
	rows, _, _, err := files.MatrixHeader(ctx, shards[0])
	if err != nil {
		return nil, fmt.Errorf("-shards: %w", err)
	}
	if len(v.Vocab) != rows {
		return nil, fmt.Errorf("-vectorizer %s has %d words, the shards %d rows: give the vectoriser the shards were made with", p, len(v.Vocab), rows)
	}
	fp, err := vectorize.Fingerprint(&v)
	if err != nil {
		return nil, fmt.Errorf("-vectorizer %s: %w", p, err)
	}
	for i, s := range shards {
		if fps[i] != "" && fps[i] != fp {
			return nil, fmt.Errorf("-vectorizer %s did not make the shards (%s carries the fingerprint %s, the vectoriser's is %s): the topics would be named with another corpus's words; give the vectorizer.json written beside the shards", p, s, fps[i], fp)
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
