package clusterbench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/raftapi/raftapi/bench/internal/etcdnodes"
	"github.com/raftapi/raftapi/bench/internal/figures"
	"github.com/raftapi/raftapi/bench/internal/procs"
	"github.com/raftapi/raftapi/bench/internal/raftnodes"
	"github.com/raftapi/raftapi/bench/internal/target"
)

// Config is a bench-cluster run.
type Config struct {
	// Raftapi is the raftapi binary; Self is this benchmark's binary,
	// which runs the etcd members.
	Raftapi, Self string
	// VsEtcd runs the figures against etcd too.
	VsEtcd bool
	// Nodes is the size of each cluster.
	Nodes   int
	Figures figures.Config
	// WorkDir holds the nodes' data; the caller removes it.
	WorkDir string
	// Log receives progress lines.
	Log io.Writer
}

// Results are the outcomes of a run, per target, in table order.
type Results struct {
	Raftapi []figures.Outcome `json:"raftapi"`
	Etcd    []figures.Outcome `json:"etcd,omitempty"`
}

// Run runs the figures on raftapi, then on etcd when asked, each cluster
// started for its figures and stopped after them.
func Run(ctx context.Context, cfg Config) (Results, error) {
	var res Results
	var err error
	res.Raftapi, err = runRaftapi(ctx, cfg)
	if err != nil {
		return res, err
	}
	if cfg.VsEtcd {
		res.Etcd, err = runEtcd(ctx, cfg)
	}
	return res, err
}

func runRaftapi(ctx context.Context, cfg Config) ([]figures.Outcome, error) {
	var group procs.Group
	defer group.StopAll()
	dir := filepath.Join(cfg.WorkDir, "raftapi")
	fmt.Fprintf(cfg.Log, "raftapi: starting %d nodes in %s\n", cfg.Nodes, dir)
	c, err := raftnodes.Start(ctx, raftnodes.Config{Binary: cfg.Raftapi, Dir: dir, Nodes: cfg.Nodes, Procs: &group})
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	leader, err := c.LeaderIndex(ctx)
	if err != nil {
		return nil, err
	}
	return figures.Run(ctx, target.NewRaftapi(leaderLast(c.Clients(nil), leader), c.NewTransport), withCPU(cfg.Figures, &group))
}

func runEtcd(ctx context.Context, cfg Config) ([]figures.Outcome, error) {
	var group procs.Group
	defer group.StopAll()
	dir := filepath.Join(cfg.WorkDir, "etcd")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	fmt.Fprintf(cfg.Log, "etcd: starting %d members in %s\n", cfg.Nodes, dir)
	c, err := etcdnodes.Start(ctx, etcdnodes.Config{Self: cfg.Self, Dir: dir, Members: cfg.Nodes, Procs: &group})
	if err != nil {
		return nil, err
	}
	defer c.Close()
	leader, err := c.Leader(ctx)
	if err != nil {
		return nil, err
	}
	return figures.Run(ctx, target.NewEtcd(leaderLast(c.Clients(), leader)), withCPU(cfg.Figures, &group))
}

// withCPU has the figures measure the CPU time of the group's processes,
// the target's servers, and of this process, the load generator.
func withCPU(f figures.Config, group *procs.Group) figures.Config {
	f.CPU = func() (servers, loadgen time.Duration) { return group.CPUTime(), procs.SelfCPUTime() }
	return f
}

// leaderLast orders the members' clients with the leader's last, so that
// on every target client 0 (the one of the 1-client figures) talks to a
// follower, as two requests in three do at 64 clients.
func leaderLast[T any](clients []T, leader int) []T {
	out := slices.Concat(clients[:leader], clients[leader+1:])
	return append(out, clients[leader])
}
