package fsm_test

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"testing/iotest"

	"github.com/hashicorp/raft"
	bolt "go.etcd.io/bbolt"

	"github.com/raftapi/raftapi/fsm"
)

// memSink is a raft.SnapshotSink into memory.
type memSink struct {
	bytes.Buffer
	failWrite bool
	mu        sync.Mutex
	closed    int
	cancelled int
}

var _ raft.SnapshotSink = (*memSink)(nil)

func (s *memSink) Write(p []byte) (int, error) {
	if s.failWrite {
		return 0, errors.New("sink: disk full")
	}
	return s.Buffer.Write(p)
}

func (s *memSink) ID() string { return "mem-snapshot" }

func (s *memSink) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed++
	return nil
}

func (s *memSink) Cancel() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cancelled++
	return nil
}

func (s *memSink) counts() (closed, cancelled int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed, s.cancelled
}

// readCloser records whether Restore closed its input.
type readCloser struct {
	io.Reader
	closed bool
}

func (r *readCloser) Close() error { r.closed = true; return nil }

// snapshotOf persists a snapshot of h's FSM while more batches are applied
// to it, as raft does, and returns the bytes and the state they hold.
func snapshotOf(t *testing.T, h *harness) ([]byte, state) {
	t.Helper()
	want := dump(t, h.f)
	snap, err := h.f.Snapshot()
	if err != nil {
		t.Fatalf("Snapshot: %v", err)
	}
	sink := &memSink{}
	done := make(chan error, 1)
	go func() {
		defer snap.Release()
		done <- snap.Persist(sink)
	}()
	for i := range 30 {
		h.apply(create(keyN(500+i), `{"late":true}`), update("x", `{"v":"late"}`, fsm.Preconditions{}))
	}
	if err := <-done; err != nil {
		t.Fatalf("Persist: %v", err)
	}
	if closed, cancelled := sink.counts(); closed != 1 || cancelled != 0 {
		t.Fatalf("sink closed %d cancelled %d times, want 1 and 0", closed, cancelled)
	}
	if h.f.Applied() != want.Applied+60 {
		t.Fatalf("applied %d while persisting, want %d", h.f.Applied(), want.Applied+60)
	}
	return sink.Bytes(), want
}

func restore(t *testing.T, f *fsm.FSM, data []byte) error {
	t.Helper()
	rc := &readCloser{Reader: bytes.NewReader(data)}
	err := f.Restore(rc)
	if !rc.closed {
		t.Fatal("Restore did not close its reader")
	}
	return err
}

func TestSnapshotRestore(t *testing.T) {
	h := buildHistory(t)
	h.apply1(compact(3))
	data, want := snapshotOf(t, h)
	if want.Applied != 9 || want.Compacted != 3 {
		t.Fatalf("snapshot state applied %d compacted %d", want.Applied, want.Compacted)
	}

	// A second FSM at another path, with a state of its own to discard.
	rec2 := &recorder{}
	f2 := mustOpen(t, filepath.Join(t.TempDir(), "other.db"), rec2)
	t.Cleanup(func() { f2.Close() })
	f2.ApplyBatch([]*raft.Log{cmdLog(1, create("only-in-f2", `{}`)), cmdLog(50, create("x", `{}`))})

	if err := restore(t, f2, data); err != nil {
		t.Fatalf("Restore: %v", err)
	}
	if got := dump(t, f2); !reflect.DeepEqual(got, want) {
		t.Fatalf("restored state:\n got %+v\nwant %+v", got, want)
	}
	if f2.Applied() != 9 || f2.Compacted() != 3 {
		t.Fatalf("restored Applied %d Compacted %d", f2.Applied(), f2.Compacted())
	}
	if r := rec2.restores(); len(r) != 1 || r[0] != 9 {
		t.Fatalf("Restored calls %v, want [9]", r)
	}

	// The restored FSM applies the entries that follow the snapshot as the
	// original did.
	h2 := &harness{t: t, f: f2, rec: rec2, next: 10}
	rec2.take()
	r := h2.mustApply(update("x", `{"v":"late"}`, fsm.Preconditions{ResourceVersion: 6}))
	if r.Rev != 10 {
		t.Fatalf("first entry after restore: rev %d", r.Rev)
	}
	if b := rec2.take(); len(b) != 1 || len(b[0].events) != 1 || b[0].events[0].PrevRev != 6 {
		t.Fatalf("committed after restore %+v", b)
	}
	// Entries the snapshot covers are skipped.
	if out := f2.ApplyBatch([]*raft.Log{cmdLog(9, create("old", `{}`))}); out[0] != nil {
		t.Fatalf("entry covered by the snapshot applied: %v", out[0])
	}
}

