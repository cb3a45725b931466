package registrytest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/raftapi/raftapi/api/registry"
	"github.com/raftapi/raftapi/raftstore"
)

// writeAll writes to /w/a and /w/b and an unrelated key and returns the
// changes a recursive watch of /w/ sees.
func writeAll(t *testing.T, s *Storage) []change {
	t.Helper()
	a1 := mustCreate(t, s, "/w/a", object("a", "u", "v1"))
	mustCreate(t, s, "/x", object("x", "u", "v1"))
	b1 := mustCreate(t, s, "/w/b", object("b", "u", "v1"))
	a2 := mustUpdate(t, s, "/w/a", object("a", "u", "v2"))
	del := mustDelete(t, s, "/w/b")
	return []change{
		{raftstore.Added, "/w/a", a1.Rev, string(a1.Data), ""},
		{raftstore.Added, "/w/b", b1.Rev, string(b1.Data), ""},
		{raftstore.Modified, "/w/a", a2.Rev, string(a2.Data), string(a1.Data)},
		{raftstore.Deleted, "/w/b", del.Rev, string(del.Data), string(b1.Data)},
	}
}

func TestWatchFromNow(t *testing.T) {
	s := New()
	mustCreate(t, s, "/w/old", object("old", "u", "v1")) // before the watch: not sent
	rec := mustWatch(t, s, "/w/", registry.WatchOptions{Recursive: true})
	one := mustWatch(t, s, "/w/a", registry.WatchOptions{})
	notRec := mustWatch(t, s, "/w/", registry.WatchOptions{})
	want := writeAll(t, s)
	checkChanges(t, "recursive watch", collect(t, rec, len(want)), want)
	checkChanges(t, "watch of one key", collect(t, one, 2), []change{want[0], want[2]})
	expectIdle(t, rec, s.Revision())
	expectIdle(t, one, s.Revision())
	expectIdle(t, notRec, s.Revision()) // the exact key "/w/" never changed
}

func TestWatchReplay(t *testing.T) {
	for after := uint64(1); after <= 5; after++ {
		t.Run(fmt.Sprintf("After%d", after), func(t *testing.T) {
			s := New()
			var want []change
			for _, c := range writeAll(t, s) {
				if c.Rev > after {
					want = append(want, c)
				}
			}
			w := mustWatch(t, s, "/w/", registry.WatchOptions{Recursive: true, Revision: after})
			checkChanges(t, "replay", collect(t, w, len(want)), want)
			live := mustCreate(t, s, "/w/live", object("l", "u", "v"))
			checkChanges(t, "live after replay", collect(t, w, 1),
				[]change{{raftstore.Added, live.Key, live.Rev, string(live.Data), ""}})
			expectIdle(t, w, s.Revision())
		})
	}
}

func TestWatchFromFutureRevision(t *testing.T) {
	s := New()
	mustCreate(t, s, "/a", object("a", "u", "v1"))
	w := mustWatch(t, s, "/", registry.WatchOptions{Recursive: true, Revision: 3})
	mustUpdate(t, s, "/a", object("a", "u", "v2")) // 2
	mustUpdate(t, s, "/a", object("a", "u", "v3")) // 3
	o := mustUpdate(t, s, "/a", object("a", "u", "v4"))
	ev := nextEvent(t, w)
	if ev.Type != raftstore.Modified || ev.Rev != o.Rev {
		t.Errorf("first event of a watch from 3: %v at %d, want Modified at %d", ev.Type, ev.Rev, o.Rev)
	}
}

