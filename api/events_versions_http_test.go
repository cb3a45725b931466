package api_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
)

// Events are served as core/v1 and as events.k8s.io/v1 from one stored
// form; these tests write through one version and read through the other.

// coreEventsPath and v1EventsPath return the path of the events of ns in
// each version, or of one of them when name is given.
func coreEventsPath(ns string, name ...string) string {
	return "/api/v1/namespaces/" + ns + "/events" + nameSuffix(name)
}

func v1EventsPath(ns string, name ...string) string {
	return "/apis/events.k8s.io/v1/namespaces/" + ns + "/events" + nameSuffix(name)
}

func nameSuffix(name []string) string {
	if len(name) == 0 {
		return ""
	}
	return "/" + name[0]
}

// eventClock is the time the test events happened.
var eventClock = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// oldStyleEvent is a core/v1 event as old recorders write it.
func oldStyleEvent(ns, name, pod string) *corev1.Event {
	return &corev1.Event{
		TypeMeta:       metav1.TypeMeta{APIVersion: "v1", Kind: "Event"},
		ObjectMeta:     metav1.ObjectMeta{Name: name, Namespace: ns},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: ns, Name: pod, APIVersion: "v1"},
		Reason:         "Pulled",
		Message:        "pulled image for " + pod,
		Source:         corev1.EventSource{Component: "kubelet", Host: "node-1"},
		FirstTimestamp: metav1.NewTime(eventClock),
		LastTimestamp:  metav1.NewTime(eventClock.Add(time.Minute)),
		Count:          2,
		Type:           corev1.EventTypeNormal,
	}
}

// newStyleEvent is an events.k8s.io/v1 event as new recorders write it.
func newStyleEvent(ns, name, pod string) *eventsv1.Event {
	return &eventsv1.Event{
		TypeMeta:            metav1.TypeMeta{APIVersion: "events.k8s.io/v1", Kind: "Event"},
		ObjectMeta:          metav1.ObjectMeta{Name: name, Namespace: ns},
		EventTime:           metav1.NewMicroTime(eventClock),
		ReportingController: "example.com/scheduler",
		ReportingInstance:   "scheduler-1",
		Action:              "Binding",
		Reason:              "Scheduled",
		Regarding:           corev1.ObjectReference{Kind: "Pod", Namespace: ns, Name: pod, APIVersion: "v1"},
		Note:                "assigned " + pod + " to node-1",
		Type:                corev1.EventTypeWarning,
	}
}

func getCoreEvent(t testing.TB, s *testServer, ns, name string) *corev1.Event {
	t.Helper()
	var e corev1.Event
	s.do(t, http.MethodGet, coreEventsPath(ns, name), nil).wantCode(t, http.StatusOK).decode(t, &e)
	return &e
}

func getV1Event(t testing.TB, s *testServer, ns, name string) *eventsv1.Event {
	t.Helper()
	var e eventsv1.Event
	s.do(t, http.MethodGet, v1EventsPath(ns, name), nil).wantCode(t, http.StatusOK).decode(t, &e)
	return &e
}

// checkSameEvent fails unless core and v1 are the same stored event.
func checkSameEvent(t *testing.T, core *corev1.Event, v1 *eventsv1.Event) {
	t.Helper()
	if core.APIVersion != "v1" || v1.APIVersion != "events.k8s.io/v1" || core.Kind != "Event" || v1.Kind != "Event" {
		t.Errorf("kinds %s %s and %s %s", core.APIVersion, core.Kind, v1.APIVersion, v1.Kind)
	}
	if core.ResourceVersion != v1.ResourceVersion || core.UID != v1.UID || core.ResourceVersion == "" {
		t.Errorf("resourceVersion %q / %q, uid %q / %q: want one object", core.ResourceVersion, v1.ResourceVersion, core.UID, v1.UID)
	}
	if core.Message != v1.Note || core.InvolvedObject != v1.Regarding || core.Source != v1.DeprecatedSource ||
		!core.FirstTimestamp.Equal(&v1.DeprecatedFirstTimestamp) || !core.LastTimestamp.Equal(&v1.DeprecatedLastTimestamp) ||
		core.Count != v1.DeprecatedCount || core.ReportingController != v1.ReportingController ||
		core.ReportingInstance != v1.ReportingInstance || core.Action != v1.Action || core.Reason != v1.Reason ||
		core.Type != v1.Type || !core.EventTime.Equal(&v1.EventTime) {
		t.Errorf("versions disagree:\ncore/v1 %+v\nevents.k8s.io/v1 %+v", core, v1)
	}
}

