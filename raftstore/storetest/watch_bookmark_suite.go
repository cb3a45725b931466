package storetest

import (
	"fmt"
	"sync"
	"testing"

	"github.com/raftapi/raftapi/raftstore"
)

// RunTestWatchBookmark checks Watch.RequestProgress: it yields a Bookmark
// whose revision is at least that of every event delivered before it (and
// of every write the node had applied), and no event at or below a
// bookmark's revision arrives after it, also while writes continue.
func RunTestWatchBookmark(t *testing.T, c *Cluster) {
	ctx := Context(t)
	a, b := twoNodes(t, c)

	t.Run("Idle", func(t *testing.T) {
		prefix := newPrefix(t)
		var last raftstore.Object
		for i := range 3 {
			last = mustCreate(ctx, t, a, fmt.Sprintf("%s%d", prefix, i), object("x", "u", "v"))
		}
		waitApplied(t, last.Rev, b)
		w := mustWatch(ctx, t, b, prefix, raftstore.WatchOptions{Recursive: true})
		w.RequestProgress()
		ev := nextEvent(t, w)
		if ev.Type != raftstore.Bookmark {
			t.Fatalf("first event of an idle watch after RequestProgress: %v, want a bookmark", ev.Type)
		}
		if ev.Rev < last.Rev {
			t.Errorf("bookmark at %d, but the node had applied %d", ev.Rev, last.Rev)
		}
	})

	t.Run("AfterEvents", func(t *testing.T) {
		prefix := newPrefix(t)
		w := mustWatch(ctx, t, b, prefix, raftstore.WatchOptions{Recursive: true})
		var last raftstore.Object
		for i := range 5 {
			last = mustCreate(ctx, t, a, fmt.Sprintf("%s%d", prefix, i), object("x", "u", "v"))
		}
		evs := collect(t, w, 5)
		w.RequestProgress()
		ev := nextEvent(t, w)
		if ev.Type != raftstore.Bookmark || ev.Rev < last.Rev || ev.Rev < evs[4].Rev {
			t.Fatalf("after events up to %d: %v at %d, want a bookmark at >= %d", evs[4].Rev, ev.Type, ev.Rev, last.Rev)
		}
		next := mustCreate(ctx, t, a, prefix+"next", object("x", "u", "v"))
		checkChanges(t, "after the bookmark", collect(t, w, 1), []change{{raftstore.Added, next.Key, next.Rev, next.Data}})
	})

	t.Run("WhileWriting", func(t *testing.T) {
		prefix := newPrefix(t)
		w := mustWatch(ctx, t, b, prefix, raftstore.WatchOptions{Recursive: true})
		const writes = 40
		var wg sync.WaitGroup
		defer wg.Wait() // also when a check below fails the test
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range writes {
				key := fmt.Sprintf("%s%03d", prefix, i)
				if _, err := a.Create(ctx, key, object("x", "u", "v")); err != nil {
					t.Errorf("create %s: %v", key, err)
					return
				}
			}
		}()
		var maxEvent, lastBookmark uint64
		events, bookmarks := 0, 0
		for events < writes {
			if events%3 == 0 {
				w.RequestProgress()
			}
			ev := nextEvent(t, w)
			switch ev.Type {
			case raftstore.Bookmark:
				bookmarks++
				if ev.Rev < maxEvent || ev.Rev < lastBookmark {
					t.Fatalf("bookmark at %d after an event at %d and a bookmark at %d", ev.Rev, maxEvent, lastBookmark)
				}
				lastBookmark = ev.Rev
			case raftstore.Added:
				events++
				if ev.Rev <= lastBookmark || ev.Rev <= maxEvent {
					t.Fatalf("event at %d after a bookmark at %d and an event at %d", ev.Rev, lastBookmark, maxEvent)
				}
				maxEvent = ev.Rev
			default:
				t.Fatalf("unexpected %v event: %v", ev.Type, ev.Err)
			}
		}
		wg.Wait()
		if bookmarks == 0 {
			t.Errorf("no bookmark among %d events", events)
		}
		t.Logf("%d events, %d bookmarks", events, bookmarks)
	})
}
