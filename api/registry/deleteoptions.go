package registry

import (
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

var deleteOptionsKind = schema.GroupKind{Group: metav1.GroupName, Kind: "DeleteOptions"}

// validateDeleteOptions checks DeleteOptions as kube-apiserver does:
// dryRun values, propagationPolicy, orphanDependents and
// gracePeriodSeconds.
func validateDeleteOptions(opts *metav1.DeleteOptions) error {
	for _, d := range opts.DryRun {
		if d != metav1.DryRunAll {
			return apierrors.NewBadRequest("unsupported dryRun value " + strconv.Quote(d) + `: only "All" is supported`)
		}
	}
	var errs field.ErrorList
	//lint:ignore SA1019 the deprecated field is still part of the API
	if opts.OrphanDependents != nil && opts.PropagationPolicy != nil {
		errs = append(errs, field.Invalid(field.NewPath("propagationPolicy"), opts.PropagationPolicy, "orphanDependents and deletionPropagation cannot be both set"))
	}
	if p := opts.PropagationPolicy; p != nil {
		switch *p {
		case metav1.DeletePropagationOrphan, metav1.DeletePropagationBackground, metav1.DeletePropagationForeground:
		default:
			errs = append(errs, field.NotSupported(field.NewPath("propagationPolicy"), *p,
				[]string{string(metav1.DeletePropagationForeground), string(metav1.DeletePropagationBackground), string(metav1.DeletePropagationOrphan), "nil"}))
		}
	}
	if g := opts.GracePeriodSeconds; g != nil && *g < 0 {
		errs = append(errs, field.Invalid(field.NewPath("gracePeriodSeconds"), *g, "must be greater than or equal to 0"))
	}
	if len(errs) > 0 {
		return apierrors.NewInvalid(deleteOptionsKind, "", errs)
	}
	return nil
}
