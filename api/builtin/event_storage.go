package builtin

import (
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/raftapi/raftapi/api/builtin/internal/eventhub"
	"github.com/raftapi/raftapi/api/resource"
)

// eventsStoredAsCoreV1 stores events.k8s.io/v1 events as core/v1 events,
// kube-apiserver's storage version, converting through the hub.
func eventsStoredAsCoreV1() *resource.StoredAs {
	return &resource.StoredAs{
		Plural:     "events",
		Version:    "v1",
		Kind:       "Event",
		New:        func() runtime.Object { return &corev1.Event{} },
		ToStored:   resource.ConvertTo(eventsV1ToCoreV1),
		FromStored: resource.ConvertTo(coreV1ToEventsV1),
	}
}

// eventsV1ToCoreV1 converts events.k8s.io/v1 → hub → core/v1.
func eventsV1ToCoreV1(e *eventsv1.Event) *corev1.Event {
	return eventhub.FromEventsV1(e).ToCoreV1()
}

// coreV1ToEventsV1 converts core/v1 → hub → events.k8s.io/v1.
func coreV1ToEventsV1(e *corev1.Event) *eventsv1.Event {
	return eventhub.FromCoreV1(e).ToEventsV1()
}
