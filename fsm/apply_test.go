package fsm_test

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/raft"

	"github.com/raftapi/raftapi/fsm"
)

const (
	objA = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"ns","uid":"uid-a","labels":{"app":"x"}},"data":{"k":"v","n":"12345678901234567890"}}`
	objB = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"ns","uid":"uid-a","resourceVersion":"999"},"data":{"k":"v2"},"list":[1,2.5,true,null,{"z":{}}]}`
)

// TestPreconditions covers every rejection of a command against a state
// where key "k" holds objA (uid "uid-a") at revision 1.
func TestPreconditions(t *testing.T) {
	tests := []struct {
		name string
		cmd  *fsm.Command
		want fsm.Code // 0: committed
	}{
		{"create existing", create("k", `{}`), fsm.CodeAlreadyExists},
		{"create absent", create("k2", `{}`), 0},
		{"create empty key", create("", `{}`), fsm.CodeInvalid},
		{"create key with NUL", create("a\x00b", `{}`), fsm.CodeInvalid},
		{"create key ending in NUL", create("k\x00", `{}`), fsm.CodeInvalid},
		{"create array", create("k2", `[1,2]`), fsm.CodeInvalid},
		{"create string", create("k2", `"s"`), fsm.CodeInvalid},
		{"create number", create("k2", `1`), fsm.CodeInvalid},
		{"create null", create("k2", `null`), fsm.CodeInvalid},
		{"create empty payload", create("k2", ``), fsm.CodeInvalid},
		{"create not JSON", create("k2", `{"a":`), fsm.CodeInvalid},
		{"create trailing garbage", create("k2", `{} x`), fsm.CodeInvalid},
		{"create metadata not object", create("k2", `{"metadata":"x"}`), fsm.CodeInvalid},
		{"create metadata array", create("k2", `{"metadata":[1]}`), fsm.CodeInvalid},
		{"create metadata null", create("k2", `{"metadata":null}`), 0},
		{"create no metadata", create("k2", `{"spec":{}}`), 0},
		{"update absent", update("nope", `{}`, fsm.Preconditions{}), fsm.CodeNotFound},
		{"update no preconditions", update("k", `{}`, fsm.Preconditions{}), 0},
		{"update rv match", update("k", `{}`, fsm.Preconditions{ResourceVersion: 1}), 0},
		{"update rv mismatch", update("k", `{}`, fsm.Preconditions{ResourceVersion: 2}), fsm.CodeConflict},
		{"update uid match", update("k", `{}`, fsm.Preconditions{UID: "uid-a"}), 0},
		{"update uid mismatch", update("k", `{}`, fsm.Preconditions{UID: "uid-b"}), fsm.CodeConflict},
		{"update rv ok uid mismatch", update("k", `{}`, fsm.Preconditions{ResourceVersion: 1, UID: "x"}), fsm.CodeConflict},
		{"update uid ok rv mismatch", update("k", `{}`, fsm.Preconditions{ResourceVersion: 7, UID: "uid-a"}), fsm.CodeConflict},
		{"update both match", update("k", `{}`, fsm.Preconditions{ResourceVersion: 1, UID: "uid-a"}), 0},
		{"update not JSON", update("k", `nope`, fsm.Preconditions{}), fsm.CodeInvalid},
		{"update array", update("k", `[]`, fsm.Preconditions{}), fsm.CodeInvalid},
		{"update absent beats invalid object", update("nope", `[]`, fsm.Preconditions{}), fsm.CodeNotFound},
		{"update conflict beats invalid object", update("k", `[]`, fsm.Preconditions{ResourceVersion: 9}), fsm.CodeConflict},
		{"delete absent", del("nope", fsm.Preconditions{}), fsm.CodeNotFound},
		{"delete absent with preconditions", del("nope", fsm.Preconditions{ResourceVersion: 1}), fsm.CodeNotFound},
		{"delete no preconditions", del("k", fsm.Preconditions{}), 0},
		{"delete rv match", del("k", fsm.Preconditions{ResourceVersion: 1}), 0},
		{"delete rv mismatch", del("k", fsm.Preconditions{ResourceVersion: 3}), fsm.CodeConflict},
		{"delete uid match", del("k", fsm.Preconditions{UID: "uid-a"}), 0},
		{"delete uid mismatch", del("k", fsm.Preconditions{UID: "other"}), fsm.CodeConflict},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.mustApply(create("k", objA))
			before := dump(t, h.f)
			h.rec.take()

			r := h.apply1(tc.cmd)
			if r.Rev != 2 {
				t.Fatalf("result rev %d, want the entry index 2", r.Rev)
			}
			if got := fsm.CodeOf(r.Error()); got != tc.want {
				t.Fatalf("code %v (%v), want %v", got, r.Err, tc.want)
			}
			b := h.rec.take()
			if len(b) != 1 || b[0].applied != 2 {
				t.Fatalf("committed %+v, want one batch at applied 2", b)
			}
			if h.f.Applied() != 2 {
				t.Fatalf("Applied() = %d, want 2 even for a rejected command", h.f.Applied())
			}
			if tc.want == 0 {
				if len(b[0].events) != 1 || r.Object == nil {
					t.Fatalf("committed command: result %+v, events %+v", r, b[0].events)
				}
				return
			}
			if r.Err.Key != tc.cmd.Key || r.Err.Msg == "" || r.Object != nil {
				t.Fatalf("rejection %+v / result %+v", r.Err, r)
			}
			if len(b[0].events) != 0 {
				t.Fatalf("rejected command produced events %+v", b[0].events)
			}
			after := dump(t, h.f)
			before.Applied = 2
			before.History[2] = before.Current
			if !reflect.DeepEqual(before, after) {
				t.Fatalf("rejected command changed state:\nbefore %+v\n after %+v", before, after)
			}
		})
	}
}

