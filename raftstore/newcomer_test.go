package raftstore_test

import (
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/raftapi/raftapi/raftstore"
	"github.com/raftapi/raftapi/raftstore/storetest"
)

// newcomerConfig makes raft snapshot only when asked and keep 64 entries
// after a snapshot, so that a few hundred writes are a long log.
func newcomerConfig(c *raftstore.Config) {
	c.SnapshotThreshold = 1 << 40
	c.SnapshotInterval = time.Hour
	c.TrailingLogs = 64
}

// A member added while the log holds more entries than TrailingLogs past
// the newest snapshot (here: no snapshot at all) is brought up to date
// from a snapshot the leader takes first, not by replaying every entry;
// it holds every write. A member added while the log is short starts no
// snapshot.
func TestNewMemberStartsFromAFreshSnapshot(t *testing.T) {
	c := storetest.NewCluster(t, 1, newcomerConfig)
	leader := c.Leader()
	ctx := storetest.Context(t)

	if err := leader.AddNonvoter("early", "127.0.0.1:1"); err != nil {
		t.Fatalf("add a member to a short log: %v", err)
	}
	if snap := faultSnapshotIndex(t, leader); snap != 0 {
		t.Fatalf("adding a member to a log of %d entries took a snapshot at %d", leader.Raft().LastIndex(), snap)
	}
	if err := leader.RemoveMember("early"); err != nil {
		t.Fatal(err)
	}

	const writes = 300
	var last raftstore.Object
	for i := range writes {
		o, err := leader.Create(ctx, fmt.Sprintf("/newcomer/%03d", i), faultObject(fmt.Sprint(i), 64))
		if err != nil {
			t.Fatal(err)
		}
		last = o
	}
	if snap := faultSnapshotIndex(t, leader); snap != 0 {
		t.Fatalf("a snapshot at %d before the member was added", snap)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg := raftstore.Config{Name: "n2", DataDir: t.TempDir(), PeerListener: ln, DeferBootstrap: true}
	newcomerConfig(&cfg)
	n2, err := raftstore.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n2.Close() })
	if err := leader.AddNonvoter("n2", ln.Addr().String()); err != nil {
		t.Fatalf("add n2: %v", err)
	}
	snap := faultSnapshotIndex(t, leader)
	if snap < last.Rev {
		t.Fatalf("the leader's snapshot is at %d, want one taken before n2 was added (at %d or later)", snap, last.Rev)
	}
	faultEventually(t, faultDeadline, "n2 installs the snapshot and holds every write", func() error {
		if got := faultSnapshotIndex(t, n2); got < snap {
			return fmt.Errorf("n2's newest snapshot is at %d, want %d", got, snap)
		}
		l, err := n2.List(ctx, "/newcomer/", raftstore.ListOptions{ReadOptions: faultAny})
		if err != nil {
			return err
		}
		if len(l.Items) != writes {
			return fmt.Errorf("n2 holds %d of %d objects", len(l.Items), writes)
		}
		return faultCheckGet(ctx, n2, last.Key, faultAny, last.Rev, false)
	})
}
