package raftstore_test

import (
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/raftapi/raftapi/raftstore"
	"github.com/raftapi/raftapi/raftstore/storetest"
)

// TestWipedVoterDoesNotElectALeaderMissingWrites: a write committed on
// the leader and one follower only; that follower loses its disk and the
// leader stops. The third node, which never got the write, stands for
// election: the wiped node must not vote for it, or the acknowledged write
// would be lost. Once the old leader is back the write is there on every
// node and the wiped node is admitted again.
func TestWipedVoterDoesNotElectALeaderMissingWrites(t *testing.T) {
	c := storetest.NewCluster(t, 3)
	ctx := faultStepContext(t, 4*faultDeadline)
	l := c.WaitForLeader()
	w, lagging := (l+1)%3, (l+2)%3
	for _, s := range c.Stores() {
		if s.Rejoining() {
			t.Fatalf("%s of a bootstrapped cluster waits for admission", s.Name())
		}
	}

	c.Isolate(lagging)
	o, err := c.Nodes[l].Store.Create(ctx, "/rejoin/acked", faultObject("acked", 16))
	if err != nil {
		t.Fatalf("write on the leader and one follower: %v", err)
	}
	c.Stop(l)
	c.Wipe(w)
	if !c.Nodes[w].Store.Rejoining() || !c.Nodes[w].Store.Status().Rejoining {
		t.Fatalf("wiped %s does not wait for admission", c.Nodes[w].Name)
	}
	c.Heal(lagging)

	noLeader := func() {
		t.Helper()
		for _, i := range []int{w, lagging} {
			if st := c.Nodes[i].Store.Status(); st.State == "Leader" {
				t.Fatalf("%s became leader (term %d) while the only node holding the acknowledged write was down", st.Name, st.Term)
			}
		}
	}
	candidate := c.Nodes[lagging].Store
	faultEventually(t, faultDeadline, "the lagging node stands for election", func() error {
		noLeader()
		if st := candidate.Status().State; st != "Candidate" {
			return fmt.Errorf("%s is %s", candidate.Name(), st)
		}
		return nil
	})
	// Without the wiped node's vote no one can win: watch a few election
	// rounds go by.
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		noLeader()
	}

	c.Restart(l)
	c.WaitForLeader()
	for _, s := range c.Stores() {
		faultEventually(t, faultDeadline, s.Name()+" holds the acknowledged write", func() error {
			return faultCheckGet(ctx, s, "/rejoin/acked", faultMostRecent, o.Rev, false)
		})
	}
	wiped := c.Nodes[w].Store
	faultEventually(t, faultDeadline, "the wiped node is admitted", func() error {
		if wiped.Rejoining() {
			return fmt.Errorf("%s still waits for admission", wiped.Name())
		}
		return nil
	})
}

// TestRejoiningOutlivesARestart: a wiped node that cannot reach the leader
// still waits for admission after a restart, with whatever raft state it
// got meanwhile; once it reaches the leader it is admitted and catches up.
func TestRejoiningOutlivesARestart(t *testing.T) {
	c := storetest.NewCluster(t, 3)
	ctx := faultStepContext(t, 4*faultDeadline)
	l := c.WaitForLeader()
	w := (l + 1) % 3
	o, err := c.Nodes[l].Store.Create(ctx, "/rejoin/before", faultObject("before", 16))
	if err != nil {
		t.Fatal(err)
	}
	c.Isolate(w)
	c.Wipe(w)
	c.Stop(w)
	c.Restart(w)
	s := c.Nodes[w].Store
	if !s.Rejoining() {
		t.Fatalf("%s forgot across a restart that it waits for admission", s.Name())
	}
	c.Heal(w)
	faultEventually(t, faultDeadline, "the restarted node is admitted", func() error {
		if s.Rejoining() {
			return fmt.Errorf("%s still waits for admission", s.Name())
		}
		return nil
	})
	if err := faultCheckGet(ctx, s, "/rejoin/before", faultAny, o.Rev, false); err != nil {
		t.Fatalf("admitted before it applied what was written before its admission: %v", err)
	}
	c.Stop(w)
	c.Restart(w)
	if c.Nodes[w].Store.Rejoining() {
		t.Fatalf("%s waits for admission again after a restart", c.Nodes[w].Name)
	}
}

// TestFormingClusterGetsTheVotesOfNodesNotBootstrapped: of three nodes
// started without raft state, only one bootstraps the three (the others
// saw its state first and wait to be added, as the gossip bootstrap
// does). They still vote for it, a leader is elected, and both are
// admitted.
func TestFormingClusterGetsTheVotesOfNodesNotBootstrapped(t *testing.T) {
	voters := map[string]string{}
	var stores []*raftstore.Store
	for i := range 3 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("f%d", i+1)
		voters[name] = ln.Addr().String()
		s, err := raftstore.Open(raftstore.Config{Name: name, DataDir: t.TempDir(), PeerListener: ln, DeferBootstrap: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		if !s.Rejoining() {
			t.Fatalf("%s started without raft state but does not wait for admission", name)
		}
		stores = append(stores, s)
	}
	if err := stores[0].Bootstrap(voters); err != nil {
		t.Fatal(err)
	}
	faultEventually(t, faultDeadline, "a leader and every node admitted", func() error {
		leaders := 0
		for _, s := range stores {
			if s.Rejoining() {
				return fmt.Errorf("%s still waits for admission", s.Name())
			}
			if s.IsLeader() {
				leaders++
			}
		}
		if leaders != 1 {
			return fmt.Errorf("%d leaders", leaders)
		}
		return nil
	})
}