// Update and delete of a key that cannot exist are rejected, never panic.
func TestUpdateDeleteInvalidKeyRejected(t *testing.T) {
	tests := []struct {
		name string
		cmd  *fsm.Command
	}{
		{"update empty key", update("", `{}`, fsm.Preconditions{})},
		{"update NUL key", update("k\x00", `{}`, fsm.Preconditions{})},
		{"delete empty key", del("", fsm.Preconditions{})},
		{"delete NUL key", del("k\x00", fsm.Preconditions{})},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.mustApply(create("k", `{}`))
			if r := h.apply1(tc.cmd); r.Err == nil {
				t.Fatalf("result %+v, want a rejection", r)
			}
		})
	}
}

// A key too long for bbolt (with the keyidx suffix) must be a rejection,
// not a panic that every replica would repeat on replay.
func TestCreateOversizedKeyRejected(t *testing.T) {
	h := newHarness(t)
	for _, n := range []int{100, 32000} {
		h.mustApply(create(strings.Repeat("k", n), `{}`))
	}
	for _, n := range []int{32768 - 8, 32768, 40000} {
		r := h.apply1(create(strings.Repeat("x", n), `{}`))
		if fsm.CodeOf(r.Error()) != fsm.CodeInvalid {
			t.Fatalf("key of %d bytes: result %+v, want CodeInvalid", n, r)
		}
	}
	h.mustApply(create("after", `{}`))
}

