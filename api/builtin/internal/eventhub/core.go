package eventhub

import (
	corev1 "k8s.io/api/core/v1"
)

// FromCoreV1 converts a core/v1 event to the hub. The result shares
// nothing with in.
func FromCoreV1(in *corev1.Event) *Event {
	return &Event{
		ObjectMeta:          *in.ObjectMeta.DeepCopy(),
		InvolvedObject:      referenceFromV1(in.InvolvedObject),
		Reason:              in.Reason,
		Message:             in.Message,
		Source:              sourceFromV1(in.Source),
		FirstTimestamp:      *in.FirstTimestamp.DeepCopy(),
		LastTimestamp:       *in.LastTimestamp.DeepCopy(),
		Count:               in.Count,
		Type:                in.Type,
		EventTime:           *in.EventTime.DeepCopy(),
		Series:              coreSeriesFromV1(in.Series),
		Action:              in.Action,
		Related:             optionalReferenceFromV1(in.Related),
		ReportingController: in.ReportingController,
		ReportingInstance:   in.ReportingInstance,
	}
}

// ToCoreV1 converts a hub event to core/v1, without apiVersion and kind.
// The result shares nothing with e.
func (e *Event) ToCoreV1() *corev1.Event {
	return &corev1.Event{
		ObjectMeta:          *e.ObjectMeta.DeepCopy(),
		InvolvedObject:      referenceToV1(e.InvolvedObject),
		Reason:              e.Reason,
		Message:             e.Message,
		Source:              sourceToV1(e.Source),
		FirstTimestamp:      *e.FirstTimestamp.DeepCopy(),
		LastTimestamp:       *e.LastTimestamp.DeepCopy(),
		Count:               e.Count,
		Type:                e.Type,
		EventTime:           *e.EventTime.DeepCopy(),
		Series:              coreSeriesToV1(e.Series),
		Action:              e.Action,
		Related:             optionalReferenceToV1(e.Related),
		ReportingController: e.ReportingController,
		ReportingInstance:   e.ReportingInstance,
	}
}

func coreSeriesFromV1(in *corev1.EventSeries) *EventSeries {
	if in == nil {
		return nil
	}
	return &EventSeries{Count: in.Count, LastObservedTime: *in.LastObservedTime.DeepCopy()}
}

func coreSeriesToV1(in *EventSeries) *corev1.EventSeries {
	if in == nil {
		return nil
	}
	return &corev1.EventSeries{Count: in.Count, LastObservedTime: *in.LastObservedTime.DeepCopy()}
}
