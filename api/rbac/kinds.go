package rbac

import (
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/raftapi/raftapi/api/builtin"
	"github.com/raftapi/raftapi/api/resource"
)

// kinds are the descriptions of the four RBAC resources, whose storage
// keys the authorizer follows and reads.
type kinds struct {
	roles, clusterRoles, roleBindings, clusterRoleBindings *resource.Resource
}

// rbacKinds finds the RBAC resources among the built-in ones.
func rbacKinds() kinds {
	var k kinds
	for _, r := range builtin.Resources() {
		if p := k.slot(r); p != nil {
			*p = r
		}
	}
	return k
}

// slot returns where r belongs among k, or nil when r is not an RBAC
// resource.
func (k *kinds) slot(r *resource.Resource) **resource.Resource {
	if r.Group != rbacv1.GroupName {
		return nil
	}
	switch r.Plural {
	case "roles":
		return &k.roles
	case "clusterroles":
		return &k.clusterRoles
	case "rolebindings":
		return &k.roleBindings
	case "clusterrolebindings":
		return &k.clusterRoleBindings
	}
	return nil
}

// Guard sets admit (an Authorizer's Admission) as the Admit hook of the
// RBAC resources among resources — roles, clusterroles, rolebindings and
// clusterrolebindings of rbac.authorization.k8s.io — and leaves the others
// alone. Call it before the resources serve: api.NewServer does, with
// the resources of its registry.
func Guard(resources []*resource.Resource, admit resource.AdmitFunc) {
	var k kinds
	for _, r := range resources {
		if k.slot(r) != nil {
			r.Admit = admit
		}
	}
}
