package apiextensions

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	structurallisttype "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/common"
)

// crStrategy validates the custom resources of one version as
// kube-apiserver's custom resource strategy does: the OpenAPI schema,
// embedded resources' metadata, list-type invariants, the scale paths and
// the CEL rules, with validation ratcheting on updates (errors an
// unchanged part of the old object already had are not reported).
// Server-owned metadata, generation and the status reset are the
// registry's.
type crStrategy struct {
	schema      *versionSchema
	hasStatus   bool
	scale       *apiextensionsinternal.CustomResourceSubresourceScale
	terminating bool
}

// AdmitCreate refuses creates while the CRD is being deleted, with
// kube-apiserver's 403.
func (s *crStrategy) AdmitCreate(gr schema.GroupResource, name string) error {
	if !s.terminating {
		return nil
	}
	return apierrors.NewForbidden(gr, name, errors.New("create not allowed while custom resource definition is terminating"))
}

// PrepareForCreate implements resource.Strategy: a create cannot set the
// status of a resource with a status subresource.
func (s *crStrategy) PrepareForCreate(obj runtime.Object) {
	if s.hasStatus {
		delete(content(obj), "status")
	}
}

// PrepareForUpdate implements resource.Strategy; the registry keeps the
// stored status.
func (s *crStrategy) PrepareForUpdate(obj, old runtime.Object) {}

// Validate implements resource.Strategy.
func (s *crStrategy) Validate(obj runtime.Object) field.ErrorList {
	u := content(obj)
	errs := apiservervalidation.ValidateCustomResource(nil, u, s.schema.validator)
	errs = append(errs, s.validateScale(u, true)...)
	errs = append(errs, s.validateShape(u)...)
	return append(errs, s.validateRules(u, nil, errs)...)
}

// ValidateUpdate implements resource.Strategy.
func (s *crStrategy) ValidateUpdate(obj, old runtime.Object) field.ErrorList {
	u, o := content(obj), content(old)
	var opts []apiservervalidation.ValidationOption
	var celOpts []cel.Option
	if s.schema.structural != nil {
		correlated := common.NewCorrelatedObject(u, o, &model.Structural{Structural: s.schema.structural})
		opts = append(opts, apiservervalidation.WithRatcheting(correlated))
		celOpts = append(celOpts, cel.WithRatcheting(correlated))
	}
	errs := apiservervalidation.ValidateCustomResourceUpdate(nil, u, o, s.schema.validator, opts...)
	errs = append(errs, s.validateScale(u, true)...)
	errs = append(errs, schemaobjectmeta.Validate(context.TODO(), nil, u, s.schema.structural, false)...)
	if len(structurallisttype.ValidateListSetsAndMaps(nil, s.schema.structural, o)) == 0 {
		errs = append(errs, structurallisttype.ValidateListSetsAndMaps(nil, s.schema.structural, u)...)
	}
	return append(errs, s.validateRules(u, o, errs, celOpts...)...)
}

// validateShape checks embedded resources' metadata and list-type
// invariants.
func (s *crStrategy) validateShape(u map[string]any) field.ErrorList {
	errs := schemaobjectmeta.Validate(context.TODO(), nil, u, s.schema.structural, false)
	return append(errs, structurallisttype.ValidateListSetsAndMaps(nil, s.schema.structural, u)...)
}

// validateRules evaluates the CEL rules within the runtime cost budget,
// unless errs already make the object unfit for them.
func (s *crStrategy) validateRules(u, old map[string]any, errs field.ErrorList, opts ...cel.Option) field.ErrorList {
	if s.schema.cel == nil {
		return nil
	}
	if blocking := blockingError(errs); blocking != nil {
		return field.ErrorList{blocking}
	}
	var oldObj any
	if old != nil {
		oldObj = old
	}
	out, _ := s.schema.cel.Validate(context.TODO(), nil, s.schema.structural, u, oldObj, celconfig.RuntimeCELCostBudget, opts...)
	return out
}

