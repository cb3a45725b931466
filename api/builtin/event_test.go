package builtin

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// oldEvent is an event as core/v1 recorders write it, without eventTime.
func oldEvent(ns, involvedNS string) *corev1.Event {
	return &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: "e.1", Namespace: ns},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "p", Namespace: involvedNS},
		Reason:         "Started",
	}
}

// newEvent is an event with eventTime and what must come with it.
func newEvent(ns, involvedNS string) *corev1.Event {
	e := oldEvent(ns, involvedNS)
	e.EventTime = metav1.NewMicroTime(fixedNow)
	e.ReportingController = "example.com/controller"
	e.ReportingInstance = "controller-1"
	e.Action = "Start"
	return e
}

func TestEventValidate(t *testing.T) {
	with := func(e *corev1.Event, f func(*corev1.Event)) *corev1.Event { f(e); return e }
	tests := []struct {
		name  string
		event *corev1.Event
		want  errs
	}{
		{"same namespace", oldEvent("team", "team"), nil},
		{"cluster-scoped object in default", oldEvent("default", ""), nil},
		{"cluster-scoped object in another namespace", oldEvent("team", ""), errs{"FieldValueInvalid involvedObject.namespace"}},
		{"other namespace", oldEvent("team", "other"), errs{"FieldValueInvalid involvedObject.namespace"}},
		{"old style needs no reason", with(oldEvent("team", "team"), func(e *corev1.Event) { e.Reason = "" }), nil},
		{"new style", newEvent("team", "team"), nil},
		{"new style, cluster-scoped object in kube-system", newEvent("kube-system", ""), nil},
		{"new style, cluster-scoped object elsewhere", newEvent("team", ""), errs{"FieldValueInvalid involvedObject.namespace"}},
		{"new style, other namespace is accepted", newEvent("team", "other"), nil},
		{"no reportingComponent", with(newEvent("team", "team"), func(e *corev1.Event) { e.ReportingController = "" }),
			// As kube-apiserver: the qualified-name check reports "" twice.
			errs{"FieldValueRequired reportingComponent", "FieldValueInvalid reportingComponent", "FieldValueInvalid reportingComponent"}},
		{"bad reportingComponent", with(newEvent("team", "team"), func(e *corev1.Event) { e.ReportingController = "a/b/c" }),
			errs{"FieldValueInvalid reportingComponent"}},
		{"no reportingInstance", with(newEvent("team", "team"), func(e *corev1.Event) { e.ReportingInstance = "" }),
			errs{"FieldValueRequired reportingInstance"}},
		{"long reportingInstance", with(newEvent("team", "team"), func(e *corev1.Event) { e.ReportingInstance = strings.Repeat("i", 129) }),
			errs{"FieldValueInvalid reportingInstance"}},
		{"no action", with(newEvent("team", "team"), func(e *corev1.Event) { e.Action = "" }), errs{"FieldValueRequired action"}},
		{"long action", with(newEvent("team", "team"), func(e *corev1.Event) { e.Action = strings.Repeat("a", 129) }), errs{"FieldValueInvalid action"}},
		{"no reason", with(newEvent("team", "team"), func(e *corev1.Event) { e.Reason = "" }), errs{"FieldValueRequired reason"}},
		{"long reason", with(newEvent("team", "team"), func(e *corev1.Event) { e.Reason = strings.Repeat("r", 129) }), errs{"FieldValueInvalid reason"}},
		{"message at limit", with(newEvent("team", "team"), func(e *corev1.Event) { e.Message = strings.Repeat("m", 1024) }), nil},
		{"long message", with(newEvent("team", "team"), func(e *corev1.Event) { e.Message = strings.Repeat("m", 1025) }), errs{"FieldValueInvalid message"}},
		{"long old-style message", with(oldEvent("team", "team"), func(e *corev1.Event) { e.Message = strings.Repeat("m", 5000) }), nil},
		{"bad namespace", oldEvent("Team_1", "Team_1"), errs{"FieldValueInvalid namespace"}},
	}
	s := mustResource(t, "events").GetStrategy()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkErrs(t, s.Validate(tt.event), tt.want)
			checkErrs(t, s.ValidateUpdate(tt.event, oldEvent("x", "y")), tt.want)
		})
	}
}

func TestEventMessages(t *testing.T) {
	s := mustResource(t, "events").GetStrategy()
	got := s.Validate(oldEvent("team", "other"))
	if want := `involvedObject.namespace: Invalid value: "other": does not match event.namespace`; len(got) != 1 || got[0].Error() != want {
		t.Errorf("errors = %v, want %q", got, want)
	}
	e := newEvent("team", "team")
	e.Action = strings.Repeat("a", 129)
	got = s.Validate(e)
	if want := `action: Invalid value: "": can have at most 128 characters`; len(got) != 1 || got[0].Error() != want {
		t.Errorf("errors = %v, want %q", got, want)
	}
}

