package cluster

import (
	"log/slog"
	"testing"
)

// TestGossipLeavingStays: once a node has announced that it is leaving,
// a later metadata update without the announcement (the membership loop's,
// racing with Leave) does not take it back; other changes still go out.
func TestGossipLeavingStays(t *testing.T) {
	g, err := startGossip(gossipConfig{name: "n1", listen: "127.0.0.1:0", key: make([]byte, 32),
		meta: nodeMeta{Voter: true}, logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = g.shutdown() }()
	g.setMeta(nodeMeta{Voter: true, State: true})
	if m := g.meta.Load(); !m.State {
		t.Fatalf("metadata %+v, want State set", *m)
	}
	g.setMeta(nodeMeta{Voter: true, State: true, Leaving: true})
	g.setMeta(nodeMeta{Voter: true, State: true})
	if m := g.meta.Load(); !m.Leaving {
		t.Fatalf("metadata %+v after an update without Leaving, want Leaving kept", *m)
	}
}
