package compose

import (
	"context"
	"slices"
	"testing"
	"time"
)

// Deadlines of the phases of a fault.
const (
	failoverTimeout = 90 * time.Second // the others serve without the node
	recoverTimeout  = 2 * time.Minute  // every node serves again
	membersTimeout  = 2 * time.Minute  // every node a healthy voter again
	faultWrites     = 20               // writes acknowledged during a fault, at least
	faultMinLength  = 3 * time.Second  // how long a fault lasts, at least
	writesTimeout   = 60 * time.Second // for those writes
)

// fault is one failure injected into a running cluster: harm takes a
// node down or away, repair brings it back. A fault without harm is a
// single action (a restart) measured from its start.
type fault struct {
	name   string
	leader bool // target the leader, else a follower
	harm   func(h *harness, ctx context.Context, svc string)
	repair func(h *harness, ctx context.Context, svc string)
}

// faults are injected in this order, each once the cluster has fully
// recovered from the one before.
var faults = []fault{
	{name: "kill", leader: true, harm: (*harness).kill, repair: (*harness).start},
	{name: "disconnect", leader: true, harm: (*harness).disconnect, repair: (*harness).reconnect},
	{name: "restart", leader: false, repair: (*harness).restart},
	{name: "replace with an empty volume", leader: true, harm: (*harness).stopAndWipe, repair: (*harness).up},
	{name: "kill and lose the volume", leader: false, harm: (*harness).killAndWipe, repair: (*harness).up},
}

// outcome is what the test measured for one fault.
type outcome struct {
	fault, node string
	// failover is how long the other nodes took to serve without the
	// node; repair, how long the repairing command took; serving, how
	// long every node took to serve after the repair began; members,
	// until every node was a healthy voter again.
	failover, repair, serving, members time.Duration
	written                            int // writes acknowledged during the fault
}

// inject runs one fault against the node it targets and measures the
// cluster's recovery.
func (h *harness) inject(ctx context.Context, f fault) outcome {
	h.t.Helper()
	svc := h.target(ctx, f.leader)
	o := outcome{fault: f.name, node: svc}
	from := h.w.count()
	if f.harm != nil {
		f.harm(h, ctx, svc)
		o.failover = h.await(ctx, failoverTimeout, "the others to serve without "+svc, allServing(h.others(svc)))
		if err := h.w.waitFor(ctx, faultWrites, faultMinLength, writesTimeout); err != nil {
			h.t.Fatalf("%s %s: writes through the other nodes: %v", f.name, svc, err)
		}
	}
	start := time.Now()
	f.repair(h, ctx, svc)
	o.repair = time.Since(start)
	h.await(ctx, recoverTimeout, "every node to serve", allServing(h.nodes))
	o.serving = time.Since(start)
	h.await(ctx, membersTimeout, "every node a healthy voter", h.fullMembership)
	o.members = time.Since(start)
	o.written = h.w.count() - from
	h.t.Logf("fault %q on %s: others serving after %v; repaired in %v; every node serving %v after the repair began, a healthy voter after %v; %d writes acknowledged meanwhile",
		f.name, svc, o.failover.Round(time.Millisecond), o.repair.Round(time.Millisecond),
		o.serving.Round(time.Millisecond), o.members.Round(time.Millisecond), o.written)
	return o
}

// target returns the leader's service, or the one after it.
func (h *harness) target(ctx context.Context, leader bool) string {
	h.t.Helper()
	var name string
	h.await(ctx, failoverTimeout, "a leader", func(ctx context.Context) (err error) {
		for _, n := range h.nodes {
			if name, err = n.leader(ctx); err == nil {
				return nil
			}
		}
		return err
	})
	i := slices.Index(services, name)
	if i < 0 {
		h.t.Fatalf("the leader %q is none of %v", name, services)
	}
	if !leader {
		i = (i + 1) % len(services)
	}
	return services[i]
}

// others returns every node but svc.
func (h *harness) others(svc string) []*node {
	var out []*node
	for _, n := range h.nodes {
		if n.name != svc {
			out = append(out, n)
		}
	}
	return out
}

// await is eventually, failing the test on timeout.
func (h *harness) await(ctx context.Context, timeout time.Duration, what string, fn func(context.Context) error) time.Duration {
	h.t.Helper()
	took, err := eventually(ctx, timeout, fn)
	if err != nil {
		h.t.Fatalf("waiting for %s: %v", what, err)
	}
	return took
}

// fullMembership returns nil if every node reports three healthy voters.
func (h *harness) fullMembership(ctx context.Context) error {
	for _, n := range h.nodes {
		if err := n.fullMembership(ctx); err != nil {
			return err
		}
	}
	return nil
}

// harness is what the faults act on.
type harness struct {
	t          *testing.T
	p          *project
	kubeconfig string // the copied admin kubeconfig
	nodes      []*node
	w          *writer
	// cut remembers the network and address of a disconnected container.
	cut struct{ id, network, ip string }
}

// kill kills the service's container (SIGKILL: no graceful leave).
func (h *harness) kill(ctx context.Context, svc string) {
	h.t.Helper()
	if _, err := docker(ctx, quickCall, "kill", h.p.container(ctx, svc)); err != nil {
		h.t.Fatal(err)
	}
}

// start starts the service's stopped container.
func (h *harness) start(ctx context.Context, svc string) { h.p.must(ctx, slowCall, "start", svc) }

// restart restarts the service (SIGTERM: the node leaves, then rejoins).
func (h *harness) restart(ctx context.Context, svc string) { h.p.must(ctx, slowCall, "restart", svc) }

// up creates the service's container (and volume) again.
func (h *harness) up(ctx context.Context, svc string) {
	h.p.must(ctx, slowCall, "up", "-d", "--no-deps", svc)
}

// disconnect cuts the service's container off the project's network.
func (h *harness) disconnect(ctx context.Context, svc string) {
	h.t.Helper()
	id := h.p.container(ctx, svc)
	h.cut.id, h.cut.network, h.cut.ip = id, h.p.network(ctx, id), h.p.ip(slices.Index(services, svc))
	if _, err := docker(ctx, quickCall, "network", "disconnect", h.cut.network, id); err != nil {
		h.t.Fatal(err)
	}
}

// reconnect connects the disconnected container again, with its address
// and its service name.
func (h *harness) reconnect(ctx context.Context, svc string) {
	h.t.Helper()
	if _, err := docker(ctx, quickCall, "network", "connect", "--ip", h.cut.ip, "--alias", svc, h.cut.network, h.cut.id); err != nil {
		h.t.Fatal(err)
	}
}

// stopAndWipe stops the service (SIGTERM: the node leaves the cluster),
// removes its container and its volume.
func (h *harness) stopAndWipe(ctx context.Context, svc string) {
	h.t.Helper()
	volume := h.p.volume(ctx, h.p.container(ctx, svc))
	h.p.must(ctx, slowCall, "stop", svc)
	h.wipe(ctx, svc, volume)
}

// killAndWipe kills the service (it stays a voter), removes its
// container and its volume: a machine that lost its disk.
func (h *harness) killAndWipe(ctx context.Context, svc string) {
	h.t.Helper()
	volume := h.p.volume(ctx, h.p.container(ctx, svc))
	h.kill(ctx, svc)
	h.wipe(ctx, svc, volume)
}

// wipe removes the stopped service's container and volume.
func (h *harness) wipe(ctx context.Context, svc, volume string) {
	h.t.Helper()
	h.p.must(ctx, slowCall, "rm", "-f", svc)
	if _, err := docker(ctx, quickCall, "volume", "rm", volume); err != nil {
		h.t.Fatal(err)
	}
}
