package raftstore_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/raftapi/raftapi/fsm"
	"github.com/raftapi/raftapi/raftstore"
	"github.com/raftapi/raftapi/raftstore/storetest"
)

// forwardedCreate is the outcome of one create through a follower.
type forwardedCreate struct {
	key string
	obj raftstore.Object
	err error
}

// createAtOnce creates every key of keys through s from goroutines that
// start together, so that the follower forwards them while others wait.
func createAtOnce(ctx context.Context, s *raftstore.Store, keys []string) []forwardedCreate {
	out := make([]forwardedCreate, len(keys))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, key := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			obj, err := s.Create(ctx, key, []byte(fmt.Sprintf(`{"kind":"K","metadata":{"name":%q},"data":{"i":"%d"}}`, key, i)))
			out[i] = forwardedCreate{key: key, obj: obj, err: err}
		}()
	}
	close(start)
	wg.Wait()
	return out
}

// checkCreatesStored checks that of the creates of each key exactly one
// succeeded, with the object and revision the leader stored, that the
// others failed with AlreadyExists, and that no two creates share a
// revision.
func checkCreatesStored(ctx context.Context, t *testing.T, leader *raftstore.Store, got []forwardedCreate) {
	t.Helper()
	won := map[string]raftstore.Object{}
	revs := map[uint64]string{}
	for _, g := range got {
		switch {
		case g.err == nil:
			if prev, ok := won[g.key]; ok {
				t.Fatalf("two creates of %s succeeded, at %d and %d", g.key, prev.Rev, g.obj.Rev)
			}
			if other, ok := revs[g.obj.Rev]; ok {
				t.Fatalf("creates of %s and %s both answered revision %d", other, g.key, g.obj.Rev)
			}
			won[g.key], revs[g.obj.Rev] = g.obj, g.key
		case !raftstore.IsAlreadyExists(g.err):
			t.Fatalf("create of %s: %v, want success or AlreadyExists", g.key, g.err)
		}
	}
	for _, g := range got {
		w, ok := won[g.key]
		if !ok {
			t.Fatalf("no create of %s succeeded", g.key)
		}
		stored, err := leader.Get(ctx, g.key, raftstore.ReadOptions{Consistency: raftstore.MostRecent})
		if err != nil {
			t.Fatal(err)
		}
		if stored.Rev != w.Rev || string(stored.Data) != string(w.Data) {
			t.Fatalf("%s: the follower answered %d %s; the leader stored %d %s", g.key, w.Rev, w.Data, stored.Rev, stored.Data)
		}
	}
}

// twice is every key of n keys under prefix, each twice.
func twice(prefix string, n int) []string {
	keys := make([]string, 0, 2*n)
	for i := range 2 * n {
		keys = append(keys, fmt.Sprintf("%s/k%02d", prefix, i%n))
	}
	return keys
}

// TestForwardedWritesTravelTogether: writes a follower forwards at the
// same time reach the leader in fewer RPCs than writes, and each still
// gets its own outcome: of two creates of one key one succeeds with what
// the leader stored, the other fails with AlreadyExists.
func TestForwardedWritesTravelTogether(t *testing.T) {
	t.Parallel()
	c := storetest.NewCluster(t, 3)
	ctx := storetest.Context(t)
	leader, follower := c.Leader(), c.Follower()
	deadline := time.Now().Add(30 * time.Second)
	for round := 0; ; round++ {
		before := follower.ForwardRPCs()
		keys := twice(fmt.Sprintf("/together/r%d", round), 24)
		checkCreatesStored(ctx, t, leader, createAtOnce(ctx, follower, keys))
		rpcs := follower.ForwardRPCs() - before
		if rpcs == 0 {
			t.Fatal("the follower forwarded its writes without rpcApplyMany")
		}
		if rpcs < uint64(len(keys)) {
			t.Logf("round %d: %d writes in %d RPCs", round, len(keys), rpcs)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d rounds of %d concurrent writes each took an RPC of its own", round+1, len(keys))
		}
	}
}

// TestForwardingToAnEarlierRelease: a leader that answers rpcApplyMany
// with 404, as one of an earlier release does, gets each write in an RPC
// of its own, and after that first refusal the follower stops asking it.
func TestForwardingToAnEarlierRelease(t *testing.T) {
	t.Parallel()
	c := storetest.NewCluster(t, 3)
	ctx := storetest.Context(t)
	deadline := time.Now().Add(30 * time.Second)
	for round := 0; ; round++ {
		leader, follower := c.Leader(), c.Follower()
		leader.ServeAsEarlierRelease()
		term := follower.Term()
		prefix := fmt.Sprintf("/alone/r%d", round)
		checkCreatesStored(ctx, t, leader, createAtOnce(ctx, follower, twice(prefix+"a", 12)))
		refused := follower.ForwardRPCs()
		if refused == 0 {
			t.Fatal("the follower never asked the leader for rpcApplyMany")
		}
		checkCreatesStored(ctx, t, leader, createAtOnce(ctx, follower, twice(prefix+"b", 12)))
		n := follower.ForwardRPCs()
		if follower.Term() != term {
			// An election in between lets the follower ask again, as
			// it should; the busy machine is tried once more.
			if time.Now().After(deadline) {
				t.Fatalf("%d rounds each saw an election", round+1)
			}
			continue
		}
		if n != refused {
			t.Fatalf("the follower asked again for rpcApplyMany after its refusal: %d requests, then %d", refused, n)
		}
		return
	}
}

// TestLeaderAnswersEachForwardedCommand: of commands forwarded together,
// the leader proposes each that decodes and answers each on its own: a
// create commits, a command that does not decode is refused as invalid
// without reaching the log, a second create of the same key is rejected.
func TestLeaderAnswersEachForwardedCommand(t *testing.T) {
	t.Parallel()
	c := storetest.NewCluster(t, 1)
	ctx := storetest.Context(t)
	leader := c.Leader()
	create := (&fsm.Command{Type: fsm.CmdCreate, Key: "/many/a", Object: []byte(`{"kind":"K","metadata":{"name":"a"}}`)}).Encode()
	revs, codes := leader.ApplyMany([][]byte{create, []byte("not a command"), create})
	if len(revs) != 3 {
		t.Fatalf("%d answers to 3 commands", len(revs))
	}
	if revs[0] == 0 || codes[0] != 0 {
		t.Fatalf("create: revision %d, code %v; want committed", revs[0], codes[0])
	}
	if codes[1] != raftstore.ErrCodeInvalid {
		t.Fatalf("undecodable command: code %v, want Invalid", codes[1])
	}
	if codes[2] != raftstore.ErrCodeAlreadyExists {
		t.Fatalf("second create: code %v, want AlreadyExists", codes[2])
	}
	got, err := leader.Get(ctx, "/many/a", raftstore.ReadOptions{Consistency: raftstore.MostRecent})
	if err != nil || got.Rev != revs[0] {
		t.Fatalf("stored: %v at %d, want the create's revision %d", err, got.Rev, revs[0])
	}
}