// TestStampResourceVersion checks that each change stores the object with
// metadata.resourceVersion set to its index and every other field intact.
func TestStampResourceVersion(t *testing.T) {
	h := newHarness(t)
	h.next = 41 // indexes need not start at 1

	c := h.mustApply(create("k", objA))
	if c.Rev != 41 {
		t.Fatalf("create rev %d, want 41", c.Rev)
	}
	assertJSON(t, c.Object, stamped(t, objA, 41))

	u := h.mustApply(update("k", objB, fsm.Preconditions{ResourceVersion: 41}))
	assertJSON(t, u.Object, stamped(t, objB, 42)) // "999" is overwritten

	o, ok := get(t, h.f, "k", 0)
	if !ok || o.Rev != 42 || o.Key != "k" || !bytes.Equal(o.Data, u.Object) {
		t.Fatalf("Get = %+v %v, want the update's result", o, ok)
	}

	d := h.mustApply(del("k", fsm.Preconditions{ResourceVersion: 42, UID: "uid-a"}))
	if d.Rev != 43 {
		t.Fatalf("delete rev %d", d.Rev)
	}
	assertJSON(t, d.Object, stamped(t, objB, 43))
	if _, ok := get(t, h.f, "k", 0); ok {
		t.Fatal("deleted key still readable")
	}

	tests := []struct {
		name string
		obj  string
	}{
		{"no metadata", `{"spec":{"a":[1,2,3]}}`},
		{"null metadata", `{"metadata":null,"x":1}`},
		{"empty object", `{}`},
		{"numeric resourceVersion", `{"metadata":{"resourceVersion":5,"name":"n"}}`},
		{"unicode and escapes", `{"metadata":{"name":"\u00e9\n<>&"},"s":"\"q\"","f":1e400}`},
		{"whitespace", " {\n \"metadata\" : { \"name\" : \"w\" } ,\t\"n\": -0.5 }\n"},
		{"big numbers", `{"n":123456789012345678901234567890,"m":0.1000000000000000055511151231257827}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := h.mustApply(create("s/"+tc.name, tc.obj))
			assertJSON(t, r.Object, stamped(t, tc.obj, r.Rev))
		})
	}
}

// Two replicas that apply the same entries store identical bytes.
func TestStampIsDeterministic(t *testing.T) {
	obj := `{"z":1,"a":{"y":2,"b":3},"metadata":{"uid":"u","name":"n","annotations":{"q":"r","c":"d"}}}`
	var first []byte
	for i := range 5 {
		h := newHarness(t)
		r := h.mustApply(create("k", obj))
		if i == 0 {
			first = r.Object
		} else if !bytes.Equal(first, r.Object) {
			t.Fatalf("run %d stored %s, run 0 stored %s", i, r.Object, first)
		}
	}
}

// TestCommittedEvents checks the events handed to the Listener and that
// Committed's applied index is the batch's last entry of any type.
func TestCommittedEvents(t *testing.T) {
	h := newHarness(t)
	logs := []*raft.Log{
		h.entry(create("a", objA)),                                     // 1
		h.rawEntry(raft.LogConfiguration, []byte("cfg")),               // 2
		h.entry(update("a", objB, fsm.Preconditions{})),                // 3
		h.entry(create("a", `{}`)),                                     // 4 rejected
		h.rawEntry(raft.LogNoop, nil),                                  // 5
		h.entry(del("a", fsm.Preconditions{ResourceVersion: 3})),       // 6
		h.entry(create("a", `{"metadata":{"uid":"again"}}`)),           // 7
		h.rawEntry(raft.LogBarrier, nil),                               // 8
		h.entry(create("b", `{}`)),                                     // 9
		h.entry(update("b", `{}`, fsm.Preconditions{UID: "mismatch"})), // 10 rejected
		h.rawEntry(raft.LogConfiguration, nil),                         // 11
	}
	out := h.f.ApplyBatch(logs)
	if len(out) != len(logs) {
		t.Fatalf("%d results for %d entries", len(out), len(logs))
	}
	for i, l := range logs {
		if l.Type != raft.LogCommand {
			if out[i] != nil {
				t.Fatalf("entry %d of type %v: result %v, want nil", l.Index, l.Type, out[i])
			}
			continue
		}
		asResult(t, out[i])
	}
	r := func(i int) *fsm.Result { return out[i].(*fsm.Result) }
	wantEvents := []fsm.Event{
		{Type: fsm.Created, Key: "a", Rev: 1, Object: r(0).Object},
		{Type: fsm.Updated, Key: "a", Rev: 3, Object: r(2).Object, Prev: r(0).Object, PrevRev: 1},
		{Type: fsm.Deleted, Key: "a", Rev: 6, Object: r(5).Object, Prev: r(2).Object, PrevRev: 3},
		{Type: fsm.Created, Key: "a", Rev: 7, Object: r(6).Object},
		{Type: fsm.Created, Key: "b", Rev: 9, Object: r(8).Object},
	}
	assertJSON(t, r(5).Object, stamped(t, objB, 6))
	b := h.rec.take()
	if len(b) != 1 {
		t.Fatalf("%d Committed calls, want 1", len(b))
	}
	if b[0].applied != 11 || h.f.Applied() != 11 {
		t.Fatalf("applied %d / Applied() %d, want 11 (last entry, a configuration)", b[0].applied, h.f.Applied())
	}
	assertEvents(t, b[0].events, wantEvents)

	// The same events are in the history.
	var hist []fsm.Event
	view(t, h.f, func(v *fsm.View) {
		if err := v.Events(0, func(e fsm.Event) bool { hist = append(hist, e); return true }); err != nil {
			t.Fatal(err)
		}
	})
	assertEvents(t, hist, wantEvents)

	// A batch of only rejected commands and non-commands still reports its
	// last index.
	tail := []*raft.Log{
		h.entry(create("b", `{}`)),
		h.rawEntry(raft.LogNoop, nil),
	}
	h.f.ApplyBatch(tail)
	b = h.rec.take()
	if len(b) != 1 || b[0].applied != 13 || len(b[0].events) != 0 {
		t.Fatalf("committed %+v, want applied 13 with no events", b)
	}
	if h.f.Applied() != 13 {
		t.Fatalf("Applied() = %d, want 13", h.f.Applied())
	}
}

func assertEvents(t testing.TB, got, want []fsm.Event) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d events, want %d:\n got %+v\nwant %+v", len(got), len(want), got, want)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Type != w.Type || g.Key != w.Key || g.Rev != w.Rev || g.PrevRev != w.PrevRev ||
			!bytes.Equal(g.Object, w.Object) || !bytes.Equal(g.Prev, w.Prev) || (w.Prev == nil) != (g.Prev == nil) {
			t.Fatalf("event %d:\n got %v %q rev %d obj %s prev %s@%d\nwant %v %q rev %d obj %s prev %s@%d",
				i, g.Type, g.Key, g.Rev, g.Object, g.Prev, g.PrevRev, w.Type, w.Key, w.Rev, w.Object, w.Prev, w.PrevRev)
		}
	}
}

// Apply (one entry) behaves as a batch of one.
func TestApplySingle(t *testing.T) {
	h := newHarness(t)
	r := asResult(t, h.f.Apply(h.entry(create("k", `{}`))))
	if r.Err != nil || r.Rev != 1 {
		t.Fatalf("Apply = %+v", r)
	}
	if got := h.f.Apply(h.rawEntry(raft.LogConfiguration, nil)); got != nil {
		t.Fatalf("Apply(configuration) = %v, want nil", got)
	}
	if h.f.Applied() != 2 {
		t.Fatalf("Applied() = %d", h.f.Applied())
	}
	if b := h.rec.take(); len(b) != 2 || b[0].applied != 1 || b[1].applied != 2 {
		t.Fatalf("committed %+v", b)
	}
}

// TestReplayGuard re-applies entries at or below the applied index, in the
// same process and after a reopen: nothing changes and no event is emitted.
func TestReplayGuard(t *testing.T) {
	h := newHarness(t)
	first := []*raft.Log{
		h.entry(create("a", objA)),
		h.entry(create("b", `{}`)),
		h.entry(update("a", objB, fsm.Preconditions{})),
	}
	h.f.ApplyBatch(first)
	second := []*raft.Log{
		h.entry(del("b", fsm.Preconditions{})),
		h.rawEntry(raft.LogConfiguration, nil),
	}
	h.f.ApplyBatch(second)
	want := dump(t, h.f)
	h.rec.take()

	replays := []struct {
		name string
		logs []*raft.Log
	}{
		{"first batch", first},
		{"second batch", second},
		{"all", append(append([]*raft.Log{}, first...), second...)},
		{"last entry", second[1:]},
		{"same index different command", []*raft.Log{cmdLog(2, create("zzz", `{}`))}},
		{"older index", []*raft.Log{cmdLog(1, del("a", fsm.Preconditions{}))}},
	}
	check := func(t *testing.T) {
		t.Helper()
		for _, rp := range replays {
			out := h.f.ApplyBatch(rp.logs)
			for i, r := range out {
				if r != nil {
					t.Fatalf("%s: replayed entry %d returned %v", rp.name, rp.logs[i].Index, r)
				}
			}
			if got := dump(t, h.f); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: replay changed state:\n got %+v\nwant %+v", rp.name, got, want)
			}
			for _, b := range h.rec.take() {
				if len(b.events) != 0 || b.applied != 5 {
					t.Fatalf("%s: replay committed %+v", rp.name, b)
				}
			}
		}
	}
	t.Run("same process", check)

	h.reopen()
	if h.f.Applied() != 5 {
		t.Fatalf("Applied() after reopen = %d, want 5", h.f.Applied())
	}
	if got := dump(t, h.f); !reflect.DeepEqual(got, want) {
		t.Fatalf("state after reopen:\n got %+v\nwant %+v", got, want)
	}
	t.Run("after reopen", check)

	// A batch straddling the applied index applies only the new entries.
	mixed := append(append([]*raft.Log{}, second...), h.entry(create("c", `{}`)))
	out := h.f.ApplyBatch(mixed)
	if out[0] != nil || out[1] != nil || asResult(t, out[2]).Err != nil {
		t.Fatalf("straddling batch results %v", out)
	}
	if b := h.rec.take(); len(b) != 1 || b[0].applied != 6 || len(b[0].events) != 1 || b[0].events[0].Key != "c" {
		t.Fatalf("straddling batch committed %+v", b)
	}
	// Duplicates inside one batch are applied once.
	dup := h.entry(create("d", `{}`))
	out = h.f.ApplyBatch([]*raft.Log{dup, dup})
	if asResult(t, out[0]).Err != nil || out[1] != nil {
		t.Fatalf("duplicate entry results %v", out)
	}
}

// TestReopenPersists checks that state, applied index and compaction
// boundary survive Close and Open.
func TestReopenPersists(t *testing.T) {
	h := newHarness(t)
	h.mustApply(create("a", objA))
	h.mustApply(create("b", objB))
	h.mustApply(update("a", objB, fsm.Preconditions{}))
	h.apply1(compact(2))
	h.f.ApplyBatch([]*raft.Log{h.rawEntry(raft.LogConfiguration, nil)})
	want := dump(t, h.f)
	if want.Applied != 5 || want.Compacted != 2 {
		t.Fatalf("before reopen: applied %d compacted %d", want.Applied, want.Compacted)
	}
	for range 2 {
		h.reopen()
		if h.f.Applied() != 5 || h.f.Compacted() != 2 {
			t.Fatalf("after reopen: Applied %d Compacted %d", h.f.Applied(), h.f.Compacted())
		}
		if got := dump(t, h.f); !reflect.DeepEqual(got, want) {
			t.Fatalf("state after reopen:\n got %+v\nwant %+v", got, want)
		}
	}
	// And the reopened FSM goes on applying.
	if r := h.mustApply(update("b", `{}`, fsm.Preconditions{ResourceVersion: 2})); r.Rev != 6 {
		t.Fatalf("update after reopen: rev %d", r.Rev)
	}
}

func TestOpenEmptyAndBadPath(t *testing.T) {
	h := newHarness(t)
	if h.f.Applied() != 0 || h.f.Compacted() != 0 {
		t.Fatalf("new FSM: applied %d compacted %d", h.f.Applied(), h.f.Compacted())
	}
	if s := dump(t, h.f); len(s.Current) != 0 || len(s.Events) != 0 {
		t.Fatalf("new FSM state %+v", s)
	}
	if _, err := fsm.Open(t.TempDir()+"/missing/dir/state.db", nil); err == nil {
		t.Fatal("Open in a missing directory succeeded")
	}
}

// A nil listener is allowed.
func TestNilListener(t *testing.T) {
	f := mustOpen(t, t.TempDir()+"/s.db", nil)
	t.Cleanup(func() { f.Close() })
	out := f.ApplyBatch([]*raft.Log{cmdLog(1, create("k", `{}`))})
	if asResult(t, out[0]).Err != nil {
		t.Fatalf("apply: %v", out[0])
	}
}

// TestBatchIsOneTransaction checks that a batch becomes visible at once:
// a view sees either none or all of its entries.
func TestBatchIsOneTransaction(t *testing.T) {
	h := newHarness(t)
	const batches, per = 20, 16
	done := make(chan struct{})
	errc := make(chan error, 1)
	go func() {
		defer close(errc)
		for {
			select {
			case <-done:
				return
			default:
			}
			err := h.f.View(func(v *fsm.View) error {
				n := 0
				if err := v.Range("", "", 0, func(fsm.Object) bool { n++; return true }); err != nil {
					return err
				}
				if uint64(n) != v.Applied() || n%per != 0 {
					t.Errorf("view at applied %d sees %d objects: a batch is partly visible", v.Applied(), n)
				}
				return nil
			})
			if err != nil {
				errc <- err
				return
			}
		}
	}()
	for i := range batches {
		cmds := make([]*fsm.Command, per)
		for j := range cmds {
			cmds[j] = create(keyN(i*per+j), `{}`)
		}
		for _, r := range h.apply(cmds...) {
			if r.Err != nil {
				t.Fatal(r.Err)
			}
		}
		var n int
		view(t, h.f, func(v *fsm.View) {
			n = len(rangeAll(t, v, "", "", 0))
			if v.Applied() != uint64((i+1)*per) {
				t.Errorf("view applied %d after batch %d", v.Applied(), i)
			}
		})
		if n != (i+1)*per {
			t.Fatalf("after batch %d: %d objects", i, n)
		}
	}
	close(done)
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}

func keyN(i int) string {
	const digits = "0123456789"
	return "/k/" + string([]byte{digits[i/100%10], digits[i/10%10], digits[i%10]})
}

// TestAdmitChangesNothing: an admission entry is answered with its own
// index, and neither the state, the history nor the event feed changes.
func TestAdmitChangesNothing(t *testing.T) {
	h := newHarness(t)
	h.mustApply(create("k", objA))
	before := dump(t, h.f)
	h.rec.take()
	res := h.mustApply(&fsm.Command{Type: fsm.CmdAdmit, Key: "n2"})
	if res.Rev != 2 || res.Object != nil {
		t.Fatalf("admit result %+v, want revision 2 and no object", res)
	}
	after := dump(t, h.f)
	if after.Applied != 2 {
		t.Fatalf("applied %d after the admission, want 2", after.Applied)
	}
	if !reflect.DeepEqual(after.History[2], after.History[1]) {
		t.Fatalf("state at the admission's revision %+v differs from the one before %+v", after.History[2], after.History[1])
	}
	after.Applied = before.Applied
	delete(after.History, 2)
	if !reflect.DeepEqual(before, after) {
		t.Fatalf("state changed:\nbefore %+v\nafter  %+v", before, after)
	}
	for _, b := range h.rec.take() {
		if len(b.events) != 0 {
			t.Fatalf("admission published events %+v", b.events)
		}
	}
}
