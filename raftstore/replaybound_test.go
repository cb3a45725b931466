package raftstore_test

import (
	"testing"
	"time"

	"github.com/raftapi/raftapi/raftstore"
	"github.com/raftapi/raftapi/raftstore/storetest"
)

// replayBoundConfig leaves snapshots to the replay bound alone: raft's
// own check never finds enough entries.
func replayBoundConfig(max uint64) storetest.Option {
	return func(c *raftstore.Config) {
		c.SnapshotThreshold = 1 << 40
		c.SnapshotInterval = time.Hour
		c.MaxReplayEntries = max
		c.ReplayCheckInterval = 20 * time.Millisecond
	}
}

// TestStartReplaysABoundedLog: once more than MaxReplayEntries applied
// entries follow the newest snapshot, every node takes one, so what a
// start replays stays bounded; the node restarts from it with every
// write.
func TestStartReplaysABoundedLog(t *testing.T) {
	t.Parallel()
	const bound = 50
	c := storetest.NewCluster(t, 3, replayBoundConfig(bound))
	ctx := storetest.Context(t)
	leader := c.Leader()
	recs := writeKeys(t, ctx, leader, "/bounded/k", 4*bound)
	last := leader.Raft().LastIndex()
	for i, n := range c.Nodes {
		deadline := time.Now().Add(30 * time.Second)
		for snap := faultSnapshotIndex(t, n.Store); last-min(snap, last) > bound; snap = faultSnapshotIndex(t, n.Store) {
			if time.Now().After(deadline) {
				t.Fatalf("node %d: newest snapshot at %d, %d entries behind the last write at %d (bound %d)", i, snap, last-snap, last, bound)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	f := followerIndex(c)
	c.Stop(f)
	c.Restart(f)
	s := c.Nodes[f].Store
	for _, r := range recs {
		o, err := s.Get(ctx, r.key, faultMostRecent)
		if err != nil || o.Rev != r.createRev {
			t.Fatalf("after the restart %s: rev %d, %v; want rev %d", r.key, o.Rev, err, r.createRev)
		}
	}
}

// TestShortLogTakesNoSnapshot: with fewer applied entries than
// MaxReplayEntries after the newest snapshot, none is taken.
func TestShortLogTakesNoSnapshot(t *testing.T) {
	t.Parallel()
	c := storetest.NewCluster(t, 1, replayBoundConfig(1000))
	ctx := storetest.Context(t)
	leader := c.Leader()
	writeKeys(t, ctx, leader, "/short/k", 100)
	applied := leader.Raft().AppliedIndex()
	// Wait for checks that began after the writes: the one running now
	// may have read the log before them.
	for checks := leader.ReplayChecks(); leader.ReplayChecks() < checks+2; {
		select {
		case <-ctx.Done():
			t.Fatalf("the log was not checked: %v", ctx.Err())
		case <-time.After(5 * time.Millisecond):
		}
	}
	if snap := faultSnapshotIndex(t, leader); snap != 0 {
		t.Fatalf("a snapshot at %d with %d entries applied, bound 1000", snap, applied)
	}
}
