// Package workerpool is a Beam external worker pool (Beam's EXTERNAL
// environment, the service a runner asks to start SDK workers) that
// starts every worker as a new process of one Go program — this
// process's own binary, by default — so that a pipeline's work runs in
// separate processes, as on a cluster, with a runner on this machine.
//
// Beam's own pool (the Go SDK container's boot program with
// --worker_pool) listens on port 50000 of every interface, fetches the
// worker binary the job staged and copies it into /tmp for every worker;
// this one listens where it is told, runs its own binary (start it from
// the same build as the program that submits the pipelines: a worker runs
// the functions the pipeline names, registered by that build), leaves no
// file behind, and stops every worker it started when it stops.
package workerpool

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"sync"

	"github.com/apache/beam/sdks/v2/go/container/tools"
	fnpb "github.com/apache/beam/sdks/v2/go/pkg/beam/model/fnexecution_v1"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/util/grpcx"
	"google.golang.org/grpc"
)

// Pool is a running worker pool.
type Pool struct {
	fnpb.UnimplementedBeamFnExternalWorkerPoolServer

	exe    string
	lis    net.Listener
	server *grpc.Server
	// Stderr receives the workers' standard error (nil: discarded).
	stderr *os.File

	mu      sync.Mutex
	workers map[string]*exec.Cmd
	stopped bool
	running sync.WaitGroup
}

// New starts a pool listening on addr (host:port; port 0 picks a free
// one, see Addr) whose workers run exe (empty: this process's
// executable). Workers' standard error goes to stderr if not nil.
// Serve must be called to answer requests.
func New(addr, exe string, stderr *os.File) (*Pool, error) {
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("workerpool: %w", err)
		}
	}
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("workerpool: %w", err)
	}
	p := &Pool{exe: exe, lis: lis, server: grpc.NewServer(), stderr: stderr, workers: map[string]*exec.Cmd{}}
	fnpb.RegisterBeamFnExternalWorkerPoolServer(p.server, p)
	return p, nil
}

// Addr is the address the pool listens on.
func (p *Pool) Addr() string { return p.lis.Addr().String() }

// Serve answers requests until Stop.
func (p *Pool) Serve() error { return p.server.Serve(p.lis) }

// Workers returns the number of workers running.
func (p *Pool) Workers() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.workers)
}

// StartWorker starts a worker process for the runner's request.
func (p *Pool) StartWorker(ctx context.Context, req *fnpb.StartWorkerRequest) (*fnpb.StartWorkerResponse, error) {
	fail := func(format string, a ...any) (*fnpb.StartWorkerResponse, error) {
		return &fnpb.StartWorkerResponse{Error: fmt.Sprintf(format, a...)}, nil
	}
	id := req.GetWorkerId()
	switch {
	case req.GetControlEndpoint() == nil || req.GetLoggingEndpoint() == nil || req.GetProvisionEndpoint() == nil:
		return fail("worker %s: the request lacks an endpoint", id)
	case req.GetControlEndpoint().Authentication != nil || req.GetLoggingEndpoint().Authentication != nil:
		return fail("worker %s: secure endpoints are not supported", id)
	}
	// The worker reads the job's options from its flags, as Beam's boot
	// program hands them over.
	info, err := tools.ProvisionInfo(grpcx.WriteWorkerID(ctx, id), req.GetProvisionEndpoint().GetUrl())
	if err != nil {
		return fail("worker %s: provision info: %v", id, err)
	}
	opts, err := tools.ProtoToJSON(info.GetPipelineOptions())
	if err != nil {
		return fail("worker %s: pipeline options: %v", id, err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return fail("worker %s: the pool is stopping", id)
	}
	if _, ok := p.workers[id]; ok {
		return fail("worker %s exists", id)
	}
	cmd := exec.Command(p.exe,
		"--worker=true",
		"--id="+id,
		"--logging_endpoint="+req.GetLoggingEndpoint().GetUrl(),
		"--control_endpoint="+req.GetControlEndpoint().GetUrl(),
		"--semi_persist_dir="+os.TempDir(),
		"--options="+opts,
	)
	cmd.Env = os.Environ()
	if s := info.GetStatusEndpoint(); s != nil {
		cmd.Env = append(cmd.Env, "STATUS_ENDPOINT="+s.GetUrl())
	}
	if p.stderr != nil {
		cmd.Stderr = p.stderr
	}
	if err := cmd.Start(); err != nil {
		return fail("worker %s: %v", id, err)
	}
	p.workers[id] = cmd
	p.running.Add(1)
	go func() {
		defer p.running.Done()
		_ = cmd.Wait()
		p.mu.Lock()
		if p.workers[id] == cmd {
			delete(p.workers, id)
		}
		p.mu.Unlock()
	}()
	return &fnpb.StartWorkerResponse{}, nil
}

// StopWorker kills a worker the pool started.
func (p *Pool) StopWorker(_ context.Context, req *fnpb.StopWorkerRequest) (*fnpb.StopWorkerResponse, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if cmd, ok := p.workers[req.GetWorkerId()]; ok {
		_ = cmd.Process.Kill()
	}
	return &fnpb.StopWorkerResponse{}, nil
}

// Stop stops answering, kills every worker still running and waits for
// them to exit.
func (p *Pool) Stop() {
	p.mu.Lock()
	p.stopped = true
	for _, cmd := range p.workers {
		_ = cmd.Process.Kill()
	}
	p.mu.Unlock()
	p.server.Stop()
	p.running.Wait()
}
