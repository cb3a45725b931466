package eventhub

import (
	corev1 "k8s.io/api/core/v1"
)

// The parts that both versions spell as core/v1 types: object references
// and the event source.

func referenceFromV1(in corev1.ObjectReference) ObjectReference {
	return ObjectReference{
		Kind:            in.Kind,
		Namespace:       in.Namespace,
		Name:            in.Name,
		UID:             in.UID,
		APIVersion:      in.APIVersion,
		ResourceVersion: in.ResourceVersion,
		FieldPath:       in.FieldPath,
	}
}

func referenceToV1(in ObjectReference) corev1.ObjectReference {
	return corev1.ObjectReference{
		Kind:            in.Kind,
		Namespace:       in.Namespace,
		Name:            in.Name,
		UID:             in.UID,
		APIVersion:      in.APIVersion,
		ResourceVersion: in.ResourceVersion,
		FieldPath:       in.FieldPath,
	}
}

func optionalReferenceFromV1(in *corev1.ObjectReference) *ObjectReference {
	if in == nil {
		return nil
	}
	out := referenceFromV1(*in)
	return &out
}

func optionalReferenceToV1(in *ObjectReference) *corev1.ObjectReference {
	if in == nil {
		return nil
	}
	out := referenceToV1(*in)
	return &out
}

func sourceFromV1(in corev1.EventSource) EventSource {
	return EventSource{Component: in.Component, Host: in.Host}
}

func sourceToV1(in EventSource) corev1.EventSource {
	return corev1.EventSource{Component: in.Component, Host: in.Host}
}
