package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiwatch "k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// bookmarkObject is the decoded object of a BOOKMARK event, with the raw
// top-level and metadata keys to check that nothing else is set.
type bookmarkObject struct {
	Kind       string `json:"kind"`
	APIVersion string `json:"apiVersion"`
	Metadata   struct {
		ResourceVersion string            `json:"resourceVersion"`
		Annotations     map[string]string `json:"annotations"`
	} `json:"metadata"`
	keys, metaKeys []string
}

// bookmark decodes a BOOKMARK event's object.
func bookmark(t testing.TB, ev watchEvent) bookmarkObject {
	t.Helper()
	if ev.Type != "BOOKMARK" {
		t.Fatalf("event %v, want BOOKMARK", ev)
	}
	var b bookmarkObject
	var raw map[string]json.RawMessage
	var meta map[string]json.RawMessage
	if json.Unmarshal(ev.Object, &b) != nil || json.Unmarshal(ev.Object, &raw) != nil || json.Unmarshal(raw["metadata"], &meta) != nil {
		t.Fatalf("bookmark object is not an object with metadata: %s", ev.Object)
	}
	for k := range raw {
		b.keys = append(b.keys, k)
	}
	for k := range meta {
		b.metaKeys = append(b.metaKeys, k)
	}
	slices.Sort(b.keys)
	slices.Sort(b.metaKeys)
	return b
}

// TestWatchBookmarks checks BOOKMARK events: only with
// allowWatchBookmarks, of the watched kind, carrying nothing but
// metadata.resourceVersion.
func TestWatchBookmarks(t *testing.T) {
	t.Parallel()
	tc := newTestCluster(t, 1)
	s := tc.Leader
	ns := newNamespace(t, s)
	cm := createCM(t, s, ns, configMap("a", nil, nil))

	plain := watch(t, s, watchPath(ns, "resourceVersion", cm.ResourceVersion))
	w := watch(t, s, watchPath(ns, "resourceVersion", cm.ResourceVersion, "allowWatchBookmarks", "true"))
	var last uint64
	for range 3 {
		b := bookmark(t, w.next(t))
		if b.Kind != "ConfigMap" || b.APIVersion != "v1" {
			t.Errorf("bookmark kind %q apiVersion %q, want ConfigMap v1", b.Kind, b.APIVersion)
		}
		if !slices.Equal(b.keys, []string{"apiVersion", "kind", "metadata"}) || !slices.Equal(b.metaKeys, []string{"resourceVersion"}) {
			t.Errorf("bookmark object has keys %v and metadata keys %v, want only kind, apiVersion and metadata.resourceVersion", b.keys, b.metaKeys)
		}
		rv := rvOf(t, b.Metadata.ResourceVersion)
		if rv < rvOfCM(cm) || rv < last {
			t.Errorf("bookmark at %d, after the watch's start %s and the previous bookmark %d", rv, cm.ResourceVersion, last)
		}
		last = rv
	}
	// Three bookmark periods have passed: the plain watch got none.
	next := createCM(t, s, ns, configMap("b", nil, nil))
	if ev := plain.next(t); ev.Type != "ADDED" || ev.cm(t).Name != "b" {
		t.Errorf("watch without allowWatchBookmarks: %v, want ADDED b", ev)
	}
	if ev := w.nextNonBookmark(t); ev.Type != "ADDED" || ev.cm(t).ResourceVersion != next.ResourceVersion {
		t.Errorf("after bookmarks: %v, want ADDED b", ev)
	}
	if b := bookmark(t, w.next(t)); rvOf(t, b.Metadata.ResourceVersion) < rvOfCM(next) {
		t.Errorf("bookmark after ADDED b at %s, want at least %s", b.Metadata.ResourceVersion, next.ResourceVersion)
	}

	t.Run("Lease", func(t *testing.T) {
		lw := watch(t, s, "/apis/coordination.k8s.io/v1/namespaces/"+ns+"/leases"+query("watch", "1", "allowWatchBookmarks", "true"))
		b := bookmark(t, lw.next(t))
		if b.Kind != "Lease" || b.APIVersion != "coordination.k8s.io/v1" {
			t.Errorf("lease bookmark kind %q apiVersion %q", b.Kind, b.APIVersion)
		}
	})
}