func TestEventNameValidation(t *testing.T) {
	v := mustResource(t, "events").ValidateName
	for _, ok := range []string{"pod.17c1a9e3b4", "Not_A_DNS_Name"} {
		if msgs := v(ok, false); len(msgs) != 0 {
			t.Errorf("%q: %v", ok, msgs)
		}
	}
	for _, bad := range []string{"a/b", "a%b", "..", "."} {
		if msgs := v(bad, false); len(msgs) == 0 {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestEventFields(t *testing.T) {
	r := mustResource(t, "events")
	e := &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{Name: "e", Namespace: "team"},
		InvolvedObject: corev1.ObjectReference{
			Kind: "Pod", Namespace: "team", Name: "p", UID: "u-1", APIVersion: "v1",
			ResourceVersion: "42", FieldPath: "spec.containers{app}",
		},
		Reason:              "Pulled",
		Source:              corev1.EventSource{Component: "kubelet", Host: "node-1"},
		ReportingController: "kubelet-rc",
		Type:                corev1.EventTypeWarning,
	}
	want := map[string]string{
		"involvedObject.kind":            "Pod",
		"involvedObject.namespace":       "team",
		"involvedObject.name":            "p",
		"involvedObject.uid":             "u-1",
		"involvedObject.apiVersion":      "v1",
		"involvedObject.resourceVersion": "42",
		"involvedObject.fieldPath":       "spec.containers{app}",
		"reason":                         "Pulled",
		"reportingComponent":             "kubelet-rc",
		"source":                         "kubelet",
		"type":                           "Warning",
		"metadata.name":                  "e",
		"metadata.namespace":             "team",
	}
	for f, v := range want {
		if got := fieldValue(t, r, e, f); got != v {
			t.Errorf("%s = %q, want %q", f, got, v)
		}
	}
	if got := fieldValue(t, r, &corev1.Event{}, "involvedObject.kind"); got != "" {
		t.Errorf("absent field = %q", got)
	}
}

func TestEventColumns(t *testing.T) {
	r := events(clock)
	at := func(d time.Duration) metav1.Time { return metav1.NewTime(fixedNow.Add(-d)) }
	micro := func(d time.Duration) metav1.MicroTime { return metav1.NewMicroTime(fixedNow.Add(-d)) }
	type cells struct {
		lastSeen, firstSeen string
		count               int64
	}
	tests := []struct {
		name  string
		event *corev1.Event
		want  cells
	}{
		{"old style", &corev1.Event{FirstTimestamp: at(time.Hour), LastTimestamp: at(5 * time.Minute), Count: 7}, cells{"5m", "60m", 7}},
		{"no lastTimestamp", &corev1.Event{FirstTimestamp: at(90 * time.Second)}, cells{"90s", "90s", 1}},
		{"new style", &corev1.Event{EventTime: micro(3 * time.Hour)}, cells{"3h", "3h", 1}},
		{"series", &corev1.Event{EventTime: micro(2 * time.Hour), Series: &corev1.EventSeries{Count: 4, LastObservedTime: micro(10 * time.Second)}}, cells{"10s", "120m", 4}},
		{"no times", &corev1.Event{}, cells{"<unknown>", "<unknown>", 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := cells{
				lastSeen:  cell(t, r, "Last Seen", tt.event).(string),
				firstSeen: cell(t, r, "First Seen", tt.event).(string),
				count:     cell(t, r, "Count", tt.event).(int64),
			}
			if got != tt.want {
				t.Errorf("cells = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestEventTextColumns(t *testing.T) {
	r := events(clock)
	tests := []struct {
		name                  string
		event                 *corev1.Event
		object, source, other string
	}{
		{"pod", &corev1.Event{
			InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "web-1", FieldPath: "spec.containers{app}"},
			Source:         corev1.EventSource{Component: "kubelet", Host: "node-1"},
			Type:           "Normal", Reason: "Pulled", Message: "  pulled image\n",
		}, "pod/web-1", "kubelet, node-1", "Normal|Pulled|pulled image|spec.containers{app}"},
		{"no name, reporting fields", &corev1.Event{
			InvolvedObject:      corev1.ObjectReference{Kind: "Node"},
			ReportingController: "example.com/ctl", ReportingInstance: "ctl-0",
		}, "node", "example.com/ctl, ctl-0", "|||"},
		{"component only", &corev1.Event{Source: corev1.EventSource{Component: "scheduler"}}, "", "scheduler", "|||"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := cell(t, r, "Object", tt.event); got != tt.object {
				t.Errorf("Object = %q, want %q", got, tt.object)
			}
			if got := cell(t, r, "Source", tt.event); got != tt.source {
				t.Errorf("Source = %q, want %q", got, tt.source)
			}
			other := strings.Join([]string{
				cell(t, r, "Type", tt.event).(string),
				cell(t, r, "Reason", tt.event).(string),
				cell(t, r, "Message", tt.event).(string),
				cell(t, r, "Subobject", tt.event).(string),
			}, "|")
			if other != tt.other {
				t.Errorf("Type|Reason|Message|Subobject = %q, want %q", other, tt.other)
			}
		})
	}
}

func TestEventColumnPriorities(t *testing.T) {
	wide := map[string]bool{"Subobject": true, "Source": true, "First Seen": true, "Count": true, "Name": true}
	for _, c := range events(clock).Columns {
		if got, want := c.Priority == 1, wide[c.Name]; got != want {
			t.Errorf("%s: priority %d", c.Name, c.Priority)
		}
	}
}
