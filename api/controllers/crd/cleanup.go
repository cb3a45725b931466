package crd

import (
	"context"
	"encoding/json"
	"slices"

	apiextensionshelpers "k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/raftapi/raftapi/api/apiextensions"
	"github.com/raftapi/raftapi/api/apiextensions/declarative"
	"github.com/raftapi/raftapi/api/registry"
	"github.com/raftapi/raftapi/api/resource"
)

// Terminating conditions, as kube's CRD finalizer writes them.
var (
	deletionInProgress = apiextensionsv1.CustomResourceDefinitionCondition{
		Type: apiextensionsv1.Terminating, Status: apiextensionsv1.ConditionTrue,
		Reason: "InstanceDeletionInProgress", Message: "CustomResource deletion is in progress",
	}
	deletionCompleted = apiextensionsv1.CustomResourceDefinitionCondition{
		Type: apiextensionsv1.Terminating, Status: apiextensionsv1.ConditionFalse,
		Reason: "InstanceDeletionCompleted", Message: "removed all instances",
	}
	neverEstablished = apiextensionsv1.CustomResourceDefinitionCondition{
		Type: apiextensionsv1.Terminating, Status: apiextensionsv1.ConditionFalse,
		Reason: "NeverEstablished", Message: "resource was never established",
	}
)

// cleanup advances the deletion of crd: Terminating in progress, every
// instance deleted, its ConversionPolicy deleted, then the finalizer
// removed. A pass that finds
// instances still held by their finalizers stops there; a later pass
// goes on.
func (c *Controller) cleanup(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition) {
	if !slices.Contains(crd.Finalizers, apiextensionsv1.CustomResourceCleanupFinalizer) {
		return
	}
	if err := c.setTerminating(ctx, crd, deletionInProgress); err != nil {
		return
	}
	done := neverEstablished
	if apiextensionshelpers.IsCRDConditionTrue(crd, apiextensionsv1.Established) {
		res := c.instances(crd)
		if res != nil {
			left, err := c.deleteInstances(ctx, res)
			if err != nil || left > 0 {
				return
			}
		}
		done = deletionCompleted
	}
	if err := c.deletePolicy(ctx, crd.Name); err != nil {
		return
	}
	if err := c.setTerminating(ctx, crd, done); err != nil {
		return
	}
	crd.Finalizers = slices.DeleteFunc(crd.Finalizers, func(f string) bool { return f == apiextensionsv1.CustomResourceCleanupFinalizer })
	if err := c.writeObject(ctx, crd, crd.Name); err != nil && !apierrors.IsConflict(err) && !apierrors.IsNotFound(err) {
		c.log.Warn("crd controller: removing the cleanup finalizer", "crd", crd.Name, "err", err)
	}
}

// setTerminating writes cond unless crd has it already, and leaves crd
// as stored.
func (c *Controller) setTerminating(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition, cond apiextensionsv1.CustomResourceDefinitionCondition) error {
	if have := apiextensionshelpers.FindCRDCondition(crd, cond.Type); have != nil && have.Status == cond.Status && have.Reason == cond.Reason {
		return nil
	}
	next := crd.DeepCopy()
	apiextensions.SetCondition(&next.Status, cond, c.now())
	stored, err := c.writeStatus(ctx, next)
	if err != nil {
		return err
	}
	*crd = *stored
	return nil
}

// instances returns a served resource of crd's instances (every version
// shares the storage), or nil when none is served on this node.
func (c *Controller) instances(crd *apiextensionsv1.CustomResourceDefinition) *resource.Resource {
	for _, v := range crd.Spec.Versions {
		gvr := schema.GroupVersionResource{Group: crd.Spec.Group, Version: v.Name, Resource: crd.Status.AcceptedNames.Plural}
		if r := c.reg.Resources().Get(gvr); r != nil {
			return r
		}
	}
	return nil
}

// deleteInstances deletes every instance of res not being deleted yet,
// one request each, and returns how many are left.
func (c *Controller) deleteInstances(ctx context.Context, res *resource.Resource) (int, error) {
	list, err := c.reg.Storage().List(ctx, res.Prefix(""), registry.StoreListOptions{ReadOptions: registry.ReadOptions{Consistency: registry.MostRecent}})
	if err != nil {
		return 0, err
	}
	store := c.reg.Store(res)
	left := 0
	for _, o := range list.Items {
		var m struct {
			Metadata metav1.ObjectMeta `json:"metadata"`
		}
		if err := json.Unmarshal(o.Data, &m); err != nil || m.Metadata.DeletionTimestamp != nil {
			left++
			continue
		}
		d, err := store.Delete(ctx, m.Metadata.Namespace, m.Metadata.Name, &metav1.DeleteOptions{})
		switch {
		case apierrors.IsNotFound(err):
		case err != nil:
			return 0, err
		case !d.Gone:
			left++
		}
	}
	return left, nil
}

// policyResource is raftapi.io/v1 conversionpolicies.
var policyResource = schema.GroupVersionResource{Group: declarative.Group, Version: "v1", Resource: "conversionpolicies"}

// deletePolicy deletes the ConversionPolicy named as a CRD being deleted:
// it converts nothing once the CRD is gone, and would otherwise convert
// (or fail to convert) a later CRD of the same name that it was never
// checked against.
func (c *Controller) deletePolicy(ctx context.Context, name string) error {
	res := c.reg.Resources().Get(policyResource)
	if res == nil {
		return nil
	}
	_, err := c.reg.Store(res).Delete(ctx, "", name, &metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		c.log.Warn("crd controller: deleting the conversion policy", "crd", name, "err", err)
		return err
	}
	return nil
}
