package raftstore_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/raftapi/raftapi/raftstore"
	"github.com/raftapi/raftapi/raftstore/storetest"
)

// writeOutcome is what a writer may conclude from a write's error.
type writeOutcome uint8

const (
	// outcomeNone: the write was not attempted.
	outcomeNone writeOutcome = iota
	// outcomeAcked: nil error, the write committed.
	outcomeAcked
	// outcomeUnknown: IsUnknownOutcome, it may or may not have committed.
	outcomeUnknown
	// outcomeFailed: IsUnavailable, it definitely did not take effect.
	outcomeFailed
)

// classifyWrite maps a write's error to its outcome; any other error is
// returned as unexpected.
func classifyWrite(err error) (writeOutcome, error) {
	switch {
	case err == nil:
		return outcomeAcked, nil
	case raftstore.IsUnknownOutcome(err):
		return outcomeUnknown, nil
	case raftstore.IsUnavailable(err):
		return outcomeFailed, nil
	}
	return outcomeNone, err
}

// keyRecord is what one writer learnt about one key: a create, then (if
// the create was acknowledged) an update conditioned on its revision.
type keyRecord struct {
	key       string
	create    writeOutcome
	createRev uint64
	update    writeOutcome
	updateRev uint64
}

// check verifies that the state read from s with opts agrees with every
// outcome the writer was told.
func (r *keyRecord) check(ctx context.Context, s *raftstore.Store, opts raftstore.ReadOptions) error {
	switch r.create {
	case outcomeFailed:
		return faultCheckAbsent(ctx, s, r.key, opts)
	case outcomeUnknown:
		return nil
	}
	switch r.update {
	case outcomeAcked:
		return faultCheckGet(ctx, s, r.key, opts, r.updateRev, false)
	case outcomeUnknown:
		return faultCheckGet(ctx, s, r.key, opts, r.createRev, true)
	default:
		return faultCheckGet(ctx, s, r.key, opts, r.createRev, false)
	}
}

// checkRecords checks every record on s.
func checkRecords(ctx context.Context, s *raftstore.Store, recs []*keyRecord, opts raftstore.ReadOptions) error {
	for _, r := range recs {
		if err := r.check(ctx, s, opts); err != nil {
			return err
		}
	}
	return nil
}

// leaderLossTraffic drives the writers of TestFaultLeaderLossDuringWrites.
type leaderLossTraffic struct {
	t       *testing.T
	stores  []*raftstore.Store // captured before any node stops
	maxOps  int64
	until   time.Time
	trigger int64         // acknowledged creates before stopAt closes
	stopAt  chan struct{} // closed once trigger creates are acknowledged

	ops, acked atomic.Int64
	once       sync.Once
	mu         sync.Mutex
	records    []*keyRecord
}

// writer creates keys of its own and updates each acknowledged one once,
// through the nodes in turn.
func (tr *leaderLossTraffic) writer(w int) {
	for j := 0; tr.ops.Load() < tr.maxOps && time.Now().Before(tr.until); j++ {
		rec := &keyRecord{key: fmt.Sprintf("/fault/w%d/k%03d", w, j)}
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		tr.createAndUpdate(ctx, rec, w+j)
		cancel()
		tr.mu.Lock()
		tr.records = append(tr.records, rec)
		tr.mu.Unlock()
	}
}

func (tr *leaderLossTraffic) createAndUpdate(ctx context.Context, rec *keyRecord, turn int) {
	var err error
	s := tr.stores[turn%len(tr.stores)]
	o, cerr := s.Create(ctx, rec.key, faultObject(rec.key, 64))
	tr.ops.Add(1)
	if rec.create, err = classifyWrite(cerr); err != nil {
		tr.t.Errorf("create %s on %s: unexpected error %v", rec.key, s.Name(), err)
		return
	}
	if rec.create != outcomeAcked {
		return
	}
	rec.createRev = o.Rev
	if tr.acked.Add(1) == tr.trigger {
		tr.once.Do(func() { close(tr.stopAt) })
	}
	s = tr.stores[(turn+1)%len(tr.stores)]
	u, uerr := s.Update(ctx, rec.key, faultObject(rec.key, 80), raftstore.Preconditions{ResourceVersion: rec.createRev})
	tr.ops.Add(1)
	if rec.update, err = classifyWrite(uerr); err != nil {
		tr.t.Errorf("update %s on %s: unexpected error %v", rec.key, s.Name(), err)
		return
	}
	rec.updateRev = u.Rev
}