func TestEventsVersionsCreateInEither(t *testing.T) {
	s := newTestCluster(t, 1).Leader
	ns := newNamespace(t, s)

	s.do(t, http.MethodPost, coreEventsPath(ns), oldStyleEvent(ns, "old.1", "web-1")).wantCode(t, http.StatusCreated)
	v1 := getV1Event(t, s, ns, "old.1")
	checkSameEvent(t, getCoreEvent(t, s, ns, "old.1"), v1)
	if v1.Note != "pulled image for web-1" || v1.Regarding.Name != "web-1" || v1.DeprecatedCount != 2 || v1.DeprecatedSource.Component != "kubelet" {
		t.Errorf("core/v1 event read as events.k8s.io/v1: %+v", v1)
	}

	var created eventsv1.Event
	s.do(t, http.MethodPost, v1EventsPath(ns), newStyleEvent(ns, "new.1", "web-2")).wantCode(t, http.StatusCreated).decode(t, &created)
	if created.APIVersion != "events.k8s.io/v1" || created.Note != "assigned web-2 to node-1" {
		t.Errorf("create answered %+v", created)
	}
	core := getCoreEvent(t, s, ns, "new.1")
	checkSameEvent(t, core, getV1Event(t, s, ns, "new.1"))
	if core.Message != "assigned web-2 to node-1" || core.InvolvedObject.Name != "web-2" || core.ReportingController != "example.com/scheduler" {
		t.Errorf("events.k8s.io/v1 event read as core/v1: %+v", core)
	}
	if core.ResourceVersion != created.ResourceVersion {
		t.Errorf("core/v1 rv %s, created at %s", core.ResourceVersion, created.ResourceVersion)
	}
}

func TestEventsVersionsList(t *testing.T) {
	s := newTestCluster(t, 1).Leader
	ns := newNamespace(t, s)
	s.do(t, http.MethodPost, coreEventsPath(ns), oldStyleEvent(ns, "a", "web-1")).wantCode(t, http.StatusCreated)
	s.do(t, http.MethodPost, v1EventsPath(ns), newStyleEvent(ns, "b", "web-2")).wantCode(t, http.StatusCreated)

	var core corev1.EventList
	s.do(t, http.MethodGet, coreEventsPath(ns), nil).wantCode(t, http.StatusOK).decode(t, &core)
	at := query("resourceVersion", core.ResourceVersion, "resourceVersionMatch", "Exact")
	var v1 eventsv1.EventList
	s.do(t, http.MethodGet, v1EventsPath(ns)+at, nil).wantCode(t, http.StatusOK).decode(t, &v1)
	if v1.Kind != "EventList" || v1.APIVersion != "events.k8s.io/v1" || v1.ResourceVersion != core.ResourceVersion {
		t.Errorf("events.k8s.io/v1 list %s %s at %s, core/v1 list at %s", v1.APIVersion, v1.Kind, v1.ResourceVersion, core.ResourceVersion)
	}
	if len(core.Items) != 2 || len(v1.Items) != 2 {
		t.Fatalf("%d core/v1 items, %d events.k8s.io/v1 items, want 2 each", len(core.Items), len(v1.Items))
	}
	for i := range core.Items {
		// Items in a list carry no kind; compare the rest.
		c, e := &core.Items[i], &v1.Items[i]
		c.TypeMeta, e.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Event"}, metav1.TypeMeta{APIVersion: "events.k8s.io/v1", Kind: "Event"}
		checkSameEvent(t, c, e)
	}
}

