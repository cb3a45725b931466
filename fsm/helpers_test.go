package fsm_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/hashicorp/raft"

	"github.com/raftapi/raftapi/fsm"
)

// batch is one Listener.Committed call as recorded.
type batch struct {
	applied uint64
	events  []fsm.Event
}

// recorder is a Listener fake that records every call.
type recorder struct {
	mu       sync.Mutex
	batches  []batch
	restored []uint64
}

var _ fsm.Listener = (*recorder)(nil)

func (r *recorder) Committed(applied uint64, events []fsm.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.batches = append(r.batches, batch{applied: applied, events: slices.Clone(events)})
}

func (r *recorder) Restored(applied uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.restored = append(r.restored, applied)
}

// take returns the batches recorded since the last take and forgets them.
func (r *recorder) take() []batch {
	r.mu.Lock()
	defer r.mu.Unlock()
	b := r.batches
	r.batches = nil
	return b
}

func (r *recorder) restores() []uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.restored)
}

// harness drives one FSM with consecutive log indexes.
type harness struct {
	t    testing.TB
	path string
	rec  *recorder
	f    *fsm.FSM
	next uint64 // index of the next entry
}

func newHarness(t testing.TB) *harness {
	t.Helper()
	h := &harness{t: t, path: filepath.Join(t.TempDir(), "state.db"), rec: &recorder{}, next: 1}
	h.f = mustOpen(t, h.path, h.rec)
	t.Cleanup(func() { h.f.Close() })
	return h
}

func mustOpen(t testing.TB, path string, l fsm.Listener) *fsm.FSM {
	t.Helper()
	f, err := fsm.Open(path, l)
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	return f
}

// reopen closes the FSM and opens the same file again.
func (h *harness) reopen() {
	h.t.Helper()
	if err := h.f.Close(); err != nil {
		h.t.Fatalf("Close: %v", err)
	}
	h.f = mustOpen(h.t, h.path, h.rec)
}

// cmdLog is a LogCommand entry carrying c.
func cmdLog(index uint64, c *fsm.Command) *raft.Log {
	return &raft.Log{Index: index, Term: 1, Type: raft.LogCommand, Data: c.Encode()}
}

// entry returns the next log entry for c and advances the index.
func (h *harness) entry(c *fsm.Command) *raft.Log {
	l := cmdLog(h.next, c)
	h.next++
	return l
}

// rawEntry returns the next log entry of the given type and payload.
func (h *harness) rawEntry(typ raft.LogType, data []byte) *raft.Log {
	l := &raft.Log{Index: h.next, Term: 1, Type: typ, Data: data}
	h.next++
	return l
}

// apply applies cmds as one batch and returns their results.
func (h *harness) apply(cmds ...*fsm.Command) []*fsm.Result {
	h.t.Helper()
	logs := make([]*raft.Log, len(cmds))
	for i, c := range cmds {
		logs[i] = h.entry(c)
	}
	out := h.f.ApplyBatch(logs)
	res := make([]*fsm.Result, len(out))
	for i, r := range out {
		res[i] = asResult(h.t, r)
	}
	return res
}

// apply1 applies one command as its own batch.
func (h *harness) apply1(c *fsm.Command) *fsm.Result {
	h.t.Helper()
	return h.apply(c)[0]
}

// mustApply applies one command and fails the test if it was rejected.
func (h *harness) mustApply(c *fsm.Command) *fsm.Result {
	h.t.Helper()
	r := h.apply1(c)
	if r.Err != nil {
		h.t.Fatalf("%s %q: unexpected rejection: %v", c.Type, c.Key, r.Err)
	}
	return r
}

func asResult(t testing.TB, v interface{}) *fsm.Result {
	t.Helper()
	r, ok := v.(*fsm.Result)
	if !ok || r == nil {
		t.Fatalf("result is %T(%v), want non-nil *fsm.Result", v, v)
	}
	return r
}

func create(key, obj string) *fsm.Command {
	return &fsm.Command{Type: fsm.CmdCreate, Key: key, Object: []byte(obj)}
}

