package garbagecollector

import (
	"context"
	"errors"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// gcPass is one pass of the collector over a snapshot.
type gcPass struct {
	gc    *Collector
	graph *gcGraph
	// absent caches owners confirmed absent during the pass, by key and
	// uid: a uid never comes back, so absence is final.
	absent map[gcOwnerID]bool
}

// gcOwnerID names an owner: its storage key and uid.
type gcOwnerID struct{ key, uid string }

// pass processes every object of g, a snapshot. Objects are handled one
// by one; a failure on one is logged and the rest go on, and the pass
// reports it so that another pass follows.
func (gc *Collector) pass(ctx context.Context, g *gcGraph) error {
	gc.setOwned(g.ownerUIDs())
	p := &gcPass{gc: gc, graph: g, absent: map[gcOwnerID]bool{}}
	var failed int
	for _, n := range g.nodes {
		if !gc.store.IsLeader() {
			return errNotLeader
		}
		if err := p.process(ctx, n); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			gc.log.Warn("processing failed", "object", n.String(), "err", err)
			failed++
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d objects failed", failed, len(g.nodes))
	}
	return nil
}

// process does what n calls for: carry out the propagation finalizer of
// an object being deleted, or collect an object with owners.
func (p *gcPass) process(ctx context.Context, n *gcNode) error {
	switch {
	case n.deleting() && n.hasFinalizer(metav1.FinalizerOrphanDependents):
		return p.orphanDependents(ctx, n)
	case n.deletingDependents():
		return p.deleteDependents(ctx, n)
	case n.deleting():
		return nil // on its way out; its dependents follow when it is gone
	case len(n.meta.OwnerReferences) > 0:
		return p.collect(ctx, n)
	}
	return nil
}

// collect deletes n if its owners are gone (attemptToDelete). An object
// with an owner reference the collector cannot resolve is left alone, as
// kube's collector does, and logged.
func (p *gcPass) collect(ctx context.Context, n *gcNode) error {
	err := p.attemptToDelete(ctx, n)
	if errors.Is(err, errUnresolvable) {
		p.gc.log.Info("leaving object alone", "object", n.String(), "reason", err)
		return nil
	}
	return err
}
