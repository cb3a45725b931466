package raftstore_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/raftapi/raftapi/raftstore"
	"github.com/raftapi/raftapi/raftstore/storetest"
)

// TestNotOlderThanGetOnLaggingFollower: a follower asked for a key not
// older than a revision it has not applied yet answers from the leader at
// once, rather than waiting for the leader to tell it the commit index.
// The leader here tells it only an hour later (CommitTimeout), so a
// follower that waited would answer TooLargeResourceVersion.
func TestNotOlderThanGetOnLaggingFollower(t *testing.T) {
	t.Parallel()
	c := storetest.NewCluster(t, 3, func(cfg *raftstore.Config) {
		cfg.CommitTimeout = time.Hour
		cfg.WaitTimeout = 3 * time.Second
	})
	ctx := storetest.Context(t)
	leader, follower := c.Leader(), c.Follower()
	for attempt := range 20 {
		key := fmt.Sprintf("/lagging/k%d", attempt)
		created, err := leader.Create(ctx, key, []byte(fmt.Sprintf(`{"metadata":{"name":"k%d"}}`, attempt)))
		if err != nil {
			t.Fatal(err)
		}
		if follower.Revision() >= created.Rev {
			continue // something else told the follower; try again
		}
		got, err := follower.Get(ctx, key, raftstore.ReadOptions{Consistency: raftstore.NotOlderThan, Revision: created.Rev})
		if err != nil {
			t.Fatalf("get not older than %d on a follower at %d: %v", created.Rev, follower.Revision(), err)
		}
		if got.Rev != created.Rev || string(got.Data) != string(created.Data) {
			t.Fatalf("get not older than %d: rev %d %s, want %d %s", created.Rev, got.Rev, got.Data, created.Rev, created.Data)
		}
		_, err = follower.Get(ctx, key+"-missing", raftstore.ReadOptions{Consistency: raftstore.NotOlderThan, Revision: created.Rev})
		if !raftstore.IsNotFound(err) {
			t.Fatalf("get of a missing key not older than %d: %v, want NotFound", created.Rev, err)
		}
		return
	}
	t.Fatal("the follower applied every write before it was read; the leader path was never taken")
}

