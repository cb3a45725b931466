package builtin

import (
	"slices"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// kube-apiserver's validation of the RBAC kinds
// (pkg/apis/rbac/validation), after rbac/v1 defaulting. Metadata, the
// names included, is checked by the registry with validateRBACName.

// validateRBACName is kube's minimal name check of roles and bindings:
// any valid path segment. A generateName prefix is checked as a whole
// name, as kube does.
func validateRBACName(name string, _ bool) []string {
	return content.IsPathSegmentName(name)
}

// validateRole checks a Role: its rules may not name non-resource URLs.
func validateRole(r *rbacv1.Role) field.ErrorList {
	errs := validateMetaFinalizers(&r.ObjectMeta)
	for i, rule := range r.Rules {
		errs = append(errs, validatePolicyRule(rule, true, field.NewPath("rules").Index(i))...)
	}
	return errs
}

// validateClusterRole checks a ClusterRole and its aggregationRule;
// allowInvalidLabelValues keeps accepting selector label values the
// stored role already had (kube's AllowInvalidLabelValueInSelector).
func validateClusterRole(r *rbacv1.ClusterRole, allowInvalidLabelValues bool) field.ErrorList {
	errs := validateMetaFinalizers(&r.ObjectMeta)
	for i, rule := range r.Rules {
		errs = append(errs, validatePolicyRule(rule, false, field.NewPath("rules").Index(i))...)
	}
	return append(errs, validateAggregationRule(r.AggregationRule, allowInvalidLabelValues)...)
}

// validateAggregationRule checks that an aggregationRule has selectors
// and that each is a valid label selector.
func validateAggregationRule(rule *rbacv1.AggregationRule, allowInvalidLabelValues bool) field.ErrorList {
	if rule == nil {
		return nil
	}
	var errs field.ErrorList
	fldPath := field.NewPath("aggregationRule", "clusterRoleSelectors")
	if len(rule.ClusterRoleSelectors) == 0 {
		errs = append(errs, field.Required(fldPath, "at least one clusterRoleSelector required if aggregationRule is non-nil"))
	}
	opts := metav1validation.LabelSelectorValidationOptions{AllowInvalidLabelValueInSelector: allowInvalidLabelValues}
	for i := range rule.ClusterRoleSelectors {
		sel := &rule.ClusterRoleSelectors[i]
		errs = append(errs, metav1validation.ValidateLabelSelector(sel, opts, fldPath.Index(i))...)
		if _, err := metav1.LabelSelectorAsSelector(sel); err != nil {
			errs = append(errs, field.Invalid(fldPath.Index(i), nil, "invalid label selector."))
		}
	}
	return errs
}

// hasInvalidSelectorLabelValue reports whether a stored ClusterRole's
// aggregationRule has a selector label value that is no longer accepted.
func hasInvalidSelectorLabelValue(r *rbacv1.ClusterRole) bool {
	if r.AggregationRule == nil {
		return false
	}
	for i := range r.AggregationRule.ClusterRoleSelectors {
		if len(metav1validation.ValidateLabelSelector(&r.AggregationRule.ClusterRoleSelectors[i], metav1validation.LabelSelectorValidationOptions{}, nil)) > 0 {
			return true
		}
	}
	return false
}

// validatePolicyRule checks one rule: verbs always; then either
// non-resource URLs alone (and only outside namespaces) or API groups
// and resources.
func validatePolicyRule(rule rbacv1.PolicyRule, namespaced bool, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(rule.Verbs) == 0 {
		errs = append(errs, field.Required(fldPath.Child("verbs"), "verbs must contain at least one value"))
	}
	if len(rule.NonResourceURLs) > 0 {
		if namespaced {
			errs = append(errs, field.Invalid(fldPath.Child("nonResourceURLs"), rule.NonResourceURLs, "namespaced rules cannot apply to non-resource URLs"))
		}
		if len(rule.APIGroups) > 0 || len(rule.Resources) > 0 || len(rule.ResourceNames) > 0 {
			errs = append(errs, field.Invalid(fldPath.Child("nonResourceURLs"), rule.NonResourceURLs, "rules cannot apply to both regular resources and non-resource URLs"))
		}
		return errs
	}
	if len(rule.APIGroups) == 0 {
		errs = append(errs, field.Required(fldPath.Child("apiGroups"), "resource rules must supply at least one api group"))
	}
	if len(rule.Resources) == 0 {
		errs = append(errs, field.Required(fldPath.Child("resources"), "resource rules must supply at least one resource"))
	}
	return errs
}

// validateRoleBinding checks a RoleBinding: it may refer to a Role or a
// ClusterRole, and its ServiceAccount subjects default to its namespace.
func validateRoleBinding(b *rbacv1.RoleBinding) field.ErrorList {
	errs := validateMetaFinalizers(&b.ObjectMeta)
	errs = append(errs, validateRoleRef(b.RoleRef, "Role", "ClusterRole")...)
	for i, s := range b.Subjects {
		errs = append(errs, validateSubject(s, true, field.NewPath("subjects").Index(i))...)
	}
	return errs
}

// validateClusterRoleBinding checks a ClusterRoleBinding: it may refer to
// a ClusterRole only, and its ServiceAccount subjects need a namespace.
func validateClusterRoleBinding(b *rbacv1.ClusterRoleBinding) field.ErrorList {
	errs := validateMetaFinalizers(&b.ObjectMeta)
	errs = append(errs, validateRoleRef(b.RoleRef, "ClusterRole")...)
	for i, s := range b.Subjects {
		errs = append(errs, validateSubject(s, false, field.NewPath("subjects").Index(i))...)
	}
	return errs
}

// validateRoleRef checks a binding's roleRef: the RBAC group, one of
// kinds, a name that is a valid path segment.
func validateRoleRef(ref rbacv1.RoleRef, kinds ...string) field.ErrorList {
	var errs field.ErrorList
	fldPath := field.NewPath("roleRef")
	if ref.APIGroup != rbacv1.GroupName {
		errs = append(errs, field.NotSupported(fldPath.Child("apiGroup"), ref.APIGroup, []string{rbacv1.GroupName}))
	}
	if !slices.Contains(kinds, ref.Kind) {
		errs = append(errs, field.NotSupported(fldPath.Child("kind"), ref.Kind, kinds))
	}
	if ref.Name == "" {
		return append(errs, field.Required(fldPath.Child("name"), ""))
	}
	for _, msg := range validateRBACName(ref.Name, false) {
		errs = append(errs, field.Invalid(fldPath.Child("name"), ref.Name, msg))
	}
	return errs
}

// validateRoleRefUnchanged forbids changing a binding's roleRef: a
// binding to another role is another binding.
func validateRoleRefUnchanged(ref, old rbacv1.RoleRef) field.ErrorList {
	if ref == old {
		return nil
	}
	return field.ErrorList{field.Invalid(field.NewPath("roleRef"), ref, "cannot change roleRef")}
}

// validateSubject checks one subject of a binding: a name, and by kind
// the apiGroup it must have; a ServiceAccount of a ClusterRoleBinding
// (namespaced false) needs its namespace.
func validateSubject(s rbacv1.Subject, namespaced bool, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if s.Name == "" {
		errs = append(errs, field.Required(fldPath.Child("name"), ""))
	}
	switch s.Kind {
	case rbacv1.ServiceAccountKind:
		if s.Name != "" {
			for _, msg := range apivalidation.ValidateServiceAccountName(s.Name, false) {
				errs = append(errs, field.Invalid(fldPath.Child("name"), s.Name, msg))
			}
		}
		if s.APIGroup != "" {
			errs = append(errs, field.NotSupported(fldPath.Child("apiGroup"), s.APIGroup, []string{""}))
		}
		if !namespaced && s.Namespace == "" {
			errs = append(errs, field.Required(fldPath.Child("namespace"), ""))
		}
	case rbacv1.UserKind, rbacv1.GroupKind:
		if s.APIGroup != rbacv1.GroupName {
			errs = append(errs, field.NotSupported(fldPath.Child("apiGroup"), s.APIGroup, []string{rbacv1.GroupName}))
		}
	default:
		errs = append(errs, field.NotSupported(fldPath.Child("kind"), s.Kind, []string{rbacv1.ServiceAccountKind, rbacv1.UserKind, rbacv1.GroupKind}))
	}
	return errs
}
