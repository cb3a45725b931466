package builtin

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// standardFinalizers are the finalizer names core types accept without a
// domain prefix.
var standardFinalizers = map[string]bool{
	string(corev1.FinalizerKubernetes): true,
	metav1.FinalizerOrphanDependents:   true,
	metav1.FinalizerDeleteDependents:   true,
}

// validateFinalizerName checks a namespace spec finalizer: a qualified
// name that is either standard or has a domain.
func validateFinalizerName(name string, fldPath *field.Path) field.ErrorList {
	errs := apivalidation.ValidateFinalizerName(name, fldPath)
	return append(errs, validateKubeFinalizerName(name, fldPath)...)
}

// validateKubeFinalizerName rejects a finalizer without a domain that is
// not one of the standard ones.
func validateKubeFinalizerName(name string, fldPath *field.Path) field.ErrorList {
	if strings.Contains(name, "/") || standardFinalizers[name] {
		return nil
	}
	return field.ErrorList{field.Invalid(fldPath, name, "name is neither a standard finalizer name nor is it fully qualified")}
}

// validateMetaFinalizers is the check core types add to the generic
// metadata validation: every metadata.finalizers entry without a domain
// must be a standard finalizer.
func validateMetaFinalizers(meta *metav1.ObjectMeta) field.ErrorList {
	var errs field.ErrorList
	fldPath := field.NewPath("metadata", "finalizers")
	for i, f := range meta.Finalizers {
		errs = append(errs, validateKubeFinalizerName(f, fldPath.Index(i))...)
	}
	return errs
}
