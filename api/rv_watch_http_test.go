package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// watchEvent is one decoded JSON watch event.
type watchEvent struct {
	Type   string          `json:"type"`
	Object json.RawMessage `json:"object"`
}

// cm decodes the event's object as a configmap.
func (e watchEvent) cm(t testing.TB) *corev1.ConfigMap {
	t.Helper()
	var cm corev1.ConfigMap
	if err := json.Unmarshal(e.Object, &cm); err != nil {
		t.Fatalf("%s event object is not a configmap: %v: %s", e.Type, err, e.Object)
	}
	return &cm
}

// String formats the event as TYPE name@rv.
func (e watchEvent) String() string {
	var o struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
	}
	_ = json.Unmarshal(e.Object, &o)
	return fmt.Sprintf("%s %s@%s", e.Type, o.Metadata.Name, o.Metadata.ResourceVersion)
}

// watchStream is an open JSON watch whose events a goroutine decodes
// into a channel.
type watchStream struct {
	header http.Header
	events chan watchEvent
	// done is closed when the stream has ended; err is then the decoder's
	// final error.
	done chan struct{}
	err  error
}

// openWatch starts a watch on path through s. A 200 answer returns the
// stream; any other returns the response with its body.
func openWatch(t *testing.T, s *testServer, path string, hdrs ...header) (*watchStream, *response) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+path, nil)
	if err != nil {
		t.Fatalf("new watch request: %v", err)
	}
	for _, h := range hdrs {
		req.Header.Set(h.key, h.value)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("watch %s: %v", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		buf, _ := io.ReadAll(resp.Body)
		return nil, &response{Code: resp.StatusCode, Header: resp.Header, Body: buf, what: "watch " + path}
	}
	w := &watchStream{header: resp.Header, events: make(chan watchEvent, 1024), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		defer close(w.events)
		defer resp.Body.Close()
		dec := json.NewDecoder(resp.Body)
		for {
			var ev watchEvent
			if err := dec.Decode(&ev); err != nil {
				w.err = err
				return
			}
			select {
			case w.events <- ev:
			case <-ctx.Done():
				w.err = ctx.Err()
				return
			}
		}
	}()
	return w, nil
}

// watch starts a watch on path through s and requires a 200.
func watch(t *testing.T, s *testServer, path string, hdrs ...header) *watchStream {
	t.Helper()
	w, r := openWatch(t, s, path, hdrs...)
	if r != nil {
		t.Fatalf("%s: status %d: %s", r.what, r.Code, truncate(r.Body))
	}
	return w
}

// next returns the next event, failing the test if none arrives in time
// or the stream ends.
func (w *watchStream) next(t testing.TB) watchEvent {
	t.Helper()
	select {
	case ev, ok := <-w.events:
		if !ok {
			t.Fatalf("watch ended (%v) while an event was expected", w.err)
		}
		return ev
	case <-time.After(eventually):
		t.Fatalf("no watch event within %v", eventually)
	}
	return watchEvent{}
}

// nextNonBookmark returns the next event that is not a BOOKMARK.
func (w *watchStream) nextNonBookmark(t testing.TB) watchEvent {
	t.Helper()
	for {
		if ev := w.next(t); ev.Type != "BOOKMARK" {
			return ev
		}
	}
}

// wantEvents reads len(want) events (skipping bookmarks) and checks their
// types and object names, in order.
func (w *watchStream) wantEvents(t testing.TB, want ...string) []watchEvent {
	t.Helper()
	var got []watchEvent
	for range want {
		got = append(got, w.nextNonBookmark(t))
	}
	for i, ev := range got {
		if name := ev.Type + " " + ev.cm(t).Name; name != want[i] {
			t.Errorf("events %v, want %v", got, want)
			break
		}
	}
	return got
}

// wantClosed waits for the stream to end.
func (w *watchStream) wantClosed(t testing.TB) {
	t.Helper()
	deadline := time.After(eventually)
	for {
		select {
		case _, ok := <-w.events:
			if !ok {
				return
			}
		case <-deadline:
			t.Fatalf("watch still open after %v", eventually)
		}
	}
}

// addedNames reads n events, which must all be ADDED, and returns their
// sorted object names and the highest resourceVersion among them.
func (w *watchStream) addedNames(t testing.TB, n int) ([]string, uint64) {
	t.Helper()
	var names []string
	var top uint64
	for range n {
		ev := w.nextNonBookmark(t)
		if ev.Type != "ADDED" {
			t.Fatalf("initial event %v, want ADDED", ev)
		}
		cm := ev.cm(t)
		names = append(names, cm.Name)
		top = max(top, rvOf(t, cm.ResourceVersion))
	}
	slices.Sort(names)
	return names, top
}

