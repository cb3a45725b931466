package eventhub

import (
	eventsv1 "k8s.io/api/events/v1"
)

// FromEventsV1 converts an events.k8s.io/v1 event to the hub: regarding
// is the involved object, note the message, and the deprecated fields are
// core/v1's source, firstTimestamp, lastTimestamp and count. The result
// shares nothing with in.
func FromEventsV1(in *eventsv1.Event) *Event {
	return &Event{
		ObjectMeta:          *in.ObjectMeta.DeepCopy(),
		InvolvedObject:      referenceFromV1(in.Regarding),
		Reason:              in.Reason,
		Message:             in.Note,
		Source:              sourceFromV1(in.DeprecatedSource),
		FirstTimestamp:      *in.DeprecatedFirstTimestamp.DeepCopy(),
		LastTimestamp:       *in.DeprecatedLastTimestamp.DeepCopy(),
		Count:               in.DeprecatedCount,
		Type:                in.Type,
		EventTime:           *in.EventTime.DeepCopy(),
		Series:              eventsSeriesFromV1(in.Series),
		Action:              in.Action,
		Related:             optionalReferenceFromV1(in.Related),
		ReportingController: in.ReportingController,
		ReportingInstance:   in.ReportingInstance,
	}
}

// ToEventsV1 converts a hub event to events.k8s.io/v1, without apiVersion
// and kind. The result shares nothing with e.
func (e *Event) ToEventsV1() *eventsv1.Event {
	return &eventsv1.Event{
		ObjectMeta:               *e.ObjectMeta.DeepCopy(),
		Regarding:                referenceToV1(e.InvolvedObject),
		Reason:                   e.Reason,
		Note:                     e.Message,
		DeprecatedSource:         sourceToV1(e.Source),
		DeprecatedFirstTimestamp: *e.FirstTimestamp.DeepCopy(),
		DeprecatedLastTimestamp:  *e.LastTimestamp.DeepCopy(),
		DeprecatedCount:          e.Count,
		Type:                     e.Type,
		EventTime:                *e.EventTime.DeepCopy(),
		Series:                   eventsSeriesToV1(e.Series),
		Action:                   e.Action,
		Related:                  optionalReferenceToV1(e.Related),
		ReportingController:      e.ReportingController,
		ReportingInstance:        e.ReportingInstance,
	}
}

func eventsSeriesFromV1(in *eventsv1.EventSeries) *EventSeries {
	if in == nil {
		return nil
	}
	return &EventSeries{Count: in.Count, LastObservedTime: *in.LastObservedTime.DeepCopy()}
}

func eventsSeriesToV1(in *EventSeries) *eventsv1.EventSeries {
	if in == nil {
		return nil
	}
	return &eventsv1.EventSeries{Count: in.Count, LastObservedTime: *in.LastObservedTime.DeepCopy()}
}
