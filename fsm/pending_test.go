package fsm_test

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/raftapi/raftapi/fsm"
)

// newDelayedHarness is newHarness with a commit delay.
func newDelayedHarness(t *testing.T, d time.Duration) *harness {
	t.Helper()
	h := &harness{t: t, path: filepath.Join(t.TempDir(), "state.db"), rec: &recorder{}, next: 1}
	f, err := fsm.Open(h.path, h.rec, fsm.WithCommitDelay(d))
	if err != nil {
		t.Fatal(err)
	}
	h.f = f
	t.Cleanup(func() { h.f.Close() })
	return h
}

// A batch that comes to an idle FSM is committed at once. Batches that
// follow within the delay stay invisible until a reader needs one of
// them; the proposer's results do not wait. Then they are committed and
// published together, and until Applied reaches what the reader asked for
// every batch is committed as it is applied.
func TestCommitDelayPublishesOnNeed(t *testing.T) {
	h := newDelayedHarness(t, time.Hour)
	h.mustApply(create(keyN(0), `{}`))
	if a := h.f.Applied(); a != 1 {
		t.Fatalf("Applied %d after the first batch, want 1: an idle FSM commits at once", a)
	}
	h.rec.take()
	for i := 1; i < 4; i++ {
		if r := h.mustApply(create(keyN(i), `{}`)); r.Rev != uint64(i+1) {
			t.Fatalf("create %d: rev %d", i, r.Rev)
		}
	}
	if a := h.f.Applied(); a != 1 {
		t.Fatalf("Applied %d with three batches pending, want 1", a)
	}
	if _, ok := get(t, h.f, keyN(1), 0); ok {
		t.Fatal("an uncommitted create is visible")
	}
	if b := h.rec.take(); len(b) != 0 {
		t.Fatalf("listener called before the commit: %+v", b)
	}

	if a := h.f.Need(3); a != 4 {
		t.Fatalf("Need(3) = %d, want 4: every pending batch is committed", a)
	}
	b := h.rec.take()
	if len(b) != 1 || b[0].applied != 4 || len(b[0].events) != 3 {
		t.Fatalf("committed %+v, want one call with 3 events up to 4", b)
	}
	for i, e := range b[0].events {
		if e.Rev != uint64(i+2) || e.Key != keyN(i+1) {
			t.Fatalf("event %d: %s at %d", i, e.Key, e.Rev)
		}
	}
	if _, ok := get(t, h.f, keyN(3), 0); !ok {
		t.Fatal("a committed create is not visible")
	}

	// A reader waits for entry 6, not applied yet: entries 5 and 6 are
	// committed as they come, entry 7 waits again.
	if a := h.f.Need(6); a != 4 {
		t.Fatalf("Need(6) = %d, want 4", a)
	}
	for i := 4; i < 7; i++ {
		h.mustApply(create(keyN(i), `{}`))
	}
	if a := h.f.Applied(); a != 6 {
		t.Fatalf("Applied %d, want 6: the entries a reader waits for are committed at once", a)
	}
	if a := h.f.Need(5); a != 6 {
		t.Fatalf("Need(5) = %d on a state at 6", a)
	}
}

// Without readers the commit timer publishes what was applied.
func TestCommitDelayTimer(t *testing.T) {
	h := newDelayedHarness(t, 500*time.Millisecond)
	h.mustApply(create("a", `{}`)) // committed at once
	h.mustApply(create("b", `{}`))
	h.mustApply(create("c", `{}`))
	deadline := time.Now().Add(10 * time.Second)
	for h.f.Applied() != 3 {
		if time.Now().After(deadline) {
			t.Fatalf("Applied %d long after the commit delay, want 3", h.f.Applied())
		}
		time.Sleep(time.Millisecond)
	}
	b := h.rec.take()
	if len(b) != 2 || len(b[0].events) != 1 || len(b[1].events) != 2 {
		t.Fatalf("committed %+v, want the first create, then the other two in one call", b)
	}
}

// A snapshot covers every entry handed to ApplyBatch, and Close keeps
// what was pending.
func TestCommitDelaySnapshotAndClose(t *testing.T) {
	h := newDelayedHarness(t, time.Hour)
	h.mustApply(create("a", `{"v":1}`))
	h.mustApply(update("a", `{"v":2}`, fsm.Preconditions{ResourceVersion: 1}))
	snap, err := h.f.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	h.mustApply(create("after", `{}`)) // not in the snapshot
	sink := &memSink{}
	if err := snap.Persist(sink); err != nil {
		t.Fatal(err)
	}
	snap.Release()
	data := sink.Bytes()
	f2 := mustOpen(t, filepath.Join(t.TempDir(), "other.db"), nil)
	t.Cleanup(func() { f2.Close() })
	if err := restore(t, f2, data); err != nil {
		t.Fatal(err)
	}
	if f2.Applied() != 2 {
		t.Fatalf("snapshot holds applied %d, want 2", f2.Applied())
	}
	if o, ok := get(t, f2, "a", 0); !ok || o.Rev != 2 {
		t.Fatalf("snapshot holds a at %d (present %v), want 2", o.Rev, ok)
	}
	if _, ok := get(t, f2, "after", 0); ok {
		t.Fatal("snapshot holds an entry applied after it was taken")
	}

	last := h.next - 1
	h.reopen() // Close commits; the harness reopens without a delay
	if a := h.f.Applied(); a != last {
		t.Fatalf("Applied %d after reopen, want %d", a, last)
	}
}