// watchPath returns the watch path of the configmaps of ns with extra
// query parameters.
func watchPath(ns string, kv ...string) string {
	return cmPath(ns) + query(append([]string{"watch", "1"}, kv...)...)
}

// TestWatchResourceVersion checks the watch row of the semantics table:
// unset and "0" start with synthetic ADDED events for the current state,
// N starts after N with no synthetic events.
func TestWatchResourceVersion(t *testing.T) {
	t.Parallel()
	tc := newTestCluster(t, 3)

	for _, c := range []struct {
		name string
		rv   []string
		on   func() *testServer
	}{
		{"UnsetOnFollower", nil, func() *testServer { return tc.Follower }},
		{"UnsetOnLeader", nil, func() *testServer { return tc.Leader }},
		{"ZeroOnLeader", []string{"resourceVersion", "0"}, func() *testServer { return tc.Leader }},
	} {
		t.Run(c.name, func(t *testing.T) {
			ns := newNamespace(t, tc.Leader)
			a := createCM(t, tc.Leader, ns, configMap("a", nil, nil))
			b := createCM(t, tc.Leader, ns, configMap("b", nil, nil))
			w := watch(t, c.on(), watchPath(ns, c.rv...))
			names, top := w.addedNames(t, 2)
			if !slices.Equal(names, []string{"a", "b"}) || top != rvOfCM(b) {
				t.Errorf("initial events for %v up to %d, want a and b up to %s", names, top, b.ResourceVersion)
			}
			createCM(t, tc.Leader, ns, configMap("c", nil, nil))
			a.Data = map[string]string{"k": "v"}
			a = updateCM(t, tc.Leader, a)
			deleteCM(t, tc.Leader, ns, "b")
			evs := w.wantEvents(t, "ADDED c", "MODIFIED a", "DELETED b")
			if got := evs[1].cm(t); got.ResourceVersion != a.ResourceVersion || got.Data["k"] != "v" {
				t.Errorf("MODIFIED a at %s %v, want %s", got.ResourceVersion, got.Data, a.ResourceVersion)
			}
			if rv := rvOfCM(evs[2].cm(t)); rv <= rvOfCM(a) {
				t.Errorf("DELETED b at %d, want the deletion's revision (after %s)", rv, a.ResourceVersion)
			}
		})
	}

	t.Run("NStartsAfterN", func(t *testing.T) {
		ns := newNamespace(t, tc.Leader)
		a := createCM(t, tc.Leader, ns, configMap("a", nil, nil))
		n := a.ResourceVersion
		createCM(t, tc.Leader, ns, configMap("b", nil, nil))
		a.Data = map[string]string{"k": "v"}
		updateCM(t, tc.Leader, a)
		ws := []*watchStream{
			watch(t, tc.Leader, watchPath(ns, "resourceVersion", n)),
			watch(t, tc.Follower, watchPath(ns, "resourceVersion", n)),
		}
		for _, w := range ws {
			w.wantEvents(t, "ADDED b", "MODIFIED a")
		}
		marker := createCM(t, tc.Leader, ns, configMap("marker", nil, nil))
		for _, w := range ws {
			if ev := w.nextNonBookmark(t); ev.Type != "ADDED" || ev.cm(t).ResourceVersion != marker.ResourceVersion {
				t.Errorf("after the history: %v, want ADDED marker@%s", ev, marker.ResourceVersion)
			}
		}
	})

	t.Run("NAtCurrentHasNoEvents", func(t *testing.T) {
		ns := newNamespace(t, tc.Leader)
		createCM(t, tc.Leader, ns, configMap("a", nil, nil))
		l := listCMs(t, tc.Follower, cmPath(ns))
		w := watch(t, tc.Follower, watchPath(ns, "resourceVersion", l.ResourceVersion))
		createCM(t, tc.Leader, ns, configMap("b", nil, nil))
		w.wantEvents(t, "ADDED b")
	})

	t.Run("MalformedIsBadRequest", func(t *testing.T) {
		_, r := openWatch(t, tc.Leader, watchPath("default", "resourceVersion", "abc"))
		if r == nil {
			t.Fatalf("watch with resourceVersion=abc: 200, want 400")
		}
		r.wantStatus(t, http.StatusBadRequest, metav1.StatusReasonBadRequest)
	})
}
