package builtin

import (
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/raftapi/raftapi/api/resource"
)

// mustGroupResource returns the built-in resource of group with the given
// plural.
func mustGroupResource(t *testing.T, group, plural string) *resource.Resource {
	t.Helper()
	for _, r := range Resources() {
		if r.Group == group && r.Plural == plural {
			return r
		}
	}
	t.Fatalf("no built-in resource %s in group %q", plural, group)
	return nil
}

// v1Event is a valid events.k8s.io/v1 event, as new recorders write it.
func v1Event() *eventsv1.Event {
	return &eventsv1.Event{
		ObjectMeta:          metav1.ObjectMeta{Name: "web-1.17c1", Namespace: "team"},
		EventTime:           metav1.NewMicroTime(fixedNow),
		ReportingController: "example.com/controller",
		ReportingInstance:   "controller-1",
		Action:              "Start",
		Reason:              "Started",
		Regarding:           corev1.ObjectReference{Kind: "Pod", Namespace: "team", Name: "web-1"},
		Note:                "started",
		Type:                corev1.EventTypeNormal,
	}
}

func TestEventsV1SharesStorageWithCoreV1(t *testing.T) {
	core, v1 := mustGroupResource(t, "", "events"), mustGroupResource(t, "events.k8s.io", "events")
	if got, want := v1.Key("team", "e"), core.Key("team", "e"); got != want || want != "/registry/core/events/team/e" {
		t.Errorf("keys %q and %q, want both /registry/core/events/team/e", got, want)
	}
	if got, want := v1.Prefix(""), core.Prefix(""); got != want {
		t.Errorf("prefixes %q and %q", got, want)
	}
	if got, want := v1.StorageGroupVersionKind(), core.GroupVersionKind(); got != want {
		t.Errorf("storage version %v, want %v", got, want)
	}
	if v1.GroupVersionKind().Group != eventsv1.GroupName {
		t.Errorf("served as %v", v1.GroupVersionKind())
	}
}

func TestEventsV1StoredAsConverts(t *testing.T) {
	sa := mustGroupResource(t, "events.k8s.io", "events").StoredAs
	in := v1Event()
	stored, err := sa.ToStored(in)
	if err != nil {
		t.Fatalf("ToStored: %v", err)
	}
	core, ok := stored.(*corev1.Event)
	if !ok || core.Message != "started" || core.InvolvedObject.Name != "web-1" || core.ReportingController != in.ReportingController {
		t.Fatalf("stored form %#v", stored)
	}
	back, err := sa.FromStored(core)
	if err != nil {
		t.Fatalf("FromStored: %v", err)
	}
	if !reflect.DeepEqual(back, in) {
		t.Errorf("round trip changed the event:\n got %#v\nwant %#v", back, in)
	}
	if _, err := sa.ToStored(&corev1.Event{}); err == nil {
		t.Error("ToStored accepted a core/v1 event")
	}
	if _, err := sa.FromStored(&eventsv1.Event{}); err == nil {
		t.Error("FromStored accepted an events.k8s.io/v1 event")
	}
}

// TestEventsV1Fields checks kube-apiserver's events.k8s.io/v1 field
// selectors against the stored form of an event.
func TestEventsV1Fields(t *testing.T) {
	r := mustGroupResource(t, "events.k8s.io", "events")
	e := v1Event()
	e.Regarding = corev1.ObjectReference{Kind: "Pod", Namespace: "team", Name: "p", UID: "u-1", APIVersion: "v1", ResourceVersion: "42", FieldPath: "spec.containers{app}"}
	e.DeprecatedSource = corev1.EventSource{Component: "kubelet"}
	e.Type = corev1.EventTypeWarning
	stored, err := r.StoredAs.ToStored(e)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"regarding.kind":            "Pod",
		"regarding.namespace":       "team",
		"regarding.name":            "p",
		"regarding.uid":             "u-1",
		"regarding.apiVersion":      "v1",
		"regarding.resourceVersion": "42",
		"regarding.fieldPath":       "spec.containers{app}",
		"reason":                    "Started",
		"reportingController":       "example.com/controller",
		"source":                    "kubelet",
		"type":                      "Warning",
		"metadata.name":             "web-1.17c1",
		"metadata.namespace":        "team",
	}
	for f, v := range want {
		if got := fieldValue(t, r, stored, f); got != v {
			t.Errorf("%s = %q, want %q", f, got, v)
		}
	}
	for _, f := range []string{"involvedObject.kind", "reportingComponent", "note"} {
		if r.HasField(f) {
			t.Errorf("field %q is supported; kube-apiserver refuses it for events.k8s.io/v1", f)
		}
	}
}

