package raftstore_test

import (
	"errors"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/raftapi/raftapi/raftstore"
	"github.com/raftapi/raftapi/raftstore/storetest"
)

// TestReplicationIsNotPipelined pins the transport's MaxRPCsInFlight:
// hashicorp/raft's pipelined replication can deadlock after a follower
// rejects an AppendEntries and stop that follower's log for good (see
// noPipelining), so every store replicates one request at a time; and
// with that, writes still reach every follower.
func TestReplicationIsNotPipelined(t *testing.T) {
	t.Parallel()
	c := storetest.NewCluster(t, 3)
	ctx := storetest.Context(t)
	for i, s := range c.Stores() {
		if err := s.PipelineErr(); !errors.Is(err, raft.ErrPipelineReplicationNotSupported) {
			t.Errorf("node %d: a pipeline request answered %v, want %v", i, err, raft.ErrPipelineReplicationNotSupported)
		}
	}
	const key = "/pipelining/a"
	created, err := c.Leader().Create(ctx, key, faultObject("a", 16))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range c.Stores() {
		faultEventually(t, 30*time.Second, s.Name()+" applies the write", func() error {
			return faultCheckGet(ctx, s, key, raftstore.ReadOptions{Consistency: raftstore.Any}, created.Rev, false)
		})
	}
}
