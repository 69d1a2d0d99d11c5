package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// perShard names the DoFns that do one shard's work in the pipelines of
// train (prepare, a step), score and vectorize (counting, transforming).
var perShard = []string{"train.prepareFn", "train.shareFn", "score.scoreFn", "vectorize.countFn", "vectorize.transformFn"}

// TestShardsAreSpread runs train, score and vectorize against a standalone Prism job
// server that logs its plans (--log_level=debug) and checks every stage of
// every plan: no stage holds both the list of shards (beam.createFn, or
// train.tasksFn, which emits a step's tasks inside a pass's pipeline) and
// the work on one shard. Fused, as they were before each list was
// reshuffled, a runner runs the whole list as one bundle on one worker, so
// every shard of a step would run one after another.
func TestShardsAreSpread(t *testing.T) {
	self, prism := binaries(t)
	dir, glob := fixture(t)
	tmp := t.TempDir()
	logPath := filepath.Join(tmp, "prism.log")
	logFile, err := os.Create(logPath)
	require.NoError(t, err)
	defer logFile.Close()
	endpoint, _ := startServerTo(t, tmp, logFile, prism, "--job_port=PORT", "--serve_http=false", "--log_level=debug")
	flags := []string{"--runner=universal", "--endpoint=" + endpoint, "--environment_type=LOOPBACK"}
	model := filepath.Join(dir, "m.nnmf")
	runOK(t, tmp, self, append([]string{"train", "-shards", glob, "-ranks", "4,2", "-steps", "2", "-epochs", "1",
		"-work", filepath.Join(dir, "work"), "-o", model}, flags...)...)
	runOK(t, tmp, self, append([]string{"score", "-model", model, "-shards", glob, "-out", filepath.Join(dir, "scores")}, flags...)...)
	for i := range 3 {
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("docs-%d.jsonl", i)), []byte(`{"text": "apples and pears"}`+"\n"+`{"text": "pears and plums"}`+"\n"), 0o644))
	}
	runOK(t, tmp, self, append([]string{"vectorize", "-docs", filepath.Join(dir, "docs-*.jsonl"), "-o", filepath.Join(dir, "vectorized")}, flags...)...)

	raw, err := os.ReadFile(logPath)
	require.NoError(t, err)
	stages := planStages(string(raw))
	seen := map[string]bool{}
	for _, st := range stages {
		list := false
		var work []string
		for _, tr := range st {
			if strings.HasSuffix(tr, "/beam.createFn") || strings.HasSuffix(tr, "/train.tasksFn") {
				list = true
				seen["beam.createFn"] = true
			}
			for _, f := range perShard {
				if strings.HasSuffix(tr, "/"+f) {
					work = append(work, tr)
					seen[f] = true
				}
			}
		}
		require.False(t, list && len(work) > 0, "a stage fuses the list of shards with %v: %v", work, st)
	}
	// The check above is vacuous unless the plans were read.
	for _, f := range append([]string{"beam.createFn"}, perShard...) {
		require.True(t, seen[f], "no stage of Prism's plans runs %s; the log format changed?", f)
	}
}

var (
	ansi      = regexp.MustCompile("\x1b\\[[0-9;]*m")
	stageHead = regexp.MustCompile(`^G (stage-\d+):`)
	transform = regexp.MustCompile(`^\s+\d+: (\S+)$`)
)

// planStages returns the transforms of each stage of every plan Prism
// logged ("preProcessGraph: all stages and transforms", then per stage a
// line "G stage-NNN:" and its transforms numbered from 0).
func planStages(log string) [][]string {
	var stages [][]string
	in := false
	for _, line := range strings.Split(ansi.ReplaceAllString(log, ""), "\n") {
		switch {
		case strings.Contains(line, "preProcessGraph: all stages and transforms"):
			in = true
		case !in:
		case stageHead.MatchString(line):
			stages = append(stages, nil)
		case len(stages) > 0 && transform.MatchString(line):
			stages[len(stages)-1] = append(stages[len(stages)-1], transform.FindStringSubmatch(line)[1])
		case strings.TrimSpace(line) == "":
			in = false
		}
	}
	return stages
}

// The command names itself as the worker binary wherever workers run
// outside this process (the documented Dataflow flags name no environment,
// which is Dockerised workers), and not where they run in it.
func TestStagesSelf(t *testing.T) {
	for _, tc := range []struct {
		runner, env, goos string
		want              bool
	}{
		{"", "", "linux", false},       // in-process Prism
		{"prism", "", "linux", false},  // the same, named
		{"direct", "", "linux", false}, // the direct runner
		{"universal", "LOOPBACK", "linux", false},
		{"universal", "loopback", "linux", false},
		{"universal", "EXTERNAL", "linux", true},
		{"universal", "", "linux", true}, // a job server's default: DOCKER
		{"dataflow", "", "linux", true},  // docs/beam.md's Dataflow flags
		{"flink", "DOCKER", "linux", true},
		{"dataflow", "", "darwin", false}, // not a worker's platform: Beam builds one
	} {
		require.Equal(t, tc.want, stagesSelf(tc.runner, tc.env, tc.goos, "amd64"), "%+v", tc)
	}
}
