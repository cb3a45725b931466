package chaos

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/raftapi/raftapi/chaos/check"
	"github.com/raftapi/raftapi/chaos/failpoint"
	"github.com/raftapi/raftapi/chaos/history"
	"github.com/raftapi/raftapi/chaos/netns"
	"github.com/raftapi/raftapi/chaos/nodes"
	"github.com/raftapi/raftapi/chaos/report"
	"github.com/raftapi/raftapi/chaos/traffic"
)

// The cluster is what the fault schedule works on.
var (
	_ failpoint.Cluster = (*nodes.Cluster)(nil)
	_ failpoint.Healer  = (*nodes.Cluster)(nil)
)

// namespace is the Kubernetes namespace the traffic works in.
const namespace = "chaos"

// Run runs one chaos run and writes its report to cfg.Out. The summary
// says whether every checker passed; the error is for runs that could
// not happen at all (no network, cluster never started). Cancelling ctx
// ends the run early; the network and processes are removed either way.
func Run(ctx context.Context, cfg Config) (report.Summary, error) {
	if err := cfg.validate(); err != nil {
		return report.Summary{}, err
	}
	fps, unavailable, err := failpoints(cfg)
	if err != nil {
		return report.Summary{}, err
	}
	nw := netns.New(cfg.Name, cfg.Nodes)
	defer nw.Destroy()
	if err := nw.Create(); err != nil {
		return report.Summary{}, err
	}
	// Node data of an earlier run into the same directory would be
	// taken for this cluster's state.
	nodesDir := filepath.Join(cfg.Out, "nodes")
	if err := os.RemoveAll(nodesDir); err != nil {
		return report.Summary{}, fmt.Errorf("chaos: %w", err)
	}
	creds, err := newCredentials()
	if err != nil {
		return report.Summary{}, err
	}
	if err := creds.save(nodesDir); err != nil {
		return report.Summary{}, err
	}
	cl := nodes.New(nodes.Config{Binary: cfg.Binary, Dir: nodesDir, Network: nw, Token: creds.token, TLS: creds.tls,
		TokenAuthFile: tokenFile(nodesDir), LogLevel: cfg.NodeLogLevel})
	defer cl.Stop()
	sctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	cfg.Log("starting %d nodes on %s (%s)", cfg.Nodes, nw.Bridge, nw.HostIP)
	if err := cl.Start(sctx); err != nil {
		return report.Summary{}, fmt.Errorf("chaos: start cluster: %w", err)
	}
	r := &run{cfg: cfg, cl: cl, fps: fps, creds: creds}
	if err := r.grantClient(sctx); err != nil {
		return report.Summary{}, err
	}
	s := r.main(ctx)
	s.Unavailable = unavailable
	if err := report.Write(cfg.Out, r.h, &s); err != nil {
		return s, err
	}
	return s, nil
}

// failpoints parses the requested faults and sets aside those this run
// cannot inject, with the reason.
func failpoints(cfg Config) ([]failpoint.Failpoint, map[string]string, error) {
	all, err := failpoint.Parse(cfg.Faults, failpoint.Options{ClockJumps: cfg.ClockJumps})
	if err != nil {
		return nil, nil, err
	}
	unavailable := map[string]string{}
	var fps []failpoint.Failpoint
	for _, f := range all {
		if err := f.Available(cfg.Nodes); err != nil {
			unavailable[f.Name()] = err.Error()
			continue
		}
		fps = append(fps, f)
	}
	return fps, unavailable, nil
}

// run is one run in progress.
type run struct {
	cfg   Config
	cl    *nodes.Cluster
	fps   []failpoint.Failpoint
	creds credentials
	rec   *history.Recorder
	h     *history.History
}