// TestFaultLeaderLossDuringWrites stops the leader while eight writers
// create and update keys through every node. No acknowledged write may be
// lost, no definitely-failed write may appear, a new leader takes over and
// the old leader catches up after a restart.
func TestFaultLeaderLossDuringWrites(t *testing.T) {
	c := storetest.NewCluster(t, 3)
	old := c.WaitForLeader()
	stores := append([]*raftstore.Store(nil), c.Stores()...)
	changesBefore := make([]uint64, len(stores))
	for i, s := range stores {
		changesBefore[i] = s.Status().LeaderChanges
	}

	tr := &leaderLossTraffic{t: t, stores: stores, maxOps: 300, until: time.Now().Add(20 * time.Second),
		trigger: 40, stopAt: make(chan struct{})}
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tr.writer(w)
		}()
	}
	select {
	case <-tr.stopAt:
		t.Logf("stopping leader %s after %d acknowledged creates", c.Nodes[old].Name, tr.trigger)
		c.Stop(old)
	case <-time.After(faultDeadline):
		t.Errorf("only %d creates acknowledged within %v", tr.acked.Load(), faultDeadline)
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	recs := tr.records
	logOutcomes(t, recs)

	now := c.WaitForLeader()
	if now == old {
		t.Fatalf("leader is still %s after it was stopped", c.Nodes[old].Name)
	}
	ctx := faultStepContext(t, 2*faultDeadline)
	var extra []*keyRecord
	for i, s := range stores {
		if i == old {
			continue
		}
		if st := s.Status(); st.LeaderChanges <= changesBefore[i] {
			t.Errorf("%s: LeaderChanges %d, want more than %d", s.Name(), st.LeaderChanges, changesBefore[i])
		}
		if err := checkRecords(ctx, s, recs, faultMostRecent); err != nil {
			t.Fatalf("after failover: %v", err)
		}
		key := "/fault/after/" + s.Name()
		o, err := s.Create(ctx, key, faultObject(key, 16))
		if err != nil {
			t.Fatalf("write through %s after failover: %v", s.Name(), err)
		}
		extra = append(extra, &keyRecord{key: key, create: outcomeAcked, createRev: o.Rev})
	}
	recs = append(recs, extra...)

	c.Restart(old)
	back := c.Nodes[old].Store
	faultEventually(t, faultDeadline, "restarted old leader catches up", func() error {
		return checkRecords(ctx, back, recs, faultAny)
	})
	if err := checkRecords(ctx, back, recs, faultMostRecent); err != nil {
		t.Fatalf("Most Recent reads on the restarted old leader: %v", err)
	}
}

// logOutcomes logs how many writes ended which way.
func logOutcomes(t *testing.T, recs []*keyRecord) {
	t.Helper()
	count := map[string]int{}
	names := map[writeOutcome]string{outcomeAcked: "acked", outcomeUnknown: "unknown", outcomeFailed: "failed"}
	for _, r := range recs {
		count["create "+names[r.create]]++
		if r.update != outcomeNone {
			count["update "+names[r.update]]++
		}
	}
	t.Logf("write outcomes: %v", count)
	if count["create acked"] == 0 {
		t.Fatalf("no write was acknowledged")
	}
}

// TestPartitionOldLeaderRefusesMostRecentRead isolates the leader: it must
// refuse Most Recent reads and writes while the majority goes on, and
// converge to the majority's state once healed.
func TestPartitionOldLeaderRefusesMostRecentRead(t *testing.T) {
	c := storetest.NewCluster(t, 3)
	ctx := faultStepContext(t, 4*faultDeadline)
	old := c.WaitForLeader()
	oldStore := c.Nodes[old].Store
	seed, err := oldStore.Create(ctx, "/partition/seed", faultObject("seed", 16))
	if err != nil {
		t.Fatalf("seed: %v", err)
	}

	c.Isolate(old)
	refuseMostRecent(t, oldStore, "/partition/seed")
	wctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	if o, err := oldStore.Create(wctx, "/partition/lost", faultObject("lost", 16)); err == nil {
		t.Fatalf("write on the isolated old leader succeeded at revision %d", o.Rev)
	} else {
		t.Logf("write on the isolated old leader: %v", err)
	}
	cancel()

	now := c.WaitForLeader()
	if now == old {
		t.Fatalf("isolated node %s is still the agreed leader", c.Nodes[old].Name)
	}
	var majority []*keyRecord
	for i := range 20 {
		s := c.Nodes[[]int{now, 3 - old - now}[i%2]].Store
		key := fmt.Sprintf("/partition/k%02d", i)
		o, err := s.Create(ctx, key, faultObject(key, 16))
		if err != nil {
			t.Fatalf("majority write %s through %s: %v", key, s.Name(), err)
		}
		majority = append(majority, &keyRecord{key: key, create: outcomeAcked, createRev: o.Rev})
	}
	// The old node must not serve a stale Most Recent read now that the
	// majority has moved on.
	refuseMostRecent(t, oldStore, majority[len(majority)-1].key)

	c.Heal(old)
	all := append([]*keyRecord{{key: "/partition/seed", create: outcomeAcked, createRev: seed.Rev}}, majority...)
	faultEventually(t, faultDeadline, "healed old leader converges", func() error {
		return checkRecords(ctx, oldStore, all, faultAny)
	})
	faultEventually(t, faultDeadline, "healed old leader serves Most Recent reads", func() error {
		return checkRecords(ctx, oldStore, all, faultMostRecent)
	})
	for _, s := range c.Stores() {
		if err := faultCheckAbsent(ctx, s, "/partition/lost", faultMostRecent); err != nil {
			t.Errorf("write made on the isolated old leader: %v", err)
		}
	}
}

