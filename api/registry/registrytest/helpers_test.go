package registrytest

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/raftapi/raftapi/api/registry"
	"github.com/raftapi/raftapi/raftstore"
)

// deadline bounds every wait of a test: nothing here sleeps, a test that
// waits this long has failed.
const deadline = 10 * time.Second

func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	t.Cleanup(cancel)
	return ctx
}

// object returns the JSON of an object with a name, a uid and a value.
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

// decoded is the part of an object's JSON the tests look at.
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

// valuePredicate matches objects whose spec.value is v.
func valuePredicate(v string) registry.Predicate {
	return func(obj []byte) bool {
		var d decoded
		return json.Unmarshal(obj, &d) == nil && d.Spec.Value == v
	}
}

// checkObject fails unless o is key's object at rev with value, stamped
// with rev.
func checkObject(t testing.TB, what string, o Object, key string, rev uint64, value string) {
	t.Helper()
	if o.Key != key || o.Rev != rev {
		t.Errorf("%s: %s@%d, want %s@%d", what, o.Key, o.Rev, key, rev)
	}
	if rv := resourceVersion(t, o.Data); rv != o.Rev {
		t.Errorf("%s: Rev %d but metadata.resourceVersion %d", what, o.Rev, rv)
	}
	if got := decode(t, o.Data).Spec.Value; got != value {
		t.Errorf("%s: value %q, want %q", what, got, value)
	}
}

// checkError fails unless err is a *raftstore.Error with code, key and
// rev.
func checkError(t testing.TB, what string, err error, code raftstore.ErrorCode, key string, rev uint64) *raftstore.Error {
	t.Helper()
	var e *raftstore.Error
	if !errors.As(err, &e) {
		t.Fatalf("%s: error %v, want a *raftstore.Error %v", what, err, code)
	}
	if e.Code != code || e.Key != key || e.Rev != rev {
		t.Errorf("%s: %v (key %q, rev %d), want %v (key %q, rev %d)", what, e.Code, e.Key, e.Rev, code, key, rev)
	}
	return e
}

func mustCreate(t testing.TB, s *Storage, key string, obj []byte) Object {
	t.Helper()
	o, err := s.Create(context.Background(), key, obj)
	if err != nil {
		t.Fatalf("create %s: %v", key, err)
	}
	return o
}

func mustUpdate(t testing.TB, s *Storage, key string, obj []byte) Object {
	t.Helper()
	o, err := s.Update(context.Background(), key, obj, registry.Preconditions{})
	if err != nil {
		t.Fatalf("update %s: %v", key, err)
	}
	return o
}

func mustDelete(t testing.TB, s *Storage, key string) Object {
	t.Helper()
	o, err := s.Delete(context.Background(), key, registry.Preconditions{})
	if err != nil {
		t.Fatalf("delete %s: %v", key, err)
	}
	return o
}

func mustList(t testing.TB, s *Storage, prefix string, opts registry.StoreListOptions) *registry.ListResult {
	t.Helper()
	l, err := s.List(context.Background(), prefix, opts)
	if err != nil {
		t.Fatalf("list %s: %v", prefix, err)
	}
	return l
}

func mustWatch(t *testing.T, s *Storage, key string, opts registry.WatchOptions) registry.Watcher {
	t.Helper()
	w, err := s.Watch(testContext(t), key, opts)
	if err != nil {
		t.Fatalf("watch %s: %v", key, err)
	}
	t.Cleanup(w.Stop)
	return w
}

func exact(rev uint64) registry.ReadOptions {
	return registry.ReadOptions{Consistency: raftstore.Exact, Revision: rev}
}

// keys returns the keys of a list's items.
func keys(objs []Object) []string {
	out := []string{}
	for _, o := range objs {
		out = append(out, o.Key)
	}
	return out
}

// nextEvent returns the next event of w, failing if none comes in time or
// the channel closes.
func nextEvent(t testing.TB, w registry.Watcher) registry.WatchEvent {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			t.Fatalf("watch channel closed, want an event")
		}
		return ev
	case <-time.After(deadline):
		t.Fatalf("no watch event within %v", deadline)
	}
	return registry.WatchEvent{}
}

// collect returns the next n events of w.
func collect(t testing.TB, w registry.Watcher, n int) []registry.WatchEvent {
	t.Helper()
	out := make([]registry.WatchEvent, 0, n)
	for range n {
		out = append(out, nextEvent(t, w))
	}
	return out
}

// expectClosed fails unless w's channel closes, after no further event.
func expectClosed(t testing.TB, w registry.Watcher) {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		if ok {
			t.Fatalf("event %v at %d (%v), want the channel closed", ev.Type, ev.Rev, ev.Err)
		}
	case <-time.After(deadline):
		t.Fatalf("watch channel still open after %v", deadline)
	}
}

// expectIdle fails unless nothing is pending on w: the answer to a
// progress request is the next event, at rev.
func expectIdle(t testing.TB, w registry.Watcher, rev uint64) {
	t.Helper()
	w.RequestProgress()
	ev := nextEvent(t, w)
	if ev.Type != raftstore.Bookmark || ev.Rev != rev {
		t.Fatalf("pending %v at %d, want nothing but a bookmark at %d", ev.Type, ev.Rev, rev)
	}
}

// change is the part of a watch event a test compares.
type change struct {
	Type   raftstore.WatchEventType
	Key    string
	Rev    uint64
	Object string
	Prev   string
}

func changeOf(ev registry.WatchEvent) change {
	return change{ev.Type, ev.Key, ev.Rev, string(ev.Object), string(ev.Prev)}
}

func checkChanges(t testing.TB, what string, got []registry.WatchEvent, want []change) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d events, want %d", what, len(got), len(want))
	}
	for i := range want {
		if c := changeOf(got[i]); c != want[i] {
			t.Errorf("%s: event %d is\n %+v\nwant\n %+v", what, i, c, want[i])
		}
	}
}
