package fsm_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/raft"

	"github.com/raftapi/raftapi/fsm"
)

// The keys, prefixes and range starts of the property test. Keys are
// chosen so that some are prefixes of others.
var (
	modelKeys     = []string{"a", "a/1", "a/10", "a/2", "b", "b/1"}
	modelPrefixes = []string{"", "a", "a/", "a/1", "b", "c"}
	modelAfters   = []string{"", "a", "a/1", "a/15", "b", "zz"}
)

// model is the expected state at every revision.
type model struct {
	states []map[string]fsm.Object // states[r]: after entry r; states[0] empty
	uids   map[string]string       // metadata.uid of each current key
	events []fsm.Event
}

func newModel() *model {
	return &model{states: []map[string]fsm.Object{{}}, uids: map[string]string{}}
}

func (m *model) current() map[string]fsm.Object { return m.states[len(m.states)-1] }

// expect returns the code applying c to the current state must give.
func (m *model) expect(c *fsm.Command) fsm.Code {
	cur, ok := m.current()[c.Key]
	switch {
	case c.Type == fsm.CmdCreate && ok:
		return fsm.CodeAlreadyExists
	case c.Type == fsm.CmdCreate:
		return 0
	case !ok:
		return fsm.CodeNotFound
	case c.Preconditions.ResourceVersion != 0 && c.Preconditions.ResourceVersion != cur.Rev:
		return fsm.CodeConflict
	case c.Preconditions.UID != "" && c.Preconditions.UID != m.uids[c.Key]:
		return fsm.CodeConflict
	}
	return 0
}

// commit records the state after entry index; ev is nil when the entry
// changed nothing.
func (m *model) commit(index uint64, ev *fsm.Event) {
	if uint64(len(m.states)) != index {
		panic(fmt.Sprintf("model: entry %d after %d states", index, len(m.states)))
	}
	next := make(map[string]fsm.Object, len(m.current()))
	for k, v := range m.current() {
		next[k] = v
	}
	if ev != nil {
		if ev.Type == fsm.Deleted {
			delete(next, ev.Key)
		} else {
			next[ev.Key] = fsm.Object{Key: ev.Key, Rev: ev.Rev, Data: ev.Object}
		}
		m.events = append(m.events, *ev)
	}
	m.states = append(m.states, next)
}

