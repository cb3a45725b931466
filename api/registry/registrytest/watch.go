package registrytest

import (
	"context"
	"strings"
	"sync"

	"github.com/raftapi/raftapi/api/registry"
	"github.com/raftapi/raftapi/raftstore"
)

// itemKind tells the entries of a watcher's queue apart.
type itemKind uint8

const (
	changeItem   itemKind = iota // a committed change
	bookmarkItem                 // a bookmark request
	endItem                      // the end of the watch; nothing follows
)

// item is one entry of a watcher's queue.
type item struct {
	kind  itemKind
	event *event // changeItem
	rev   uint64 // bookmarkItem: the revision; endItem: the WatchError's
	err   error  // endItem: sent as a WatchError when non-nil
}

// watcher is one open watch. Writers append to its queue under s.mu and
// never wait; its goroutine moves the queue to out at the reader's pace.
type watcher struct {
	s         *Storage
	key       string
	recursive bool
	pred      registry.Predicate

	queue     []item // guarded by s.mu
	replaying int    // guarded by s.mu: queued history items, not counted by WatchBuffer
	wake      chan struct{}
	out       chan registry.WatchEvent
	stop      chan struct{}
	stopOnce  sync.Once
	last      uint64 // run's own: revision of the last change seen
}

// Watch streams the changes of key (every key under it when
// opts.Recursive) after opts.Revision (0: after the current revision),
// replaying the history first. A revision below the compaction boundary
// yields a single Expired WatchError before the channel closes.
func (s *Storage) Watch(ctx context.Context, key string, opts registry.WatchOptions) (registry.Watcher, error) {
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	w := &watcher{
		s: s, key: key, recursive: opts.Recursive, pred: opts.Predicate,
		wake: make(chan struct{}, 1), out: make(chan registry.WatchEvent), stop: make(chan struct{}),
	}
	w.last = opts.Revision
	if w.last == 0 {
		w.last = s.rev
	}
	if opts.Revision != 0 && opts.Revision < s.compacted {
		w.queue = []item{{kind: endItem, rev: w.last, err: expired(w.last)}}
	} else {
		s.replayLocked(w)
	}
	go w.run(ctx)
	return w, nil
}

// replayLocked registers w and queues the history after w.last: every
// later change is offered to w by publishLocked, under the same lock.
func (s *Storage) replayLocked(w *watcher) {
	s.watchers[w] = struct{}{}
	for i := s.firstAfterLocked(w.last); i < len(s.history); i++ {
		if w.interested(s.history[i].Key) {
			w.queue = append(w.queue, item{kind: changeItem, event: &s.history[i]})
		}
	}
	w.replaying = len(w.queue)
}

// publishLocked offers a committed change to every interested watcher.
func (s *Storage) publishLocked(e *event) {
	for w := range s.watchers {
		if w.interested(e.Key) {
			s.offerLocked(w, item{kind: changeItem, event: e})
		}
	}
}

// offerLocked queues it for w, or cuts w off when it lags WatchBuffer
// items behind: its channel closes after the items before the gap.
func (s *Storage) offerLocked(w *watcher, it item) {
	if n := s.opts.WatchBuffer; n > 0 && len(w.queue)-w.replaying >= n {
		s.endLocked(w, item{kind: endItem})
		return
	}
	w.queue = append(w.queue, it)
	w.signal()
}

// endLocked unregisters w and queues its last item.
func (s *Storage) endLocked(w *watcher, last item) {
	if _, ok := s.watchers[w]; !ok {
		return
	}
	delete(s.watchers, w)
	w.queue = append(w.queue, last)
	w.signal()
}

// ResultChan returns the event channel.
func (w *watcher) ResultChan() <-chan registry.WatchEvent { return w.out }

// Stop ends the watch; ResultChan closes soon after. Safe to call twice.
func (w *watcher) Stop() {
	w.stopOnce.Do(func() {
		close(w.stop)
		w.s.mu.Lock()
		delete(w.s.watchers, w)
		w.s.mu.Unlock()
	})
}

// RequestProgress asks for a Bookmark at the current revision, queued
// behind every change up to it.
func (w *watcher) RequestProgress() {
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	if _, ok := w.s.watchers[w]; ok {
		w.s.offerLocked(w, item{kind: bookmarkItem, rev: w.s.rev})
	}
}

func (w *watcher) interested(key string) bool {
	if w.recursive {
		return strings.HasPrefix(key, w.key)
	}
	return key == w.key
}

// signal wakes run without blocking.
func (w *watcher) signal() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *watcher) run(ctx context.Context) {
	defer close(w.out)
	defer w.Stop()
	for {
		it, ok := w.next(ctx)
		if !ok || !w.deliver(ctx, it) {
			return
		}
	}
}

// next waits for the next queued item; false when the watch is stopped or
// its context ends first.
func (w *watcher) next(ctx context.Context) (item, bool) {
	for {
		if it, ok := w.pop(); ok {
			return it, true
		}
		select {
		case <-w.wake:
		case <-ctx.Done():
			return item{}, false
		case <-w.stop:
			return item{}, false
		}
	}
}

func (w *watcher) pop() (item, bool) {
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	if len(w.queue) == 0 {
		return item{}, false
	}
	it := w.queue[0]
	w.queue[0] = item{}
	w.queue = w.queue[1:]
	w.replaying = max(w.replaying-1, 0)
	return it, true
}

// deliver sends the event an item makes; false ends the watch.
func (w *watcher) deliver(ctx context.Context, it item) bool {
	switch it.kind {
	case bookmarkItem:
		return w.send(ctx, registry.WatchEvent{Type: raftstore.Bookmark, Rev: max(it.rev, w.last)})
	case endItem:
		if it.err != nil {
			w.send(ctx, registry.WatchEvent{Type: raftstore.WatchError, Rev: it.rev, Err: it.err})
		}
		return false
	}
	if it.event.Rev <= w.last {
		return true
	}
	return w.emit(ctx, it.event)
}

// emit turns a change into the event the predicate makes of it, if any,
// and sends it, as raftstore's Watch.emit does.
func (w *watcher) emit(ctx context.Context, e *event) bool {
	w.last = e.Rev
	typ, ok := w.transition(e)
	if !ok {
		return true
	}
	obj := e.Object
	if typ == raftstore.Deleted && e.Type == updated {
		// The object left the predicate: send its last matching state at
		// the change's revision.
		if stamped, err := raftstore.StampResourceVersion(e.Prev, e.Rev); err == nil {
			obj = stamped
		}
	}
	return w.send(ctx, registry.WatchEvent{Type: typ, Key: e.Key, Rev: e.Rev, Object: obj, Prev: e.Prev})
}

// transition is raftstore's: Added when the object starts matching,
// Modified while it keeps matching, Deleted when it stops; nothing when it
// matches neither before nor after.
func (w *watcher) transition(e *event) (raftstore.WatchEventType, bool) {
	switch e.Type {
	case created:
		return raftstore.Added, w.matches(e.Object)
	case deleted:
		return raftstore.Deleted, w.matches(e.Prev)
	}
	was, is := w.matches(e.Prev), w.matches(e.Object)
	switch {
	case was && is:
		return raftstore.Modified, true
	case is:
		return raftstore.Added, true
	case was:
		return raftstore.Deleted, true
	}
	return 0, false
}

func (w *watcher) matches(obj []byte) bool { return w.pred == nil || w.pred(obj) }

func (w *watcher) send(ctx context.Context, ev registry.WatchEvent) bool {
	select {
	case w.out <- ev:
		return true
	case <-w.stop:
		return false
	case <-ctx.Done():
		return false
	}
}