// TestWatchSendInitialEvents checks streaming lists: initial ADDED events,
// then a BOOKMARK annotated k8s.io/initial-events-end, then changes; and
// the parameter combinations kube-apiserver refuses.
func TestWatchSendInitialEvents(t *testing.T) {
	t.Parallel()
	tc := newTestCluster(t, 1)
	s := tc.Leader
	ns := newNamespace(t, s)
	createCM(t, s, ns, configMap("a", nil, nil))
	b := createCM(t, s, ns, configMap("b", nil, nil))

	for name, rv := range map[string][]string{
		"Unset": nil,
		"Empty": {"resourceVersion", ""},
		"Zero":  {"resourceVersion", "0"},
		"N":     {"resourceVersion", b.ResourceVersion},
	} {
		t.Run(name, func(t *testing.T) {
			kv := append([]string{"sendInitialEvents", "true", "resourceVersionMatch", "NotOlderThan", "allowWatchBookmarks", "true"}, rv...)
			w := watch(t, s, watchPath(ns, kv...))
			names, _ := w.addedNames(t, 2)
			if !slices.Equal(names, []string{"a", "b"}) {
				t.Errorf("initial events for %v, want a and b", names)
			}
			end := bookmark(t, w.next(t))
			if end.Metadata.Annotations[metav1.InitialEventsAnnotationKey] != "true" {
				t.Errorf("bookmark after the initial events lacks %s: %v", metav1.InitialEventsAnnotationKey, end.Metadata.Annotations)
			}
			if end.Kind != "ConfigMap" || end.APIVersion != "v1" {
				t.Errorf("bookmark kind %q apiVersion %q", end.Kind, end.APIVersion)
			}
			if rvOf(t, end.Metadata.ResourceVersion) < rvOfCM(b) {
				t.Errorf("initial-events-end bookmark at %s, before the last write %s", end.Metadata.ResourceVersion, b.ResourceVersion)
			}
			c := createCM(t, s, ns, configMap("c-"+strings.ToLower(name), nil, nil))
			if ev := w.nextNonBookmark(t); ev.Type != "ADDED" || ev.cm(t).ResourceVersion != c.ResourceVersion {
				t.Errorf("after the initial events: %v, want ADDED %s", ev, c.Name)
			}
			deleteCM(t, s, ns, c.Name)
		})
	}

	invalid := []struct {
		name, field string
		kv          []string
	}{
		{"SendInitialEventsWithoutMatch", "resourceVersionMatch", []string{"sendInitialEvents", "true"}},
		{"SendInitialEventsWithExact", "resourceVersionMatch", []string{"sendInitialEvents", "true", "resourceVersionMatch", "Exact", "resourceVersion", b.ResourceVersion}},
		{"MatchWithoutSendInitialEvents", "resourceVersionMatch", []string{"resourceVersionMatch", "NotOlderThan"}},
		{"MatchWithoutSendInitialEventsWithRV", "resourceVersionMatch", []string{"resourceVersionMatch", "NotOlderThan", "resourceVersion", b.ResourceVersion}},
	}
	for _, c := range invalid {
		t.Run(c.name, func(t *testing.T) {
			_, r := openWatch(t, s, watchPath(ns, c.kv...))
			if r == nil {
				t.Fatalf("watch %v: 200, want 422", c.kv)
			}
			st := r.wantStatus(t, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid)
			wantCause(t, st, "", c.field)
		})
	}
}

