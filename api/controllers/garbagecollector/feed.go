package garbagecollector

import (
	"context"
	"sync/atomic"

	"github.com/raftapi/raftapi/api/registry"
)

// gcFeed follows every committed change of the registry with one watch,
// opened when its node starts to lead (or its previous watch ended) and
// held until the node stops leading or the watch ends. It records
// whether a change can give the collector work (relevant), and keeps the
// candidates: the keys of the objects a pass must look at. The watch is
// fed from the node's committed entries as they are applied. Reading the
// changes of each tick again from the state's history, as a watch opened
// from a past revision does, read every change's record back out of the
// state file; and a pass that listed every object read all of the
// current state: together most of a loaded leader's resident memory and
// a share of its CPU.
//
// A change is either seen by a feed or covered by a full pass that
// starts after it: a feed is opened before the full pass that follows
// it, and a feed whose watch ended is replaced, with a full pass, at the
// next tick; that pass's fresh lists cover the gap and fill the new
// feed's candidates.
type gcFeed struct {
	gc    *Collector
	w     registry.Watcher // nil when it could not be opened
	cands gcCandidates
	// changed: a relevant change came since the last take.
	changed atomic.Bool
	done    chan struct{} // closed when the watch has ended
}

// openFeed opens a feed: a watch of the whole registry from now, read
// until it ends. A feed whose watch could not be opened has ended.
func (gc *Collector) openFeed(ctx context.Context) *gcFeed {
	f := &gcFeed{gc: gc, cands: gcCandidates{keys: map[string]struct{}{}}, done: make(chan struct{})}
	w, err := gc.store.Watch(ctx, registryPrefix, registry.WatchOptions{Recursive: true})
	if err != nil {
		close(f.done)
		return f
	}
	f.w = w
	go f.consume()
	return f
}

// take reports whether a relevant change came since the last take.
func (f *gcFeed) take() bool { return f.changed.Swap(false) }

// ended reports whether the feed's watch has ended: changes may have been
// missed since.
func (f *gcFeed) ended() bool {
	select {
	case <-f.done:
		return true
	default:
		return false
	}
}

// stop ends the watch and waits for its reader.
func (f *gcFeed) stop() {
	if f.w != nil {
		f.w.Stop()
	}
	<-f.done
}

// consume reads the changes of the watch until it ends.
func (f *gcFeed) consume() {
	defer close(f.done)
	for ev := range f.w.ResultChan() {
		switch ev.Type {
		case registry.WatchError:
			return
		case registry.Bookmark:
		default:
			mentions := mentionsGC(ev.Object)
			f.cands.track(ev, mentions)
			if !f.changed.Load() && f.gc.relevant(ev, mentions) {
				f.changed.Store(true)
			}
		}
	}
}
