package storetest

import (
	"fmt"
	"testing"

	"github.com/raftapi/raftapi/raftstore"
)

// RunTestCompaction checks Store.Compact: below the boundary, Exact reads,
// Exact lists and continue tokens are Expired (an expired continuation
// carrying a fresh token that continues the list inconsistently) and a
// watch yields a single Expired WatchError before its channel closes; at
// and above the boundary, Exact reads, paginated lists, tokens issued
// before the compaction and watches still see the exact history, including
// objects untouched since before the boundary.
//
// Compaction is store-wide: it drops the history of every prefix below a
// revision this test wrote, so run it sequentially with tests that still
// read older revisions of their own.
func RunTestCompaction(t *testing.T, c *Cluster) {
	ctx := Context(t)
	prefix := newPrefix(t)
	a, b := twoNodes(t, c)
	key := func(name string) string { return prefix + name }
	create := func(name, value string) raftstore.Object {
		return mustCreate(ctx, t, a, key(name), object(name, "uid-"+name, value))
	}

	untouched := create("u", "untouched")
	ka := create("a", "v1")
	kb := create("b", "v1")
	kc := create("c", "v1")
	old, oldRev := model{untouched.Key: untouched, ka.Key: ka, kb.Key: kb, kc.Key: kc}, kc.Rev
	waitApplied(t, oldRev, b)
	oldPage := mustList(ctx, t, b, prefix, raftstore.ListOptions{Limit: 2,
		ReadOptions: raftstore.ReadOptions{Consistency: raftstore.Exact, Revision: oldRev}})
	if oldPage.Continue == "" {
		t.Fatalf("a list of 4 items with limit 2 returned no continue token")
	}
	checkItems(t, "first page before compaction", oldPage.Items, model{ka.Key: ka, kb.Key: kb})
	ka2 := mustUpdate(ctx, t, b, ka.Key, object("a", "uid-a", "v2"), raftstore.Preconditions{})
	boundary := mustDelete(ctx, t, a, kb.Key).Rev
	atBoundary := model{untouched.Key: untouched, ka2.Key: ka2, kc.Key: kc}
	kd := create("d", "v1")
	after := atBoundary.clone()
	after[kd.Key] = kd
	waitApplied(t, kd.Rev, b)
	afterPage := mustList(ctx, t, b, prefix, raftstore.ListOptions{Limit: 1,
		ReadOptions: raftstore.ReadOptions{Consistency: raftstore.Exact, Revision: kd.Rev}})

	if err := a.Compact(ctx, boundary); err != nil {
		t.Fatalf("compact at %d through %s: %v", boundary, a.Name(), err)
	}
	for _, s := range c.Stores() {
		waitFor(t, fmt.Sprintf("%s to compact at %d", s.Name(), boundary), func() bool { return s.Status().Compacted >= boundary })
		if got := s.Status().Compacted; got != boundary {
			t.Fatalf("%s compacted at %d, asked %d", s.Name(), got, boundary)
		}
	}
	t.Logf("history %v at %d, compacted at %d", sortedKeys(old), oldRev, boundary)

	t.Run("ExactBelowBoundaryExpired", func(t *testing.T) {
		for _, s := range c.Stores() {
			for _, rev := range []uint64{oldRev, boundary - 1} {
				exact := raftstore.ReadOptions{Consistency: raftstore.Exact, Revision: rev}
				_, err := s.Get(ctx, kc.Key, exact)
				checkExpired(t, fmt.Sprintf("exact get at %d through %s", rev, s.Name()), err, rev)
				_, err = s.List(ctx, prefix, raftstore.ListOptions{ReadOptions: exact})
				checkExpired(t, fmt.Sprintf("exact list at %d through %s", rev, s.Name()), err, rev)
				_, err = s.List(ctx, prefix, raftstore.ListOptions{ReadOptions: exact, Limit: 1})
				checkExpired(t, fmt.Sprintf("exact paginated list at %d through %s", rev, s.Name()), err, rev)
			}
		}
	})

	t.Run("ContinueBelowBoundaryExpired", func(t *testing.T) {
		for _, s := range c.Stores() {
			_, err := s.List(ctx, prefix, raftstore.ListOptions{Limit: 2, Continue: oldPage.Continue})
			checkExpired(t, "continuation through "+s.Name(), err, oldRev)
			e := storeError(t, err)
			if e.Continue == "" {
				t.Fatalf("expired continuation through %s carries no fresh continue token", s.Name())
			}
			// The fresh token continues after the last key of the old page,
			// at a current revision.
			items, rev := listAll(ctx, t, prefix, raftstore.ListOptions{Limit: 2, Continue: e.Continue}, s, a)
			if rev < kd.Rev {
				t.Errorf("inconsistent continuation served at %d, want >= %d", rev, kd.Rev)
			}
			checkItems(t, "inconsistent continuation through "+s.Name(), items, model{kc.Key: kc, kd.Key: kd, untouched.Key: untouched})
		}
	})

	t.Run("AtBoundary", func(t *testing.T) {
		checkHistory(ctx, t, []*raftstore.Store{b, a}, prefix, atBoundary, boundary)
	})

	t.Run("AboveBoundary", func(t *testing.T) {
		checkHistory(ctx, t, []*raftstore.Store{b, a}, prefix, after, kd.Rev)
	})

	t.Run("TokenAboveBoundary", func(t *testing.T) {
		items, rev := listAll(ctx, t, prefix, raftstore.ListOptions{Limit: 1, Continue: afterPage.Continue}, a, b)
		if rev != kd.Rev {
			t.Errorf("continuation served at %d, want %d", rev, kd.Rev)
		}
		checkItems(t, "pages issued before the compaction", append(afterPage.Items, items...), after)
	})

	t.Run("WatchBelowBoundaryExpired", func(t *testing.T) {
		for _, s := range c.Stores() {
			for _, rev := range []uint64{oldRev, boundary - 1} {
				w := mustWatch(ctx, t, s, prefix, raftstore.WatchOptions{Revision: rev, Recursive: true})
				ev := nextEvent(t, w)
				if ev.Type != raftstore.WatchError || !raftstore.IsExpired(ev.Err) {
					t.Fatalf("watch from %d through %s: first event %v %v, want an Expired error", rev, s.Name(), ev.Type, ev.Err)
				}
				waitClosed(t, w)
			}
		}
	})

	t.Run("WatchFromBoundary", func(t *testing.T) {
		var watches []*raftstore.Watch
		for _, s := range c.Stores() {
			watches = append(watches, mustWatch(ctx, t, s, prefix, raftstore.WatchOptions{Revision: boundary, Recursive: true}))
		}
		for i, w := range watches {
			checkChanges(t, fmt.Sprintf("watch %d from the boundary", i), collect(t, w, 1),
				[]change{{raftstore.Added, kd.Key, kd.Rev, kd.Data}})
		}
		// Nothing else is pending: the next event is a later write.
		ke := mustCreate(ctx, t, a, key("e"), object("e", "uid-e", "sentinel"))
		for i, w := range watches {
			checkChanges(t, fmt.Sprintf("watch %d from the boundary", i), collect(t, w, 1),
				[]change{{raftstore.Added, ke.Key, ke.Rev, ke.Data}})
		}
	})
}

// checkExpired fails unless err is Expired about revision rev.
func checkExpired(t *testing.T, what string, err error, rev uint64) {
	t.Helper()
	if !raftstore.IsExpired(err) {
		t.Fatalf("%s: %v, want Expired", what, err)
	}
	if e := storeError(t, err); e.Rev != rev {
		t.Errorf("%s: Expired error about revision %d, want %d", what, e.Rev, rev)
	}
}
