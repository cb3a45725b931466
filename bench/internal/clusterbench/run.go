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
	"github.com/raftapi/raftapi/bench/internal/kasnodes"
	"github.com/raftapi/raftapi/bench/internal/procs"
	"github.com/raftapi/raftapi/bench/internal/raftnodes"
	"github.com/raftapi/raftapi/bench/internal/target"
)

// Config is a bench-cluster run.
type Config struct {
	// Raftapi is the raftapi binary; Self is this benchmark's binary,
	// which runs the etcd members; KubeAPIServer is kube-apiserver's.
	Raftapi, Self, KubeAPIServer string
	// VsEtcd runs the figures against etcd too, VsKubeAPIServer against
	// kube-apiservers over etcd.
	VsEtcd, VsKubeAPIServer bool
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
	// KubeAPIServer are kube-apiserver's outcomes, in the same order.
	KubeAPIServer []figures.Outcome `json:"kubeAPIServer,omitempty"`
}

// Run runs the figures on raftapi, then on etcd and on kube-apiserver
// when asked, each cluster started for its figures and stopped after
// them.
func Run(ctx context.Context, cfg Config) (Results, error) {
	var res Results
	var err error
	res.Raftapi, err = runRaftapi(ctx, cfg)
	if err != nil {
		return res, err
	}
	if cfg.VsEtcd {
		if res.Etcd, err = runEtcd(ctx, cfg); err != nil {
			return res, err
		}
	}
	if cfg.VsKubeAPIServer {
		res.KubeAPIServer, err = runKubeAPIServer(ctx, cfg)
	}
	return res, err
}

// starter starts a target's cluster in dir, its processes in group, and
// returns the target of its figures and what closes its clients.
type starter func(ctx context.Context, dir string, group *procs.Group) (figures.Target, func(), error)

// runTarget starts a cluster with start in the work directory's
// subdirectory name, runs the figures against it, then stops its
// processes and removes the directory.
func runTarget(ctx context.Context, cfg Config, name, what string, start starter) ([]figures.Outcome, error) {
	var group procs.Group
	dir := filepath.Join(cfg.WorkDir, name)
	defer func() {
		group.StopAll()
		os.RemoveAll(dir)
	}()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	fmt.Fprintf(cfg.Log, "%s: starting %s in %s\n", name, what, dir)
	t, closeClients, err := start(ctx, dir, &group)
	if err != nil {
		return nil, err
	}
	defer closeClients()
	return figures.Run(ctx, t, withCPU(cfg.Figures, &group))
}

func runRaftapi(ctx context.Context, cfg Config) ([]figures.Outcome, error) {
	return runTarget(ctx, cfg, "raftapi", fmt.Sprintf("%d nodes", cfg.Nodes), func(ctx context.Context, dir string, group *procs.Group) (figures.Target, func(), error) {
		c, err := raftnodes.Start(ctx, raftnodes.Config{Binary: cfg.Raftapi, Dir: dir, Nodes: cfg.Nodes, Procs: group})
		if err != nil {
			return nil, nil, err
		}
		leader, err := c.LeaderIndex(ctx)
		if err != nil {
			return nil, nil, err
		}
		return target.NewRaftapi(leaderLast(c.Clients(nil), leader), c.NewTransport), func() {}, nil
	})
}

func runEtcd(ctx context.Context, cfg Config) ([]figures.Outcome, error) {
	return runTarget(ctx, cfg, "etcd", fmt.Sprintf("%d members", cfg.Nodes), func(ctx context.Context, dir string, group *procs.Group) (figures.Target, func(), error) {
		c, err := etcdnodes.Start(ctx, etcdnodes.Config{Self: cfg.Self, Dir: dir, Members: cfg.Nodes, Procs: group})
		return withLeader(ctx, c, err, func(leader int) figures.Target { return target.NewEtcd(leaderLast(c.Clients(), leader)) })
	})
}

func runKubeAPIServer(ctx context.Context, cfg Config) ([]figures.Outcome, error) {
	what := fmt.Sprintf("%d etcd members and %d kube-apiservers", cfg.Nodes, cfg.Nodes)
	return runTarget(ctx, cfg, "kube-apiserver", what, func(ctx context.Context, dir string, group *procs.Group) (figures.Target, func(), error) {
		c, err := kasnodes.Start(ctx, kasnodes.Config{Binary: cfg.KubeAPIServer, Self: cfg.Self, Dir: dir, Nodes: cfg.Nodes, Procs: group})
		return withLeader(ctx, c, err, func(leader int) figures.Target {
			return target.NewKubeAPIServer(leaderLast(c.Clients(), leader), c.NewTransport)
		})
	})
}

// leaderCluster is a started cluster over etcd: it names the index of
// etcd's leader and closes its clients.
type leaderCluster interface {
	Leader(ctx context.Context) (int, error)
	Close()
}

// withLeader finishes a starter once c started (err nil): the target
// newTarget makes with the index of c's leader, and c's Close.
func withLeader[C leaderCluster](ctx context.Context, c C, err error, newTarget func(leader int) figures.Target) (figures.Target, func(), error) {
	if err != nil {
		return nil, nil, err
	}
	leader, err := c.Leader(ctx)
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	return newTarget(leader), c.Close, nil
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
