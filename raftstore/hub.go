package raftstore

import (
	"sync"

	"github.com/raftapi/raftapi/fsm"
)

// hub fans committed events out to watchers. It is the FSM's listener (via
// Store): Committed runs on the apply path, so it only offers each event to
// each interested watcher's bounded queue and never waits; a watcher whose
// queue is full is cut off.
type hub struct {
	mu        sync.Mutex
	watchers  map[*Watch]struct{}
	published uint64 // applied index of the last batch offered
}

func newHub(applied uint64) *hub {
	return &hub{watchers: map[*Watch]struct{}{}, published: applied}
}

// committed offers a batch to every watcher.
func (h *hub) committed(applied uint64, events []fsm.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for i := range events {
		e := &events[i]
		for w := range h.watchers {
			if w.interested(e.Key) && !w.offer(item{event: e}) {
				h.removeLocked(w, nil)
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

// removeLocked closes w's queue, recording why (nil: cut off or stopped).
func (h *hub) removeLocked(w *Watch, reason error) {
	if _, ok := h.watchers[w]; !ok {
		return
	}
	delete(h.watchers, w)
	w.closeReason = reason
	close(w.queue)
}

// progress queues a bookmark at the published index for w. Queued behind
// every event up to that index, it can never run ahead of them.
func (h *hub) progress(w *Watch) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.watchers[w]; ok && !w.offer(item{bookmark: h.published}) {
		h.removeLocked(w, nil)
	}
}

// count returns the number of open watchers.
func (h *hub) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.watchers)
}
