package garbagecollector

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/raftapi/raftapi/api/registry"
)

// gcFeedRetry is how long the feed waits before opening its watch again
// after it could not.
const gcFeedRetry = gcTick

// gcFeed follows every committed change of the registry with one watch
// held open while this node leads. It records whether a change can give
// the collector work (relevant), and keeps the candidates: the keys of
// the objects a pass must look at. The watch is fed from the node's
// committed entries as they are applied. Reading the changes of each
// tick again from the state's history, as a watch opened from a past
// revision does, read every change's record back out of the state file;
// and a pass that listed every object read all of the current state:
// together most of a loaded leader's resident memory and a share of its
// CPU.
//
// A change is either seen by the feed or covered by a full pass that
// starts after it: the watch is open before the full pass that follows
// it, and when the watch ends (cut off, its history compacted) the feed
// opens another and only then asks for a full pass, whose fresh lists
// cover the gap and fill the candidates again.
type gcFeed struct {
	gc    *Collector
	cands gcCandidates
	// changed: a relevant change came since the last take.
	changed atomic.Bool
	// full: the candidates may miss changes made while no watch was
	// open; the next pass must list every object.
	full atomic.Bool
	// read is the revision of the last change read.
	read   atomic.Uint64
	cancel context.CancelFunc
	done   chan struct{}
}

// follow opens the feed's first watch, from now, and keeps reading until
// stop. A failed open asks for a full pass and is tried again in the
// background.
func (gc *Collector) follow(ctx context.Context) *gcFeed {
	ctx, cancel := context.WithCancel(ctx)
	f := &gcFeed{gc: gc, cancel: cancel, done: make(chan struct{})}
	w := f.open(ctx)
	go f.run(ctx, w)
	return f
}

// take reports whether a relevant change came since the last take.
func (f *gcFeed) take() bool { return f.changed.Swap(false) }

// takeFull reports whether the next pass must list every object.
func (f *gcFeed) takeFull() bool { return f.full.Swap(false) }

// stop closes the feed and waits for its reader to end.
func (f *gcFeed) stop() {
	f.cancel()
	<-f.done
}

// open opens a watch of the whole registry from now; nil when it cannot.
// Either way the candidates start again and a full pass is asked for:
// changes made while no watch was open are only covered by a full pass
// that starts after this.
func (f *gcFeed) open(ctx context.Context) registry.Watcher {
	f.cands.reset()
	w, err := f.gc.store.Watch(ctx, registryPrefix, registry.WatchOptions{Recursive: true})
	f.full.Store(true)
	f.changed.Store(true)
	if err != nil {
		return nil
	}
	return w
}

// run reads w, and the watches that replace it, until ctx ends.
func (f *gcFeed) run(ctx context.Context, w registry.Watcher) {
	defer close(f.done)
	for ctx.Err() == nil {
		if w == nil {
			sleep(ctx, gcFeedRetry)
		} else {
			f.follow(w)
			w.Stop()
		}
		if ctx.Err() == nil {
			w = f.open(ctx)
		}
	}
}

// follow reads the changes of w until it ends.
func (f *gcFeed) follow(w registry.Watcher) {
	for ev := range w.ResultChan() {
		switch ev.Type {
		case registry.WatchError:
			return
		case registry.Bookmark:
		default:
			f.read.Store(ev.Rev)
			f.cands.track(ev, mentionsGC(ev.Object))
			if !f.changed.Load() && f.gc.relevant(ev) {
				f.changed.Store(true)
			}
		}
	}
}

// sleep waits for d or the end of ctx.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
