package raftstore

import (
	"context"
	"strings"
	"sync"

	"github.com/raftapi/raftapi/fsm"
)

// item is one entry of a watcher's queue: a committed event, or a bookmark
// request at a revision.
type item struct {
	event    *fsm.Event
	bookmark uint64
}

// Watch is one open watch. Its events arrive on ResultChan in revision
// order, without gaps or duplicates; the channel closes when the watch ends
// (Stop, context cancelled, or after a WatchError event). A watch whose
// reader falls WatchBuffer events behind reads what it missed from the
// history and goes on; it ends with ErrCodeExpired only if the history it
// needs has been compacted meanwhile.
type Watch struct {
	store     *Store
	key       string
	recursive bool
	pred      Predicate

	queue       chan item     // filled by the hub, closed when it drops us
	closeReason error         // set by the hub before closing queue
	lagged      chan struct{} // signalled when the hub stops filling queue (see hub.fallBehindLocked)
	out         chan WatchEvent
	stop        chan struct{}
	stopOnce    sync.Once
	last        uint64 // revision of the last event or bookmark sent
}

// Watch streams the changes of key (every key under it when
// opts.Recursive) after opts.Revision. A revision below the compaction
// boundary yields a single WatchError event with ErrCodeExpired.
func (s *Store) Watch(ctx context.Context, key string, opts WatchOptions) (*Watch, error) {
	if s.closed.Load() {
		return nil, &Error{Code: ErrCodeUnavailable, Err: ErrClosed}
	}
	w := &Watch{
		store:     s,
		key:       key,
		recursive: opts.Recursive,
		pred:      opts.Predicate,
		queue:     make(chan item, s.cfg.WatchBuffer),
		lagged:    make(chan struct{}, 1),
		out:       make(chan WatchEvent, outBuffer),
		stop:      make(chan struct{}),
	}
	s.ownState()
	start := s.hub.add(w)
	from := opts.Revision
	replay := from != 0
	if !replay {
		// "From now" is after the applied index Revision reports, which
		// can be ahead of the hub's: the FSM stores it before it hands the
		// batch to the hub. Every event after it still reaches the queue,
		// and deliver skips the ones at or below it.
		from = max(start, s.fsm.Applied())
	}
	go w.run(ctx, from, replay)
	return w, nil
}

// outBuffer is how many events a watch hands its reader ahead: a reader
// that writes events to a connection takes several per wake-up.
const outBuffer = 32

// ResultChan returns the event channel.
func (w *Watch) ResultChan() <-chan WatchEvent { return w.out }

// Stop ends the watch; ResultChan closes soon after. Safe to call twice.
func (w *Watch) Stop() {
	w.stopOnce.Do(func() {
		close(w.stop)
		w.store.hub.remove(w)
	})
}

// RequestProgress asks for a Bookmark event at the node's applied index,
// sent after every event up to that index.
func (w *Watch) RequestProgress() { w.store.hub.progress(w) }

func (w *Watch) interested(key string) bool {
	if w.recursive {
		return strings.HasPrefix(key, w.key)
	}
	return key == w.key
}

// offer queues it without blocking; false means the queue is full.
func (w *Watch) offer(it item) bool {
	select {
	case w.queue <- it:
		return true
	default:
		return false
	}
}

func (w *Watch) run(ctx context.Context, from uint64, replay bool) {
	defer close(w.out)
	defer w.Stop()
	w.last = from
	if replay {
		if err := w.replay(from); err != nil {
			w.send(WatchEvent{Type: WatchError, Rev: from, Err: err})
			return
		}
	}
	for {
		select {
		case it, ok := <-w.queue:
			// What else is queued goes out without a select per item.
			if !w.take(it, ok) || !w.takeQueued(queuedBurst) {
				return
			}
		case <-w.lagged:
			if !w.catchUp() {
				return
			}
		case <-ctx.Done():
			return
		case <-w.stop:
			return
		}
	}
}

// take delivers an item received from the queue; ok false means the hub
// ended the watch, and the reason, if any, is sent as a WatchError.
func (w *Watch) take(it item, ok bool) bool {
	if !ok {
		if w.closeReason != nil {
			w.send(WatchEvent{Type: WatchError, Err: w.closeReason})
		}
		return false
	}
	return w.deliver(it)
}

// queuedBurst is how many queued items a watch delivers after one wake-up
// before it checks whether it was stopped.
const queuedBurst = 64

// takeQueued delivers up to n items already queued, without waiting.
func (w *Watch) takeQueued(n int) bool {
	for range n {
		select {
		case it, ok := <-w.queue:
			if !w.take(it, ok) {
				return false
			}
		default:
			return true
		}
	}
	return true
}

