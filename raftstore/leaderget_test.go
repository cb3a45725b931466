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