// TestWatchStream checks timeoutSeconds, selectors on watches and the
// Protobuf and Table forms of the stream.
func TestWatchStream(t *testing.T) {
	t.Parallel()
	tc := newTestCluster(t, 1)
	s := tc.Leader

	t.Run("TimeoutSecondsEndsTheStream", func(t *testing.T) {
		ns := newNamespace(t, s)
		start := time.Now()
		w := watch(t, s, watchPath(ns, "timeoutSeconds", "1"))
		w.wantClosed(t)
		if d := time.Since(start); d < 900*time.Millisecond {
			t.Errorf("watch with timeoutSeconds=1 ended after %v", d)
		}
	})

	t.Run("LabelSelectorTransitions", func(t *testing.T) {
		ns := newNamespace(t, s)
		w := watch(t, s, watchPath(ns, "labelSelector", "app=x"))
		cm := createCM(t, s, ns, configMap("l", map[string]string{"app": "x"}, nil))
		createCM(t, s, ns, configMap("other", map[string]string{"app": "y"}, nil))
		w.wantEvents(t, "ADDED l")

		cm.Labels = map[string]string{"app": "y"}
		cm = updateCM(t, s, cm)
		ev := w.nextNonBookmark(t)
		if ev.Type != "DELETED" || ev.cm(t).Name != "l" {
			t.Fatalf("label changed away: %v, want DELETED l", ev)
		}
		if got := ev.cm(t); got.ResourceVersion != cm.ResourceVersion || got.Labels["app"] != "x" {
			t.Errorf("DELETED l at %s labels %v, want the previous object (app=x) at the update's revision %s", got.ResourceVersion, got.Labels, cm.ResourceVersion)
		}

		cm.Data = map[string]string{"unseen": "1"}
		cm = updateCM(t, s, cm)
		cm.Labels = map[string]string{"app": "x"}
		cm = updateCM(t, s, cm)
		ev = w.nextNonBookmark(t)
		if ev.Type != "ADDED" || ev.cm(t).ResourceVersion != cm.ResourceVersion {
			t.Fatalf("label changed back: %v, want ADDED l@%s (and nothing for the change while unmatched)", ev, cm.ResourceVersion)
		}
		cm.Data = map[string]string{"seen": "1"}
		updateCM(t, s, cm)
		deleteCM(t, s, ns, "l")
		w.wantEvents(t, "MODIFIED l", "DELETED l")
	})

	t.Run("FieldSelectorSingleObject", func(t *testing.T) {
		ns := newNamespace(t, s)
		createCM(t, s, ns, configMap("b", nil, nil))
		a := createCM(t, s, ns, configMap("a", nil, nil))
		w := watch(t, s, watchPath(ns, "fieldSelector", "metadata.name=a"))
		w.wantEvents(t, "ADDED a")
		createCM(t, s, ns, configMap("c", nil, nil))
		deleteCM(t, s, ns, "b")
		a.Data = map[string]string{"k": "v"}
		updateCM(t, s, a)
		w.wantEvents(t, "MODIFIED a")
	})

	t.Run("ProtobufWithClientGo", func(t *testing.T) {
		ns := newNamespace(t, s)
		createCM(t, s, ns, configMap("a", nil, map[string]string{"k": "v"}))
		raw := watch(t, s, watchPath(ns, "timeoutSeconds", "1"), accept("application/vnd.kubernetes.protobuf"))
		if ct := raw.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/vnd.kubernetes.protobuf") {
			t.Errorf("protobuf watch Content-Type %q", ct)
		}

		cs, err := kubernetes.NewForConfig(&rest.Config{Host: s.URL, ContentConfig: rest.ContentConfig{
			ContentType:        "application/vnd.kubernetes.protobuf",
			AcceptContentTypes: "application/vnd.kubernetes.protobuf",
		}})
		if err != nil {
			t.Fatalf("client: %v", err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), eventually)
		defer cancel()
		w, err := cs.CoreV1().ConfigMaps(ns).Watch(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatalf("client-go watch: %v", err)
		}
		defer w.Stop()
		ev := <-w.ResultChan()
		got, ok := ev.Object.(*corev1.ConfigMap)
		if ev.Type != apiwatch.Added || !ok || got.Name != "a" || got.Data["k"] != "v" {
			t.Fatalf("first event %s %T %+v, want ADDED configmap a", ev.Type, ev.Object, ev.Object)
		}
		if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, configMap("b", nil, nil), metav1.CreateOptions{}); err != nil {
			t.Fatalf("client-go protobuf create: %v", err)
		}
		ev = <-w.ResultChan()
		if got, ok := ev.Object.(*corev1.ConfigMap); ev.Type != apiwatch.Added || !ok || got.Name != "b" {
			t.Fatalf("second event %s %+v, want ADDED configmap b", ev.Type, ev.Object)
		}
	})

	t.Run("TableColumnsOnFirstEventOnly", func(t *testing.T) {
		ns := newNamespace(t, s)
		a := createCM(t, s, ns, configMap("a", nil, map[string]string{"k": "v"}))
		createCM(t, s, ns, configMap("b", nil, nil))
		w := watch(t, s, watchPath(ns), accept("application/json;as=Table;v=v1;g=meta.k8s.io"))
		a.Data = map[string]string{"k": "v2"}
		updateCM(t, s, a)
		for i, wantType := range []string{"ADDED", "ADDED", "MODIFIED"} {
			ev := w.next(t)
			var tbl metav1.Table
			if err := json.Unmarshal(ev.Object, &tbl); err != nil {
				t.Fatalf("event %d object is not a Table: %v", i, err)
			}
			if ev.Type != wantType || tbl.Kind != "Table" || tbl.APIVersion != "meta.k8s.io/v1" || len(tbl.Rows) != 1 {
				t.Errorf("event %d: %s %s/%s with %d rows, want %s Table meta.k8s.io/v1 with one row", i, ev.Type, tbl.APIVersion, tbl.Kind, len(tbl.Rows), wantType)
			}
			if i == 0 && len(tbl.ColumnDefinitions) == 0 {
				t.Errorf("first Table event has no column definitions")
			}
			if i > 0 && len(tbl.ColumnDefinitions) != 0 {
				t.Errorf("Table event %d repeats the column definitions", i)
			}
		}
	})
}
