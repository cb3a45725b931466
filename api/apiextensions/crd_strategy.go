package apiextensions

import (
	"context"
	"fmt"
	"slices"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	apiextensionsfeatures "k8s.io/apiextensions-apiserver/pkg/features"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	utilfeature "k8s.io/apiserver/pkg/util/feature"

	"github.com/raftapi/raftapi/api/apiextensions/convwebhook"
	"github.com/raftapi/raftapi/api/resource"
)

// v1CRD is the Go type the strategies work on.
type v1CRD = apiextensionsv1.CustomResourceDefinition

var (
	_ resource.Strategy = crdStrategy{}
	_ resource.Strategy = crdStatusStrategy{}
)

// crdStrategy is kube's CRD strategy (pkg/registry/customresourcedefinition)
// over the v1 type. Every write is defaulted first, as kube's decoding of
// the request does. Generation is the registry's: it bumps it when
// anything outside metadata and status changes, which for a CRD is its
// spec, the rule of kube's PrepareForUpdate.
type crdStrategy struct{}

// PrepareForCreate defaults the CRD, clears its status and records the
// storage version as the one stored version.
func (crdStrategy) PrepareForCreate(obj runtime.Object) {
	c, ok := obj.(*v1CRD)
	if !ok {
		return
	}
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(c)
	c.Status = apiextensionsv1.CustomResourceDefinitionStatus{}
	addStorageVersion(c)
	dropDisabledFields(c, nil)
}

// PrepareForUpdate defaults obj, keeps old's status and adds a new storage
// version to status.storedVersions.
func (crdStrategy) PrepareForUpdate(obj, old runtime.Object) {
	c, ok := obj.(*v1CRD)
	o, okOld := old.(*v1CRD)
	if !ok || !okOld {
		return
	}
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(c)
	c.Status = *o.Status.DeepCopy()
	addStorageVersion(c)
	dropDisabledFields(c, o)
}

// Validate runs kube's ValidateCustomResourceDefinition, less the metadata
// errors the registry reports itself (see createErrors), then refuses
// what raftapi cannot serve (unreachableWebhook).
func (crdStrategy) Validate(obj runtime.Object) field.ErrorList {
	errs := validate1(obj, func(ctx context.Context, c *v1CRD, in *apiextensions.CustomResourceDefinition) field.ErrorList {
		return createErrors(c, validation.ValidateCustomResourceDefinition(ctx, in))
	})
	return append(errs, unreachableWebhook(obj)...)
}

// ValidateUpdate runs kube's ValidateCustomResourceDefinitionUpdate, then
// refuses what raftapi cannot serve (unreachableWebhook).
func (crdStrategy) ValidateUpdate(obj, old runtime.Object) field.ErrorList {
	errs := validate2(obj, old, validation.ValidateCustomResourceDefinitionUpdate)
	return append(errs, unreachableWebhook(obj)...)
}

// unreachableWebhook refuses a conversion webhook named by
// clientConfig.service: kube-apiserver resolves it through the cluster's
// Services, which raftapi does not have, so it reaches webhooks only by
// clientConfig.url.
func unreachableWebhook(obj runtime.Object) field.ErrorList {
	c, ok := obj.(*v1CRD)
	if !ok || c.Spec.Conversion == nil || c.Spec.Conversion.Strategy != apiextensionsv1.WebhookConverter {
		return nil
	}
	w := c.Spec.Conversion.Webhook
	if w == nil || w.ClientConfig == nil || w.ClientConfig.Service == nil {
		return nil
	}
	svc := w.ClientConfig.Service
	path := field.NewPath("spec", "conversion", "webhook", "clientConfig", "service")
	return field.ErrorList{field.Invalid(path, svc.Namespace+"/"+svc.Name, convwebhook.ErrService.Error())}
}

// crdStatusStrategy is kube's CRD status strategy: the registry already
// keeps everything but status, so what remains is the request's defaulting
// (status.storedVersions defaults to the storage version when empty) and
// kube's status validation.
type crdStatusStrategy struct{}

// PrepareForCreate implements resource.Strategy; the status subresource
// has no create.
func (crdStatusStrategy) PrepareForCreate(runtime.Object) {}

// PrepareForUpdate defaults obj.
func (crdStatusStrategy) PrepareForUpdate(obj, _ runtime.Object) {
	if c, ok := obj.(*v1CRD); ok {
		apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(c)
	}
}

// Validate implements resource.Strategy; the status subresource has no
// create.
func (crdStatusStrategy) Validate(runtime.Object) field.ErrorList { return nil }

// ValidateUpdate runs kube's ValidateUpdateCustomResourceDefinitionStatus.
func (crdStatusStrategy) ValidateUpdate(obj, old runtime.Object) field.ErrorList {
	return validate2(obj, old, validation.ValidateUpdateCustomResourceDefinitionStatus)
}

// addStorageVersion appends the storage version to status.storedVersions
// unless it is there; only the first version marked storage counts.
func addStorageVersion(c *v1CRD) {
	for _, v := range c.Spec.Versions {
		if v.Storage {
			if !apihelpers.IsStoredVersion(c, v.Name) {
				c.Status.StoredVersions = append(c.Status.StoredVersions, v.Name)
			}
			return
		}
	}
}