// refuseMostRecent checks that a Most Recent Get of key on the isolated s
// fails, as unavailable or by running out of time, within 5 seconds.
func refuseMostRecent(t *testing.T, s *raftstore.Store, key string) {
	t.Helper()
	rctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	start := time.Now()
	o, err := s.Get(rctx, key, faultMostRecent)
	switch {
	case err == nil:
		t.Fatalf("isolated %s served a Most Recent read of %s at revision %d", s.Name(), key, o.Rev)
	case raftstore.IsUnavailable(err), errors.Is(err, context.DeadlineExceeded):
		t.Logf("isolated %s refused a Most Recent read after %v: %v", s.Name(), time.Since(start).Round(time.Millisecond), err)
	default:
		t.Fatalf("isolated %s: Most Recent read of %s: %v, want unavailable or deadline", s.Name(), key, err)
	}
	if d := time.Since(start); d > 6*time.Second {
		t.Fatalf("isolated %s took %v to refuse a Most Recent read", s.Name(), d)
	}
}

// snapshotOptions make raft keep only a short log after a snapshot, so a
// node that falls behind must be sent a snapshot.
func snapshotOptions(c *raftstore.Config) {
	c.SnapshotThreshold = 32
	c.TrailingLogs = 16
}

// forceSnapshot snapshots the leader and compacts its log. raft checks
// SnapshotThreshold only every SnapshotInterval (minutes), so the test
// asks for the snapshot itself.
func forceSnapshot(t *testing.T, c *storetest.Cluster) uint64 {
	t.Helper()
	leader := c.Leader()
	if err := leader.Raft().Snapshot().Error(); err != nil {
		t.Fatalf("snapshot on %s: %v", leader.Name(), err)
	}
	idx := faultSnapshotIndex(t, leader)
	t.Logf("%s snapshot at index %d", leader.Name(), idx)
	return idx
}

// writeKeys creates n keys under prefix through s and returns their records.
func writeKeys(t *testing.T, ctx context.Context, s *raftstore.Store, prefix string, n int) []*keyRecord {
	t.Helper()
	recs := make([]*keyRecord, n)
	for i := range recs {
		key := fmt.Sprintf("%s%04d", prefix, i)
		o, err := s.Create(ctx, key, faultObject(key, 128))
		if err != nil {
			t.Fatalf("create %s: %v", key, err)
		}
		recs[i] = &keyRecord{key: key, create: outcomeAcked, createRev: o.Rev}
	}
	return recs
}

// followerIndex returns the index of a follower of c.
func followerIndex(c *storetest.Cluster) int {
	f := c.Follower()
	for i, n := range c.Nodes {
		if n.Store == f {
			return i
		}
	}
	return -1
}

