package garbagecollector

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/raftapi/raftapi/api/registry"
	"github.com/raftapi/raftapi/raftstore/storetest"
)

// TestRunEndsAfterSteppingDown: a collector whose node led (its feed
// open on the real store) and then handed leadership over closes its
// feed, and its Run ends at once when the node stops: a node stopping
// waits for its controllers.
func TestRunEndsAfterSteppingDown(t *testing.T) {
	c := storetest.NewCluster(t, 3)
	i := c.WaitForLeader()
	store := c.Nodes[i].Store
	gc := newStoreCollector(store)
	ctx, cancel := context.WithCancel(context.Background())
	var l gcLoop
	gc.tick(ctx, &l)
	if l.feed == nil {
		t.Fatal("no feed on the leader")
	}
	putConfigMap(t, gc.reg.Storage(), "plain", "plain-uid")
	if err := store.TransferLeadership(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the node to step down", func() bool { return !store.IsLeader() })
	for i := range 50 {
		putConfigMap(t, registry.FromRaftstore(c.Leader()), fmt.Sprint("later-", i), fmt.Sprint("later-uid-", i))
	}
	ticked := make(chan struct{})
	go func() { gc.tick(ctx, &l); close(ticked) }()
	select {
	case <-ticked:
	case <-time.After(10 * time.Second):
		t.Fatal("the first tick after stepping down did not return")
	}
	if l.feed != nil {
		t.Fatal("the feed is still open on a follower")
	}
	done := make(chan struct{})
	go func() { gc.Run(ctx); close(done) }()
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not end after its context")
	}
}