// TestWatchPredicate mirrors storetest.RunTestWatchPredicate: live and
// replayed, an object that starts matching yields Added, one that keeps
// matching Modified, one that stops matching Deleted carrying its last
// matching state at the change's revision; non-matching changes yield
// nothing.
func TestWatchPredicate(t *testing.T) {
	s := New()
	pred := valuePredicate("match")
	base := mustCreate(t, s, "/other", object("o", "u", "match")).Rev
	live := mustWatch(t, s, "/p/", registry.WatchOptions{Recursive: true, Predicate: pred})
	var want []change
	expect := func(typ raftstore.WatchEventType, o Object, prev Object) {
		want = append(want, change{typ, o.Key, o.Rev, string(o.Data), string(prev.Data)})
	}
	k1 := mustCreate(t, s, "/p/k1", object("k1", "u1", "no")) // never matched: nothing
	up := mustUpdate(t, s, "/p/k1", object("k1", "u1", "match"))
	expect(raftstore.Added, up, k1) // starts matching
	kept := mustUpdate(t, s, "/p/k1", object("k1", "u2", "match"))
	expect(raftstore.Modified, kept, up) // keeps matching
	left := mustUpdate(t, s, "/p/k1", object("k1", "u2", "no"))
	last, err := raftstore.StampResourceVersion(kept.Data, left.Rev)
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, change{raftstore.Deleted, left.Key, left.Rev, string(last), string(kept.Data)}) // stops matching
	still := mustUpdate(t, s, "/p/k1", object("k1", "u3", "no"))                                        // nothing
	again := mustUpdate(t, s, "/p/k1", object("k1", "u3", "match"))
	expect(raftstore.Added, again, still)
	expect(raftstore.Deleted, mustDelete(t, s, "/p/k1"), again) // deleted while matching
	mustCreate(t, s, "/p/k2", object("k2", "u", "no"))          // created not matching: nothing
	mustDelete(t, s, "/p/k2")                                   // deleted not matching: nothing
	expect(raftstore.Added, mustCreate(t, s, "/p/k3", object("k3", "u", "match")), Object{})

	for name, w := range map[string]registry.Watcher{
		"live":     live,
		"replayed": mustWatch(t, s, "/p/", registry.WatchOptions{Recursive: true, Predicate: pred, Revision: base}),
	} {
		checkChanges(t, name, collect(t, w, len(want)), want)
		expectIdle(t, w, s.Revision())
	}
}

func TestWatchBookmark(t *testing.T) {
	s := New()
	empty := mustWatch(t, s, "/", registry.WatchOptions{Recursive: true})
	expectIdle(t, empty, 0)

	w := mustWatch(t, s, "/w/", registry.WatchOptions{Recursive: true})
	want := writeAll(t, s) // ends with a write to /w/: the bookmark follows it
	w.RequestProgress()
	evs := collect(t, w, len(want)+1)
	checkChanges(t, "events before the bookmark", evs[:len(want)], want)
	if bm := evs[len(want)]; bm.Type != raftstore.Bookmark || bm.Rev != s.Revision() || bm.Key != "" || bm.Object != nil {
		t.Errorf("after the events: %+v, want a bare bookmark at %d", bm, s.Revision())
	}

	other := mustCreate(t, s, "/x2", object("x", "u", "v")) // not watched
	expectIdle(t, w, other.Rev)
}

func TestWatchBookmarkBehindReplay(t *testing.T) {
	s := New()
	want := writeAll(t, s)
	w := mustWatch(t, s, "/w/", registry.WatchOptions{Recursive: true, Revision: 1})
	w.RequestProgress()
	evs := collect(t, w, len(want))
	checkChanges(t, "replay before the bookmark", evs[:len(want)-1], want[1:])
	if bm := evs[len(want)-1]; bm.Type != raftstore.Bookmark || bm.Rev != s.Revision() {
		t.Errorf("after the replay: %v at %d, want a bookmark at %d", bm.Type, bm.Rev, s.Revision())
	}
}

func TestWatchExpired(t *testing.T) {
	s := New()
	writeAll(t, s)
	if err := s.Compact(context.Background(), 3); err != nil {
		t.Fatal(err)
	}
	for _, rev := range []uint64{1, 2} {
		w := mustWatch(t, s, "/w/", registry.WatchOptions{Recursive: true, Revision: rev})
		ev := nextEvent(t, w)
		if ev.Type != raftstore.WatchError || ev.Rev != rev {
			t.Fatalf("watch from %d: %v at %d, want a WatchError at %d", rev, ev.Type, ev.Rev, rev)
		}
		checkError(t, "watch error", ev.Err, raftstore.ErrCodeExpired, "", rev)
		expectClosed(t, w)
	}
	w := mustWatch(t, s, "/w/", registry.WatchOptions{Recursive: true, Revision: 3})
	if ev := nextEvent(t, w); ev.Type != raftstore.Modified || ev.Rev != 4 {
		t.Errorf("watch from the boundary: %v at %d, want Modified at 4", ev.Type, ev.Rev)
	}
}

