package registry_test

import (
	"fmt"
	"slices"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/raftapi/raftapi/api/registry"
)

// watch opens a watch of namespace default, stopped when the test ends.
func watch(t *testing.T, s *registry.Store, opts registry.ListOptions) *registry.WatchResult {
	t.Helper()
	w, err := s.Watch(testContext(t), metav1.NamespaceDefault, opts)
	if err != nil {
		t.Fatalf("watch %+v: %v", opts, err)
	}
	t.Cleanup(w.Watcher.Stop)
	return w
}

// describe is an event as "TYPE name=value of k".
func describe(t *testing.T, ev registry.WatchEvent) string {
	t.Helper()
	if ev.Type == registry.WatchError {
		t.Fatalf("watch error at %d: %v", ev.Rev, ev.Err)
	}
	cm := decode[corev1.ConfigMap](t, ev.Object)
	if rv(t, cm) != ev.Rev {
		t.Errorf("event at %d carries resourceVersion %s", ev.Rev, cm.ResourceVersion)
	}
	return fmt.Sprintf("%v %s=%s", ev.Type, cm.Name, cm.Data["k"])
}

// eventsUntil reads events until one about the configmap named last,
// which the caller has written after everything it expects, and returns
// them described. The events must come in revision order.
func eventsUntil(t *testing.T, w registry.Watcher, last string) []string {
	t.Helper()
	var out []string
	var prev uint64
	for {
		ev := nextEvent(t, w)
		d := describe(t, ev)
		if ev.Rev <= prev {
			t.Errorf("event %s at %d after one at %d", d, ev.Rev, prev)
		}
		prev = ev.Rev
		out = append(out, d)
		if decode[metav1.PartialObjectMetadata](t, ev.Object).Name == last {
			return out
		}
	}
}

// initialNames returns the names of a watch's initial state.
func initialNames(t *testing.T, w *registry.WatchResult) []string {
	t.Helper()
	return names(t, w.Initial)
}

func TestWatchWithoutResourceVersion(t *testing.T) {
	f := newFixture(t)
	s := f.configMaps(t)
	a := createConfigMap(t, s, configMap("a", "k", "v1"))
	createConfigMap(t, s, configMap("b", "k", "v1"))

	w := watch(t, s, registry.ListOptions{})
	if got := initialNames(t, w); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("initial state %v, want [a b]", got)
	}
	if w.From != f.storage.Revision() || w.InitialEventsEnd {
		t.Errorf("from %d, initialEventsEnd %v; want %d, false", w.From, w.InitialEventsEnd, f.storage.Revision())
	}

	createConfigMap(t, s, configMap("c", "k", "v1"))
	a.Data["k"] = "v2"
	if _, err := update(t, s, a, registry.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := deleteConfigMap(t, s, "b", &metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	createConfigMap(t, s, configMap("z"))
	want := []string{"ADDED c=v1", "MODIFIED a=v2", "DELETED b=v1", "ADDED z="}
	if got := eventsUntil(t, w.Watcher, "z"); !slices.Equal(got, want) {
		t.Errorf("events %q, want %q", got, want)
	}
}

func TestWatchFromResourceVersion(t *testing.T) {
	f := newFixture(t)
	s := f.configMaps(t)
	a := createConfigMap(t, s, configMap("a", "k", "v1"))
	createConfigMap(t, s, configMap("b", "k", "v1"))
	a.Data["k"] = "v2"
	if _, err := update(t, s, a, registry.WriteOptions{}); err != nil {
		t.Fatal(err)
	}

	w := watch(t, s, registry.ListOptions{ResourceVersion: a.ResourceVersion})
	if len(w.Initial) != 0 || w.From != rv(t, a) {
		t.Errorf("initial %v from %d, want none from %s", initialNames(t, w), w.From, a.ResourceVersion)
	}
	createConfigMap(t, s, configMap("z"))
	want := []string{"ADDED b=v1", "MODIFIED a=v2", "ADDED z="}
	if got := eventsUntil(t, w.Watcher, "z"); !slices.Equal(got, want) {
		t.Errorf("events %q, want %q: every change after %s and nothing before", got, want, a.ResourceVersion)
	}
}

func TestWatchSendInitialEvents(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		name        string
		rv          string
		send        *bool
		match       string
		wantInitial []string
		wantEnd     bool
	}{
		{"unset resourceVersion", "", &yes, "NotOlderThan", []string{"a", "b"}, true},
		{"resourceVersion 0", "0", &yes, "NotOlderThan", []string{"a", "b"}, true},
		{"at a revision", "1", &yes, "NotOlderThan", []string{"a", "b"}, true},
		{"false: from now", "", &no, "", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			s := f.configMaps(t)
			createConfigMap(t, s, configMap("a", "k", "v1"))
			createConfigMap(t, s, configMap("b", "k", "v1"))
			w := watch(t, s, registry.ListOptions{ResourceVersion: tt.rv, SendInitialEvents: tt.send, ResourceVersionMatch: tt.match})
			if got := names(t, w.Initial); !slices.Equal(got, tt.wantInitial) {
				t.Errorf("initial %v, want %v", got, tt.wantInitial)
			}
			if w.InitialEventsEnd != tt.wantEnd {
				t.Errorf("InitialEventsEnd %v, want %v", w.InitialEventsEnd, tt.wantEnd)
			}
			createConfigMap(t, s, configMap("z"))
			if got := eventsUntil(t, w.Watcher, "z"); !slices.Equal(got, []string{"ADDED z="}) {
				t.Errorf("events after the initial state %q, want only ADDED z", got)
			}
		})
	}
}

