package raftstore

import (
	"sort"

	"github.com/raftapi/raftapi/fsm"
)

// recentEvents keeps the latest events the hub offered, oldest first, in a
// ring of fixed size. A watch that starts a little in the past, or fell
// behind and catches up, takes the events it needs from here instead of
// decoding them out of the state file's history: with many watchers
// behind on one stream of writes, each reading and copying the same
// records itself spent most of a node's CPU. The events are the ones the
// watchers' queues share; nothing is copied.
//
// Every event with a revision above floor is held. recentEvents is not
// safe for concurrent use: the hub's lock guards it.
type recentEvents struct {
	ring  []*fsm.Event
	next  int    // where the next event goes
	n     int    // events held
	floor uint64 // every event after it is held
}

func newRecentEvents(size int, applied uint64) *recentEvents {
	return &recentEvents{ring: make([]*fsm.Event, size), floor: applied}
}

// add holds e, the newest event, and drops the oldest one when full.
func (r *recentEvents) add(e *fsm.Event) {
	if len(r.ring) == 0 {
		r.floor = e.Rev
		return
	}
	if r.n == len(r.ring) {
		r.floor = r.ring[r.next].Rev
	} else {
		r.n++
	}
	r.ring[r.next] = e
	r.next = (r.next + 1) % len(r.ring)
}

// at returns the i-th oldest event held.
func (r *recentEvents) at(i int) *fsm.Event {
	return r.ring[(r.next-r.n+i+len(r.ring))%len(r.ring)]
}

// after returns the events held with a revision above rev, oldest first.
// ok is false when some of them are no longer held.
func (r *recentEvents) after(rev uint64) (events []*fsm.Event, ok bool) {
	if rev < r.floor {
		return nil, false
	}
	first := sort.Search(r.n, func(i int) bool { return r.at(i).Rev > rev })
	events = make([]*fsm.Event, r.n-first)
	for i := range events {
		events[i] = r.at(first + i)
	}
	return events, true
}

// reset forgets every event: the history they belonged to was replaced by
// a state whose applied index is applied.
func (r *recentEvents) reset(applied uint64) {
	clear(r.ring)
	r.next, r.n, r.floor = 0, 0, applied
}