func TestWatchStop(t *testing.T) {
	s := New()
	w := mustWatch(t, s, "/", registry.WatchOptions{Recursive: true})
	mustCreate(t, s, "/a", object("a", "u", "v")) // pending, never read
	w.Stop()
	w.Stop()
	drainClosed(t, w)
	mustCreate(t, s, "/b", object("b", "u", "v")) // a stopped watch is gone
	w.RequestProgress()
}

func TestWatchContextEnds(t *testing.T) {
	s := New()
	ctx, cancel := context.WithCancel(context.Background())
	w, err := s.Watch(ctx, "/", registry.WatchOptions{Recursive: true})
	if err != nil {
		t.Fatal(err)
	}
	mustCreate(t, s, "/a", object("a", "u", "v"))
	cancel()
	drainClosed(t, w)
	mustCreate(t, s, "/b", object("b", "u", "v"))
}

// drainClosed fails unless w's channel closes after at most the events
// already pending.
func drainClosed(t testing.TB, w registry.Watcher) {
	t.Helper()
	timeout := time.After(deadline)
	for {
		select {
		case _, ok := <-w.ResultChan():
			if !ok {
				return
			}
		case <-timeout:
			t.Fatalf("watch channel still open after %v", deadline)
		}
	}
}

func TestWatchDoesNotBlockWriters(t *testing.T) {
	s := New()
	w := mustWatch(t, s, "/", registry.WatchOptions{Recursive: true}) // not read while writing
	const writes = 2000
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range writes {
			if _, err := s.Create(context.Background(), fmt.Sprintf("/k%05d", i), object("k", "u", "v")); err != nil {
				t.Errorf("create: %v", err)
				return
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(deadline):
		t.Fatalf("%d writes did not finish while a watcher was not read", writes)
	}
	evs := collect(t, w, writes)
	for i, ev := range evs {
		if ev.Rev != uint64(i+1) {
			t.Fatalf("event %d at %d, want %d", i, ev.Rev, i+1)
		}
	}
	expectIdle(t, w, writes)
}

func TestWatchBufferCutsOff(t *testing.T) {
	s := NewWithOptions(Options{WatchBuffer: 2})
	w := mustWatch(t, s, "/", registry.WatchOptions{Recursive: true})
	var revs []uint64
	for i := range 5 {
		revs = append(revs, mustCreate(t, s, fmt.Sprintf("/k%d", i), object("k", "u", "v")).Rev)
	}
	// The watcher's goroutine may hold one item beyond the two queued.
	var got []uint64
	for ev := range w.ResultChan() {
		if ev.Type == raftstore.WatchError {
			t.Fatalf("a cut-off watch ended with an error: %v", ev.Err)
		}
		got = append(got, ev.Rev)
	}
	if len(got) < 2 || len(got) > 3 || fmt.Sprint(got) != fmt.Sprint(revs[:len(got)]) {
		t.Errorf("a watch cut off after 2 queued items delivered %v, want the first 2 or 3 of %v", got, revs)
	}
}

func TestWatchBufferIgnoresReplay(t *testing.T) {
	s := NewWithOptions(Options{WatchBuffer: 2})
	for i := range 4 {
		mustCreate(t, s, fmt.Sprintf("/old%d", i), object("o", "u", "v"))
	}
	w := mustWatch(t, s, "/", registry.WatchOptions{Recursive: true, Revision: 1})
	live := mustCreate(t, s, "/new", object("n", "u", "v"))
	evs := collect(t, w, 4)
	if evs[3].Rev != live.Rev {
		t.Errorf("after replaying 3 changes: event at %d, want the live one at %d", evs[3].Rev, live.Rev)
	}
	expectIdle(t, w, live.Rev)
}