// TestFollowerAnswersItsOwnWrites: a client updating, through a follower,
// what it just wrote there reads the key not older than its write's
// revision. The follower answers that read from the write it forwarded,
// without asking the leader; a revision it did not write, or a key it
// deleted, still goes to the leader.
func TestFollowerAnswersItsOwnWrites(t *testing.T) {
	t.Parallel()
	c := storetest.NewCluster(t, 3, func(cfg *raftstore.Config) {
		cfg.CommitTimeout = time.Hour // the follower learns commits late
		cfg.WaitTimeout = 3 * time.Second
	})
	ctx := storetest.Context(t)
	leader, follower := c.Leader(), c.Follower()
	notOlder := func(rev uint64) raftstore.ReadOptions {
		return raftstore.ReadOptions{Consistency: raftstore.NotOlderThan, Revision: rev}
	}
	for attempt := range 20 {
		key := fmt.Sprintf("/own/k%d", attempt)
		created, err := follower.Create(ctx, key, []byte(`{"metadata":{"name":"a"}}`))
		if err != nil {
			t.Fatal(err)
		}
		updated, err := follower.Update(ctx, key, []byte(`{"metadata":{"name":"b"}}`), raftstore.Preconditions{ResourceVersion: created.Rev})
		if err != nil {
			t.Fatal(err)
		}
		asked := follower.LeaderGets()
		got, err := follower.Get(ctx, key, notOlder(updated.Rev))
		if follower.Revision() >= updated.Rev {
			continue // the follower learned of the commit after all; try again
		}
		if err != nil || got.Rev != updated.Rev || string(got.Data) != string(updated.Data) {
			t.Fatalf("own write read back: rev %d %s, %v; want rev %d %s", got.Rev, got.Data, err, updated.Rev, updated.Data)
		}
		if n := follower.LeaderGets() - asked; n != 0 {
			t.Fatalf("the follower asked the leader %d times for its own write", n)
		}

		// A newer write through the leader: the follower's copy is too old.
		newer, err := leader.Update(ctx, key, []byte(`{"metadata":{"name":"c"}}`), raftstore.Preconditions{ResourceVersion: updated.Rev})
		if err != nil {
			t.Fatal(err)
		}
		got, err = follower.Get(ctx, key, notOlder(newer.Rev))
		if err != nil || got.Rev != newer.Rev || string(got.Data) != string(newer.Data) {
			t.Fatalf("read not older than the leader's write: rev %d %s, %v; want rev %d %s", got.Rev, got.Data, err, newer.Rev, newer.Data)
		}
		if follower.LeaderGets() == asked {
			t.Fatal("a write the follower did not make was answered without the leader")
		}

		// A delete through the follower: its earlier copy is not served.
		deleted, err := follower.Delete(ctx, key, raftstore.Preconditions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err = follower.Get(ctx, key, notOlder(deleted.Rev)); !raftstore.IsNotFound(err) {
			t.Fatalf("read not older than the delete: %v, want NotFound", err)
		}
		return
	}
	t.Fatal("the follower applied every write before it was read; its own copies were never used")
}

// TestForwardedWritesAreStampedByTheFollower: the leader leaves out of
// its answer to a forwarded create or update the object it stored, and
// the follower returns the very bytes the leader stored, stamped by
// itself. A delete's answer still carries the deleted object, and a
// rejected write still fails as the leader decided.
func TestForwardedWritesAreStampedByTheFollower(t *testing.T) {
	t.Parallel()
	c := storetest.NewCluster(t, 3)
	ctx := storetest.Context(t)
	leader, follower := c.Leader(), c.Follower()
	stored := func(key string) raftstore.Object {
		t.Helper()
		o, err := leader.Get(ctx, key, raftstore.ReadOptions{Consistency: raftstore.MostRecent})
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	const key = "/stamped/a"
	created, err := follower.Create(ctx, key, []byte(`{"kind":"K", "metadata":{"name":"a"}, "data":{"k":"v"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := stored(key); string(created.Data) != string(want.Data) || created.Rev != want.Rev {
		t.Fatalf("create through a follower answered %d %s; the leader stored %d %s", created.Rev, created.Data, want.Rev, want.Data)
	}
	updated, err := follower.Update(ctx, key, []byte(`{"kind":"K","metadata":{"resourceVersion":"1","name":"a"},"data":{"k":"w"}}`), raftstore.Preconditions{ResourceVersion: created.Rev})
	if err != nil {
		t.Fatal(err)
	}
	if want := stored(key); string(updated.Data) != string(want.Data) || updated.Rev != want.Rev {
		t.Fatalf("update through a follower answered %d %s; the leader stored %d %s", updated.Rev, updated.Data, want.Rev, want.Data)
	}
	if n := follower.Restamped(); n != 2 {
		t.Fatalf("the follower stamped %d of its 2 writes itself, want both", n)
	}
	if _, err := follower.Create(ctx, key, []byte(`{}`)); !raftstore.IsAlreadyExists(err) {
		t.Fatalf("second create through a follower: %v, want AlreadyExists", err)
	}
	deleted, err := follower.Delete(ctx, key, raftstore.Preconditions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"kind":"K","metadata":{"resourceVersion":"` + fmt.Sprint(deleted.Rev) + `","name":"a"},"data":{"k":"w"}}`; string(deleted.Data) != want {
		t.Fatalf("delete through a follower answered %s, want %s", deleted.Data, want)
	}
	if n := follower.Restamped(); n != 2 {
		t.Fatalf("the follower stamped %d writes, want only its create and update", n)
	}
}