// main runs traffic and faults, the quiet period and the final reads,
// then checks the history.
func (r *run) main(ctx context.Context) report.Summary {
	r.rec = history.NewRecorder(namespace, r.cl.Names())
	client := traffic.NewClient(traffic.ClientConfig{Nodes: r.apis(), Namespace: namespace, Timeout: r.cfg.Timeout,
		TLS: r.creds.clientTLS, BearerToken: r.creds.clientToken})
	var runErr error
	if err := r.createNamespace(ctx, client); err != nil {
		runErr = err
	} else if err := r.createDefinitions(ctx, client); err != nil {
		runErr = err
	}
	mctx, stopMonitor := context.WithCancel(ctx)
	defer stopMonitor()
	go r.cl.Monitor(mctx, r.rec, 500*time.Millisecond)
	wctx, stopWatchers := context.WithCancel(ctx)
	defer stopWatchers()
	t := traffic.Start(wctx, r.trafficConfig(client))
	end := time.Now().Add(r.cfg.Duration)
	runErr = errors.Join(runErr, r.faults(ctx, end.Add(-r.cfg.Quiet)))
	r.cfg.Log("quiet period until %s", end.Format(time.TimeOnly))
	sleepUntil(ctx, end)
	t.StopClients()
	runErr = errors.Join(runErr, r.finish(ctx, t, client, stopWatchers))
	stopMonitor()
	if ctx.Err() != nil {
		runErr = errors.Join(runErr, errors.New("chaos: run interrupted"))
	}
	r.h = r.rec.History()
	r.cfg.Log("checking %d operations and %d watch events", len(r.h.Ops), len(r.h.Events))
	results := check.All(r.h, check.Options{Tolerate: r.cfg.Tolerate})
	s := report.Summarize(r.h, results, r.cfg.Seed)
	if runErr != nil {
		s.Passed, s.Error = false, runErr.Error()
	}
	return s
}

// faults runs the fault schedule until deadline.
func (r *run) faults(ctx context.Context, deadline time.Time) error {
	if len(r.fps) == 0 {
		sleepUntil(ctx, deadline)
		return nil
	}
	s := &failpoint.Schedule{Failpoints: r.fps, Cluster: r.cl, Healer: r.cl, Recorder: r.rec,
		Rand: rand.New(rand.NewPCG(r.cfg.Seed, 7)), Between: r.cfg.Between, Hold: r.cfg.Hold,
		HealTimeout: 90 * time.Second, Log: r.cfg.Log}
	return s.Run(ctx, deadline)
}

// finish waits for a healthy cluster that serves every resource of the
// run on every node, reads the final state, and stops the watchers once
// they have seen every change.
func (r *run) finish(ctx context.Context, t *traffic.Traffic, c *traffic.Client, stopWatchers context.CancelFunc) error {
	hctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	err := r.cl.WaitHealthy(hctx)
	if err != nil {
		err = fmt.Errorf("chaos: cluster unhealthy after the faults stopped: %w", err)
	} else if serr := r.waitAllServed(ctx, c, 60*time.Second); serr != nil {
		err = fmt.Errorf("chaos: a custom resource is not served on every node after the faults stopped: %w", serr)
	}
	r.cfg.Log("final reads")
	t.Final(ctx)
	t.StopWatchers(lastChanges(r.rec.History()), 45*time.Second, stopWatchers)
	return err
}

// lastChanges is, per resource, the highest resourceVersion of a change
// of it the history knows of: every watcher of the resource must get
// there.
func lastChanges(h *history.History) map[string]int64 {
	rv := map[string]int64{}
	for _, o := range h.Ops {
		if o.Outcome != history.OK {
			continue
		}
		if o.Sets() || o.Kind == history.Get {
			rv[o.Resource] = max(rv[o.Resource], o.ResultRV)
		}
		for _, it := range o.Items {
			rv[o.Resource] = max(rv[o.Resource], it.RV)
		}
	}
	return rv
}

func (r *run) apis() map[string]string {
	m := map[string]string{}
	for _, n := range r.cl.Nodes() {
		m[n.Name] = n.API
	}
	return m
}

func (r *run) trafficConfig(c *traffic.Client) traffic.Config {
	return traffic.Config{Client: c, Recorder: r.rec, Nodes: r.cl.Names(), Resources: r.cfg.resources,
		RegisterClients: r.cfg.RegisterClients, ListClients: r.cfg.ListClients, Watchers: r.cfg.Watchers,
		Keys: 5, KeyLifetime: 20 * time.Second, MaxOps: r.cfg.MaxOps, Seed: r.cfg.Seed}
}

func sleepUntil(ctx context.Context, t time.Time) {
	timer := time.NewTimer(time.Until(t))
	defer timer.Stop()
	select {
	case <-ctx.Done():
	case <-timer.C:
	}
}