// blockingError is kube-apiserver's: type, required, enum, size errors
// keep the CEL rules from running, which might assume what failed.
func blockingError(errs field.ErrorList) *field.Error {
	for _, err := range errs {
		switch err.Type {
		case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong, field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
			return field.Invalid(nil, nil, "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation")
		}
	}
	return nil
}

// validateScale checks the replicas the scale subresource reads: spec
// replicas (when spec is true) and status replicas must be non-negative
// int32s, the label selector a string.
func (s *crStrategy) validateScale(u map[string]any, spec bool) field.ErrorList {
	if s.scale == nil {
		return nil
	}
	var errs field.ErrorList
	if spec {
		errs = append(errs, validateReplicas(u, s.scale.SpecReplicasPath)...)
	}
	errs = append(errs, validateReplicas(u, s.scale.StatusReplicasPath)...)
	if s.scale.LabelSelectorPath != nil {
		p := *s.scale.LabelSelectorPath
		if v, _, err := unstructured.NestedString(u, splitPath(p)...); err != nil {
			errs = append(errs, field.Invalid(field.NewPath(p), v, err.Error()))
		}
	}
	return errs
}

func validateReplicas(u map[string]any, p string) field.ErrorList {
	if p == "" {
		return nil
	}
	n, _, err := unstructured.NestedInt64(u, splitPath(p)...)
	switch {
	case err != nil:
		return field.ErrorList{field.Invalid(field.NewPath(p), n, err.Error())}
	case n < 0:
		return field.ErrorList{field.Invalid(field.NewPath(p), n, "should be a non-negative integer")}
	case n > math.MaxInt32:
		return field.ErrorList{field.Invalid(field.NewPath(p), n, fmt.Sprintf("should be less than or equal to %v", math.MaxInt32))}
	}
	return nil
}

// splitPath splits a simple JSON path (".spec.replicas") into fields.
func splitPath(p string) []string {
	return strings.Split(strings.TrimPrefix(p, "."), ".")
}

// content returns the JSON content of a custom resource.
func content(obj runtime.Object) map[string]any {
	if u, ok := obj.(runtime.Unstructured); ok {
		return u.UnstructuredContent()
	}
	return map[string]any{}
}

// crStatusStrategy validates writes through /status as kube-apiserver's
// status strategy does: the status against the status schema, the status
// replicas, list types (ratcheted), the CEL rules of the whole object.
type crStatusStrategy struct{ *crStrategy }

// PrepareForCreate implements resource.Strategy; /status never creates.
func (s crStatusStrategy) PrepareForCreate(runtime.Object) {}

// ValidateUpdate implements resource.Strategy.
func (s crStatusStrategy) ValidateUpdate(obj, old runtime.Object) field.ErrorList {
	u, o := content(obj), content(old)
	var opts []apiservervalidation.ValidationOption
	var celOpts []cel.Option
	if s.schema.structural != nil {
		correlated := common.NewCorrelatedObject(u, o, &model.Structural{Structural: s.schema.structural})
		opts = append(opts, apiservervalidation.WithRatcheting(correlated.Key("status")))
		celOpts = append(celOpts, cel.WithRatcheting(correlated))
	}
	var errs field.ErrorList
	if status, ok := u["status"]; ok && s.schema.statusValidator != nil {
		errs = append(errs, apiservervalidation.ValidateCustomResourceUpdate(field.NewPath("status"), status, o["status"], s.schema.statusValidator, opts...)...)
	}
	errs = append(errs, s.validateScale(u, false)...)
	if newErrs := structurallisttype.ValidateListSetsAndMaps(nil, s.schema.structural, u); len(newErrs) > 0 {
		if len(structurallisttype.ValidateListSetsAndMaps(nil, s.schema.structural, o)) == 0 {
			errs = append(errs, newErrs...)
		}
	}
	return append(errs, s.validateRules(u, o, errs, celOpts...)...)
}
