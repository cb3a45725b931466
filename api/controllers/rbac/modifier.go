package rbac

import (
	"context"
	"encoding/json"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/component-helpers/auth/rbac/reconciliation"

	"github.com/raftapi/raftapi/api/registry"
)

// roleClient gives the reconciliation package the ClusterRoles of the
// registry, read at the most recent state and written with the
// resourceVersion read.
type roleClient struct {
	ctx   context.Context
	store *registry.Store
}

var _ reconciliation.RuleOwnerModifier = roleClient{}

// Get implements reconciliation.RuleOwnerModifier.
func (c roleClient) Get(_, name string) (reconciliation.RuleOwner, error) {
	obj, err := c.store.Get(c.ctx, "", name, registry.GetOptions{})
	if err != nil {
		return nil, err
	}
	return decodeRole(obj.Data)
}

// Create implements reconciliation.RuleOwnerModifier.
func (c roleClient) Create(in reconciliation.RuleOwner) (reconciliation.RuleOwner, error) {
	r := typedRole(in)
	res, err := c.store.Create(c.ctx, "", r, registry.WriteOptions{Manager: bootstrapManager})
	if err != nil {
		return nil, err
	}
	return decodeRole(res.Data)
}

// Update implements reconciliation.RuleOwnerModifier.
func (c roleClient) Update(in reconciliation.RuleOwner) (reconciliation.RuleOwner, error) {
	r := typedRole(in)
	res, err := c.store.Update(c.ctx, "", r.Name, r, registry.WriteOptions{Manager: bootstrapManager})
	if err != nil {
		return nil, err
	}
	return decodeRole(res.Data)
}

// typedRole is the ClusterRole in, with its kind and apiVersion.
func typedRole(in reconciliation.RuleOwner) *rbacv1.ClusterRole {
	r := in.GetObject().(*rbacv1.ClusterRole).DeepCopy()
	r.TypeMeta = metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "ClusterRole"}
	return r
}

func decodeRole(data []byte) (reconciliation.RuleOwner, error) {
	r := &rbacv1.ClusterRole{}
	if err := json.Unmarshal(data, r); err != nil {
		return nil, err
	}
	return reconciliation.ClusterRoleRuleOwner{ClusterRole: r}, nil
}

// bindingClient gives the reconciliation package the
// ClusterRoleBindings of the registry.
type bindingClient struct {
	ctx   context.Context
	store *registry.Store
}

var _ reconciliation.RoleBindingModifier = bindingClient{}

// Get implements reconciliation.RoleBindingModifier.
func (c bindingClient) Get(_, name string) (reconciliation.RoleBinding, error) {
	obj, err := c.store.Get(c.ctx, "", name, registry.GetOptions{})
	if err != nil {
		return nil, err
	}
	return decodeBinding(obj.Data)
}

// Delete implements reconciliation.RoleBindingModifier: it removes the
// binding only while it is the object uid names.
func (c bindingClient) Delete(_, name string, uid types.UID) error {
	_, err := c.store.Delete(c.ctx, "", name, &metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	return err
}

// Create implements reconciliation.RoleBindingModifier.
func (c bindingClient) Create(in reconciliation.RoleBinding) (reconciliation.RoleBinding, error) {
	b := typedBinding(in)
	res, err := c.store.Create(c.ctx, "", b, registry.WriteOptions{Manager: bootstrapManager})
	if err != nil {
		return nil, err
	}
	return decodeBinding(res.Data)
}

// Update implements reconciliation.RoleBindingModifier.
func (c bindingClient) Update(in reconciliation.RoleBinding) (reconciliation.RoleBinding, error) {
	b := typedBinding(in)
	res, err := c.store.Update(c.ctx, "", b.Name, b, registry.WriteOptions{Manager: bootstrapManager})
	if err != nil {
		return nil, err
	}
	return decodeBinding(res.Data)
}

// typedBinding is the ClusterRoleBinding in, with its kind and apiVersion.
func typedBinding(in reconciliation.RoleBinding) *rbacv1.ClusterRoleBinding {
	b := in.GetObject().(*rbacv1.ClusterRoleBinding).DeepCopy()
	b.TypeMeta = metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "ClusterRoleBinding"}
	return b
}

func decodeBinding(data []byte) (reconciliation.RoleBinding, error) {
	b := &rbacv1.ClusterRoleBinding{}
	if err := json.Unmarshal(data, b); err != nil {
		return nil, err
	}
	return reconciliation.ClusterRoleBindingAdapter{ClusterRoleBinding: b}, nil
}