// rangeAt is the expected Range(prefix, after, rev).
func (m *model) rangeAt(prefix, after string, rev uint64) []fsm.Object {
	var out []fsm.Object
	for _, o := range m.states[rev] {
		if strings.HasPrefix(o.Key, prefix) && o.Key > after {
			out = append(out, o)
		}
	}
	slices.SortFunc(out, func(a, b fsm.Object) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// driver applies random batches to an FSM and to the model.
type driver struct {
	t   *testing.T
	h   *harness
	m   *model
	rnd *rand.Rand
}

// randomCommand returns a random create, update or delete, often with
// preconditions, right or wrong.
func (d *driver) randomCommand(index uint64) *fsm.Command {
	key := modelKeys[d.rnd.IntN(len(modelKeys))]
	var pre fsm.Preconditions
	cur, exists := d.m.current()[key]
	switch d.rnd.IntN(6) {
	case 0:
		pre.ResourceVersion = cur.Rev
	case 1:
		pre.ResourceVersion = uint64(d.rnd.IntN(int(index)) + 1)
	case 2:
		pre.UID = d.m.uids[key]
	case 3:
		pre.UID = fmt.Sprintf("uid-%d", d.rnd.IntN(int(index))+1)
	}
	uid := d.m.uids[key]
	if !exists || d.rnd.IntN(5) == 0 {
		uid = fmt.Sprintf("uid-%d", index)
	}
	obj := fmt.Sprintf(`{"metadata":{"name":%q,"uid":%q,"resourceVersion":"1"},"spec":{"i":%d,"r":%d}}`,
		key, uid, index, d.rnd.Uint64())
	switch r := d.rnd.IntN(10); {
	case r < 4:
		return create(key, obj)
	case r < 8:
		return update(key, obj, pre)
	default:
		return del(key, pre)
	}
}

// step applies one random batch of 1 to 4 entries, some of them not
// commands or of an unknown type, and checks results and events.
func (d *driver) step(extra ...*fsm.Command) {
	d.t.Helper()
	var logs []*raft.Log
	var cmds []*fsm.Command
	n := d.rnd.IntN(4) + 1
	for range n {
		switch r := d.rnd.IntN(20); {
		case r == 0:
			logs, cmds = append(logs, d.h.rawEntry(raft.LogConfiguration, nil)), append(cmds, nil)
		case r == 1:
			logs, cmds = append(logs, d.h.rawEntry(raft.LogCommand, []byte{99, 1, 'a'})), append(cmds, nil)
		default:
			c := d.randomCommand(d.h.next)
			logs, cmds = append(logs, d.h.entry(c)), append(cmds, c)
		}
	}
	for _, c := range extra {
		logs, cmds = append(logs, d.h.entry(c)), append(cmds, c)
	}
	events := len(d.m.events)
	out := d.h.f.ApplyBatch(logs)
	for i, l := range logs {
		d.check(l, cmds[i], out[i])
	}
	b := d.h.rec.take()
	if len(b) != 1 || b[0].applied != logs[len(logs)-1].Index {
		d.t.Fatalf("committed %+v, want one batch at %d", b, logs[len(logs)-1].Index)
	}
	assertEvents(d.t, b[0].events, d.m.events[events:])
}

// check verifies one entry's result against the model and advances it.
func (d *driver) check(l *raft.Log, c *fsm.Command, out interface{}) {
	d.t.Helper()
	if l.Type != raft.LogCommand {
		if out != nil {
			d.t.Fatalf("entry %d: result %v for a non-command", l.Index, out)
		}
		d.m.commit(l.Index, nil)
		return
	}
	r := asResult(d.t, out)
	if c == nil || c.Type == fsm.CmdCompact {
		want := fsm.Code(0)
		if c == nil {
			want = fsm.CodeInvalid
		}
		if fsm.CodeOf(r.Error()) != want || r.Rev != l.Index || r.Object != nil {
			d.t.Fatalf("entry %d: result %+v, want code %v", l.Index, r, want)
		}
		d.m.commit(l.Index, nil)
		return
	}
	want := d.m.expect(c)
	if got := fsm.CodeOf(r.Error()); got != want || r.Rev != l.Index {
		d.t.Fatalf("entry %d %s %q %+v: result %+v, want code %v", l.Index, c.Type, c.Key, c.Preconditions, r, want)
	}
	if want != 0 {
		d.m.commit(l.Index, nil)
		return
	}
	cur := d.m.current()[c.Key]
	ev := &fsm.Event{Key: c.Key, Rev: l.Index, Object: r.Object}
	switch c.Type {
	case fsm.CmdCreate:
		ev.Type = fsm.Created
		assertJSON(d.t, r.Object, stamped(d.t, string(c.Object), l.Index))
		d.m.uids[c.Key] = objectUIDOf(d.t, c.Object)
	case fsm.CmdUpdate:
		ev.Type, ev.Prev, ev.PrevRev = fsm.Updated, cur.Data, cur.Rev
		assertJSON(d.t, r.Object, stamped(d.t, string(c.Object), l.Index))
		d.m.uids[c.Key] = objectUIDOf(d.t, c.Object)
	case fsm.CmdDelete:
		ev.Type, ev.Prev, ev.PrevRev = fsm.Deleted, cur.Data, cur.Rev
		assertJSON(d.t, r.Object, stamped(d.t, string(cur.Data), l.Index))
		delete(d.m.uids, c.Key)
	}
	d.m.commit(l.Index, ev)
}

func objectUIDOf(t testing.TB, obj []byte) string {
	t.Helper()
	v := decodeJSON(t, obj).(map[string]any)
	return v["metadata"].(map[string]any)["uid"].(string)
}

// verify compares every read at every revision with the model.
func (d *driver) verify() {
	d.t.Helper()
	f, m := d.h.f, d.m
	applied := uint64(len(m.states) - 1)
	if f.Applied() != applied {
		d.t.Fatalf("Applied() = %d, model %d", f.Applied(), applied)
	}
	compacted := f.Compacted()
	err := f.View(func(v *fsm.View) error {
		if v.Applied() != applied || v.Compacted() != compacted {
			d.t.Fatalf("view applied/compacted %d/%d, want %d/%d", v.Applied(), v.Compacted(), applied, compacted)
		}
		for rev := uint64(0); rev <= applied+1; rev++ {
			d.verifyRev(v, rev, applied, compacted)
		}
		for after := uint64(0); after <= applied; after++ {
			d.verifyEvents(v, after, compacted)
		}
		return nil
	})
	if err != nil {
		d.t.Fatal(err)
	}
}

func (d *driver) verifyRev(v *fsm.View, rev, applied, compacted uint64) {
	d.t.Helper()
	var wantErr error
	switch {
	case rev > applied:
		wantErr = fsm.ErrFutureRevision
	case rev != 0 && rev != applied && rev < compacted:
		wantErr = fsm.ErrCompacted
	}
	state := rev
	if rev == 0 {
		state = applied
	}
	for _, key := range append(modelKeys, "a/", "zz") {
		o, ok, err := v.Get(key, rev)
		if wantErr != nil {
			if !errors.Is(err, wantErr) {
				d.t.Fatalf("Get(%q, %d) err %v, want %v", key, rev, err, wantErr)
			}
			continue
		}
		want, wok := d.m.states[state][key]
		if err != nil || ok != wok || !reflect.DeepEqual(o, want) {
			d.t.Fatalf("Get(%q, %d) = %+v %v %v, want %+v %v", key, rev, o, ok, err, want, wok)
		}
	}
	for _, prefix := range modelPrefixes {
		for _, after := range modelAfters {
			var got []fsm.Object
			err := v.Range(prefix, after, rev, func(o fsm.Object) bool { got = append(got, o); return true })
			if wantErr != nil {
				_, cerr := v.Count(prefix, after, rev)
				if !errors.Is(err, wantErr) || !errors.Is(cerr, wantErr) {
					d.t.Fatalf("Range(%q, %q, %d) err %v, Count err %v, want %v", prefix, after, rev, err, cerr, wantErr)
				}
				continue
			}
			want := d.m.rangeAt(prefix, after, state)
			if err != nil || !reflect.DeepEqual(got, want) {
				d.t.Fatalf("Range(%q, %q, %d) = %v %v, want %v", prefix, after, rev, keyRevs(got), err, keyRevs(want))
			}
			d.verifyCount(v, prefix, after, rev, int64(len(want)))
		}
	}
}

// verifyCount checks Count both ways it can resolve a past revision, and
// as it chooses.
func (d *driver) verifyCount(v *fsm.View, prefix, after string, rev uint64, want int64) {
	d.t.Helper()
	for _, way := range []string{"", "keys", "changes"} {
		restore := fsm.ForceCountStrategy(way)
		n, err := v.Count(prefix, after, rev)
		restore()
		if err != nil || n != want {
			d.t.Fatalf("Count(%q, %q, %d) resolving by %q = %d %v, want %d", prefix, after, rev, way, n, err, want)
		}
	}
}

func (d *driver) verifyEvents(v *fsm.View, after, compacted uint64) {
	d.t.Helper()
	var got []fsm.Event
	err := v.Events(after, func(e fsm.Event) bool { got = append(got, e); return true })
	if after < compacted {
		if !errors.Is(err, fsm.ErrCompacted) {
			d.t.Fatalf("Events(%d) with boundary %d: err %v, want ErrCompacted", after, compacted, err)
		}
		return
	}
	if err != nil {
		d.t.Fatalf("Events(%d): %v", after, err)
	}
	var want []fsm.Event
	for _, e := range d.m.events {
		if e.Rev > after {
			want = append(want, e)
		}
	}
	assertEvents(d.t, got, want)
}

// TestModel applies random histories and compares every read at every
// revision with a model, before and after compactions and a reopen.
func TestModel(t *testing.T) {
	for seed := range uint64(12) {
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			d := &driver{t: t, h: newHarness(t), m: newModel(), rnd: rand.New(rand.NewPCG(seed, 0x5eed))}
			for d.h.next < 40 {
				d.step()
			}
			d.verify()

			// Compact somewhere in the history, inside a batch.
			c1 := uint64(d.rnd.IntN(int(d.h.next))) + 1
			d.step(compact(c1))
			if d.h.f.Compacted() != c1 {
				t.Fatalf("Compacted() = %d after compact(%d)", d.h.f.Compacted(), c1)
			}
			d.verify()

			for d.h.next < 80 {
				d.step()
			}
			d.verify()

			// A boundary beyond the compact entry is clamped to its index.
			d.step(compact(1 << 62))
			c2 := d.h.next - 1
			if d.h.f.Compacted() != c2 {
				t.Fatalf("Compacted() = %d, want the compact entry's index %d", d.h.f.Compacted(), c2)
			}
			d.verify()

			for d.h.next < 100 {
				d.step()
			}
			d.h.reopen()
			d.verify()
		})
	}
}
