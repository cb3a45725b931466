package e2e

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// writeRecord is one create a writer made and what it learned of it.
type writeRecord struct {
	name    string
	outcome outcome
	rv      string
}

// TestKillLeaderLosesNoAcknowledgedWrite kills -9 the leader process while
// writers create objects through every node. Every acknowledged create must
// survive with its resourceVersion, no definitely-failed one may appear, the
// rest elect a new leader and keep serving, and the killed node catches up
// after a restart.
func TestKillLeaderLosesNoAcknowledgedWrite(t *testing.T) {
	c := startCluster(t, 3)
	leader := c.waitLeader(-1)
	before, _ := c.status((leader + 1) % 3)

	var ackedCount atomic.Int64
	var mu sync.Mutex
	var records []writeRecord
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 150; i++ {
				select {
				case <-stop:
					return
				default:
				}
				name := fmt.Sprintf("w%d-%d", g, i)
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				out, oc, _ := write(ctx, http.MethodPost, cmURL(c.nodes[(g+i)%3].api, ""), newConfigMap(name, "x"))
				cancel()
				rec := writeRecord{name: name, outcome: oc}
				if oc == acked {
					rec.rv = out.Metadata.ResourceVersion
					ackedCount.Add(1)
				}
				mu.Lock()
				records = append(records, rec)
				mu.Unlock()
			}
		}()
	}
	waitFor(t, 60*time.Second, "40 acknowledged writes", func() bool { return ackedCount.Load() >= 40 })
	c.kill(leader)
	killedAt := ackedCount.Load()
	waitFor(t, 90*time.Second, "40 more acknowledged writes after the kill", func() bool { return ackedCount.Load() >= killedAt+40 })
	close(stop)
	wg.Wait()

	newLeader := c.waitLeader(leader)
	if newLeader == leader {
		t.Fatalf("killed node %d still leader", leader)
	}
	after, err := c.status(newLeader)
	if err != nil || after.LeaderChanges <= before.LeaderChanges && after.LeaderID == before.LeaderID {
		t.Fatalf("no leader change seen: before %+v after %+v (%v)", before, after, err)
	}
	counts := map[outcome]int{}
	for _, r := range records {
		counts[r.outcome]++
	}
	t.Logf("writes: %d acknowledged, %d failed, %d unknown", counts[acked], counts[failed], counts[unknown])
	for i := range c.nodes {
		if i != leader {
			checkWrites(t, c.nodes[i].api, records, "")
		}
	}
	c.restart(leader)
	waitFor(t, 60*time.Second, "restarted node serving every acknowledged write", func() bool {
		return writesPresent(c.nodes[leader].api, records, "0")
	})
	checkWrites(t, c.nodes[leader].api, records, "")
}

// checkWrites asserts, reading at resourceVersion rv ("" = Most Recent),
// that every acknowledged create is present with its resourceVersion and
// no failed one is.
func checkWrites(t *testing.T, addr string, records []writeRecord, rv string) {
	t.Helper()
	for _, r := range records {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		got, code, err := get(ctx, addr, r.name, rv)
		cancel()
		switch r.outcome {
		case acked:
			if err != nil || got.Metadata.ResourceVersion != r.rv {
				t.Errorf("%s: acknowledged write %s at rv %s: got %d %v rv %q", addr, r.name, r.rv, code, err, got.Metadata.ResourceVersion)
			}
		case failed:
			if code != http.StatusNotFound {
				t.Errorf("%s: failed write %s exists (HTTP %d)", addr, r.name, code)
			}
		}
	}
}

func writesPresent(addr string, records []writeRecord, rv string) bool {
	for _, r := range records {
		if r.outcome != acked {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		got, _, err := get(ctx, addr, r.name, rv)
		cancel()
		if err != nil || got.Metadata.ResourceVersion != r.rv {
			return false
		}
	}
	return true
}

// TestPausedLeaderServesNoStaleRead pauses the leader (SIGSTOP), changes an
// object through the new leader, resumes the old one and reads the object
// from it at once: a Most Recent read must see the change or fail, never
// return the old value.
func TestPausedLeaderServesNoStaleRead(t *testing.T) {
	c := startCluster(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	for round := range 2 {
		old := c.waitLeader(-1)
		name := fmt.Sprintf("stale-%d", round)
		created, oc, err := write(ctx, http.MethodPost, cmURL(c.nodes[old].api, ""), newConfigMap(name, "old"))
		if oc != acked {
			t.Fatalf("create: %v", err)
		}
		c.signal(old, syscall.SIGSTOP)
		newLeader := c.waitLeader(old)
		upd := newConfigMap(name, "new")
		upd.Metadata.ResourceVersion = created.Metadata.ResourceVersion
		updated, oc, err := write(ctx, http.MethodPut, cmURL(c.nodes[newLeader].api, name), upd)
		if oc != acked {
			t.Fatalf("update through new leader: %v", err)
		}
		c.signal(old, syscall.SIGCONT)
		rctx, rcancel := context.WithTimeout(ctx, 15*time.Second)
		got, code, err := get(rctx, c.nodes[old].api, name, "")
		rcancel()
		switch {
		case err == nil && got.Data["v"] != "new":
			t.Fatalf("stale read from resumed old leader: %+v (update acknowledged at rv %s)", got, updated.Metadata.ResourceVersion)
		case err != nil:
			t.Logf("round %d: resumed old leader refused the read (HTTP %d): %v", round, code, err)
		default:
			t.Logf("round %d: resumed old leader read the new value at rv %s", round, got.Metadata.ResourceVersion)
		}
		c.waitLeader(-1)
	}
}

// waitFor polls cond until it holds or the timeout passes.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	pollUntil(t, timeout, what, func() error {
		if cond() {
			return nil
		}
		return errors.New("condition not met")
	})
}
