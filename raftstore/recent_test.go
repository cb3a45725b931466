package raftstore

import (
	"slices"
	"testing"

	"github.com/raftapi/raftapi/fsm"
)

// revsOf returns the revisions of events.
func revsOf(events []*fsm.Event) []uint64 {
	revs := make([]uint64, len(events))
	for i, e := range events {
		revs[i] = e.Rev
	}
	return revs
}

// The recent events answer for every revision from the oldest one they
// still hold all events after, and refuse below it: revisions without an
// event (entries that changed nothing) leave no gap they could hide.
func TestRecentEventsAfter(t *testing.T) {
	r := newRecentEvents(3, 10)
	for _, rev := range []uint64{12, 13, 15, 16} {
		r.add(&fsm.Event{Rev: rev})
	}
	// 12 was dropped to hold 16: 12 is the floor.
	for _, tc := range []struct {
		after uint64
		want  []uint64
		ok    bool
	}{
		{after: 10, ok: false},
		{after: 11, ok: false},
		{after: 12, want: []uint64{13, 15, 16}, ok: true},
		{after: 13, want: []uint64{15, 16}, ok: true},
		{after: 14, want: []uint64{15, 16}, ok: true},
		{after: 16, want: []uint64{}, ok: true},
		{after: 20, want: []uint64{}, ok: true},
	} {
		got, ok := r.after(tc.after)
		if ok != tc.ok || (ok && !slices.Equal(revsOf(got), tc.want)) {
			t.Errorf("after(%d) = %v, %v; want %v, %v", tc.after, revsOf(got), ok, tc.want, tc.ok)
		}
	}
}

// Before it fills, the ring holds every event after the applied index it
// started at.
func TestRecentEventsFromStart(t *testing.T) {
	r := newRecentEvents(8, 5)
	r.add(&fsm.Event{Rev: 7})
	r.add(&fsm.Event{Rev: 9})
	if got, ok := r.after(5); !ok || !slices.Equal(revsOf(got), []uint64{7, 9}) {
		t.Fatalf("after(5) = %v, %v; want [7 9], true", revsOf(got), ok)
	}
	if _, ok := r.after(4); ok {
		t.Fatal("after(4) answered for a revision before the ring started")
	}
}

// A ring of no events holds nothing but still knows that no event came
// after the newest one it saw.
func TestRecentEventsEmptyRing(t *testing.T) {
	r := newRecentEvents(0, 5)
	r.add(&fsm.Event{Rev: 8})
	if _, ok := r.after(7); ok {
		t.Fatal("after(7) answered with no event held")
	}
	if got, ok := r.after(8); !ok || len(got) != 0 {
		t.Fatalf("after(8) = %v, %v; want [], true", revsOf(got), ok)
	}
}

// After a restore the events held belong to a history that is gone.
func TestRecentEventsReset(t *testing.T) {
	r := newRecentEvents(4, 0)
	for rev := uint64(1); rev <= 6; rev++ {
		r.add(&fsm.Event{Rev: rev})
	}
	r.reset(100)
	if _, ok := r.after(50); ok {
		t.Fatal("after(50) answered after a reset to 100")
	}
	r.add(&fsm.Event{Rev: 101})
	if got, ok := r.after(100); !ok || !slices.Equal(revsOf(got), []uint64{101}) {
		t.Fatalf("after(100) = %v, %v; want [101], true", revsOf(got), ok)
	}
}