// Restore into the FSM that took the snapshot rolls it back, and the
// restored state survives a reopen.
func TestRestoreSameFSM(t *testing.T) {
	h := buildHistory(t)
	data, want := snapshotOf(t, h)
	if err := restore(t, h.f, data); err != nil {
		t.Fatalf("Restore: %v", err)
	}
	if got := dump(t, h.f); !reflect.DeepEqual(got, want) {
		t.Fatalf("restored state:\n got %+v\nwant %+v", got, want)
	}
	h.reopen()
	if got := dump(t, h.f); !reflect.DeepEqual(got, want) {
		t.Fatalf("restored state after reopen:\n got %+v\nwant %+v", got, want)
	}
	if r := h.rec.restores(); len(r) != 1 || r[0] != want.Applied {
		t.Fatalf("Restored calls %v", r)
	}
}

// A snapshot of a fresh FSM restores to an empty state.
func TestSnapshotEmpty(t *testing.T) {
	h := newHarness(t)
	snap, err := h.f.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	sink := &memSink{}
	if err := snap.Persist(sink); err != nil {
		t.Fatal(err)
	}
	snap.Release()
	f2 := mustOpen(t, filepath.Join(t.TempDir(), "b.db"), nil)
	t.Cleanup(func() { f2.Close() })
	f2.ApplyBatch([]*raft.Log{cmdLog(1, create("k", `{}`))})
	if err := restore(t, f2, sink.Bytes()); err != nil {
		t.Fatal(err)
	}
	if s := dump(t, f2); s.Applied != 0 || len(s.Current) != 0 || len(s.Events) != 0 {
		t.Fatalf("restored empty snapshot: %+v", s)
	}
}

func TestPersistFailureCancels(t *testing.T) {
	h := buildHistory(t)
	snap, err := h.f.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Release()
	sink := &memSink{failWrite: true}
	if err := snap.Persist(sink); err == nil {
		t.Fatal("Persist into a failing sink succeeded")
	}
	if closed, cancelled := sink.counts(); closed != 0 || cancelled != 1 {
		t.Fatalf("sink closed %d cancelled %d times, want 0 and 1", closed, cancelled)
	}
}

func TestRestoreGarbage(t *testing.T) {
	h := buildHistory(t)
	good, _ := snapshotOf(t, h)
	noBuckets := boltFileWithout(t)
	rnd := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 64<<10)
	for i := range random {
		random[i] = byte(rnd.Uint32())
	}
	flipped := bytes.Clone(good)
	for i := 0; i < 8192 && i < len(flipped); i++ { // both meta pages
		flipped[i] ^= 0x5a
	}
	tests := []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"text", []byte("this is not a snapshot")},
		{"random", random},
		{"bbolt file without our buckets", noBuckets},
		{"corrupt meta pages", flipped},
		{"truncated to one page", good[:4096]},
		{"truncated to half", good[:len(good)/2]},
		{"truncated by one page", good[:len(good)-4096]},
		{"truncated by one byte", good[:len(good)-1]},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := dump(t, h.f)
			restores := len(h.rec.restores())
			if err := restore(t, h.f, tc.data); err == nil {
				t.Fatal("Restore succeeded")
			}
			if got := dump(t, h.f); !reflect.DeepEqual(got, want) {
				t.Fatalf("failed Restore changed state:\n got %+v\nwant %+v", got, want)
			}
			if len(h.rec.restores()) != restores {
				t.Fatal("Listener.Restored called for a failed Restore")
			}
			h.mustApply(create(keyN(int(h.next)), `{}`)) // still usable
			h.reopen()
			if got := h.f.Applied(); got != want.Applied+1 {
				t.Fatalf("Applied() after reopen = %d, want %d", got, want.Applied+1)
			}
		})
	}
}

// TestRestoreFailingAtTheEnd: a reader that yields a whole valid
// snapshot and then fails (as the store's reader does when the data
// fails its checksum) leaves the state as it was.
func TestRestoreFailingAtTheEnd(t *testing.T) {
	h := buildHistory(t)
	good, _ := snapshotOf(t, h)
	h.mustApply(create(keyN(int(h.next)), `{}`))
	want := dump(t, h.f)
	corrupt := errors.New("corrupt snapshot")
	rc := &readCloser{Reader: io.MultiReader(bytes.NewReader(good), iotest.ErrReader(corrupt))}
	if err := h.f.Restore(rc); !errors.Is(err, corrupt) {
		t.Fatalf("Restore = %v, want the reader's error", err)
	}
	if got := dump(t, h.f); !reflect.DeepEqual(got, want) {
		t.Fatalf("failed Restore changed state:\n got %+v\nwant %+v", got, want)
	}
}

// boltFileWithout returns a valid bbolt file lacking the FSM's buckets.
func boltFileWithout(t *testing.T) []byte {
	t.Helper()
	db, err := bolt.Open(filepath.Join(t.TempDir(), "foreign.db"), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var buf bytes.Buffer
	err = db.Update(func(tx *bolt.Tx) error {
		for _, name := range []string{"current", "rev"} { // no "meta"
			if _, err := tx.CreateBucket([]byte(name)); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		err = db.View(func(tx *bolt.Tx) error { _, err := tx.WriteTo(&buf); return err })
	}
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
