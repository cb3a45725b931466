package builtin

import (
	"time"

	eventsv1 "k8s.io/api/events/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/raftapi/raftapi/api/builtin/internal/eventhub"
	"github.com/raftapi/raftapi/api/resource"
)

// eventsV1 describes events.k8s.io/v1 events. They are stored as core/v1
// events under the same keys, so both resources serve the same objects
// with the same resourceVersions. Their Table is core/v1's (its cells are
// computed from the stored form), and so are the paths of their field
// selectors, under kube-apiserver's events.k8s.io names. Writes get the
// strict validation of new-style events; names must be DNS subdomains.
// Neither version has defaults, as in kube-apiserver.
func eventsV1(now func() time.Time) *resource.Resource {
	return &resource.Resource{
		Group:      eventsv1.GroupName,
		Version:    "v1",
		Kind:       "Event",
		ListKind:   "EventList",
		Plural:     "events",
		Singular:   "event",
		Namespaced: true,
		ShortNames: []string{"ev"},
		New:        func() runtime.Object { return &eventsv1.Event{} },
		NewList:    func() runtime.Object { return &eventsv1.EventList{} },
		Columns:    eventColumns(now),
		OmitAge:    true,
		Fields:     eventsV1Fields(),
		StoredAs:   eventsStoredAsCoreV1(),
		Strategy: typed[*eventsv1.Event]{
			validate: func(e *eventsv1.Event) field.ErrorList {
				return eventhub.ValidateStrictCreate(eventhub.FromEventsV1(e))
			},
			validateUpdate: func(e, old *eventsv1.Event) field.ErrorList {
				return eventhub.ValidateStrictUpdate(eventhub.FromEventsV1(e), eventhub.FromEventsV1(old))
			},
		},
		ValidateName: apivalidation.NameIsDNSSubdomain,
	}
}

// eventsV1Fields maps the field selectors kube-apiserver accepts for
// events.k8s.io/v1 to paths into the stored core/v1 form.
func eventsV1Fields() map[string]string {
	return map[string]string{
		"regarding.kind":            "involvedObject.kind",
		"regarding.namespace":       "involvedObject.namespace",
		"regarding.name":            "involvedObject.name",
		"regarding.uid":             "involvedObject.uid",
		"regarding.apiVersion":      "involvedObject.apiVersion",
		"regarding.resourceVersion": "involvedObject.resourceVersion",
		"regarding.fieldPath":       "involvedObject.fieldPath",
		"reason":                    "reason",
		"reportingController":       "reportingComponent",
		"source":                    "source.component",
		"type":                      "type",
	}
}
