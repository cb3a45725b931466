package builtin

import (
	"strings"

	coordinationv1 "k8s.io/api/coordination/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/raftapi/raftapi/api/resource"
)

// validLeaseStrategies are the built-in spec.strategy values; others must
// be domain-qualified names.
var validLeaseStrategies = []coordinationv1.CoordinatedLeaseStrategy{coordinationv1.OldestEmulationVersion}

// leases describes coordination.k8s.io/v1 leases.
//
// spec.strategy and spec.preferredHolder belong to coordinated leader
// election, behind a feature gate that v1.32 leaves off: they are dropped
// on create, and on update unless the stored lease already has them.
func leases() *resource.Resource {
	return &resource.Resource{
		Group:      coordinationv1.GroupName,
		Version:    "v1",
		Kind:       "Lease",
		ListKind:   "LeaseList",
		Plural:     "leases",
		Singular:   "lease",
		Namespaced: true,
		New:        func() runtime.Object { return &coordinationv1.Lease{} },
		NewList:    func() runtime.Object { return &coordinationv1.LeaseList{} },
		Columns: []resource.Column{
			column("Holder", coordinationv1.LeaseSpec{}.SwaggerDoc()["holderIdentity"], 0, stringCell("spec.holderIdentity")),
		},
		Strategy: typed[*coordinationv1.Lease]{
			prepareCreate: func(l *coordinationv1.Lease) {
				l.Spec.Strategy = nil
				l.Spec.PreferredHolder = nil
			},
			prepareUpdate: prepareLeaseUpdate,
			validate:      validateLease,
			validateUpdate: func(l, _ *coordinationv1.Lease) field.ErrorList {
				return validateLease(l)
			},
		},
		ValidateName: apivalidation.NameIsDNSSubdomain,
	}
}

// prepareLeaseUpdate drops the gated fields the stored lease lacks.
func prepareLeaseUpdate(l, old *coordinationv1.Lease) {
	if old.Spec.Strategy == nil {
		l.Spec.Strategy = nil
	}
	if old.Spec.PreferredHolder == nil {
		l.Spec.PreferredHolder = nil
	}
}

// validateLease checks the lease's spec.
func validateLease(l *coordinationv1.Lease) field.ErrorList {
	var errs field.ErrorList
	spec, fldPath := &l.Spec, field.NewPath("spec")
	if spec.LeaseDurationSeconds != nil && *spec.LeaseDurationSeconds <= 0 {
		errs = append(errs, field.Invalid(fldPath.Child("leaseDurationSeconds"), spec.LeaseDurationSeconds, "must be greater than 0"))
	}
	if spec.LeaseTransitions != nil && *spec.LeaseTransitions < 0 {
		errs = append(errs, field.Invalid(fldPath.Child("leaseTransitions"), spec.LeaseTransitions, "must be greater than or equal to 0"))
	}
	if spec.Strategy != nil {
		errs = append(errs, validateLeaseStrategy(*spec.Strategy, fldPath.Child("strategy"))...)
	}
	if spec.PreferredHolder != nil && *spec.PreferredHolder != "" && (spec.Strategy == nil || *spec.Strategy == "") {
		errs = append(errs, field.Forbidden(fldPath.Child("preferredHolder"), "may only be specified if `strategy` is defined"))
	}
	return errs
}

// validateLeaseStrategy accepts a built-in strategy or a qualified name
// with a domain. The errors' path repeats "strategy"
// (spec.strategy.strategy), as kube-apiserver's does.
func validateLeaseStrategy(s coordinationv1.CoordinatedLeaseStrategy, fldPath *field.Path) field.ErrorList {
	fldPath = fldPath.Child("strategy")
	if !strings.Contains(string(s), "/") {
		for _, v := range validLeaseStrategies {
			if s == v {
				return nil
			}
		}
		return field.ErrorList{field.NotSupported(fldPath, s, validLeaseStrategies)}
	}
	var errs field.ErrorList
	for _, msg := range validation.IsQualifiedName(string(s)) {
		errs = append(errs, field.Invalid(fldPath, s, msg))
	}
	return errs
}
