package rbac

import (
	"context"
	"encoding/json"
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/raftapi/raftapi/api/registry"
	"github.com/raftapi/raftapi/api/resource"
)

// roleRefRules reads the rules of the role ref refers to from a binding
// in namespace ns, from the store (Most Recent): a role created a moment
// ago on another node is found. A missing role is kube's 404 for it.
func (a *Authorizer) roleRefRules(ctx context.Context, ref rbacv1.RoleRef, ns string) ([]rbacv1.PolicyRule, error) {
	var res *resource.Resource
	var into any
	var rules *[]rbacv1.PolicyRule
	switch ref.Kind {
	case "Role":
		r := &rbacv1.Role{}
		res, into, rules = a.kinds.roles, r, &r.Rules
	case "ClusterRole":
		r := &rbacv1.ClusterRole{}
		res, into, rules, ns = a.kinds.clusterRoles, r, &r.Rules, ""
	default:
		return nil, apierrors.NewInternalError(fmt.Errorf("unsupported role reference kind: %q", ref.Kind))
	}
	o, err := a.store.Get(ctx, res.Key(ns, ref.Name), registry.ReadOptions{Consistency: registry.MostRecent})
	if err != nil {
		return nil, registry.StatusError(err, res, ref.Name)
	}
	if err := json.Unmarshal(o.Data, into); err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("rbac: decoding %s: %w", o.Key, err))
	}
	return *rules, nil
}

// onlyGCFieldsChange reports whether obj differs from old, the object it
// replaces, only in what the garbage collector edits (owner references,
// finalizers), as kube's IsOnlyMutatingGCFields; managedFields, which the
// registry has already recomputed for the write, do not count either.
func onlyGCFieldsChange(obj, old runtime.Object) bool {
	cp := obj.DeepCopyObject()
	m, err := meta.Accessor(cp)
	if err != nil {
		return false
	}
	om, err := meta.Accessor(old)
	if err != nil {
		return false
	}
	m.SetOwnerReferences(om.GetOwnerReferences())
	m.SetFinalizers(om.GetFinalizers())
	m.SetSelfLink(om.GetSelfLink())
	m.SetManagedFields(om.GetManagedFields())
	cp.GetObjectKind().SetGroupVersionKind(old.GetObjectKind().GroupVersionKind())
	return apiequality.Semantic.DeepEqual(cp, old)
}
