package accessreview

import (
	"fmt"

	authorizationv1 "k8s.io/api/authorization/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The validation of the reviews is kube-apiserver's
// (pkg/apis/authorization/validation), messages included.

// validateAttributes checks that exactly one of res and nonRes is set,
// and the selectors of res.
func validateAttributes(res *authorizationv1.ResourceAttributes, nonRes *authorizationv1.NonResourceAttributes, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if res != nil && nonRes != nil {
		errs = append(errs, field.Invalid(fldPath.Child("nonResourceAttributes"), nonRes, `cannot be specified in combination with resourceAttributes`))
	}
	if res == nil && nonRes == nil {
		errs = append(errs, field.Invalid(fldPath.Child("resourceAttributes"), nonRes, `exactly one of nonResourceAttributes or resourceAttributes must be specified`))
	}
	return errs
}

// validateSubjectAccessReviewSpec checks a (Local)SubjectAccessReview's
// spec: one kind of attributes, a user or a group.
func validateSubjectAccessReviewSpec(spec *authorizationv1.SubjectAccessReviewSpec, fldPath *field.Path) field.ErrorList {
	errs := validateAttributes(spec.ResourceAttributes, spec.NonResourceAttributes, fldPath)
	if len(spec.User) == 0 && len(spec.Groups) == 0 {
		errs = append(errs, field.Invalid(fldPath.Child("user"), spec.User, `at least one of user or group must be specified`))
	}
	return append(errs, validateResourceAttributes(spec.ResourceAttributes, field.NewPath("spec.resourceAttributes"))...)
}

// validateSubjectAccessReview checks a SubjectAccessReview: its spec, and
// metadata left empty (managedFields aside).
func validateSubjectAccessReview(sar *authorizationv1.SubjectAccessReview) field.ErrorList {
	errs := validateSubjectAccessReviewSpec(&sar.Spec, field.NewPath("spec"))
	return append(errs, validateEmptyMetadata(sar.ObjectMeta, false)...)
}

// validateSelfSubjectAccessReview checks a SelfSubjectAccessReview: one
// kind of attributes, and metadata left empty.
func validateSelfSubjectAccessReview(sar *authorizationv1.SelfSubjectAccessReview) field.ErrorList {
	errs := validateAttributes(sar.Spec.ResourceAttributes, sar.Spec.NonResourceAttributes, field.NewPath("spec"))
	errs = append(errs, validateResourceAttributes(sar.Spec.ResourceAttributes, field.NewPath("spec.resourceAttributes"))...)
	return append(errs, validateEmptyMetadata(sar.ObjectMeta, false)...)
}

// validateLocalSubjectAccessReview checks a LocalSubjectAccessReview: its
// spec, metadata empty but for the namespace, resource attributes in that
// namespace and no non-resource attributes.
func validateLocalSubjectAccessReview(sar *authorizationv1.LocalSubjectAccessReview) field.ErrorList {
	errs := validateSubjectAccessReviewSpec(&sar.Spec, field.NewPath("spec"))
	errs = append(errs, validateEmptyMetadata(sar.ObjectMeta, true)...)
	if ra := sar.Spec.ResourceAttributes; ra != nil && ra.Namespace != sar.Namespace {
		errs = append(errs, field.Invalid(field.NewPath("spec.resourceAttributes.namespace"), ra.Namespace, `must match metadata.namespace`))
	}
	if sar.Spec.NonResourceAttributes != nil {
		errs = append(errs, field.Invalid(field.NewPath("spec.nonResourceAttributes"), sar.Spec.NonResourceAttributes, `disallowed on this kind of request`))
	}
	return errs
}

// validateEmptyMetadata requires m to be empty, managedFields (and the
// namespace, when namespaced) aside.
func validateEmptyMetadata(m metav1.ObjectMeta, namespaced bool) field.ErrorList {
	c := m
	c.ManagedFields = nil
	msg := `must be empty`
	if namespaced {
		c.Namespace = ""
		msg = `must be empty except for namespace`
	}
	if apiequality.Semantic.DeepEqual(metav1.ObjectMeta{}, c) {
		return nil
	}
	return field.ErrorList{field.Invalid(field.NewPath("metadata"), m, msg)}
}

// validateResourceAttributes checks the selectors of ra.
func validateResourceAttributes(ra *authorizationv1.ResourceAttributes, fldPath *field.Path) field.ErrorList {
	if ra == nil {
		return nil
	}
	errs := validateFieldSelector(ra.FieldSelector, fldPath.Child("fieldSelector"))
	return append(errs, validateLabelSelector(ra.LabelSelector, fldPath.Child("labelSelector"))...)
}

// validateFieldSelector requires one of rawSelector and requirements, and
// well-formed requirements (an operator this server does not know is
// accepted, for newer clients).
func validateFieldSelector(s *authorizationv1.FieldSelectorAttributes, fldPath *field.Path) field.ErrorList {
	if s == nil {
		return nil
	}
	errs := validateSelectorForm(s.RawSelector, len(s.Requirements), fldPath)
	opts := metav1validation.FieldSelectorValidationOptions{AllowUnknownOperatorInRequirement: true}
	for i, r := range s.Requirements {
		errs = append(errs, metav1validation.ValidateFieldSelectorRequirement(r, opts, fldPath.Child("requirements").Index(i))...)
	}
	return errs
}

// validateLabelSelector is validateFieldSelector for label selectors.
func validateLabelSelector(s *authorizationv1.LabelSelectorAttributes, fldPath *field.Path) field.ErrorList {
	if s == nil {
		return nil
	}
	errs := validateSelectorForm(s.RawSelector, len(s.Requirements), fldPath)
	opts := metav1validation.LabelSelectorValidationOptions{AllowUnknownOperatorInRequirement: true}
	for i, r := range s.Requirements {
		errs = append(errs, metav1validation.ValidateLabelSelectorRequirement(r, opts, fldPath.Child("requirements").Index(i))...)
	}
	return errs
}

// validateSelectorForm requires exactly one of a raw selector and
// requirements.
func validateSelectorForm(raw string, requirements int, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(raw) > 0 && requirements > 0 {
		errs = append(errs, field.Invalid(fldPath.Child("rawSelector"), raw, "may not specified at the same time as requirements"))
	}
	if len(raw) == 0 && requirements == 0 {
		errs = append(errs, field.Required(fldPath.Child("requirements"), fmt.Sprintf("when %s is specified, requirements or rawSelector is required", fldPath)))
	}
	return errs
}
