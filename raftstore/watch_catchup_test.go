package raftstore_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/raftapi/raftapi/raftstore"
	"github.com/raftapi/raftapi/raftstore/storetest"
)

// catchUpBuffer is the WatchBuffer of the catch-up tests: small, so that
// a watch that is not read falls behind after a few writes.
const catchUpBuffer = 4

// A watch whose reader falls behind is not cut off: once read again it
// delivers every change, in order, from where the hub stopped queueing
// for it, and then goes on with live events. It catches up from the
// node's recent events when they hold what it missed, and from the
// history in the state file when they do not.
func TestWatchThatFallsBehindCatchesUp(t *testing.T) {
	for name, recent := range map[string]int{"recent events": 0, "state file": -1, "state file, then recent events": 64} {
		t.Run(name, func(t *testing.T) {
			testWatchThatFallsBehindCatchesUp(t, func(cfg *raftstore.Config) {
				cfg.WatchBuffer = catchUpBuffer
				cfg.WatchRecentEvents = recent
			})
		})
	}
}

func testWatchThatFallsBehindCatchesUp(t *testing.T, configure func(*raftstore.Config)) {
	c := storetest.NewCluster(t, 3, configure)
	ctx := faultStepContext(t, 2*time.Minute)
	leader, follower := c.Leader(), c.Follower()
	counts := &countingObserver{}
	follower.SetObserver(counts)
	w, err := follower.Watch(ctx, "/catchup/", raftstore.WatchOptions{Recursive: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	var want []raftstore.Object
	write := func(n int) {
		for range n {
			o, err := leader.Create(ctx, fmt.Sprintf("/catchup/k%04d", len(want)), faultObject("k", 100))
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, o)
		}
	}
	// Far more than the queue and the reader's channel hold, written
	// while nothing reads.
	write(200)
	checkWatchDelivers(t, w, want)
	if counts.catchUps.Load() == 0 {
		t.Fatal("the watch delivered every event without falling behind: the test did not exercise a catch-up")
	}
	// Live again: later writes arrive as they commit.
	before := len(want)
	write(10)
	checkWatchDelivers(t, w, want[before:])
}

// A watch that falls behind while the history it needs is compacted ends
// with ErrCodeExpired, as a watch from a compacted revision does, after
// the events it had queued before the gap.
func TestWatchThatFallsBehindPastCompactionExpires(t *testing.T) {
	c := storetest.NewCluster(t, 1, func(cfg *raftstore.Config) { cfg.WatchBuffer = catchUpBuffer })
	ctx := faultStepContext(t, 2*time.Minute)
	s := c.Leader()
	sent := &countingObserver{}
	s.SetObserver(sent)
	w, err := s.Watch(ctx, "/expire/", raftstore.WatchOptions{Recursive: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	var last raftstore.Object
	create := func(from, to int) {
		for i := from; i < to; i++ {
			if last, err = s.Create(ctx, fmt.Sprintf("/expire/k%04d", i), faultObject("k", 10)); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The watch fills its reader's channel and then blocks on it, having
	// read at most one chunk of the history after that: the writes that
	// follow are more than a chunk and its queue hold, so it needs the
	// history of some of them after they are compacted.
	create(0, 100)
	faultEventually(t, time.Minute, "the watch's channel filled", func() error {
		if n := sent.events.Load(); n != raftstore.OutBuffer {
			return fmt.Errorf("%d events handed to the reader, want %d", n, raftstore.OutBuffer)
		}
		return nil
	})
	total := 100 + raftstore.ReplayChunk + 2*catchUpBuffer
	create(100, total)
	if err := s.Compact(ctx, last.Rev); err != nil {
		t.Fatal(err)
	}
	// Reads see the compaction once the state machine has committed it.
	faultEventually(t, time.Minute, "the compaction seen by reads", func() error {
		_, err := s.Get(ctx, "/expire/k0000", raftstore.ReadOptions{Consistency: raftstore.Exact, Revision: last.Rev - 1})
		if raftstore.IsExpired(err) {
			return nil
		}
		return fmt.Errorf("read below the compaction: %v", err)
	})
	var got int
	for ev := range w.ResultChan() {
		if ev.Type == raftstore.WatchError {
			if !raftstore.IsExpired(ev.Err) {
				t.Fatalf("watch ended with %v, want an expired error", ev.Err)
			}
			if got >= total {
				t.Fatalf("all %d events before the error, want fewer", got)
			}
			return
		}
		if want := fmt.Sprintf("/expire/k%04d", got); ev.Key != want {
			t.Fatalf("event %d is %s, want %s", got, ev.Key, want)
		}
		got++
	}
	t.Fatalf("watch closed after %d events without an expired error", got)
}

// countingObserver counts the watch events a store hands to readers and
// its watches' catch-ups.
type countingObserver struct{ events, catchUps atomic.Int64 }

func (o *countingObserver) WriteDone(string, time.Duration, error) {}
func (o *countingObserver) WatchEventSent()                        { o.events.Add(1) }
func (o *countingObserver) WatchCaughtUp()                         { o.catchUps.Add(1) }

// checkWatchDelivers fails unless the next changes of w are the creates
// want, in order, each with the object the write stored.
func checkWatchDelivers(t *testing.T, w *raftstore.Watch, want []raftstore.Object) {
	t.Helper()
	for i, o := range want {
		ev := nextWatchEvent(t, w)
		if ev.Type != raftstore.Added || ev.Key != o.Key || ev.Rev != o.Rev || string(ev.Object) != string(o.Data) {
			t.Fatalf("event %d: %v %s at %d (%v), want ADDED %s at %d", i, ev.Type, ev.Key, ev.Rev, ev.Err, o.Key, o.Rev)
		}
	}
}

// nextWatchEvent returns w's next event that is not a bookmark, failing
// if the watch ends or nothing comes within a minute.
func nextWatchEvent(t *testing.T, w *raftstore.Watch) raftstore.WatchEvent {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatal("watch closed")
			}
			if ev.Type != raftstore.Bookmark {
				return ev
			}
		case <-ctx.Done():
			t.Fatal("no watch event within a minute")
		}
	}
}
