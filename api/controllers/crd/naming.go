package crd

import (
	"context"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/raftapi/raftapi/api/apiextensions"
	"github.com/raftapi/raftapi/api/codec"
	"github.com/raftapi/raftapi/api/registry"
)

// manager is the field manager of the controllers' writes, as
// kube-apiserver's own controllers record them.
const manager = "kube-apiserver"

// name accepts crd's names and establishes it, as kube's naming and
// establishing controllers do, in one status write. It returns crd as
// stored after the write (crd itself when nothing was written).
func (c *Controller) name(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition, all []*apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.CustomResourceDefinition {
	next := crd.DeepCopy()
	now := c.now()
	if apiextensions.NeedsNaming(crd) {
		accepted, namesAccepted, established := apiextensions.AcceptNames(crd, all, c.builtins)
		next.Status.AcceptedNames = accepted
		apiextensions.SetCondition(&next.Status, namesAccepted, now)
		apiextensions.SetCondition(&next.Status, established, now)
	}
	if cond, ok := apiextensions.Establish(next); ok {
		apiextensions.SetCondition(&next.Status, cond, now)
	}
	if equality.Semantic.DeepEqual(next.Status, crd.Status) {
		return crd
	}
	stored, err := c.writeStatus(ctx, next)
	if err != nil {
		if !apierrors.IsConflict(err) && !apierrors.IsNotFound(err) {
			c.log.Warn("crd controller: writing status", "crd", crd.Name, "err", err)
		}
		return crd
	}
	return stored
}

// writeStatus stores crd's status, with crd's resourceVersion as the
// precondition, and returns the CRD as stored.
func (c *Controller) writeStatus(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition) (*apiextensionsv1.CustomResourceDefinition, error) {
	store := c.reg.Subresource(c.crds, c.crds.Subresource("status"))
	res, err := store.Update(ctx, "", crd.Name, crd, registry.WriteOptions{Manager: manager})
	if err != nil {
		return nil, err
	}
	stored, err := codec.DecodeStored(c.crds, res.Data)
	if err != nil {
		return nil, err
	}
	return stored.(*apiextensionsv1.CustomResourceDefinition), nil
}

// writeObject stores crd (its metadata: finalizers), with crd's
// resourceVersion as the precondition.
func (c *Controller) writeObject(ctx context.Context, crd runtime.Object, name string) error {
	_, err := c.reg.Store(c.crds).Update(ctx, "", name, crd, registry.WriteOptions{Manager: manager})
	return err
}