func TestEventsVersionsUpdateAndDelete(t *testing.T) {
	s := newTestCluster(t, 1).Leader
	ns := newNamespace(t, s)
	s.do(t, http.MethodPost, v1EventsPath(ns), newStyleEvent(ns, "e", "web-1")).wantCode(t, http.StatusCreated)

	// A recorder counting a repeated event updates its series.
	e := getV1Event(t, s, ns, "e")
	e.Series = &eventsv1.EventSeries{Count: 2, LastObservedTime: metav1.NewMicroTime(eventClock.Add(time.Minute))}
	var updated eventsv1.Event
	s.do(t, http.MethodPut, v1EventsPath(ns, "e"), e).wantCode(t, http.StatusOK).decode(t, &updated)
	core := getCoreEvent(t, s, ns, "e")
	if core.Series == nil || core.Series.Count != 2 || core.ResourceVersion != updated.ResourceVersion {
		t.Errorf("core/v1 after the update: series %+v at %s, updated at %s", core.Series, core.ResourceVersion, updated.ResourceVersion)
	}

	// events.k8s.io/v1 refuses to change what happened; core/v1 allows it.
	e = getV1Event(t, s, ns, "e")
	e.Note = "rewritten"
	wantCause(t, s.do(t, http.MethodPut, v1EventsPath(ns, "e"), e).wantStatus(t, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid),
		metav1.CauseTypeFieldValueInvalid, "message")
	core.Message = "rewritten"
	s.do(t, http.MethodPut, coreEventsPath(ns, "e"), core).wantCode(t, http.StatusOK)
	if got := getV1Event(t, s, ns, "e").Note; got != "rewritten" {
		t.Errorf("note %q after a core/v1 update", got)
	}

	// Patches and applies through events.k8s.io/v1 work on the served
	// version, not the stored one; the recorder patches its series.
	var patched eventsv1.Event
	s.do(t, http.MethodPatch, v1EventsPath(ns, "e"), `{"series":{"count":3,"lastObservedTime":"2025-03-01T12:02:00.000000Z"}}`,
		contentType("application/strategic-merge-patch+json")).wantCode(t, http.StatusOK).decode(t, &patched)
	if patched.Series == nil || patched.Series.Count != 3 || getCoreEvent(t, s, ns, "e").Series.Count != 3 {
		t.Errorf("series after a strategic merge patch: %+v", patched.Series)
	}
	s.do(t, http.MethodPatch, v1EventsPath(ns, "e")+query("fieldManager", "recorder"), "apiVersion: events.k8s.io/v1\nkind: Event\nmetadata:\n  name: e\n  labels:\n    applied: \"yes\"\n",
		contentType(applyPatch)).wantCode(t, http.StatusOK).decode(t, &patched)
	if patched.Labels["applied"] != "yes" || managerEntry(&patched, "recorder") == nil {
		t.Errorf("after an apply: labels %v managedFields %+v", patched.Labels, patched.ManagedFields)
	}

	s.do(t, http.MethodDelete, v1EventsPath(ns, "e"), nil).wantCode(t, http.StatusOK)
	s.do(t, http.MethodGet, coreEventsPath(ns, "e"), nil).wantStatus(t, http.StatusNotFound, metav1.StatusReasonNotFound)
}

func TestEventsVersionsStrictCreate(t *testing.T) {
	s := newTestCluster(t, 1).Leader
	ns := newNamespace(t, s)
	e := newStyleEvent(ns, "e", "web-1")
	e.EventTime = metav1.MicroTime{}
	e.DeprecatedCount = 3
	st := s.do(t, http.MethodPost, v1EventsPath(ns), e).wantStatus(t, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid)
	wantCause(t, st, metav1.CauseTypeFieldValueRequired, "eventTime")
	wantCause(t, st, metav1.CauseTypeFieldValueInvalid, "count")
	// The same old-style event is fine through core/v1.
	s.do(t, http.MethodPost, coreEventsPath(ns), oldStyleEvent(ns, "e", "web-1")).wantCode(t, http.StatusCreated)
	// Names must be DNS subdomains through events.k8s.io/v1 only.
	s.do(t, http.MethodPost, v1EventsPath(ns), newStyleEvent(ns, "Not_DNS", "web-1")).wantStatus(t, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid)
	s.do(t, http.MethodPost, coreEventsPath(ns), oldStyleEvent(ns, "Not_DNS", "web-1")).wantCode(t, http.StatusCreated)
}

// eventWatchObject decodes the parts of a watched event both versions
// share, and the version-specific message.
type eventWatchObject struct {
	APIVersion string            `json:"apiVersion"`
	Metadata   metav1.ObjectMeta `json:"metadata"`
	Message    string            `json:"message"`
	Note       string            `json:"note"`
}

func decodeWatched(t *testing.T, ev watchEvent) eventWatchObject {
	t.Helper()
	var o eventWatchObject
	if err := json.Unmarshal(ev.Object, &o); err != nil {
		t.Fatalf("watch event object: %v: %s", err, ev.Object)
	}
	return o
}

