package fsm_test

import (
	"errors"
	"reflect"
	"runtime"
	"testing"

	"github.com/hashicorp/raft"

	"github.com/raftapi/raftapi/fsm"
)

// history builds this state, one entry per line:
//
//	1 create /a/1 v1
//	2 create /a/2
//	3 update /a/1 v2
//	4 create /b/1
//	5 delete /a/2
//	6 (configuration entry)
//	7 update /a/1 v3
//	8 create /a/0
//	9 delete /a/1
//	10 create /a/1 again
//	11 create /a/2 again
//	12 delete /b/1
func history(t *testing.T) (*harness, map[uint64]*fsm.Result) {
	t.Helper()
	h := newHarness(t)
	res := map[uint64]*fsm.Result{}
	do := func(c *fsm.Command) {
		t.Helper()
		r := h.mustApply(c)
		res[r.Rev] = r
	}
	do(create("/a/1", `{"v":1,"metadata":{"uid":"u1"}}`))
	do(create("/a/2", `{"v":1}`))
	do(update("/a/1", `{"v":2,"metadata":{"uid":"u1"}}`, fsm.Preconditions{}))
	do(create("/b/1", `{"v":1}`))
	do(del("/a/2", fsm.Preconditions{}))
	h.f.ApplyBatch([]*raft.Log{h.rawEntry(raft.LogConfiguration, nil)})
	do(update("/a/1", `{"v":3,"metadata":{"uid":"u1"}}`, fsm.Preconditions{}))
	do(create("/a/0", `{}`))
	do(del("/a/1", fsm.Preconditions{}))
	do(create("/a/1", `{"v":4,"metadata":{"uid":"u2"}}`))
	do(create("/a/2", `{"v":5}`))
	do(del("/b/1", fsm.Preconditions{}))
	if h.f.Applied() != 12 {
		t.Fatalf("history applied %d", h.f.Applied())
	}
	return h, res
}

// TestHistoryRecordsStoreNoObject checks that a change's history record
// leaves its object out (each version is stored once, in the current state
// or as the version a later change replaced) and that a state file whose
// records carry their objects, as earlier releases wrote them, reads the
// same, alone and mixed with new records.
func TestHistoryRecordsStoreNoObject(t *testing.T) {
	h, _ := history(t)
	if n := fsm.RecordsWithObject(h.f); n != 0 {
		t.Fatalf("%d history records store their object", n)
	}
	want := dump(t, h.f)
	if len(want.Events) != 11 {
		t.Fatalf("history has %d events, want 11", len(want.Events))
	}
	if err := fsm.RewriteRecordsWithObject(h.f); err != nil {
		t.Fatal(err)
	}
	if n := fsm.RecordsWithObject(h.f); n != 11 {
		t.Fatalf("%d records rewritten with their object, want 11", n)
	}
	h.reopen()
	if got := dump(t, h.f); !reflect.DeepEqual(got, want) {
		t.Fatalf("state with records of an earlier release reads\n%+v\nwant\n%+v", got, want)
	}

	h.mustApply(update("/a/2", `{"v":6}`, fsm.Preconditions{}))
	h.mustApply(del("/a/0", fsm.Preconditions{}))
	h.mustApply(compact(4))
	got := dump(t, h.f)
	if n := fsm.RecordsWithObject(h.f); n != 8 {
		t.Fatalf("%d records of the earlier release after compacting at 4, want 8", n)
	}
	// Events after the boundary 4: the earlier release's records from 5 on
	// (want.Events[4:]), then the two new changes.
	if len(got.Events) != len(want.Events)-4+2 {
		t.Fatalf("%d events after two more changes and compacting at 4, want %d", len(got.Events), len(want.Events)-2)
	}
	if !reflect.DeepEqual(got.Events[:len(got.Events)-2], want.Events[4:]) {
		t.Fatalf("events of the earlier release's records changed:\n%+v\nwant\n%+v", got.Events, want.Events[4:])
	}
	assertJSON(t, got.Events[len(got.Events)-2].Object, stamped(t, `{"v":6}`, 13))
	assertJSON(t, got.Events[len(got.Events)-1].Object, stamped(t, `{}`, 14))
}

