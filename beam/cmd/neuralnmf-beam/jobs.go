package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	jobpb "github.com/apache/beam/sdks/v2/go/pkg/beam/model/jobmanagement_v1"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/options/jobopts"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/util/grpcx"
)

// Jobs on a job server (--endpoint: Prism's, Flink's or Spark's) outlive
// the process that submitted them: a driver killed by SIGKILL leaves its
// job running, and Beam's client does not cancel a job when its context
// ends. So every job of a run is named after what the run writes (its
// work or output directory: jobPrefix), and a run cancels the jobs of
// that name still running before it submits its own (a run killed before
// it), and its own when it is interrupted.

// jobPrefix is the name prefix of the jobs of a run of cmd writing into
// dir (set by the command before its first pipeline), "" until then.
var jobPrefix atomic.Value

// setJobPrefix names the run's jobs after cmd and dir.
func setJobPrefix(cmd, dir string) {
	if abs, err := filepath.Abs(dir); err == nil && !strings.Contains(dir, "://") {
		dir = abs
	}
	sum := sha256.Sum256([]byte(dir))
	jobPrefix.Store(fmt.Sprintf("neuralnmf-beam-%s-%s-", cmd, hex.EncodeToString(sum[:6])))
}

var jobCount atomic.Int64

// cancelStopped names the run's jobs after cmd and dir and cancels those a
// stopped run of the same directory left running on the job server,
// saying so.
func cancelStopped(ctx context.Context, cmd, dir string) error {
	setJobPrefix(cmd, dir)
	said, err := cancelRunJobs(ctx, time.Minute)
	for _, l := range said {
		fmt.Println(l)
	}
	return err
}

// nameJob sets --job_name for the next pipeline of the run.
func nameJob() {
	if p, _ := jobPrefix.Load().(string); p != "" {
		_ = flag.Set("job_name", fmt.Sprintf("%s%d-%d", p, time.Now().UnixNano(), jobCount.Add(1)))
	}
}

// onJobServer reports whether pipelines go to a job server of their own
// (a portable runner with --endpoint), where jobs outlive this process.
func onJobServer() bool {
	switch strings.ToLower(*runners.Runner) {
	case "universal", "flink", "spark", "prism", "portablerunner", "flinkrunner", "sparkrunner", "prismrunner":
		return *jobopts.Endpoint != ""
	}
	return false
}

// cancelRunJobs cancels the jobs of this run's name that are not finished
// on the job server (none without one), and waits up to wait for each to
// end; it says what it did in the lines it returns.
func cancelRunJobs(ctx context.Context, wait time.Duration) ([]string, error) {
	prefix, _ := jobPrefix.Load().(string)
	if prefix == "" || !onJobServer() {
		return nil, nil
	}
	cc, err := grpcx.DefaultDial(ctx, *jobopts.Endpoint, 10*time.Second)
	if err != nil {
		return nil, fmt.Errorf("connecting to the job server %s: %w", *jobopts.Endpoint, err)
	}
	defer cc.Close()
	client := jobpb.NewJobServiceClient(cc)
	jobs, err := client.GetJobs(ctx, &jobpb.GetJobsRequest{})
	if err != nil {
		return nil, fmt.Errorf("listing the jobs of %s: %w", *jobopts.Endpoint, err)
	}
	var said []string
	for _, j := range jobs.GetJobInfo() {
		if !strings.HasPrefix(j.GetJobName(), prefix) || terminal(j.GetState()) {
			continue
		}
		if _, err := client.Cancel(ctx, &jobpb.CancelJobRequest{JobId: j.GetJobId()}); err != nil {
			return said, fmt.Errorf("cancelling job %s on %s: %w", j.GetJobId(), *jobopts.Endpoint, err)
		}
		state := j.GetState()
		for deadline := time.Now().Add(wait); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			st, err := client.GetState(ctx, &jobpb.GetJobStateRequest{JobId: j.GetJobId()})
			if err != nil {
				break
			}
			if state = st.GetState(); terminal(state) {
				break
			}
		}
		said = append(said, fmt.Sprintf("cancelled job %s (%s) of a stopped run on %s: %v", j.GetJobId(), j.GetJobName(), *jobopts.Endpoint, state))
	}
	return said, nil
}

func terminal(s jobpb.JobState_Enum) bool {
	switch s {
	case jobpb.JobState_CANCELLED, jobpb.JobState_DONE, jobpb.JobState_DRAINED, jobpb.JobState_UPDATED, jobpb.JobState_FAILED:
		return true
	}
	return false
}