func TestEventsVersionsWatch(t *testing.T) {
	s := newTestCluster(t, 1).Leader
	ns := newNamespace(t, s)
	var first corev1.Event
	s.do(t, http.MethodPost, coreEventsPath(ns), oldStyleEvent(ns, "first", "web-0")).wantCode(t, http.StatusCreated).decode(t, &first)
	from := query("watch", "1", "resourceVersion", first.ResourceVersion)
	coreW, v1W := watch(t, s, coreEventsPath(ns)+from), watch(t, s, v1EventsPath(ns)+from)

	s.do(t, http.MethodPost, coreEventsPath(ns), oldStyleEvent(ns, "a", "web-1")).wantCode(t, http.StatusCreated)
	s.do(t, http.MethodPost, v1EventsPath(ns), newStyleEvent(ns, "b", "web-2")).wantCode(t, http.StatusCreated)
	s.do(t, http.MethodDelete, v1EventsPath(ns, "a"), nil).wantCode(t, http.StatusOK)

	want := []string{"ADDED a", "ADDED b", "DELETED a"}
	for i, w := range want {
		c, v := coreW.nextNonBookmark(t), v1W.nextNonBookmark(t)
		co, vo := decodeWatched(t, c), decodeWatched(t, v)
		if c.Type+" "+co.Metadata.Name != w || v.Type+" "+vo.Metadata.Name != w {
			t.Fatalf("event %d: core/v1 %v, events.k8s.io/v1 %v, want %s", i, c, v, w)
		}
		if co.Metadata.ResourceVersion != vo.Metadata.ResourceVersion {
			t.Errorf("event %d: resourceVersions %s and %s", i, co.Metadata.ResourceVersion, vo.Metadata.ResourceVersion)
		}
		if co.APIVersion != "v1" || vo.APIVersion != "events.k8s.io/v1" || co.Message == "" || co.Message != vo.Note {
			t.Errorf("event %d: core/v1 %+v, events.k8s.io/v1 %+v", i, co, vo)
		}
	}
}

// v1EventNames lists the names of the events.k8s.io/v1 events matching
// the field selector sel in ns.
func v1EventNames(t *testing.T, s *testServer, path, sel string) []string {
	t.Helper()
	var l struct {
		Items []struct {
			Metadata metav1.ObjectMeta `json:"metadata"`
		} `json:"items"`
	}
	s.do(t, http.MethodGet, path+query("fieldSelector", sel), nil).wantCode(t, http.StatusOK).decode(t, &l)
	names := []string{}
	for _, it := range l.Items {
		names = append(names, it.Metadata.Name)
	}
	slices.Sort(names)
	return names
}

func TestEventsVersionsFieldSelectors(t *testing.T) {
	s := newTestCluster(t, 1).Leader
	ns := newNamespace(t, s)
	s.do(t, http.MethodPost, coreEventsPath(ns), oldStyleEvent(ns, "old", "web-1")).wantCode(t, http.StatusCreated)
	s.do(t, http.MethodPost, v1EventsPath(ns), newStyleEvent(ns, "new", "web-2")).wantCode(t, http.StatusCreated)

	tests := []struct {
		path, sel string
		want      []string
	}{
		{v1EventsPath(ns), "regarding.name=web-1", []string{"old"}},
		{v1EventsPath(ns), "regarding.kind=Pod,type=Warning", []string{"new"}},
		{v1EventsPath(ns), "reportingController=example.com/scheduler", []string{"new"}},
		{v1EventsPath(ns), "source=kubelet", []string{"old"}},
		{v1EventsPath(ns), "reason!=Pulled", []string{"new"}},
		{v1EventsPath(ns), "metadata.name=old", []string{"old"}},
		{coreEventsPath(ns), "involvedObject.name=web-2", []string{"new"}},
		{coreEventsPath(ns), "reportingComponent=example.com/scheduler", []string{"new"}},
	}
	for _, tt := range tests {
		if got := v1EventNames(t, s, tt.path, tt.sel); !slices.Equal(got, tt.want) {
			t.Errorf("%s?fieldSelector=%s: %v, want %v", tt.path, tt.sel, got, tt.want)
		}
	}
	for _, sel := range []string{"involvedObject.name=web-1", "reportingComponent=x", "note=x"} {
		st := s.do(t, http.MethodGet, v1EventsPath(ns)+query("fieldSelector", sel), nil).wantStatus(t, http.StatusBadRequest, metav1.StatusReasonBadRequest)
		if !strings.Contains(st.Message, "field label not supported") {
			t.Errorf("%s: message %q", sel, st.Message)
		}
	}
	s.do(t, http.MethodGet, coreEventsPath(ns)+query("fieldSelector", "regarding.name=x"), nil).wantStatus(t, http.StatusBadRequest, metav1.StatusReasonBadRequest)

	// A watch with a field selector sees new matches in either version.
	var l corev1.EventList
	s.do(t, http.MethodGet, coreEventsPath(ns), nil).wantCode(t, http.StatusOK).decode(t, &l)
	w := watch(t, s, v1EventsPath(ns)+query("watch", "1", "resourceVersion", l.ResourceVersion, "fieldSelector", "regarding.name=web-3"))
	s.do(t, http.MethodPost, coreEventsPath(ns), oldStyleEvent(ns, "skip", "web-4")).wantCode(t, http.StatusCreated)
	s.do(t, http.MethodPost, coreEventsPath(ns), oldStyleEvent(ns, "match", "web-3")).wantCode(t, http.StatusCreated)
	if ev := w.nextNonBookmark(t); ev.Type != "ADDED" || decodeWatched(t, ev).Metadata.Name != "match" {
		t.Errorf("selected watch event %v, want ADDED match", ev)
	}
}

