package raftstore

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/raft"
)

// TestWhileLeader: a call to a leader ends as soon as the node follows
// another (or none), with errLeaderChanged as its cause; it does not end
// while the leader stays, and the release ends it without that cause.
func TestWhileLeader(t *testing.T) {
	var cur atomic.Value
	cur.Store(raft.ServerAddress("10.0.0.1:7080"))
	leader := func() raft.ServerAddress { return cur.Load().(raft.ServerAddress) }

	ctx, stop := whileLeader(context.Background(), "10.0.0.1:7080", leader)
	select {
	case <-ctx.Done():
		t.Fatal("ended while the leader stayed")
	case <-time.After(5 * leaderPoll):
	}
	cur.Store(raft.ServerAddress(""))
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("did not end when the leader went away")
	}
	if !errors.Is(context.Cause(ctx), errLeaderChanged) {
		t.Fatalf("cause %v, want errLeaderChanged", context.Cause(ctx))
	}
	stop()

	ctx, stop = whileLeader(context.Background(), "", leader)
	stop()
	<-ctx.Done()
	if errors.Is(context.Cause(ctx), errLeaderChanged) {
		t.Fatal("a released call has errLeaderChanged as its cause")
	}
}