func TestViewGet(t *testing.T) {
	h, res := history(t)
	tests := []struct {
		name    string
		key     string
		rev     uint64
		wantRev uint64 // 0: not found
	}{
		{"current", "/a/1", 0, 10},
		{"at applied", "/a/1", 12, 10},
		{"at create", "/a/1", 1, 1},
		{"between create and update", "/a/1", 2, 1},
		{"at update", "/a/1", 3, 3},
		{"across configuration entry", "/a/1", 6, 3},
		{"at second update", "/a/1", 7, 7},
		{"just before delete", "/a/1", 8, 7},
		{"at delete", "/a/1", 9, 0},
		{"at re-create", "/a/1", 10, 10},
		{"other key before create", "/a/0", 7, 0},
		{"other key at create", "/a/0", 8, 8},
		{"created then deleted, before", "/a/2", 1, 0},
		{"created then deleted, live", "/a/2", 4, 2},
		{"created then deleted, gone", "/a/2", 5, 0},
		{"created then deleted, gone later", "/a/2", 10, 0},
		{"created again", "/a/2", 11, 11},
		{"deleted now, historical", "/b/1", 11, 4},
		{"deleted now, current", "/b/1", 0, 0},
		{"deleted now, at applied", "/b/1", 12, 0},
		{"never existed", "/zz", 5, 0},
		{"never existed current", "/zz", 0, 0},
		{"prefix of a key", "/a/", 5, 0},
		{"extension of a key", "/a/1x", 5, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o, ok := get(t, h.f, tc.key, tc.rev)
			if tc.wantRev == 0 {
				if ok {
					t.Fatalf("Get(%q, %d) = %+v, want not found", tc.key, tc.rev, o)
				}
				return
			}
			want := res[tc.wantRev]
			if !ok || o.Key != tc.key || o.Rev != tc.wantRev || string(o.Data) != string(want.Object) {
				t.Fatalf("Get(%q, %d) = %+v %v, want rev %d %s", tc.key, tc.rev, o, ok, tc.wantRev, want.Object)
			}
		})
	}
}

func TestViewFutureRevision(t *testing.T) {
	h, _ := history(t)
	view(t, h.f, func(v *fsm.View) {
		if _, _, err := v.Get("/a/1", 13); !errors.Is(err, fsm.ErrFutureRevision) {
			t.Fatalf("Get above applied: %v", err)
		}
		if err := v.Range("", "", 1<<40, func(fsm.Object) bool { return true }); !errors.Is(err, fsm.ErrFutureRevision) {
			t.Fatalf("Range above applied: %v", err)
		}
	})
}

