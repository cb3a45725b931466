package builtin

import (
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/raftapi/raftapi/api/resource"
)

// The RBAC kinds of rbac.authorization.k8s.io/v1. kube-apiserver gives them
// no short names and no categories, checks their names only as path
// segments, and prints roles with its default Table (NAME, CREATED AT)
// and bindings with ROLE and AGE, and the subjects in the wide view. The
// escalation check of their writes is not here: api/rbac sets it as the
// resources' Admit hook.

// roles describes namespaced Roles.
func roles() *resource.Resource {
	return &resource.Resource{
		Group:        rbacv1.GroupName,
		Version:      "v1",
		Kind:         "Role",
		ListKind:     "RoleList",
		Plural:       "roles",
		Singular:     "role",
		Namespaced:   true,
		New:          func() runtime.Object { return &rbacv1.Role{} },
		NewList:      func() runtime.Object { return &rbacv1.RoleList{} },
		Columns:      []resource.Column{createdAtColumn()},
		OmitAge:      true,
		ValidateName: validateRBACName,
		Strategy: typed[*rbacv1.Role]{
			validate: validateRole,
			validateUpdate: func(r, _ *rbacv1.Role) field.ErrorList {
				return validateRole(r)
			},
		},
	}
}

// clusterRoles describes ClusterRoles. An aggregationRule is validated
// and stored; filling the rules it selects is the aggregation
// controller's work.
func clusterRoles() *resource.Resource {
	return &resource.Resource{
		Group:        rbacv1.GroupName,
		Version:      "v1",
		Kind:         "ClusterRole",
		ListKind:     "ClusterRoleList",
		Plural:       "clusterroles",
		Singular:     "clusterrole",
		New:          func() runtime.Object { return &rbacv1.ClusterRole{} },
		NewList:      func() runtime.Object { return &rbacv1.ClusterRoleList{} },
		Columns:      []resource.Column{createdAtColumn()},
		OmitAge:      true,
		ValidateName: validateRBACName,
		Strategy: typed[*rbacv1.ClusterRole]{
			validate: func(r *rbacv1.ClusterRole) field.ErrorList {
				return validateClusterRole(r, false)
			},
			validateUpdate: func(r, old *rbacv1.ClusterRole) field.ErrorList {
				return validateClusterRole(r, hasInvalidSelectorLabelValue(old))
			},
		},
	}
}

// roleBindings describes namespaced RoleBindings.
func roleBindings() *resource.Resource {
	return &resource.Resource{
		Group:        rbacv1.GroupName,
		Version:      "v1",
		Kind:         "RoleBinding",
		ListKind:     "RoleBindingList",
		Plural:       "rolebindings",
		Singular:     "rolebinding",
		Namespaced:   true,
		New:          func() runtime.Object { return &rbacv1.RoleBinding{} },
		NewList:      func() runtime.Object { return &rbacv1.RoleBindingList{} },
		Columns:      bindingColumns("roleBinding"),
		ValidateName: validateRBACName,
		Strategy: typed[*rbacv1.RoleBinding]{
			prepareCreate: defaultRoleBinding,
			prepareUpdate: func(b, _ *rbacv1.RoleBinding) { defaultRoleBinding(b) },
			validate:      validateRoleBinding,
			validateUpdate: func(b, old *rbacv1.RoleBinding) field.ErrorList {
				return append(validateRoleBinding(b), validateRoleRefUnchanged(b.RoleRef, old.RoleRef)...)
			},
		},
	}
}

// clusterRoleBindings describes ClusterRoleBindings.
func clusterRoleBindings() *resource.Resource {
	return &resource.Resource{
		Group:        rbacv1.GroupName,
		Version:      "v1",
		Kind:         "ClusterRoleBinding",
		ListKind:     "ClusterRoleBindingList",
		Plural:       "clusterrolebindings",
		Singular:     "clusterrolebinding",
		New:          func() runtime.Object { return &rbacv1.ClusterRoleBinding{} },
		NewList:      func() runtime.Object { return &rbacv1.ClusterRoleBindingList{} },
		Columns:      bindingColumns("clusterRoleBinding"),
		ValidateName: validateRBACName,
		Strategy: typed[*rbacv1.ClusterRoleBinding]{
			prepareCreate: defaultClusterRoleBinding,
			prepareUpdate: func(b, _ *rbacv1.ClusterRoleBinding) { defaultClusterRoleBinding(b) },
			validate:      validateClusterRoleBinding,
			validateUpdate: func(b, old *rbacv1.ClusterRoleBinding) field.ErrorList {
				return append(validateClusterRoleBinding(b), validateRoleRefUnchanged(b.RoleRef, old.RoleRef)...)
			},
		},
	}
}

// defaultRoleBinding is rbac/v1's defaulting, which kube-apiserver
// applies when it decodes a request: roleRef.apiGroup and the apiGroup of
// User and Group subjects default to rbac.authorization.k8s.io.
func defaultRoleBinding(b *rbacv1.RoleBinding) {
	defaultRoleRef(&b.RoleRef)
	defaultSubjects(b.Subjects)
}

// defaultClusterRoleBinding is defaultRoleBinding for ClusterRoleBindings.
func defaultClusterRoleBinding(b *rbacv1.ClusterRoleBinding) {
	defaultRoleRef(&b.RoleRef)
	defaultSubjects(b.Subjects)
}

func defaultRoleRef(ref *rbacv1.RoleRef) {
	if ref.APIGroup == "" {
		ref.APIGroup = rbacv1.GroupName
	}
}

func defaultSubjects(subjects []rbacv1.Subject) {
	for i := range subjects {
		s := &subjects[i]
		if s.APIGroup == "" && (s.Kind == rbacv1.UserKind || s.Kind == rbacv1.GroupKind) {
			s.APIGroup = rbacv1.GroupName
		}
	}
}
