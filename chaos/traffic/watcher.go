package traffic

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/raftapi/raftapi/chaos/history"
)

// watcher is one watch client. It follows one resource of the namespace
// from its first state to the end of the run, resuming after every disconnect from the
// last resourceVersion it saw (on the next node), listing again only
// when that resourceVersion has expired (410). Each list and watch
// request of a resource served in several versions goes through a
// random one: a watch resumes in one version from a resourceVersion
// another gave.
type watcher struct {
	id    int
	mode  string // history.WatchPlain, WatchBookmarks or WatchInitialEvents
	res   Resource
	c     *Client
	rec   *history.Recorder
	nodes []string
	node  int
	rnd   *rand.Rand

	last    int64 // highest resourceVersion seen; 0 before the first state
	target  atomic.Int64
	stopped chan struct{}
}

// idle is how long a watch may stay silent before the watcher takes its
// node for dead and resumes elsewhere.
const idle = 10 * time.Second

// run follows the namespace until ctx ends or, after stop was asked for,
// the watcher has seen the target resourceVersion.
func (w *watcher) run(ctx context.Context) {
	for ctx.Err() == nil && !w.done() {
		if w.last == 0 && !w.start(ctx) {
			w.backoff(ctx)
			continue
		}
		code, err := w.followUntilStopped(ctx)
		if code == http.StatusGone {
			w.last = 0
		}
		if err != nil || code != http.StatusOK {
			w.backoff(ctx)
		}
	}
	w.record(history.WatchEvent{Watcher: w.id, Type: history.Stop, RV: w.target.Load(), Node: w.current()})
}

// followUntilStopped runs follow, cutting it short when the run asks
// the watcher to stop: the next follow then only catches up.
func (w *watcher) followUntilStopped(ctx context.Context) (int, error) {
	select {
	case <-w.stopped:
		return w.follow(ctx)
	default:
	}
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-w.stopped:
			cancel()
		case <-fctx.Done():
		}
	}()
	code, err := w.follow(fctx)
	if fctx.Err() != nil && ctx.Err() == nil {
		return http.StatusOK, nil // stopped: catch up without a pause
	}
	return code, err
}

// done reports whether the run asked the watcher to stop and it has seen
// everything up to the target.
func (w *watcher) done() bool {
	select {
	case <-w.stopped:
		return w.last >= w.target.Load()
	default:
		return false
	}
}

func (w *watcher) current() string { return w.nodes[w.node%len(w.nodes)] }

// backoff moves to the next node after a short pause.
func (w *watcher) backoff(ctx context.Context) {
	w.node++
	t := time.NewTimer(time.Duration(100+w.rnd.IntN(400)) * time.Millisecond)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// start gets the watcher's first state: a Most Recent list, or for an
// initial-events watcher nothing (its first watch sends the state).
func (w *watcher) start(ctx context.Context) bool {
	if w.mode == history.WatchInitialEvents {
		return true
	}
	op := w.c.List(ctx, history.Op{Node: w.current(), Resource: w.res.Name, Kind: history.List, Mode: history.MostRecent,
		Version: w.res.pickVersion(w.rnd.Float64())})
	if op.Outcome != history.OK {
		return false
	}
	w.record(history.WatchEvent{Watcher: w.id, Node: op.Node, Type: history.Relist, RV: op.ResultRV, Items: op.Items, Version: op.Version})
	w.last = op.ResultRV
	return true
}

// follow runs one watch request from w.last (or with initial events).
func (w *watcher) follow(ctx context.Context) (int, error) {
	initial := w.mode == history.WatchInitialEvents && w.last == 0
	version := w.res.pickVersion(w.rnd.Float64())
	p := watchParams{node: w.current(), res: w.res.In(version), rv: w.last, bookmarks: w.mode != history.WatchPlain, initial: initial,
		timeout: w.timeout()}
	w.record(history.WatchEvent{Watcher: w.id, Node: p.node, Type: history.Start, RV: w.last, Mode: w.mode, Version: version})
	inInitial := initial
	gone := false
	code, err := w.c.watch(ctx, p, idle, func(ev watchEvent) bool {
		e, ok, foreign := w.event(p.node, p.res, ev, inInitial)
		if !ok {
			return false
		}
		if foreign {
			return !w.done()
		}
		if e.Type == history.Error {
			gone = e.Code == http.StatusGone
			return false
		}
		inInitial = inInitial && !e.InitialEnd
		if e.IsChange() || e.Type == history.Bookmark {
			w.last = max(w.last, e.RV)
		}
		return !w.done()
	})
	if gone || (initial && inInitial && code == http.StatusOK) {
		return http.StatusGone, err // start over: relist, or initial events again
	}
	return code, err
}

// timeout is a random timeoutSeconds for the next watch: short for plain
// watchers, so the server ends their watches often and they resume;
// longer for the others, so their watches live past the server's
// bookmark interval (a minute).
func (w *watcher) timeout() time.Duration {
	if w.mode == history.WatchPlain {
		return time.Duration(20+w.rnd.IntN(40)) * time.Second
	}
	return time.Duration(90+w.rnd.IntN(90)) * time.Second
}

// event records one received event of a watch of res (w.res in the
// watch's version) and returns it; foreign is true, and nothing is
// recorded, for an event of an object the workload does not write (see
// Resource.Owns).
func (w *watcher) event(node string, res Resource, ev watchEvent, inInitial bool) (e history.WatchEvent, ok, foreign bool) {
	e = history.WatchEvent{Watcher: w.id, Node: node, Type: history.EventType(ev.Type)}
	if e.Type == history.Error {
		var st status
		_ = json.Unmarshal(ev.Object, &st)
		e.Code = st.Code
		w.record(e)
		return e, true, false
	}
	var o object
	if err := json.Unmarshal(ev.Object, &o); err != nil {
		return e, false, false
	}
	if e.Type != history.Bookmark && !w.res.Owns(o.Metadata.Name) {
		return e, true, true
	}
	it := o.item(res)
	e.Key, e.Value, e.RV = it.Key, it.Value, it.RV
	if e.Type == history.Bookmark {
		e.Key, e.Value = "", ""
		e.InitialEnd = inInitial && o.Metadata.Annotations[initialEventsEnd] == "true"
	}
	e.Initial = inInitial && e.Type == history.Added
	w.record(e)
	return e, true, false
}

// record records one of the watcher's events, stamped with its resource.
func (w *watcher) record(e history.WatchEvent) {
	e.Resource = w.res.Name
	w.rec.Event(e)
}