// A view is a snapshot: changes applied while it runs are not seen. The
// apply is not awaited inside the view: bbolt may make a write that grows
// the file wait for open read transactions.
func TestViewIsConsistentSnapshot(t *testing.T) {
	h, _ := history(t)
	done := make(chan struct{})
	err := h.f.View(func(v *fsm.View) error {
		before := rangeAll(t, v, "", "", 0)
		go func() {
			defer close(done)
			for i := range 20 {
				h.mustApply(create(keyN(i), `{}`))
			}
		}()
		for range 100 {
			runtime.Gosched()
			if v.Applied() != 12 {
				t.Errorf("view applied changed to %d", v.Applied())
			}
			if after := rangeAll(t, v, "", "", 0); !reflect.DeepEqual(before, after) {
				t.Errorf("view changed while open:\n%+v\n%+v", before, after)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	<-done
	if _, ok := get(t, h.f, keyN(19), 0); !ok {
		t.Fatal("new object not visible in a later view")
	}
}

type kr struct {
	Key string
	Rev uint64
}

func keyRevs(objs []fsm.Object) []kr {
	out := []kr{}
	for _, o := range objs {
		out = append(out, kr{o.Key, o.Rev})
	}
	return out
}

func TestViewRange(t *testing.T) {
	h, res := history(t)
	tests := []struct {
		name          string
		prefix, after string
		rev           uint64
		want          []kr
	}{
		{"current all", "", "", 0, []kr{{"/a/0", 8}, {"/a/1", 10}, {"/a/2", 11}}},
		{"at applied", "", "", 12, []kr{{"/a/0", 8}, {"/a/1", 10}, {"/a/2", 11}}},
		{"current prefix", "/b/", "", 0, []kr{}},
		{"rev 1", "", "", 1, []kr{{"/a/1", 1}}},
		{"rev 4", "", "", 4, []kr{{"/a/1", 3}, {"/a/2", 2}, {"/b/1", 4}}},
		{"rev 5 deleted key gone", "", "", 5, []kr{{"/a/1", 3}, {"/b/1", 4}}},
		{"rev 7 created since excluded", "", "", 7, []kr{{"/a/1", 7}, {"/b/1", 4}}},
		{"rev 8", "", "", 8, []kr{{"/a/0", 8}, {"/a/1", 7}, {"/b/1", 4}}},
		{"rev 9", "", "", 9, []kr{{"/a/0", 8}, {"/b/1", 4}}},
		{"rev 11 deleted since included", "", "", 11, []kr{{"/a/0", 8}, {"/a/1", 10}, {"/a/2", 11}, {"/b/1", 4}}},
		{"prefix /a/ at 4", "/a/", "", 4, []kr{{"/a/1", 3}, {"/a/2", 2}}},
		{"prefix /b/ at 4", "/b/", "", 4, []kr{{"/b/1", 4}}},
		{"prefix /b/ at 11", "/b/", "", 11, []kr{{"/b/1", 4}}},
		{"prefix /b at 11", "/b", "", 11, []kr{{"/b/1", 4}}},
		{"prefix none", "/c/", "", 11, []kr{}},
		{"prefix whole key", "/a/1", "", 4, []kr{{"/a/1", 3}}},
		{"after current", "", "/a/0", 0, []kr{{"/a/1", 10}, {"/a/2", 11}}},
		{"after current missing key", "", "/a/0x", 0, []kr{{"/a/1", 10}, {"/a/2", 11}}},
		{"after historical", "", "/a/1", 4, []kr{{"/a/2", 2}, {"/b/1", 4}}},
		{"after historical key with history", "", "/a/0", 11, []kr{{"/a/1", 10}, {"/a/2", 11}, {"/b/1", 4}}},
		{"after historical deleted key", "", "/b/1", 11, []kr{}},
		{"after historical last", "/a/", "/a/2", 4, []kr{}},
		{"after below prefix", "/b/", "/a/9", 4, []kr{{"/b/1", 4}}},
		{"after above prefix", "/a/", "/b", 4, []kr{}},
		{"after equal prefix", "/a/", "/a/", 4, []kr{{"/a/1", 3}, {"/a/2", 2}}},
		{"after with prefix historical", "/a/", "/a/1", 11, []kr{{"/a/2", 11}}},
		{"after with prefix current", "/a/", "/a/1", 0, []kr{{"/a/2", 11}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []fsm.Object
			view(t, h.f, func(v *fsm.View) { got = rangeAll(t, v, tc.prefix, tc.after, tc.rev) })
			if g := keyRevs(got); !reflect.DeepEqual(g, tc.want) {
				t.Fatalf("Range(%q, %q, %d) = %v, want %v", tc.prefix, tc.after, tc.rev, g, tc.want)
			}
			for _, o := range got {
				if string(o.Data) != string(res[o.Rev].Object) {
					t.Fatalf("%s@%d data %s, want %s", o.Key, o.Rev, o.Data, res[o.Rev].Object)
				}
			}
		})
	}
}

func TestViewRangeStops(t *testing.T) {
	h, _ := history(t)
	for _, rev := range []uint64{0, 4, 11} {
		var n int
		view(t, h.f, func(v *fsm.View) {
			if err := v.Range("", "", rev, func(fsm.Object) bool { n++; return n < 2 }); err != nil {
				t.Fatal(err)
			}
		})
		if n != 2 {
			t.Fatalf("rev %d: fn called %d times after returning false at 2", rev, n)
		}
	}
}

// The returned objects are copies that stay valid after the view.
func TestViewResultsOutliveView(t *testing.T) {
	h, res := history(t)
	var objs []fsm.Object
	var evs []fsm.Event
	view(t, h.f, func(v *fsm.View) {
		objs = append(rangeAll(t, v, "", "", 0), rangeAll(t, v, "", "", 4)...)
		_ = v.Events(0, func(e fsm.Event) bool { evs = append(evs, e); return true })
	})
	for i := range 50 {
		h.mustApply(create(keyN(i), `{"filler":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}`))
	}
	for _, o := range objs {
		if string(o.Data) != string(res[o.Rev].Object) {
			t.Fatalf("%s@%d changed to %s", o.Key, o.Rev, o.Data)
		}
	}
	for _, e := range evs {
		if string(e.Object) != string(res[e.Rev].Object) {
			t.Fatalf("event %d changed to %s", e.Rev, e.Object)
		}
	}
}

func TestViewEvents(t *testing.T) {
	h, res := history(t)
	all := []fsm.Event{
		{Type: fsm.Created, Key: "/a/1", Rev: 1, Object: res[1].Object},
		{Type: fsm.Created, Key: "/a/2", Rev: 2, Object: res[2].Object},
		{Type: fsm.Updated, Key: "/a/1", Rev: 3, Object: res[3].Object, Prev: res[1].Object, PrevRev: 1},
		{Type: fsm.Created, Key: "/b/1", Rev: 4, Object: res[4].Object},
		{Type: fsm.Deleted, Key: "/a/2", Rev: 5, Object: res[5].Object, Prev: res[2].Object, PrevRev: 2},
		{Type: fsm.Updated, Key: "/a/1", Rev: 7, Object: res[7].Object, Prev: res[3].Object, PrevRev: 3},
		{Type: fsm.Created, Key: "/a/0", Rev: 8, Object: res[8].Object},
		{Type: fsm.Deleted, Key: "/a/1", Rev: 9, Object: res[9].Object, Prev: res[7].Object, PrevRev: 7},
		{Type: fsm.Created, Key: "/a/1", Rev: 10, Object: res[10].Object},
		{Type: fsm.Created, Key: "/a/2", Rev: 11, Object: res[11].Object},
		{Type: fsm.Deleted, Key: "/b/1", Rev: 12, Object: res[12].Object, Prev: res[4].Object, PrevRev: 4},
	}
	tests := []struct {
		name  string
		after uint64
		limit int // stop after this many (0: all)
		want  []fsm.Event
	}{
		{"all", 0, 0, all},
		{"after 4", 4, 0, all[4:]},
		{"after configuration entry", 6, 0, all[5:]},
		{"after 5", 5, 0, all[5:]},
		{"after applied", 12, 0, nil},
		{"beyond applied", 100, 0, nil},
		{"stop early", 0, 3, all[:3]},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []fsm.Event
			view(t, h.f, func(v *fsm.View) {
				err := v.Events(tc.after, func(e fsm.Event) bool {
					got = append(got, e)
					return tc.limit == 0 || len(got) < tc.limit
				})
				if err != nil {
					t.Fatal(err)
				}
			})
			assertEvents(t, got, tc.want)
		})
	}
}