func TestWatchOptionsInvalid(t *testing.T) {
	yes := true
	tests := []struct {
		name string
		opts registry.ListOptions
	}{
		{"resourceVersionMatch without sendInitialEvents", registry.ListOptions{ResourceVersion: "1", ResourceVersionMatch: "NotOlderThan"}},
		{"sendInitialEvents without resourceVersionMatch", registry.ListOptions{SendInitialEvents: &yes}},
		{"sendInitialEvents with Exact", registry.ListOptions{ResourceVersion: "1", SendInitialEvents: &yes, ResourceVersionMatch: "Exact"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newFixture(t).configMaps(t)
			_, err := s.Watch(testContext(t), metav1.NamespaceDefault, tt.opts)
			se := wantStatus(t, err, 422, metav1.StatusReasonInvalid)
			wantCause(t, se, metav1.CauseTypeFieldValueInvalid, "resourceVersionMatch")
		})
	}
}

func TestWatchSelector(t *testing.T) {
	f := newFixture(t)
	s := f.configMaps(t)
	f.namespace(t, "other")
	w := watch(t, s, registry.ListOptions{LabelSelector: labels.SelectorFromSet(labels.Set{"app": "x"})})

	a := createConfigMap(t, s, withLabels(configMap("a", "k", "v1"), "app", "x"))
	b := createConfigMap(t, s, withLabels(configMap("b", "k", "v1"), "app", "y")) // never seen as y
	a.Labels["app"] = "y"
	if _, err := update(t, s, a, registry.WriteOptions{}); err != nil { // leaves the selection
		t.Fatal(err)
	}
	b.Labels["app"] = "x"
	if _, err := update(t, s, b, registry.WriteOptions{}); err != nil { // enters it
		t.Fatal(err)
	}
	if _, err := s.Create(testContext(t), "other", withLabels(configMap("o"), "app", "x"), registry.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	createConfigMap(t, s, withLabels(configMap("z"), "app", "x"))
	want := []string{"ADDED a=v1", "DELETED a=v1", "ADDED b=v1", "ADDED z="}
	if got := eventsUntil(t, w.Watcher, "z"); !slices.Equal(got, want) {
		t.Errorf("events %q, want %q", got, want)
	}
}

func TestWatchCompactedResourceVersion(t *testing.T) {
	f := newFixture(t)
	s := f.configMaps(t)
	first := createConfigMap(t, s, configMap("a"))
	createConfigMap(t, s, configMap("b"))
	if err := f.storage.Compact(testContext(t), f.storage.Revision()); err != nil {
		t.Fatal(err)
	}
	w := watch(t, s, registry.ListOptions{ResourceVersion: strconv.FormatUint(rv(t, first)-1, 10)})
	ev := nextEvent(t, w.Watcher)
	if ev.Type != registry.WatchError || !registry.IsExpired(ev.Err) {
		t.Fatalf("event %v (%v), want an Expired WatchError", ev.Type, ev.Err)
	}
}
