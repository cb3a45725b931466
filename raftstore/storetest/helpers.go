package storetest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/raftapi/raftapi/raftstore"
)

// WaitTimeout is the bound on waiting for an unapplied revision that the
// suite expects the cluster to be configured with (see ShortWaits). With a
// longer Config.WaitTimeout the suite still passes, only slower. It is
// short enough to keep the "too large" cases quick and long enough that a
// follower on a loaded machine applies a fresh write within it.
const WaitTimeout = time.Second

// ShortWaits is an Option setting Config.WaitTimeout to WaitTimeout, so the
// "too large resource version" cases of the suite end quickly.
func ShortWaits() Option {
	return func(c *raftstore.Config) { c.WaitTimeout = WaitTimeout }
}

// eventTimeout bounds every wait for a condition or a watch event: long,
// because the suite runs with the race detector on busy machines.
const eventTimeout = 20 * time.Second

var prefixSeq atomic.Uint64

// newPrefix returns a storage prefix, ending in "/", that no other test of
// the process uses, so suites can share a cluster.
func newPrefix(t *testing.T) string {
	name := strings.NewReplacer("/", "_", " ", "_").Replace(t.Name())
	return fmt.Sprintf("/conformance/%s-%d/", name, prefixSeq.Add(1))
}

// object returns the JSON of a stored object: a name, a uid and a value in
// its spec.
func object(name, uid, value string) []byte {
	b, err := json.Marshal(map[string]any{
		"metadata": map[string]any{"name": name, "uid": uid},
		"spec":     map[string]any{"value": value},
	})
	if err != nil {
		panic(err)
	}
	return b
}

// decoded is the part of an object's JSON the suite looks at.
type decoded struct {
	Metadata struct {
		Name            string `json:"name"`
		UID             string `json:"uid"`
		ResourceVersion string `json:"resourceVersion"`
	} `json:"metadata"`
	Spec struct {
		Value string `json:"value"`
	} `json:"spec"`
}

func decode(t testing.TB, data []byte) decoded {
	t.Helper()
	var d decoded
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatalf("stored object is not JSON: %v: %s", err, data)
	}
	return d
}

// resourceVersion returns metadata.resourceVersion of an object's JSON.
func resourceVersion(t testing.TB, data []byte) uint64 {
	t.Helper()
	rv := decode(t, data).Metadata.ResourceVersion
	n, err := strconv.ParseUint(rv, 10, 64)
	if err != nil {
		t.Fatalf("metadata.resourceVersion %q is not a revision: %s", rv, data)
	}
	return n
}

// specValue returns spec.value of an object's JSON.
func specValue(t testing.TB, data []byte) string {
	t.Helper()
	return decode(t, data).Spec.Value
}

// valuePredicate matches objects whose spec.value is v.
func valuePredicate(v string) raftstore.Predicate {
	return func(obj []byte) bool {
		var d decoded
		return json.Unmarshal(obj, &d) == nil && d.Spec.Value == v
	}
}

// checkStamped fails unless o is key's object and carries its revision in
// metadata.resourceVersion.
func checkStamped(t testing.TB, what string, o raftstore.Object, key string) {
	t.Helper()
	if o.Key != key {
		t.Errorf("%s: key %q, want %q", what, o.Key, key)
	}
	if rv := resourceVersion(t, o.Data); rv != o.Rev {
		t.Errorf("%s: Rev %d but metadata.resourceVersion %d", what, o.Rev, rv)
	}
}

// twoNodes returns two different nodes of c, preferring two followers, so
// that a write through the first and a read through the second cross the
// network. On a single-node cluster both are the one node.
func twoNodes(t testing.TB, c *Cluster) (a, b *raftstore.Store) {
	t.Helper()
	leader := c.Leader()
	var others []*raftstore.Store
	for _, s := range c.Stores() {
		if s != leader {
			others = append(others, s)
		}
	}
	switch len(others) {
	case 0:
		return leader, leader
	case 1:
		return others[0], leader
	}
	return others[0], others[1]
}

// nodePair is a named writer and reader.
type nodePair struct {
	name           string
	writer, reader *raftstore.Store
}

// nodePairs returns the interesting (writer, reader) pairs of c: leader to
// follower, follower to leader and follower to follower where they exist.
func nodePairs(t testing.TB, c *Cluster) []nodePair {
	t.Helper()
	leader := c.Leader()
	a, b := twoNodes(t, c)
	if a == leader {
		return []nodePair{{"single", leader, leader}}
	}
	pairs := []nodePair{
		{"leaderToFollower", leader, a},
		{"followerToLeader", a, leader},
	}
	if b != leader {
		pairs = append(pairs, nodePair{"followerToFollower", a, b})
	}
	return pairs
}

func mustCreate(ctx context.Context, t testing.TB, s *raftstore.Store, key string, obj []byte) raftstore.Object {
	t.Helper()
	o, err := s.Create(ctx, key, obj)
	if err != nil {
		t.Fatalf("create %s through %s: %v", key, s.Name(), err)
	}
	checkStamped(t, "create "+key, o, key)
	return o
}

