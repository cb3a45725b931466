package builtin

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/validation/path"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/raftapi/raftapi/api/resource"
)

// Length limits of the fields of events that carry an eventTime.
const (
	reportingInstanceLengthLimit = 128
	actionLengthLimit            = 128
	reasonLengthLimit            = 128
	noteLengthLimit              = 1024
)

// events describes core/v1 events. kube-apiserver checks an event's name
// only as a path segment, and applies to core/v1 writes only the lenient
// validation below; now is the clock of the Table's relative times.
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
		ValidateName: path.ValidatePathSegmentName,
	}
}

// validateEvent is kube-apiserver's validation of an event written
// through core/v1, on create and update alike. Events without eventTime
// (the old style) only need their involved object's namespace to agree
// with theirs; events with one must also say who reported what.
func validateEvent(e *corev1.Event) field.ErrorList {
	var errs field.ErrorList
	if e.EventTime.Time.IsZero() {
		// An event about a cluster-scoped object lives in "default" (or,
		// from old clients, nowhere).
		involved := e.InvolvedObject.Namespace
		if (involved == "" && e.Namespace != metav1.NamespaceNone && e.Namespace != metav1.NamespaceDefault) ||
			(involved != "" && e.Namespace != involved) {
			errs = append(errs, namespaceMismatch(e))
		}
	} else {
		errs = append(errs, validateReportedEvent(e)...)
	}
	for _, msg := range validation.IsDNS1123Subdomain(e.Namespace) {
		errs = append(errs, field.Invalid(field.NewPath("namespace"), e.Namespace, msg))
	}
	return errs
}

// validateReportedEvent checks an event that has an eventTime. The
// reporting controller's field is named as in core/v1,
// reportingComponent.
func validateReportedEvent(e *corev1.Event) field.ErrorList {
	var errs field.ErrorList
	if e.InvolvedObject.Namespace == "" && e.Namespace != metav1.NamespaceDefault && e.Namespace != metav1.NamespaceSystem {
		errs = append(errs, namespaceMismatch(e))
	}
	controllerPath := field.NewPath("reportingComponent")
	if e.ReportingController == "" {
		errs = append(errs, field.Required(controllerPath, ""))
	}
	for _, msg := range validation.IsQualifiedName(e.ReportingController) {
		errs = append(errs, field.Invalid(controllerPath, e.ReportingController, msg))
	}
	errs = append(errs, requiredWithin(e.ReportingInstance, "reportingInstance", reportingInstanceLengthLimit)...)
	errs = append(errs, requiredWithin(e.Action, "action", actionLengthLimit)...)
	errs = append(errs, requiredWithin(e.Reason, "reason", reasonLengthLimit)...)
	if len(e.Message) > noteLengthLimit {
		errs = append(errs, tooManyCharacters("message", noteLengthLimit))
	}
	return errs
}

// requiredWithin requires value to be set and at most limit bytes long.
func requiredWithin(value, name string, limit int) field.ErrorList {
	var errs field.ErrorList
	if value == "" {
		errs = append(errs, field.Required(field.NewPath(name), ""))
	}
	if len(value) > limit {
		errs = append(errs, tooManyCharacters(name, limit))
	}
	return errs
}

func tooManyCharacters(name string, limit int) *field.Error {
	return field.Invalid(field.NewPath(name), "", fmt.Sprintf("can have at most %v characters", limit))
}

func namespaceMismatch(e *corev1.Event) *field.Error {
	return field.Invalid(field.NewPath("involvedObject", "namespace"), e.InvolvedObject.Namespace, "does not match event.namespace")
}