// Restore commits what was pending before it replaces the state, so the
// listener sees the pending batches' events, then the restore.
func TestCommitDelayRestore(t *testing.T) {
	src := buildHistory(t)
	data, want := snapshotOf(t, src)

	h := newDelayedHarness(t, time.Hour)
	h.mustApply(create("pending", `{}`))
	if err := restore(t, h.f, data); err != nil {
		t.Fatal(err)
	}
	if b := h.rec.take(); len(b) != 1 || b[0].applied != 1 {
		t.Fatalf("committed %+v, want the pending batch", b)
	}
	if r := h.rec.restores(); len(r) != 1 || r[0] != want.Applied {
		t.Fatalf("Restored %v, want [%d]", r, want.Applied)
	}
	// Entries the restored state covers are skipped, later ones applied.
	at := want.Applied
	out := h.f.ApplyBatch([]*raft.Log{cmdLog(at, create("old", `{}`)), cmdLog(at+1, create("new", `{}`))})
	if out[0] != nil || asResult(t, out[1]).Err != nil {
		t.Fatalf("after restore: %v, %v", out[0], out[1])
	}
	if a := h.f.Need(at + 1); a != at+1 {
		t.Fatalf("Need(%d) = %d", at+1, a)
	}
}

// The same entries, applied with and without a commit delay, in batches
// and with reads needing them at random points, give the same state and
// the same event stream in the same order.
func TestCommitDelaySameOutcome(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 7))
	t.Logf("seed %d", seed)
	plain := newHarness(t)
	delayed := newDelayedHarness(t, time.Hour)
	var logs []*raft.Log
	for i := range 400 {
		key := keyN(rng.IntN(20))
		var c *fsm.Command
		switch rng.IntN(4) {
		case 0:
			c = create(key, fmt.Sprintf(`{"metadata":{"uid":"u%d"},"v":%d}`, i, i))
		case 1:
			c = update(key, fmt.Sprintf(`{"v":%d}`, i), fsm.Preconditions{ResourceVersion: uint64(rng.IntN(i + 1))})
		case 2:
			c = del(key, fsm.Preconditions{})
		default:
			c = compact(uint64(rng.IntN(i + 1)))
		}
		logs = append(logs, cmdLog(uint64(i+1), c))
	}
	for len(logs) > 0 {
		n := min(len(logs), 1+rng.IntN(8))
		batch := logs[:n]
		logs = logs[n:]
		want := plain.f.ApplyBatch(batch)
		got := delayed.f.ApplyBatch(batch)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("results of the batch ending at %d differ:\n got %v\nwant %v", batch[n-1].Index, got, want)
		}
		if rng.IntN(5) == 0 {
			delayed.f.Need(batch[n-1].Index - uint64(rng.IntN(n)))
		}
	}
	delayed.f.Need(400)
	if got, want := dump(t, delayed.f), dump(t, plain.f); !reflect.DeepEqual(got, want) {
		t.Fatalf("states differ:\n got %+v\nwant %+v", got, want)
	}
	if got, want := eventsOf(delayed.rec.take()), eventsOf(plain.rec.take()); !reflect.DeepEqual(got, want) {
		t.Fatalf("event streams differ:\n got %+v\nwant %+v", got, want)
	}
}

// eventsOf concatenates the events of committed batches.
func eventsOf(batches []batch) []fsm.Event {
	var out []fsm.Event
	for _, b := range batches {
		out = append(out, b.events...)
	}
	return out
}

// A transaction is committed once it holds MaxPending commands, whatever
// the delay.
func TestCommitDelayCap(t *testing.T) {
	h := newDelayedHarness(t, time.Hour)
	h.mustApply(create("first", `{}`)) // committed at once
	const per = 64
	for h.next <= fsm.MaxPending+1 {
		cmds := make([]*fsm.Command, per)
		for i := range cmds {
			cmds[i] = create(fmt.Sprintf("/k/%d", h.next+uint64(i)), `{}`)
		}
		if a := h.f.Applied(); a != 1 {
			t.Fatalf("Applied %d with %d commands pending", a, h.next-2)
		}
		h.apply(cmds...)
	}
	if a := h.f.Applied(); a != fsm.MaxPending+1 {
		t.Fatalf("Applied %d after %d more commands, want them committed", a, fsm.MaxPending)
	}
}

// NeedPrefix commits pending batches only for a read of keys they
// changed.
func TestCommitDelayNeedPrefix(t *testing.T) {
	h := newDelayedHarness(t, time.Hour)
	h.mustApply(create("/a/0", `{}`)) // committed at once
	h.mustApply(create("/a/1", `{}`))
	if a := h.f.NeedPrefix("/b/", 2); a != 1 {
		t.Fatalf("NeedPrefix(/b/) = %d, want 1: nothing pending is under /b/", a)
	}
	if a := h.f.NeedPrefix("/a/", 1); a != 1 {
		t.Fatalf("NeedPrefix(/a/, 1) = %d, want 1: index 1 is committed", a)
	}
	if a := h.f.NeedPrefix("/a/", 2); a != 2 {
		t.Fatalf("NeedPrefix(/a/, 2) = %d, want 2: /a/1 is pending", a)
	}
}