func update(key, obj string, pre fsm.Preconditions) *fsm.Command {
	return &fsm.Command{Type: fsm.CmdUpdate, Key: key, Object: []byte(obj), Preconditions: pre}
}

func del(key string, pre fsm.Preconditions) *fsm.Command {
	return &fsm.Command{Type: fsm.CmdDelete, Key: key, Preconditions: pre}
}

func compact(rev uint64) *fsm.Command {
	return &fsm.Command{Type: fsm.CmdCompact, Revision: rev}
}

// decodeJSON decodes b keeping numbers exact.
func decodeJSON(t testing.TB, b []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("decode %q: %v", b, err)
	}
	return v
}

// stamped is obj decoded, with metadata.resourceVersion set to rev: what
// the FSM must store.
func stamped(t testing.TB, obj string, rev uint64) any {
	t.Helper()
	v, ok := decodeJSON(t, []byte(obj)).(map[string]any)
	if !ok {
		t.Fatalf("%s is not a JSON object", obj)
	}
	meta, _ := v["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
	}
	meta["resourceVersion"] = strconv.FormatUint(rev, 10)
	v["metadata"] = meta
	return v
}

// assertJSON fails unless got decodes to want.
func assertJSON(t testing.TB, got []byte, want any) {
	t.Helper()
	if g := decodeJSON(t, got); !reflect.DeepEqual(g, want) {
		t.Fatalf("object mismatch:\n got %s\nwant %#v", got, want)
	}
}

// state is everything readable from an FSM, for equality checks.
type state struct {
	Applied, Compacted uint64
	Current            []fsm.Object
	History            map[uint64][]fsm.Object // Range("", "", rev) per revision
	Events             []fsm.Event
}

// dump reads the whole readable state of f.
func dump(t testing.TB, f *fsm.FSM) state {
	t.Helper()
	var s state
	err := f.View(func(v *fsm.View) error {
		s.Applied, s.Compacted = v.Applied(), v.Compacted()
		s.Current = rangeAll(t, v, "", "", 0)
		s.History = map[uint64][]fsm.Object{}
		for rev := max(1, v.Compacted()); rev <= v.Applied(); rev++ {
			s.History[rev] = rangeAll(t, v, "", "", rev)
		}
		return v.Events(v.Compacted(), func(e fsm.Event) bool {
			s.Events = append(s.Events, e)
			return true
		})
	})
	if err != nil {
		t.Fatalf("dump: %v", err)
	}
	if s.Applied != f.Applied() || s.Compacted != f.Compacted() {
		t.Fatalf("view applied/compacted %d/%d, FSM says %d/%d", s.Applied, s.Compacted, f.Applied(), f.Compacted())
	}
	return s
}

// rangeAll collects a Range.
func rangeAll(t testing.TB, v *fsm.View, prefix, after string, rev uint64) []fsm.Object {
	t.Helper()
	var out []fsm.Object
	if err := v.Range(prefix, after, rev, func(o fsm.Object) bool {
		out = append(out, o)
		return true
	}); err != nil {
		t.Fatalf("Range(%q, %q, %d): %v", prefix, after, rev, err)
	}
	return out
}

// view runs fn in a View and fails the test on error.
func view(t testing.TB, f *fsm.FSM, fn func(v *fsm.View)) {
	t.Helper()
	if err := f.View(func(v *fsm.View) error { fn(v); return nil }); err != nil {
		t.Fatalf("View: %v", err)
	}
}

// get reads key at rev and fails the test on error.
func get(t testing.TB, f *fsm.FSM, key string, rev uint64) (fsm.Object, bool) {
	t.Helper()
	var obj fsm.Object
	var ok bool
	err := f.View(func(v *fsm.View) error {
		var err error
		obj, ok, err = v.Get(key, rev)
		return err
	})
	if err != nil {
		t.Fatalf("Get(%q, %d): %v", key, rev, err)
	}
	return obj, ok
}
