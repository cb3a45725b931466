package eventhub

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var (
	first    = metav1.NewTime(time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC))
	last     = metav1.NewTime(time.Date(2025, 3, 1, 11, 0, 0, 0, time.UTC))
	observed = metav1.NewMicroTime(time.Date(2025, 3, 1, 11, 30, 0, 123456000, time.UTC))
	eventAt  = metav1.NewMicroTime(time.Date(2025, 3, 1, 9, 0, 0, 654321000, time.UTC))
)

// pod and node are the regarding and related objects of the fixtures.
var (
	pod  = corev1.ObjectReference{Kind: "Pod", Namespace: "team", Name: "web-1", UID: "u-1", APIVersion: "v1", ResourceVersion: "7", FieldPath: "spec.containers{app}"}
	node = corev1.ObjectReference{Kind: "Node", Name: "node-1"}
)

// coreEvent and eventsEvent are the same event in its two versions,
// every field set.
func coreEvent() *corev1.Event {
	return &corev1.Event{
		ObjectMeta:          metav1.ObjectMeta{Name: "web-1.1", Namespace: "team", Labels: map[string]string{"a": "b"}},
		InvolvedObject:      pod,
		Reason:              "Pulled",
		Message:             "pulled image",
		Source:              corev1.EventSource{Component: "kubelet", Host: "node-1"},
		FirstTimestamp:      first,
		LastTimestamp:       last,
		Count:               3,
		Type:                corev1.EventTypeNormal,
		EventTime:           eventAt,
		Series:              &corev1.EventSeries{Count: 4, LastObservedTime: observed},
		Action:              "Pull",
		Related:             node.DeepCopy(),
		ReportingController: "kubelet",
		ReportingInstance:   "kubelet-node-1",
	}
}

func eventsEvent() *eventsv1.Event {
	return &eventsv1.Event{
		ObjectMeta:               metav1.ObjectMeta{Name: "web-1.1", Namespace: "team", Labels: map[string]string{"a": "b"}},
		Regarding:                pod,
		Reason:                   "Pulled",
		Note:                     "pulled image",
		DeprecatedSource:         corev1.EventSource{Component: "kubelet", Host: "node-1"},
		DeprecatedFirstTimestamp: first,
		DeprecatedLastTimestamp:  last,
		DeprecatedCount:          3,
		Type:                     corev1.EventTypeNormal,
		EventTime:                eventAt,
		Series:                   &eventsv1.EventSeries{Count: 4, LastObservedTime: observed},
		Action:                   "Pull",
		Related:                  node.DeepCopy(),
		ReportingController:      "kubelet",
		ReportingInstance:        "kubelet-node-1",
	}
}

func TestEventsV1ToCoreV1(t *testing.T) {
	got := FromEventsV1(eventsEvent()).ToCoreV1()
	if want := coreEvent(); !apiequality.Semantic.DeepEqual(got, want) {
		t.Errorf("events.k8s.io/v1 → core/v1 (-want +got):\n%s", cmp.Diff(want, got))
	}
}

func TestCoreV1ToEventsV1(t *testing.T) {
	got := FromCoreV1(coreEvent()).ToEventsV1()
	if want := eventsEvent(); !apiequality.Semantic.DeepEqual(got, want) {
		t.Errorf("core/v1 → events.k8s.io/v1 (-want +got):\n%s", cmp.Diff(want, got))
	}
}

func TestConversionDropsTypeMeta(t *testing.T) {
	in := coreEvent()
	in.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Event"}
	if got := FromCoreV1(in).ToEventsV1(); got.APIVersion != "" || got.Kind != "" {
		t.Errorf("TypeMeta = %+v, want empty: the API sets the served kind", got.TypeMeta)
	}
}

func TestConversionSharesNothing(t *testing.T) {
	in := coreEvent()
	out := FromCoreV1(in).ToEventsV1()
	out.Labels["a"] = "changed"
	out.Series.Count = 99
	out.Related.Name = "changed"
	if in.Labels["a"] != "b" || in.Series.Count != 4 || in.Related.Name != "node-1" {
		t.Errorf("changing the converted event changed its source: %+v", in)
	}
}

func TestConversionKeepsNilPointers(t *testing.T) {
	in := &eventsv1.Event{ObjectMeta: metav1.ObjectMeta{Name: "e"}}
	out := FromEventsV1(in).ToCoreV1()
	if out.Series != nil || out.Related != nil {
		t.Errorf("series %v, related %v: want nil", out.Series, out.Related)
	}
}