// TestRestartedFollowerCatchesUpFromSnapshot stops a follower, writes past
// the leader's trailing log and restarts it: it must be sent a snapshot
// (not the log), serve every write, and end the watches it had open.
func TestRestartedFollowerCatchesUpFromSnapshot(t *testing.T) {
	c := storetest.NewCluster(t, 3, snapshotOptions)
	ctx := faultStepContext(t, 4*faultDeadline)
	before := writeKeys(t, ctx, c.Leader(), "/snap/a/", 10)
	f := followerIndex(c)
	fs := c.Nodes[f].Store
	faultEventually(t, faultDeadline, "follower has the first writes", func() error {
		return checkRecords(ctx, fs, before, faultAny)
	})
	stoppedAt := fs.Revision()

	c.Stop(f)
	after := writeKeys(t, ctx, c.Leader(), "/snap/b/", 120)
	snapIdx := forceSnapshot(t, c)
	if snapIdx <= stoppedAt+16 {
		t.Fatalf("snapshot index %d does not leave follower (at %d) behind the trailing log", snapIdx, stoppedAt)
	}

	// Restart it cut off, so that a watch is open before the snapshot can
	// arrive.
	c.Isolate(f)
	c.Restart(f)
	fs = c.Nodes[f].Store
	if got := faultSnapshotIndex(t, fs); got != 0 {
		t.Fatalf("%s has a snapshot (index %d) before rejoining", fs.Name(), got)
	}
	w, err := fs.Watch(ctx, "/snap/", raftstore.WatchOptions{Recursive: true})
	if err != nil {
		t.Fatalf("watch on %s: %v", fs.Name(), err)
	}
	defer w.Stop()
	c.Heal(f)

	last := lastWatchEvent(t, w)
	if last.Type != raftstore.WatchError || !raftstore.IsExpired(last.Err) {
		t.Errorf("watch on %s ended with %v %v, want ERROR with an Expired error", fs.Name(), last.Type, last.Err)
	}
	all := append(before, after...)
	faultEventually(t, faultDeadline, "restarted follower serves every write", func() error {
		return checkRecords(ctx, fs, all, faultAny)
	})
	if err := checkRecords(ctx, fs, all, faultMostRecent); err != nil {
		t.Fatalf("Most Recent reads on the restarted follower: %v", err)
	}
	if got := faultSnapshotIndex(t, fs); got < snapIdx {
		t.Errorf("%s: last snapshot index %d, want the leader's snapshot %d installed", fs.Name(), got, snapIdx)
	}
	more := writeKeys(t, ctx, fs, "/snap/c/", 5)
	if err := checkRecords(ctx, fs, more, faultMostRecent); err != nil {
		t.Fatalf("writes after the restore: %v", err)
	}
}

// lastWatchEvent reads w until its channel closes and returns the last
// event.
func lastWatchEvent(t *testing.T, w *raftstore.Watch) raftstore.WatchEvent {
	t.Helper()
	timeout := time.After(faultDeadline)
	var last raftstore.WatchEvent
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				return last
			}
			last = ev
		case <-timeout:
			t.Fatalf("watch did not end within %v; last event %v", faultDeadline, last.Type)
		}
	}
}

// TestSnapshotRestoreMatchesLeaderState brings a stopped follower back
// through InstallSnapshot plus the log after it, and checks that every
// node serves the same state and history.
func TestSnapshotRestoreMatchesLeaderState(t *testing.T) {
	c := storetest.NewCluster(t, 3, snapshotOptions)
	ctx := faultStepContext(t, 4*faultDeadline)
	leader := c.Leader()
	churn(t, ctx, leader, "/restore/a/", 30)
	revA := leader.Revision()
	f := followerIndex(c)
	faultEventually(t, faultDeadline, "follower reaches the first phase", func() error {
		return revisionAtLeast(c.Nodes[f].Store, revA)
	})

	c.Stop(f)
	churn(t, ctx, leader, "/restore/b/", 120)
	revB := leader.Revision()
	snapIdx := forceSnapshot(t, c)
	churn(t, ctx, leader, "/restore/c/", 20)

	c.Restart(f)
	fs := c.Nodes[f].Store
	revC := leader.Revision()
	faultEventually(t, faultDeadline, "every node reaches the leader's revision", allAtRevision(c, revC))
	if got := faultSnapshotIndex(t, fs); got < snapIdx {
		t.Errorf("%s: last snapshot index %d, want the leader's snapshot %d installed", fs.Name(), got, snapIdx)
	}
	for _, rev := range []uint64{revA, revB, revC} {
		compareLists(t, ctx, c.Stores(), raftstore.ReadOptions{Consistency: raftstore.Exact, Revision: rev})
	}
	compareLists(t, ctx, c.Stores(), faultAny)
	compareLists(t, ctx, c.Stores(), faultMostRecent)
}