// catchUp brings a watch that fell behind up to date: it delivers what
// its queue holds (the events before the first one it missed), rejoins
// the hub and replays the history after its last event, as a watch from
// a revision starts. Whatever the hub queues from then on that the
// replay covered is skipped by deliver. A watch that falls behind during
// the replay is signalled again and catches up once more.
func (w *Watch) catchUp() bool {
	// The hub adds nothing while the watch is behind: this empties it.
	if !w.takeQueued(cap(w.queue)) {
		return false
	}
	if !w.store.hub.rejoin(w) {
		return true // ended: the closed queue says why
	}
	w.store.watchCaughtUp()
	if err := w.replay(w.last); err != nil {
		w.send(WatchEvent{Type: WatchError, Rev: w.last, Err: err})
		return false
	}
	return true
}

// deliver sends one queued item unless it was already covered by replay.
func (w *Watch) deliver(it item) bool {
	if it.event == nil {
		return w.send(WatchEvent{Type: Bookmark, Rev: max(it.bookmark, w.last)})
	}
	if it.event.Rev <= w.last {
		return true
	}
	return w.emit(it.event)
}

// emit turns a committed event into the watch event the predicate makes of
// it, if any, and sends it.
func (w *Watch) emit(e *fsm.Event) bool {
	w.last = e.Rev
	typ, ok := w.transition(e)
	if !ok {
		return true
	}
	obj := e.Object
	if typ == Deleted && e.Type == fsm.Updated {
		// The object left the predicate: like kube-apiserver's watch
		// cache, send its last matching state at the change's revision.
		if stamped, err := fsm.StampResourceVersion(e.Prev, e.Rev); err == nil {
			obj = stamped
		}
	}
	return w.send(WatchEvent{Type: typ, Key: e.Key, Rev: e.Rev, Object: obj, Prev: e.Prev})
}

func (w *Watch) transition(e *fsm.Event) (WatchEventType, bool) {
	switch e.Type {
	case fsm.Created:
		return Added, w.pred.matches(e.Object)
	case fsm.Deleted:
		return Deleted, w.pred.matches(e.Prev)
	}
	was, is := w.pred.matches(e.Prev), w.pred.matches(e.Object)
	switch {
	case was && is:
		return Modified, true
	case is:
		return Added, true
	case was:
		return Deleted, true
	}
	return 0, false
}

func (w *Watch) send(ev WatchEvent) bool {
	select {
	case w.out <- ev: // the reader's channel has room: no need to wait
	default:
		select {
		case w.out <- ev:
		case <-w.stop:
			return false
		}
	}
	w.store.watchEventSent(ev.Type)
	return true
}

const replayChunk = 512

// replay sends the retained history after from and leaves w.last at the
// index it covered: every later event comes through the queue. It takes
// the events from the hub's recent ones when they cover w.last, and
// otherwise reads them out of the state file (see replayFile).
func (w *Watch) replay(from uint64) error {
	// Below the compaction the history is gone: a watch from there
	// expires, on every node, even while the recent events hold it.
	if w.last >= w.store.fsm.Compacted() {
		if events, upTo, ok := w.store.hub.recentAfter(w.last); ok {
			w.replayRecent(events, upTo)
			return nil
		}
	}
	return w.replayFile(from)
}

// replayRecent sends the events of interest among events, which are all
// those after w.last up to upTo, and leaves w.last at upTo.
func (w *Watch) replayRecent(events []*fsm.Event, upTo uint64) {
	for _, e := range events {
		if w.interested(e.Key) && !w.emit(e) {
			return
		}
	}
	w.last = max(w.last, upTo)
}

// replayFile sends the history after w.last out of the state file,
// reading it in chunks so no read transaction stays open for long, and
// leaves w.last at the applied index of the last view.
func (w *Watch) replayFile(from uint64) error {
	for {
		var chunk []fsm.Event
		var applied uint64
		err := w.store.fsm.View(func(v *fsm.View) error {
			applied = v.Applied()
			return v.Events(w.last, func(e fsm.Event) bool {
				if w.interested(e.Key) {
					chunk = append(chunk, e)
				}
				return len(chunk) < replayChunk
			})
		})
		if err != nil {
			return w.store.viewError(err, from)
		}
		for i := range chunk {
			if !w.emit(&chunk[i]) {
				return nil
			}
		}
		if len(chunk) < replayChunk {
			w.last = max(w.last, applied)
			return nil
		}
	}
}