func mustUpdate(ctx context.Context, t testing.TB, s *raftstore.Store, key string, obj []byte, pre raftstore.Preconditions) raftstore.Object {
	t.Helper()
	o, err := s.Update(ctx, key, obj, pre)
	if err != nil {
		t.Fatalf("update %s through %s: %v", key, s.Name(), err)
	}
	checkStamped(t, "update "+key, o, key)
	return o
}

func mustDelete(ctx context.Context, t testing.TB, s *raftstore.Store, key string) raftstore.Object {
	t.Helper()
	o, err := s.Delete(ctx, key, raftstore.Preconditions{})
	if err != nil {
		t.Fatalf("delete %s through %s: %v", key, s.Name(), err)
	}
	checkStamped(t, "delete "+key, o, key)
	return o
}

func mustGet(ctx context.Context, t testing.TB, s *raftstore.Store, key string, opts raftstore.ReadOptions) raftstore.Object {
	t.Helper()
	o, err := s.Get(ctx, key, opts)
	if err != nil {
		t.Fatalf("get %s through %s with %+v: %v", key, s.Name(), opts, err)
	}
	checkStamped(t, "get "+key, o, key)
	return o
}

func mustList(ctx context.Context, t testing.TB, s *raftstore.Store, prefix string, opts raftstore.ListOptions) *raftstore.ListResult {
	t.Helper()
	l, err := s.List(ctx, prefix, opts)
	if err != nil {
		t.Fatalf("list %s through %s with %+v: %v", prefix, s.Name(), opts.ReadOptions, err)
	}
	return l
}

// listAll follows the continue tokens of a paginated list from opts,
// alternating between the given nodes, and checks what must hold across
// pages: one revision, keys strictly increasing, no page above Limit, and
// RemainingItemCount (only without a predicate). It returns every item and
// the revision.
func listAll(ctx context.Context, t testing.TB, prefix string, opts raftstore.ListOptions, nodes ...*raftstore.Store) ([]raftstore.Object, uint64) {
	t.Helper()
	var items []raftstore.Object
	var remaining []*int64
	var pageEnds []int
	var rev uint64
	for page := 0; ; page++ {
		s := nodes[page%len(nodes)]
		l := mustList(ctx, t, s, prefix, opts)
		if page == 0 {
			rev = l.Revision
		} else if l.Revision != rev {
			t.Fatalf("page %d of %s served at revision %d, first page at %d", page, prefix, l.Revision, rev)
		}
		if opts.Limit > 0 && int64(len(l.Items)) > opts.Limit {
			t.Fatalf("page %d has %d items, limit %d", page, len(l.Items), opts.Limit)
		}
		if l.Continue != "" && int64(len(l.Items)) != opts.Limit {
			t.Errorf("page %d has %d items and a continue token, want a full page of %d", page, len(l.Items), opts.Limit)
		}
		items = append(items, l.Items...)
		remaining = append(remaining, l.RemainingItemCount)
		pageEnds = append(pageEnds, len(items))
		if l.Continue == "" {
			break
		}
		if page > 10000 {
			t.Fatalf("list of %s does not end", prefix)
		}
		opts.ReadOptions = raftstore.ReadOptions{}
		opts.Continue = l.Continue
	}
	checkSorted(t, items)
	for i, r := range remaining {
		last := i == len(remaining)-1
		switch {
		case last || opts.Predicate != nil || opts.SkipCount:
			if r != nil {
				t.Errorf("page %d: RemainingItemCount %d, want unset (last page, predicate or SkipCount)", i, *r)
			}
		case r == nil:
			t.Errorf("page %d: RemainingItemCount unset on a page with a continue token and no predicate", i)
		case *r != int64(len(items)-pageEnds[i]):
			t.Errorf("page %d: RemainingItemCount %d, want %d", i, *r, len(items)-pageEnds[i])
		}
	}
	return items, rev
}

// checkSorted fails unless the items' keys strictly increase: sorted, and
// no key twice.
func checkSorted(t testing.TB, items []raftstore.Object) {
	t.Helper()
	for i := 1; i < len(items); i++ {
		if items[i-1].Key >= items[i].Key {
			t.Fatalf("list items out of order or duplicated: %q then %q", items[i-1].Key, items[i].Key)
		}
	}
}

// model is the expected state of a prefix: key -> object.
type model map[string]raftstore.Object

