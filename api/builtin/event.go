package builtin

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/raftapi/raftapi/api/builtin/internal/eventhub"
	"github.com/raftapi/raftapi/api/resource"
)

// events describes core/v1 events, the storage version of events.
// kube-apiserver checks an event's name only as a path segment, and
// applies to core/v1 writes only the lenient legacy validation; now is the
// clock of the Table's relative times.
func events(now func() time.Time) *resource.Resource {
	return &resource.Resource{
		Version:    "v1",
		Kind:       "Event",
		ListKind:   "EventList",
		Plural:     "events",
		Singular:   "event",
		Namespaced: true,
		ShortNames: []string{"ev"},
		New:        func() runtime.Object { return &corev1.Event{} },
		NewList:    func() runtime.Object { return &corev1.EventList{} },
		Columns:    eventColumns(now),
		OmitAge:    true,
		Fields: map[string]string{
			"involvedObject.kind":            "involvedObject.kind",
			"involvedObject.namespace":       "involvedObject.namespace",
			"involvedObject.name":            "involvedObject.name",
			"involvedObject.uid":             "involvedObject.uid",
			"involvedObject.apiVersion":      "involvedObject.apiVersion",
			"involvedObject.resourceVersion": "involvedObject.resourceVersion",
			"involvedObject.fieldPath":       "involvedObject.fieldPath",
			"reason":                         "reason",
			"reportingComponent":             "reportingComponent",
			"source":                         "source.component",
			"type":                           "type",
		},
		Strategy: typed[*corev1.Event]{
			validate: validateEvent,
			validateUpdate: func(e, _ *corev1.Event) field.ErrorList {
				return validateEvent(e)
			},
		},
		ValidateName: validatePathSegmentName,
	}
}

// validateEvent is kube-apiserver's validation of an event written
// through core/v1, on create and update alike: the legacy validation only,
// for backwards compatibility.
func validateEvent(e *corev1.Event) field.ErrorList {
	return eventhub.ValidateLegacy(eventhub.FromCoreV1(e))
}

// validatePathSegmentName is kube-apiserver's name validation of events:
// any name that is a valid path segment (the library's own function is
// deprecated in favour of a local one).
func validatePathSegmentName(name string, prefix bool) []string {
	if prefix {
		return content.IsPathSegmentPrefix(name)
	}
	return content.IsPathSegmentName(name)
}
