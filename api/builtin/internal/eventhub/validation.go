package eventhub

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Length limits of the fields of events that carry an eventTime.
const (
	ReportingInstanceLengthLimit = 128
	ActionLengthLimit            = 128
	ReasonLengthLimit            = 128
	NoteLengthLimit              = 1024
)

// ValidateLegacy is the validation every event passes, whatever the
// version it is written through, on create and update alike. Events
// without eventTime (the old style) only need their involved object's
// namespace to agree with theirs; events with one must also say who
// reported what. Field paths are core/v1's, as kube-apiserver reports
// them for every version.
func ValidateLegacy(e *Event) field.ErrorList {
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
		errs = append(errs, validateReported(e)...)
	}
	for _, msg := range validation.IsDNS1123Subdomain(e.Namespace) {
		errs = append(errs, field.Invalid(field.NewPath("namespace"), e.Namespace, msg))
	}
	return errs
}

// validateReported checks an event that has an eventTime. The reporting
// controller's field is named as in core/v1, reportingComponent.
func validateReported(e *Event) field.ErrorList {
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
	errs = append(errs, requiredWithin(e.ReportingInstance, "reportingInstance", ReportingInstanceLengthLimit)...)
	errs = append(errs, requiredWithin(e.Action, "action", ActionLengthLimit)...)
	errs = append(errs, requiredWithin(e.Reason, "reason", ReasonLengthLimit)...)
	if len(e.Message) > NoteLengthLimit {
		errs = append(errs, tooManyCharacters("message", NoteLengthLimit))
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

func namespaceMismatch(e *Event) *field.Error {
	return field.Invalid(field.NewPath("involvedObject", "namespace"), e.InvolvedObject.Namespace, "does not match event.namespace")
}