func (m model) clone() model {
	out := make(model, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// filter returns the objects of m that p matches.
func (m model) filter(p raftstore.Predicate) model {
	out := model{}
	for k, v := range m {
		if p(v.Data) {
			out[k] = v
		}
	}
	return out
}

// checkItems fails unless items are exactly the objects of want, with
// their revisions and bytes.
func checkItems(t testing.TB, what string, items []raftstore.Object, want model) {
	t.Helper()
	got := map[string]raftstore.Object{}
	for _, o := range items {
		checkStamped(t, what, o, o.Key)
		got[o.Key] = o
	}
	for _, k := range sortedKeys(want) {
		g, ok := got[k]
		switch {
		case !ok:
			t.Errorf("%s: missing %s (rev %d)", what, k, want[k].Rev)
		case g.Rev != want[k].Rev || !bytes.Equal(g.Data, want[k].Data):
			t.Errorf("%s: %s is rev %d %s, want rev %d %s", what, k, g.Rev, g.Data, want[k].Rev, want[k].Data)
		}
	}
	for _, k := range sortedKeys(got) {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: unexpected %s (rev %d)", what, k, got[k].Rev)
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// waitFor polls cond until it holds, failing after eventTimeout.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(eventTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", eventTimeout, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitApplied waits until every given node has applied rev.
func waitApplied(t testing.TB, rev uint64, nodes ...*raftstore.Store) {
	t.Helper()
	for _, s := range nodes {
		waitFor(t, fmt.Sprintf("%s to apply revision %d", s.Name(), rev), func() bool { return s.Revision() >= rev })
	}
}

// mustWatch opens a watch that stops at test cleanup.
func mustWatch(ctx context.Context, t testing.TB, s *raftstore.Store, key string, opts raftstore.WatchOptions) *raftstore.Watch {
	t.Helper()
	w, err := s.Watch(ctx, key, opts)
	if err != nil {
		t.Fatalf("watch %s through %s: %v", key, s.Name(), err)
	}
	t.Cleanup(w.Stop)
	return w
}

// nextEvent returns the next event of w, failing if the channel closes or
// nothing arrives within eventTimeout.
func nextEvent(t testing.TB, w *raftstore.Watch) raftstore.WatchEvent {
	t.Helper()
	timer := time.NewTimer(eventTimeout)
	defer timer.Stop()
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			t.Fatalf("watch closed while waiting for an event")
		}
		return ev
	case <-timer.C:
		t.Fatalf("no watch event within %v", eventTimeout)
	}
	return raftstore.WatchEvent{}
}

// nextChange returns the next event of w that is not a bookmark.
func nextChange(t testing.TB, w *raftstore.Watch) raftstore.WatchEvent {
	t.Helper()
	for {
		if ev := nextEvent(t, w); ev.Type != raftstore.Bookmark {
			return ev
		}
	}
}

// collect returns the next n changes of w (bookmarks skipped).
func collect(t testing.TB, w *raftstore.Watch, n int) []raftstore.WatchEvent {
	t.Helper()
	out := make([]raftstore.WatchEvent, 0, n)
	for len(out) < n {
		ev := nextChange(t, w)
		if ev.Type == raftstore.WatchError {
			t.Fatalf("watch error after %d of %d events: %v", len(out), n, ev.Err)
		}
		out = append(out, ev)
	}
	return out
}

// waitClosed fails unless w's channel closes, with no further event,
// within eventTimeout.
func waitClosed(t testing.TB, w *raftstore.Watch) {
	t.Helper()
	timer := time.NewTimer(eventTimeout)
	defer timer.Stop()
	select {
	case ev, ok := <-w.ResultChan():
		if ok {
			t.Fatalf("event %v at %d after the end of the watch, want the channel closed", ev.Type, ev.Rev)
		}
	case <-timer.C:
		t.Fatalf("watch channel not closed within %v", eventTimeout)
	}
}

// change is one acknowledged write, as a watch should report it.
type change struct {
	Type raftstore.WatchEventType
	Key  string
	Rev  uint64
	Data []byte
}

func (c change) String() string { return fmt.Sprintf("%v %s@%d", c.Type, c.Key, c.Rev) }

// changeOf turns a watch event into a change.
func changeOf(ev raftstore.WatchEvent) change {
	return change{Type: ev.Type, Key: ev.Key, Rev: ev.Rev, Data: ev.Object}
}

// checkChanges fails unless the events are exactly want, in order.
func checkChanges(t testing.TB, what string, events []raftstore.WatchEvent, want []change) {
	t.Helper()
	if len(events) != len(want) {
		t.Errorf("%s: %d events, want %d", what, len(events), len(want))
	}
	for i := range min(len(events), len(want)) {
		got := changeOf(events[i])
		if got.String() != want[i].String() || !bytes.Equal(got.Data, want[i].Data) {
			t.Fatalf("%s: event %d is %v %s, want %v %s", what, i, got, got.Data, want[i], want[i].Data)
		}
	}
}

// checkStreamOrder fails unless revisions strictly increase.
func checkStreamOrder(t testing.TB, what string, events []raftstore.WatchEvent) {
	t.Helper()
	for i := 1; i < len(events); i++ {
		if events[i].Rev <= events[i-1].Rev {
			t.Fatalf("%s: event %d at revision %d after %d: not strictly increasing", what, i, events[i].Rev, events[i-1].Rev)
		}
	}
}

// storeError returns err as a store error, failing if it is not one.
func storeError(t testing.TB, err error) *raftstore.Error {
	t.Helper()
	var e *raftstore.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not a *raftstore.Error", err, err)
	}
	return e
}
