package fsm_test

import (
	"encoding/binary"
	"errors"
	"reflect"
	"slices"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/raftapi/raftapi/fsm"
)

// buildHistory applies, at indexes 1..8:
//
//	1 create x   2 create y   3 update x   4 delete y
//	5 create z   6 update x   7 update z   8 create w
func buildHistory(t *testing.T) *harness {
	t.Helper()
	h := newHarness(t)
	for _, c := range []*fsm.Command{
		create("x", `{"v":1}`), create("y", `{"v":1}`), update("x", `{"v":2}`, fsm.Preconditions{}),
		del("y", fsm.Preconditions{}), create("z", `{"v":1}`), update("x", `{"v":3}`, fsm.Preconditions{}),
		update("z", `{"v":2}`, fsm.Preconditions{}), create("w", `{}`),
	} {
		h.mustApply(c)
	}
	return h
}

func TestCompactBoundary(t *testing.T) {
	tests := []struct {
		name    string
		revs    []uint64 // compact commands applied in turn, at 9, 10, ...
		want    []uint64 // Compacted() after each
		history int      // history records left at the end
	}{
		{"zero is a no-op", []uint64{0}, []uint64{0}, 8},
		{"within history", []uint64{4}, []uint64{4}, 5},
		{"at first revision", []uint64{1}, []uint64{1}, 8},
		{"clamped to entry index", []uint64{1000}, []uint64{9}, 0},
		{"exactly the entry index", []uint64{9}, []uint64{9}, 0},
		{"repeat is a no-op", []uint64{5, 5}, []uint64{5, 5}, 4},
		{"smaller is a no-op", []uint64{6, 3}, []uint64{6, 6}, 3},
		{"growing", []uint64{2, 4, 7}, []uint64{2, 4, 7}, 2},
		{"clamped then smaller", []uint64{100, 5}, []uint64{9, 9}, 0},
		{"clamped twice", []uint64{100, 100}, []uint64{9, 10}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := buildHistory(t)
			for i, rev := range tc.revs {
				r := h.apply1(compact(rev))
				if r.Err != nil || r.Rev != h.next-1 || r.Object != nil {
					t.Fatalf("compact(%d): result %+v", rev, r)
				}
				b := h.rec.take()
				if b[len(b)-1].applied != h.next-1 || len(b[len(b)-1].events) != 0 {
					t.Fatalf("compact(%d) committed %+v", rev, b[len(b)-1])
				}
				if got := h.f.Compacted(); got != tc.want[i] {
					t.Fatalf("compact(%d): Compacted() = %d, want %d", rev, got, tc.want[i])
				}
			}
			want := h.f.Compacted()
			before := dump(t, h.f)
			live := fsm.IndexRevisions(h.f)
			h.reopen()
			if h.f.Compacted() != want {
				t.Fatalf("Compacted() after reopen = %d, want %d", h.f.Compacted(), want)
			}
			if got := dump(t, h.f); !reflect.DeepEqual(got, before) {
				t.Fatalf("state after reopen:\n got %+v\nwant %+v", got, before)
			}
			revs := historyRecords(t, h)
			rebuilt := fsm.IndexRevisions(h.f)
			if len(revs) != tc.history || len(live) != tc.history || len(rebuilt) != tc.history {
				t.Fatalf("%d history records, %d key index revisions pruned live and %d rebuilt (%v, %v, %v), want %d",
					len(revs), len(live), len(rebuilt), revs, live, rebuilt, tc.history)
			}
			for _, rev := range slices.Concat(revs, live, rebuilt) {
				if rev < want {
					t.Fatalf("history of revision %d kept below boundary %d", rev, want)
				}
			}
		})
	}
}

// historyRecords reads the revisions in the rev bucket of the state file
// directly (closing and reopening the FSM around it).
func historyRecords(t *testing.T, h *harness) (revs []uint64) {
	t.Helper()
	if err := h.f.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := bolt.Open(h.path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	err = db.View(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte("rev")).ForEach(func(k, _ []byte) error {
			revs = append(revs, binary.BigEndian.Uint64(k))
			return nil
		})
	})
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	h.f = mustOpen(t, h.path, h.rec)
	return revs
}

// TestCompactedReads checks reads around a boundary of 5 over buildHistory.
func TestCompactedReads(t *testing.T) {
	h := buildHistory(t)
	h.apply1(compact(5)) // index 9
	tests := []struct {
		name    string
		key     string
		rev     uint64
		wantRev uint64 // 0: not found
		wantErr error
	}{
		{"below boundary", "x", 4, 0, fsm.ErrCompacted},
		{"first revision", "x", 1, 0, fsm.ErrCompacted},
		{"at boundary, last change before it", "x", 5, 3, nil},
		{"at boundary, created at it", "z", 5, 5, nil},
		{"at boundary, deleted before it", "y", 5, 0, nil},
		{"at boundary, not yet created", "w", 5, 0, nil},
		{"after boundary", "x", 6, 6, nil},
		{"between changes", "z", 6, 5, nil},
		{"current", "x", 0, 6, nil},
		{"at applied", "z", 9, 7, nil},
		{"future", "x", 10, 0, fsm.ErrFutureRevision},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			view(t, h.f, func(v *fsm.View) {
				o, ok, err := v.Get(tc.key, tc.rev)
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("Get(%q, %d) err %v, want %v", tc.key, tc.rev, err, tc.wantErr)
				}
				if ok != (tc.wantRev != 0) || o.Rev != tc.wantRev {
					t.Fatalf("Get(%q, %d) = %+v %v, want rev %d", tc.key, tc.rev, o, ok, tc.wantRev)
				}
			})
		})
	}
	view(t, h.f, func(v *fsm.View) {
		if v.Compacted() != 5 {
			t.Fatalf("view Compacted() = %d", v.Compacted())
		}
		if err := v.Range("", "", 4, func(fsm.Object) bool { return true }); !errors.Is(err, fsm.ErrCompacted) {
			t.Fatalf("Range below boundary: %v", err)
		}
		if got := keyRevs(rangeAll(t, v, "", "", 5)); len(got) != 2 || got[0] != (kr{"x", 3}) || got[1] != (kr{"z", 5}) {
			t.Fatalf("Range at boundary = %v", got)
		}
		for _, after := range []uint64{0, 4} {
			if err := v.Events(after, func(fsm.Event) bool { return true }); !errors.Is(err, fsm.ErrCompacted) {
				t.Fatalf("Events(%d): %v, want ErrCompacted", after, err)
			}
		}
		var revs []uint64
		if err := v.Events(5, func(e fsm.Event) bool { revs = append(revs, e.Rev); return true }); err != nil {
			t.Fatal(err)
		}
		if len(revs) != 3 || revs[0] != 6 || revs[1] != 7 || revs[2] != 8 {
			t.Fatalf("Events(5) revisions %v, want [6 7 8]", revs)
		}
	})
}
