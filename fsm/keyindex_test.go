package fsm_test

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/raftapi/raftapi/fsm"
)

// The key index holds the revisions of batches applied but not committed
// yet; a view reads the state as of its own applied index and must not
// follow them.
func TestKeyIndexAheadOfView(t *testing.T) {
	h := newDelayedHarness(t, time.Hour)
	h.mustApply(create("x", `{"v":1}`)) // 1, committed at once
	h.mustApply(create("y", `{"v":2}`)) // 2
	h.f.Need(2)
	h.mustApply(update("x", `{"v":3}`, fsm.Preconditions{})) // 3, pending
	h.mustApply(del("y", fsm.Preconditions{}))               // 4, pending
	if a := h.f.Applied(); a != 2 {
		t.Fatalf("Applied %d, want 2 with 3 and 4 pending", a)
	}
	view(t, h.f, func(v *fsm.View) {
		o, ok, err := v.Get("x", 1)
		if err != nil || !ok || o.Rev != 1 {
			t.Fatalf("Get(x, 1) = %+v %v %v, want x at 1", o, ok, err)
		}
		if got := keyRevs(rangeAll(t, v, "", "", 1)); !reflect.DeepEqual(got, []kr{{"x", 1}}) {
			t.Fatalf("Range at 1 = %v, want [x@1]", got)
		}
		if n, err := v.Count("", "", 1); err != nil || n != 1 {
			t.Fatalf("Count at 1 = %d %v, want 1", n, err)
		}
		var revs []uint64
		if err := v.Events(0, func(e fsm.Event) bool { revs = append(revs, e.Rev); return true }); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(revs, []uint64{1, 2}) {
			t.Fatalf("Events(0) revisions %v, want [1 2]", revs)
		}
	})
	h.f.Need(4)
	if got := keyRevs(rangeAllAt(t, h.f, 3)); !reflect.DeepEqual(got, []kr{{"x", 3}, {"y", 2}}) {
		t.Fatalf("Range at 3 after the commit = %v, want [x@3 y@2]", got)
	}
}

// A view that began before a compaction committed may still ask about a
// revision the compaction dropped from the key index: it is told the
// revision is compacted, as a view begun after would be, and reads at or
// above the boundary are unaffected.
func TestKeyIndexPrunedUnderView(t *testing.T) {
	h := buildHistory(t)
	view(t, h.f, func(v *fsm.View) {
		if v.Compacted() != 0 {
			t.Fatalf("view Compacted() = %d before the compaction", v.Compacted())
		}
		if r := h.apply1(compact(5)); r.Err != nil { // index 9, committed now
			t.Fatal(r.Err)
		}
		if _, _, err := v.Get("x", 2); !errors.Is(err, fsm.ErrCompacted) {
			t.Fatalf("Get(x, 2) after the compaction: %v, want ErrCompacted", err)
		}
		if err := v.Range("", "", 2, func(fsm.Object) bool { return true }); !errors.Is(err, fsm.ErrCompacted) {
			t.Fatalf("Range at 2: %v, want ErrCompacted", err)
		}
		if _, err := v.Count("", "", 2); !errors.Is(err, fsm.ErrCompacted) {
			t.Fatalf("Count at 2: %v, want ErrCompacted", err)
		}
		if err := v.Events(1, func(fsm.Event) bool { return true }); !errors.Is(err, fsm.ErrCompacted) {
			t.Fatalf("Events(1): %v, want ErrCompacted", err)
		}
		if got := keyRevs(rangeAll(t, v, "", "", 6)); !reflect.DeepEqual(got, []kr{{"x", 6}, {"z", 5}}) {
			t.Fatalf("Range at 6 = %v, want [x@6 z@5]", got)
		}
	})
}

// An Exact read at a past revision walks the key index in batches: keys
// with history across several batches, deleted keys among them, under a
// prefix and after a continue key, must all resolve to their version at
// that revision.
func TestKeyIndexWalkAcrossBatches(t *testing.T) {
	const n = 700
	h := newHarness(t)
	key := func(p string, i int) string { return fmt.Sprintf("/%s/%04d", p, i) }
	for _, p := range []string{"a", "b", "c"} {
		for i := range n {
			h.mustApply(create(key(p, i), `{}`))
		}
	}
	past := h.next - 1
	for i := 0; i+1 < n; i += 3 {
		h.mustApply(del(key("b", i), fsm.Preconditions{}))
		h.mustApply(update(key("b", i+1), `{"u":1}`, fsm.Preconditions{}))
	}
	h.mustApply(create(key("b", n), `{}`))
	view(t, h.f, func(v *fsm.View) {
		for _, after := range []string{"", key("b", 299)} {
			got := rangeAll(t, v, "/b/", after, past)
			first := 0
			if after != "" {
				first = 300
			}
			if len(got) != n-first {
				t.Fatalf("Range(/b/, %q) at %d: %d objects, want %d", after, past, len(got), n-first)
			}
			for i, o := range got {
				if want := key("b", first+i); o.Key != want || o.Rev != uint64(n+first+i+1) {
					t.Fatalf("object %d = %s@%d, want %s@%d", i, o.Key, o.Rev, want, n+first+i+1)
				}
			}
			if c, err := v.Count("/b/", after, past); err != nil || c != int64(n-first) {
				t.Fatalf("Count(/b/, %q) at %d = %d %v, want %d", after, past, c, err, n-first)
			}
		}
	})
}

// A state file of an earlier release keeps its key index in a bucket; Open
// drops it and answers past reads from the index it builds.
func TestOpenDropsOldKeyIndexBucket(t *testing.T) {
	h := buildHistory(t)
	h.apply1(compact(3))
	before := dump(t, h.f)
	if err := h.f.Close(); err != nil {
		t.Fatal(err)
	}
	editBolt(t, h.path, func(tx *bolt.Tx) error {
		b, err := tx.CreateBucket([]byte("keyidx"))
		if err != nil {
			return err
		}
		return b.Put([]byte("x\x00\x00\x00\x00\x00\x00\x00\x00\x03"), nil)
	})
	h.f = mustOpen(t, h.path, h.rec)
	if got := dump(t, h.f); !reflect.DeepEqual(got, before) {
		t.Fatalf("state after reopen:\n got %+v\nwant %+v", got, before)
	}
	if err := h.f.Close(); err != nil {
		t.Fatal(err)
	}
	editBolt(t, h.path, func(tx *bolt.Tx) error {
		if tx.Bucket([]byte("keyidx")) != nil {
			return errors.New("the keyidx bucket is still there")
		}
		return nil
	})
	h.f = mustOpen(t, h.path, h.rec)
}

// editBolt runs fn in a write transaction of the bbolt file at path.
func editBolt(t *testing.T, path string, fn func(tx *bolt.Tx) error) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(fn)
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
}

// rangeAllAt collects Range("", "", rev) in a view of its own.
func rangeAllAt(t *testing.T, f *fsm.FSM, rev uint64) (out []fsm.Object) {
	t.Helper()
	view(t, f, func(v *fsm.View) { out = rangeAll(t, v, "", "", rev) })
	return out
}
