package eventhub

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidateStrictCreate is the validation of an event created through
// events.k8s.io/v1, on top of ValidateLegacy: a new-style event, with an
// eventTime, a Normal or Warning type, a well-formed series and none of
// the deprecated old-style fields.
func ValidateStrictCreate(e *Event) field.ErrorList {
	errs := ValidateLegacy(e)
	errs = append(errs, validateSeries(e)...)
	if e.EventTime.Time.IsZero() {
		errs = append(errs, field.Required(field.NewPath("eventTime"), ""))
	}
	if e.Type != corev1.EventTypeNormal && e.Type != corev1.EventTypeWarning {
		errs = append(errs, field.Invalid(field.NewPath("type"), "", fmt.Sprintf("has invalid value: %v", e.Type)))
	}
	if !e.FirstTimestamp.Time.IsZero() {
		errs = append(errs, mustBeUnset("firstTimestamp"))
	}
	if !e.LastTimestamp.Time.IsZero() {
		errs = append(errs, mustBeUnset("lastTimestamp"))
	}
	if e.Count != 0 {
		errs = append(errs, mustBeUnset("count"))
	}
	if e.Source.Component != "" || e.Source.Host != "" {
		errs = append(errs, mustBeUnset("source"))
	}
	return errs
}

// ValidateStrictUpdate is the validation of replacing old by e through
// events.k8s.io/v1, on top of ValidateLegacy: only the series (and
// metadata) may change, and a changed series must be well-formed.
func ValidateStrictUpdate(e, old *Event) field.ErrorList {
	errs := ValidateLegacy(e)
	if !apiequality.Semantic.DeepEqual(e.Series, old.Series) {
		errs = append(errs, validateSeries(e)...)
	}
	for _, f := range immutableFields(e, old) {
		errs = append(errs, apivalidation.ValidateImmutableField(f.now, f.was, field.NewPath(f.name))...)
	}
	return errs
}

// immutableField is one field events.k8s.io/v1 updates may not change.
type immutableField struct {
	name     string
	now, was any
}

// immutableFields lists the fields of e and old that must agree, in
// kube-apiserver's order; like it, reason is checked twice.
func immutableFields(e, old *Event) []immutableField {
	return []immutableField{
		{"involvedObject", e.InvolvedObject, old.InvolvedObject},
		{"reason", e.Reason, old.Reason},
		{"message", e.Message, old.Message},
		{"source", e.Source, old.Source},
		{"firstTimestamp", e.FirstTimestamp, old.FirstTimestamp},
		{"lastTimestamp", e.LastTimestamp, old.LastTimestamp},
		{"count", e.Count, old.Count},
		{"reason", e.Reason, old.Reason},
		{"type", e.Type, old.Type},
		{"eventTime", e.EventTime, old.EventTime},
		{"action", e.Action, old.Action},
		{"related", e.Related, old.Related},
		{"reportingController", e.ReportingController, old.ReportingController},
		{"reportingInstance", e.ReportingInstance, old.ReportingInstance},
	}
}

// validateSeries checks a series: at least two occurrences, the last one
// observed at a known time.
func validateSeries(e *Event) field.ErrorList {
	if e.Series == nil {
		return nil
	}
	var errs field.ErrorList
	if e.Series.Count < 2 {
		errs = append(errs, field.Invalid(field.NewPath("series.count"), "", "should be at least 2"))
	}
	if e.Series.LastObservedTime.Time.IsZero() {
		errs = append(errs, field.Required(field.NewPath("series.lastObservedTime"), ""))
	}
	return errs
}

func mustBeUnset(name string) *field.Error {
	return field.Invalid(field.NewPath(name), "", "needs to be unset")
}
