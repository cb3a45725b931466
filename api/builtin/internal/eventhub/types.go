package eventhub

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Event is the internal form of an event. Field names follow core/v1,
// the storage version; the comments name the events.k8s.io/v1 field each
// one is served as.
type Event struct {
	metav1.ObjectMeta

	// InvolvedObject is what the event is about (regarding).
	InvolvedObject ObjectReference
	// Reason is a short, machine-readable cause of the event.
	Reason string
	// Message is the human-readable description (note).
	Message string
	// Source is the component and host that reported the event, as old
	// recorders set it (deprecatedSource).
	Source EventSource
	// FirstTimestamp is when the event was first recorded, old style
	// (deprecatedFirstTimestamp).
	FirstTimestamp metav1.Time
	// LastTimestamp is the most recent occurrence, old style
	// (deprecatedLastTimestamp).
	LastTimestamp metav1.Time
	// Count is how many times the event occurred, old style
	// (deprecatedCount).
	Count int32
	// Type is Normal or Warning.
	Type string
	// EventTime is when the event was first observed, new style.
	EventTime metav1.MicroTime
	// Series describes a repeated event, new style.
	Series *EventSeries
	// Action is what was done, or failed, about the regarding object.
	Action string
	// Related is a secondary object of the event.
	Related *ObjectReference
	// ReportingController is the controller that emitted the event
	// (core/v1 serves it as reportingComponent).
	ReportingController string
	// ReportingInstance is the instance of the reporting controller.
	ReportingInstance string
}

// ObjectReference names an object an event is about.
type ObjectReference struct {
	Kind            string
	Namespace       string
	Name            string
	UID             types.UID
	APIVersion      string
	ResourceVersion string
	FieldPath       string
}

// EventSource is the component and host that reported an event.
type EventSource struct {
	Component string
	Host      string
}

// EventSeries is the occurrence count and last observation of an event
// that happened more than once.
type EventSeries struct {
	Count            int32
	LastObservedTime metav1.MicroTime
}