// churn creates n keys under prefix through s, updates every third and
// deletes every fifth, so the state has history of every kind.
func churn(t *testing.T, ctx context.Context, s *raftstore.Store, prefix string, n int) {
	t.Helper()
	recs := writeKeys(t, ctx, s, prefix, n)
	for i, r := range recs {
		switch {
		case i%5 == 0:
			if _, err := s.Delete(ctx, r.key, raftstore.Preconditions{ResourceVersion: r.createRev}); err != nil {
				t.Fatalf("delete %s: %v", r.key, err)
			}
		case i%3 == 0:
			if _, err := s.Update(ctx, r.key, faultObject(r.key, 200), raftstore.Preconditions{ResourceVersion: r.createRev}); err != nil {
				t.Fatalf("update %s: %v", r.key, err)
			}
		}
	}
}

func revisionAtLeast(s *raftstore.Store, rev uint64) error {
	if got := s.Revision(); got < rev {
		return fmt.Errorf("%s at revision %d, want %d", s.Name(), got, rev)
	}
	return nil
}

// allAtRevision returns a condition: every running store of c has applied
// rev.
func allAtRevision(c *storetest.Cluster, rev uint64) func() error {
	return func() error {
		for _, s := range c.Stores() {
			if err := revisionAtLeast(s, rev); err != nil {
				return err
			}
		}
		return nil
	}
}

// compareLists lists /restore/ on every store with opts and checks that
// the lists are identical.
func compareLists(t *testing.T, ctx context.Context, stores []*raftstore.Store, opts raftstore.ReadOptions) {
	t.Helper()
	var want *raftstore.ListResult
	for _, s := range stores {
		got, err := s.List(ctx, "/restore/", raftstore.ListOptions{ReadOptions: opts})
		if err != nil {
			t.Fatalf("%s: list (%v %d): %v", s.Name(), opts.Consistency, opts.Revision, err)
		}
		if want == nil {
			want = got
			if len(got.Items) == 0 {
				t.Fatalf("%s: list (%v %d) is empty", s.Name(), opts.Consistency, opts.Revision)
			}
			continue
		}
		if err := sameList(want, got); err != nil {
			t.Errorf("%s: list (%v %d) differs from %s's: %v", s.Name(), opts.Consistency, opts.Revision, stores[0].Name(), err)
		}
	}
}

func sameList(a, b *raftstore.ListResult) error {
	if a.Revision != b.Revision {
		return fmt.Errorf("revision %d vs %d", a.Revision, b.Revision)
	}
	if len(a.Items) != len(b.Items) {
		return fmt.Errorf("%d items vs %d", len(a.Items), len(b.Items))
	}
	for i := range a.Items {
		x, y := a.Items[i], b.Items[i]
		if x.Key != y.Key || x.Rev != y.Rev || !bytes.Equal(x.Data, y.Data) {
			return fmt.Errorf("item %d: %s@%d vs %s@%d", i, x.Key, x.Rev, y.Key, y.Rev)
		}
	}
	return nil
}

// TestDiscardedStateFileRebuiltFromSnapshotAndLog restarts a follower
// without its state file, as Open leaves it after discarding an unsynced
// file that a machine restart may have torn: the node must rebuild every
// acknowledged write from its own snapshot and raft log (the state file is
// never fsynced; the log is the durable record).
func TestDiscardedStateFileRebuiltFromSnapshotAndLog(t *testing.T) {
	c := storetest.NewCluster(t, 3, snapshotOptions)
	ctx := faultStepContext(t, 4*faultDeadline)
	f := followerIndex(c)
	fs := c.Nodes[f].Store
	before := writeKeys(t, ctx, c.Leader(), "/lost/a/", 40)
	faultEventually(t, faultDeadline, "follower has the first writes", func() error {
		return checkRecords(ctx, fs, before, faultAny)
	})
	if err := fs.Raft().Snapshot().Error(); err != nil {
		t.Fatalf("snapshot on %s: %v", fs.Name(), err)
	}
	after := writeKeys(t, ctx, c.Leader(), "/lost/b/", 20)
	faultEventually(t, faultDeadline, "follower has the later writes", func() error {
		return checkRecords(ctx, fs, after, faultAny)
	})

	c.Stop(f)
	if err := os.Remove(filepath.Join(c.Nodes[f].Dir, "state.db")); err != nil {
		t.Fatal(err)
	}
	c.Restart(f)
	fs = c.Nodes[f].Store
	all := append(before, after...)
	faultEventually(t, faultDeadline, "restarted follower serves every write", func() error {
		return checkRecords(ctx, fs, all, faultAny)
	})
	if err := checkRecords(ctx, fs, all, faultMostRecent); err != nil {
		t.Fatalf("Most Recent reads on the rebuilt follower: %v", err)
	}
}
