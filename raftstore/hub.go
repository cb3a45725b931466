package raftstore

import (
	"sync"

	"github.com/raftapi/raftapi/fsm"
)

// hub fans committed events out to watchers. It is the FSM's listener (via
// Store): Committed runs on the apply path, so it only offers each event to
// each interested watcher's bounded queue and never waits. A watcher whose
// queue is full falls behind, as etcd's slow watchers do: it is offered
// nothing more until it has delivered its queue and read the events it
// missed from the history (Watch.catchUp), then it rejoins. The latest
// events offered stay in recent, where such a watch finds them first.
type hub struct {
	mu       sync.Mutex
	watchers map[*Watch]struct{}
	// behind are the open watchers that are not offered events.
	behind    map[*Watch]struct{}
	published uint64 // applied index of the last batch offered
	recent    *recentEvents
}

// newHub returns a hub that keeps the latest recent events it offered.
func newHub(applied uint64, recent int) *hub {
	return &hub{watchers: map[*Watch]struct{}{}, behind: map[*Watch]struct{}{}, published: applied,
		recent: newRecentEvents(recent, applied)}
}

// committed offers a batch to every watcher.
func (h *hub) committed(applied uint64, events []fsm.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for i := range events {
		e := &events[i]
		h.recent.add(e)
		for w := range h.watchers {
			if w.interested(e.Key) && !w.offer(item{event: e}) {
				h.fallBehindLocked(w)
			}
		}
	}
	h.published = applied
}

// restored ends every watch: their history no longer exists.
func (h *hub) restored(applied uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.endAllLocked(&Error{Code: ErrCodeExpired, Msg: "state restored from a snapshot; watch again"})
	h.published = applied
	h.recent.reset(applied)
}

// recentAfter returns the events offered after rev, oldest first, and the
// applied index they reach: every event after rev up to it. ok is false
// when the hub no longer holds all of them.
func (h *hub) recentAfter(rev uint64) (events []*fsm.Event, upTo uint64, ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	events, ok = h.recent.after(rev)
	return events, h.published, ok
}

// endAll ends every watch with reason as its last event.
func (h *hub) endAll(reason error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.endAllLocked(reason)
}

func (h *hub) endAllLocked(reason error) {
	for w := range h.watchers {
		h.removeLocked(w, reason)
	}
	for w := range h.behind {
		h.removeLocked(w, reason)
	}
}

// fallBehindLocked stops offering events to w, whose queue is full, and
// tells it so.
func (h *hub) fallBehindLocked(w *Watch) {
	delete(h.watchers, w)
	h.behind[w] = struct{}{}
	select {
	case w.lagged <- struct{}{}:
	default:
	}
}

// rejoin offers events to w again, which fell behind: every event
// committed from now on. false: w has ended.
func (h *hub) rejoin(w *Watch) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.behind[w]; !ok {
		return false
	}
	delete(h.behind, w)
	h.watchers[w] = struct{}{}
	return true
}

// add registers w and returns the applied index it starts after: every
// event committed after it will be offered to w.
func (h *hub) add(w *Watch) uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.watchers[w] = struct{}{}
	return h.published
}

func (h *hub) remove(w *Watch) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.removeLocked(w, nil)
}

// removeLocked closes w's queue, recording why (nil: stopped).
func (h *hub) removeLocked(w *Watch, reason error) {
	_, live := h.watchers[w]
	_, behind := h.behind[w]
	if !live && !behind {
		return
	}
	delete(h.watchers, w)
	delete(h.behind, w)
	w.closeReason = reason
	close(w.queue)
}

// progress queues a bookmark at the published index for w. Queued behind
// every event up to that index, it can never run ahead of them.
func (h *hub) progress(w *Watch) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.watchers[w]; ok && !w.offer(item{bookmark: h.published}) {
		h.fallBehindLocked(w)
	}
}

// count returns the number of open watchers.
func (h *hub) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.watchers) + len(h.behind)
}
