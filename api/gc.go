package api

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"
)

// The garbage collector deletes objects whose owners are gone and carries
// out the propagation policy of deletes (gcpolicy.go), as
// kube-controller-manager's garbage collector does:
//
//   - an object being deleted with the "orphan" finalizer has the owner
//     references to it removed from its dependents, then the finalizer;
//   - an object being deleted with the "foregroundDeletion" finalizer has
//     its dependents deleted (in foreground when they have dependents of
//     their own) and loses the finalizer once no dependent with
//     blockOwnerDeletion is left;
//   - an object none of whose owners exists is deleted; one with some
//     owners gone and some present only loses the references to the gone
//     ones.
//
// Every node runs it; only the raft leader acts. Each pass rebuilds the
// whole picture from a Most Recent list of every resource that can be
// deleted, so a new leader simply starts with a pass and finishes what the
// old one left. Between passes the leader reads the changes committed
// since it last looked (a watch from that revision, stopped once caught
// up) and makes another pass when one of them matters; it also passes
// again a tick after a failed pass, on becoming leader, and every
// gcResync. A change history compacted away means a pass too: the pass's
// fresh list covers whatever the history no longer holds.
//
// Owners are matched by uid: an owner is absent when no object of its
// kind, name (and, for a namespaced kind, the dependent's namespace) with
// that uid exists, confirmed by a Most Recent read before anything is
// deleted or unlinked because of it. Every write carries a revision and
// uid precondition and is retried on a conflict with a fresh read, so a
// deposed leader's late write fails instead of undoing a newer one.
type garbageCollector struct {
	server *Server
	store  Storage
	log    *slog.Logger

	mu    sync.Mutex
	owned map[string]bool // uids named in an owner reference at the last pass
}

const (
	// gcTick is how often the collector checks its leadership and the
	// changes since it last looked: the delay before it reacts.
	gcTick = 250 * time.Millisecond
	// gcResync is the longest time between two passes of a leader.
	gcResync = 30 * time.Second
	// gcRetries bounds the attempts of one write that keeps conflicting.
	gcRetries = 5
)

// errNotLeader stops a pass on a node that lost the leadership.
var errNotLeader = errors.New("api: garbage collector: not the leader")

func newGarbageCollector(s *Server) *garbageCollector {
	return &garbageCollector{server: s, store: s.store, log: slog.Default().With("controller", "garbagecollector")}
}

// gcLoop is the state the collector keeps between ticks.
type gcLoop struct {
	leader bool      // this node led at the last tick
	retry  bool      // the last pass failed
	last   time.Time // start of the last pass
	seen   uint64    // every change up to this revision has been looked at
}

// run collects until ctx ends.
func (gc *garbageCollector) run(ctx context.Context) {
	t := time.NewTicker(gcTick)
	defer t.Stop()
	var l gcLoop
	for {
		gc.tick(ctx, &l)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// tick makes a pass if this node leads and one is due.
func (gc *garbageCollector) tick(ctx context.Context, l *gcLoop) {
	if !gc.store.IsLeader() {
		l.leader = false
		return
	}
	rev := gc.store.Revision()
	due := !l.leader || l.retry || time.Since(l.last) >= gcResync
	if !due && rev != l.seen {
		due = gc.changedSince(ctx, l.seen, rev)
	}
	l.leader, l.seen = true, rev
	if !due {
		return
	}
	l.last = time.Now()
	err := gc.pass(ctx)
	l.retry = err != nil
	if err != nil && ctx.Err() == nil {
		gc.log.Warn("pass failed, retrying", "err", err)
	}
}

// isOwner reports whether uid was named in an owner reference at the
// last pass.
func (gc *garbageCollector) isOwner(uid string) bool {
	gc.mu.Lock()
	defer gc.mu.Unlock()
	return gc.owned[uid]
}

func (gc *garbageCollector) setOwned(owned map[string]bool) {
	gc.mu.Lock()
	defer gc.mu.Unlock()
	gc.owned = owned
}

// runConcurrently runs each of fns with ctx and returns when all have.
func runConcurrently(ctx context.Context, fns ...func(context.Context)) {
	var wg sync.WaitGroup
	for _, fn := range fns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(ctx)
		}()
	}
	wg.Wait()
}
