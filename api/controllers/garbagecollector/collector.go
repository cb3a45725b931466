package garbagecollector

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/raftapi/raftapi/api/registry"
)

// Collector is the garbage collector of one node (see the package
// comment). Every node runs one; only the leader's acts.
type Collector struct {
	reg   *registry.Registry
	store registry.Storage
	log   *slog.Logger

	mu    sync.Mutex
	owned map[string]bool // uids named in an owner reference at the last pass
}

const (
	// gcTick is how often the collector checks its leadership and the
	// changes since it last looked: the delay before it reacts.
	gcTick = 250 * time.Millisecond
	// gcResync is the longest time between two passes of a leader whose
	// passes are quick; see resyncAfter. These passes, like those a
	// change asks for, read only the candidates.
	gcResync = 30 * time.Second
	// gcResyncShare bounds the share of the leader's time that passes no
	// change asked for take: a pass that took d makes the next resync
	// wait at least d/gcResyncShare.
	gcResyncShare = 0.05
	// gcRetries bounds the attempts of one write that keeps conflicting.
	gcRetries = 5
)

// errNotLeader stops a pass on a node that lost the leadership.
var errNotLeader = errors.New("garbagecollector: not the leader")

// New returns the collector of the objects in reg, logging to log.
func New(reg *registry.Registry, log *slog.Logger) *Collector {
	return &Collector{reg: reg, store: reg.Storage(), log: log.With("controller", "garbagecollector")}
}

// gcLoop is the state the collector keeps between ticks.
type gcLoop struct {
	feed  *gcFeed       // the changes since the last pass; nil while not leading
	full  bool          // the next pass must list every object: the feed is new
	retry bool          // the last pass failed
	last  time.Time     // start of the last pass
	took  time.Duration // how long the last pass took
}

// Run collects until ctx ends.
func (gc *Collector) Run(ctx context.Context) {
	t := time.NewTicker(gcTick)
	defer t.Stop()
	var l gcLoop
	defer l.stopFeed()
	for {
		gc.tick(ctx, &l)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// tick makes a pass if this node leads and one is due: on becoming
// leader and after a feed's watch ended (a full pass then), after a
// relevant change, after a failed pass, and at the resync.
func (gc *Collector) tick(ctx context.Context, l *gcLoop) {
	if !gc.store.IsLeader() {
		l.stopFeed()
		return
	}
	if l.feed != nil && l.feed.ended() {
		l.stopFeed()
	}
	if l.feed == nil {
		l.feed, l.full = gc.openFeed(ctx), true
	}
	due := l.feed.take() || l.full || l.retry || time.Since(l.last) >= resyncAfter(l.took)
	if !due {
		return
	}
	l.last = time.Now()
	err := gc.passOnce(ctx, l)
	l.took = time.Since(l.last)
	l.retry = err != nil
	if err != nil && ctx.Err() == nil {
		gc.log.Warn("pass failed, retrying", "err", err)
	}
}

// passOnce makes one pass: over every collectable object when l.full,
// else over the feed's candidates. l.full stays set until a full pass
// has listed everything.
func (gc *Collector) passOnce(ctx context.Context, l *gcLoop) error {
	var g *gcGraph
	var err error
	if l.full {
		if g, err = gc.snapshot(ctx); err != nil {
			return err
		}
		l.full = false
		l.feed.cands.addGraph(g)
	} else if g, err = gc.snapshotOf(ctx, l.feed.cands.sorted()); err != nil {
		return err
	}
	return gc.pass(ctx, g)
}

// stopFeed closes the feed of a node that no longer leads.
func (l *gcLoop) stopFeed() {
	if l.feed != nil {
		l.feed.stop()
		l.feed = nil
	}
}

// resyncAfter is the time from the start of a pass that took took to the
// next pass no change asks for: gcResync, or longer when passes are slow
// (a million objects are read in seconds), so that these safety-net
// passes take at most gcResyncShare of the leader's time. Changes that
// matter still start a pass at the next tick.
func resyncAfter(took time.Duration) time.Duration {
	return max(gcResync, time.Duration(float64(took)/gcResyncShare))
}

// isOwner reports whether uid was named in an owner reference at the
// last pass.
func (gc *Collector) isOwner(uid string) bool {
	gc.mu.Lock()
	defer gc.mu.Unlock()
	return gc.owned[uid]
}

// hasOwners reports whether any uid was named in an owner reference at
// the last pass.
func (gc *Collector) hasOwners() bool {
	gc.mu.Lock()
	defer gc.mu.Unlock()
	return len(gc.owned) > 0
}

func (gc *Collector) setOwned(owned map[string]bool) {
	gc.mu.Lock()
	defer gc.mu.Unlock()
	gc.owned = owned
}