func TestEventsVersionsRepresentations(t *testing.T) {
	s := newTestCluster(t, 1).Leader
	ns := newNamespace(t, s)
	s.do(t, http.MethodPost, coreEventsPath(ns), oldStyleEvent(ns, "old", "web-1")).wantCode(t, http.StatusCreated)

	// Tables: the same columns and cells in both versions, row objects in
	// the version asked for.
	tables := map[string]*metav1.Table{}
	for _, p := range []string{coreEventsPath(ns), v1EventsPath(ns)} {
		var tbl metav1.Table
		s.do(t, http.MethodGet, p+query("includeObject", "Object"), nil, accept(tableV1)).wantCode(t, http.StatusOK).decode(t, &tbl)
		if len(tbl.Rows) != 1 {
			t.Fatalf("%s: %d rows", p, len(tbl.Rows))
		}
		tables[p] = &tbl
	}
	core, v1 := tables[coreEventsPath(ns)], tables[v1EventsPath(ns)]
	if len(core.ColumnDefinitions) != len(v1.ColumnDefinitions) || !slices.EqualFunc(core.Rows[0].Cells, v1.Rows[0].Cells, func(a, b any) bool { return a == b }) {
		t.Errorf("tables differ:\ncore/v1 %v %v\nevents.k8s.io/v1 %v %v", core.ColumnDefinitions, core.Rows[0].Cells, v1.ColumnDefinitions, v1.Rows[0].Cells)
	}
	var rowObj eventsv1.Event
	if err := json.Unmarshal(v1.Rows[0].Object.Raw, &rowObj); err != nil || rowObj.APIVersion != "events.k8s.io/v1" || rowObj.Note == "" {
		t.Errorf("events.k8s.io/v1 row object %s (%v)", v1.Rows[0].Object.Raw, err)
	}

	// Protobuf decodes into the events.k8s.io/v1 type.
	r := s.do(t, http.MethodGet, v1EventsPath(ns, "old"), nil, accept(mediaProtobuf)).wantCode(t, http.StatusOK)
	obj, _, err := eventsProtoCodec(t).Decode(r.Body, nil, nil)
	if e, ok := obj.(*eventsv1.Event); err != nil || !ok || e.Note != "pulled image for web-1" {
		t.Errorf("protobuf: %#v, %v", obj, err)
	}

	// YAML carries the served field names.
	r = s.do(t, http.MethodGet, v1EventsPath(ns, "old"), nil, accept(mediaYAML)).wantCode(t, http.StatusOK)
	if body := string(r.Body); !strings.Contains(body, "apiVersion: events.k8s.io/v1") || !strings.Contains(body, "note: pulled image") {
		t.Errorf("YAML:\n%s", body)
	}
}

// eventsProtoCodec returns a Kubernetes Protobuf serializer for
// events.k8s.io/v1.
func eventsProtoCodec(t testing.TB) runtime.Serializer {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := eventsv1.AddToScheme(scheme); err != nil {
		t.Fatalf("scheme: %v", err)
	}
	return protobuf.NewSerializer(scheme, scheme)
}

func TestEventsVersionsDiscovery(t *testing.T) {
	s := newTestCluster(t, 1).Leader
	lists := map[string]metav1.APIResourceList{}
	for _, p := range []string{"/api/v1", "/apis/events.k8s.io/v1"} {
		var l metav1.APIResourceList
		s.do(t, http.MethodGet, p, nil).wantCode(t, http.StatusOK).decode(t, &l)
		lists[p] = l
	}
	find := func(l metav1.APIResourceList) metav1.APIResource {
		for _, r := range l.APIResources {
			if r.Name == "events" {
				return r
			}
		}
		t.Fatalf("%s has no events", l.GroupVersion)
		return metav1.APIResource{}
	}
	core, v1 := find(lists["/api/v1"]), find(lists["/apis/events.k8s.io/v1"])
	if core.StorageVersionHash == "" || core.StorageVersionHash != v1.StorageVersionHash {
		t.Errorf("storageVersionHash %q and %q: want the same storage version", core.StorageVersionHash, v1.StorageVersionHash)
	}
	if v1.Kind != "Event" || !v1.Namespaced || !slices.Equal(v1.ShortNames, []string{"ev"}) {
		t.Errorf("events.k8s.io/v1 events: %+v", v1)
	}
}