func TestEventsV1ValidateCreate(t *testing.T) {
	with := func(f func(*eventsv1.Event)) *eventsv1.Event { e := v1Event(); f(e); return e }
	tests := []struct {
		name  string
		event *eventsv1.Event
		want  errs
	}{
		{"valid", v1Event(), nil},
		{"no eventTime", with(func(e *eventsv1.Event) { e.EventTime = metav1.MicroTime{} }),
			// Without eventTime the legacy checks of old-style events apply.
			errs{"FieldValueRequired eventTime"}},
		{"no type", with(func(e *eventsv1.Event) { e.Type = "" }), errs{"FieldValueInvalid type"}},
		{"unknown type", with(func(e *eventsv1.Event) { e.Type = "Info" }), errs{"FieldValueInvalid type"}},
		{"no reportingController", with(func(e *eventsv1.Event) { e.ReportingController = "" }),
			errs{"FieldValueRequired reportingComponent", "FieldValueInvalid reportingComponent", "FieldValueInvalid reportingComponent"}},
		{"no reportingInstance", with(func(e *eventsv1.Event) { e.ReportingInstance = "" }), errs{"FieldValueRequired reportingInstance"}},
		{"no action", with(func(e *eventsv1.Event) { e.Action = "" }), errs{"FieldValueRequired action"}},
		{"no reason", with(func(e *eventsv1.Event) { e.Reason = "" }), errs{"FieldValueRequired reason"}},
		{"long note", with(func(e *eventsv1.Event) { e.Note = strings.Repeat("n", 1025) }), errs{"FieldValueInvalid message"}},
		{"deprecated fields", with(func(e *eventsv1.Event) {
			e.DeprecatedSource = corev1.EventSource{Host: "h"}
			e.DeprecatedFirstTimestamp = metav1.NewTime(fixedNow)
			e.DeprecatedLastTimestamp = metav1.NewTime(fixedNow)
			e.DeprecatedCount = 2
		}), errs{"FieldValueInvalid source", "FieldValueInvalid firstTimestamp", "FieldValueInvalid lastTimestamp", "FieldValueInvalid count"}},
		{"series", with(func(e *eventsv1.Event) {
			e.Series = &eventsv1.EventSeries{Count: 2, LastObservedTime: metav1.NewMicroTime(fixedNow)}
		}), nil},
		{"bad series", with(func(e *eventsv1.Event) { e.Series = &eventsv1.EventSeries{Count: 1} }),
			errs{"FieldValueInvalid series.count", "FieldValueRequired series.lastObservedTime"}},
		{"cluster-scoped object in kube-system", with(func(e *eventsv1.Event) {
			e.Namespace, e.Regarding = "kube-system", corev1.ObjectReference{Kind: "Node", Name: "n"}
		}), nil},
		{"cluster-scoped object elsewhere", with(func(e *eventsv1.Event) { e.Regarding.Namespace = "" }),
			errs{"FieldValueInvalid involvedObject.namespace"}},
	}
	s := mustGroupResource(t, "events.k8s.io", "events").GetStrategy()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkErrs(t, s.Validate(tt.event), tt.want)
		})
	}
}

func TestEventsV1ValidateUpdate(t *testing.T) {
	with := func(f func(*eventsv1.Event)) *eventsv1.Event { e := v1Event(); f(e); return e }
	later := metav1.NewMicroTime(fixedNow.Add(time.Minute))
	tests := []struct {
		name  string
		event *eventsv1.Event
		want  errs
	}{
		{"unchanged", v1Event(), nil},
		{"labels may change", with(func(e *eventsv1.Event) { e.Labels = map[string]string{"a": "b"} }), nil},
		{"series may grow", with(func(e *eventsv1.Event) { e.Series = &eventsv1.EventSeries{Count: 2, LastObservedTime: later} }), nil},
		{"new series must be well-formed", with(func(e *eventsv1.Event) { e.Series = &eventsv1.EventSeries{Count: 1, LastObservedTime: later} }),
			errs{"FieldValueInvalid series.count"}},
		{"note is immutable", with(func(e *eventsv1.Event) { e.Note = "other" }), errs{"FieldValueInvalid message"}},
		{"regarding is immutable", with(func(e *eventsv1.Event) { e.Regarding.Name = "web-2" }), errs{"FieldValueInvalid involvedObject"}},
		{"reason is immutable (reported twice)", with(func(e *eventsv1.Event) { e.Reason = "Other" }),
			errs{"FieldValueInvalid reason", "FieldValueInvalid reason"}},
		{"reporting is immutable", with(func(e *eventsv1.Event) { e.ReportingController, e.ReportingInstance = "other.io/c", "c-2" }),
			errs{"FieldValueInvalid reportingController", "FieldValueInvalid reportingInstance"}},
		{"type, action and eventTime are immutable", with(func(e *eventsv1.Event) {
			e.Type, e.Action, e.EventTime = corev1.EventTypeWarning, "Stop", later
		}), errs{"FieldValueInvalid type", "FieldValueInvalid action", "FieldValueInvalid eventTime"}},
		{"related is immutable", with(func(e *eventsv1.Event) { e.Related = &corev1.ObjectReference{Name: "x"} }),
			errs{"FieldValueInvalid related"}},
	}
	s := mustGroupResource(t, "events.k8s.io", "events").GetStrategy()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkErrs(t, s.ValidateUpdate(tt.event, v1Event()), tt.want)
		})
	}
}

// TestCoreV1EventsStayLenient checks that an old-style event, which
// events.k8s.io/v1 refuses, is still accepted through core/v1.
func TestCoreV1EventsStayLenient(t *testing.T) {
	core := mustGroupResource(t, "", "events").GetStrategy()
	old := oldEvent("team", "team")
	old.Count, old.Source = 3, corev1.EventSource{Component: "kubelet"}
	checkErrs(t, core.Validate(old), nil)
	checkErrs(t, core.ValidateUpdate(old, oldEvent("team", "team")), nil)
}

func TestEventsV1NameValidation(t *testing.T) {
	v := mustGroupResource(t, "events.k8s.io", "events").ValidateName
	if msgs := v("pod.17c1a9e3b4", false); len(msgs) != 0 {
		t.Errorf("valid name refused: %v", msgs)
	}
	for _, bad := range []string{"Not_A_DNS_Name", "a/b", ".."} {
		if msgs := v(bad, false); len(msgs) == 0 {
			t.Errorf("%q accepted", bad)
		}
	}
}