// dropDisabledFields drops the fields of disabled feature gates unless
// old uses them, as kube does. Of kube's three gates only
// CRDObservedGenerationTracking can be off: CRDValidationRatcheting
// (optionalOldSelf) and CustomResourceFieldSelectors (selectableFields)
// are GA and locked on.
func dropDisabledFields(c, old *v1CRD) {
	if utilfeature.DefaultFeatureGate.Enabled(apiextensionsfeatures.CRDObservedGenerationTracking) {
		return
	}
	if old != nil && observedGenerationInUse(&old.Status) {
		return
	}
	c.Status.ObservedGeneration = 0
	for i := range c.Status.Conditions {
		c.Status.Conditions[i].ObservedGeneration = 0
	}
}

func observedGenerationInUse(s *apiextensionsv1.CustomResourceDefinitionStatus) bool {
	if s.ObservedGeneration != 0 {
		return true
	}
	for _, c := range s.Conditions {
		if c.ObservedGeneration != 0 {
			return true
		}
	}
	return false
}

// createErrors removes from kube's create errors those the registry's
// own metadata validation (apimachinery's ValidateObjectMeta with
// CRDResource's ValidateName) reports too: kube runs that generic check
// only when its strategy found nothing, so it reports each error once.
// What is left of the metadata errors is the <plural>.<group> name rule,
// listed after the generic ones where kube lists it after the name's.
// On update kube repeats the generic metadata errors (its common checks
// and its strategy both run them; the Status message shows them once, its
// causes do not), and so do we.
func createErrors(c *v1CRD, errs field.ErrorList) field.ErrorList {
	generic := map[string]bool{}
	for _, e := range apivalidation.ValidateObjectMeta(&c.ObjectMeta, false, apivalidation.NameIsDNSSubdomain, field.NewPath("metadata")) {
		generic[e.Error()] = true
	}
	var out field.ErrorList
	for _, e := range errs {
		if !generic[e.Error()] {
			out = append(out, e)
		}
	}
	return out
}

// validate1 converts obj to the internal type and runs check.
func validate1(obj runtime.Object, check func(context.Context, *v1CRD, *apiextensions.CustomResourceDefinition) field.ErrorList) field.ErrorList {
	c, ok := obj.(*v1CRD)
	if !ok {
		return wrongType(obj)
	}
	in, err := toInternal(c)
	if err != nil {
		return field.ErrorList{field.InternalError(field.NewPath(""), err)}
	}
	return guard(func() field.ErrorList { return check(context.Background(), c, in) })
}

// validate2 converts obj and old to the internal type and runs check.
func validate2(obj, old runtime.Object, check func(ctx context.Context, obj, old *apiextensions.CustomResourceDefinition) field.ErrorList) field.ErrorList {
	o, ok := old.(*v1CRD)
	if !ok {
		return wrongType(old)
	}
	oldIn, err := toInternal(o)
	if err != nil {
		return field.ErrorList{field.InternalError(field.NewPath(""), err)}
	}
	return validate1(obj, func(ctx context.Context, _ *v1CRD, in *apiextensions.CustomResourceDefinition) field.ErrorList {
		return check(ctx, in, oldIn)
	})
}

// toInternal converts a copy of c to the internal type kube's validation
// takes. The conversion functions use no conversion.Scope.
func toInternal(c *v1CRD) (*apiextensions.CustomResourceDefinition, error) {
	out := &apiextensions.CustomResourceDefinition{}
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(c.DeepCopy(), out, nil); err != nil {
		return nil, fmt.Errorf("apiextensions: convert %q to the internal version: %w", c.Name, err)
	}
	return out, nil
}

// guard runs kube's validation, turning a panic on input it did not
// foresee into an internal error: a request must not take the server down.
func guard(check func() field.ErrorList) (errs field.ErrorList) {
	defer func() {
		if r := recover(); r != nil {
			errs = field.ErrorList{field.InternalError(field.NewPath(""), fmt.Errorf("apiextensions: validation panicked: %v", r))}
		}
	}()
	return check()
}

// wrongType reports an object of another type than the resource's: a bug
// of the caller, not a bad request.
func wrongType(obj runtime.Object) field.ErrorList {
	return field.ErrorList{field.InternalError(field.NewPath("kind"), fmt.Errorf("apiextensions: got object of type %T, want *v1.CustomResourceDefinition", obj))}
}

// PrepareForDelete is kube's CRD delete: the first request to delete a
// CRD adds the finalizer that deletes its instances and sets Terminating
// (pending), before the deletionTimestamp is set.
func (crdStrategy) PrepareForDelete(obj runtime.Object) {
	c, ok := obj.(*v1CRD)
	if !ok {
		return
	}
	if !slices.Contains(c.Finalizers, apiextensionsv1.CustomResourceCleanupFinalizer) {
		c.Finalizers = append(c.Finalizers, apiextensionsv1.CustomResourceCleanupFinalizer)
	}
	apihelpers.SetCRDCondition(c, apiextensionsv1.CustomResourceDefinitionCondition{
		Type: apiextensionsv1.Terminating, Status: apiextensionsv1.ConditionTrue,
		Reason:  "InstanceDeletionPending",
		Message: "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon",
	})
}
