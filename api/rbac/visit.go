package rbac

import (
	"fmt"
	"slices"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apiserver/pkg/authentication/user"
)

// visit calls fn with every binding that applies to u in namespace ns
// ("" for cluster scope) and the subject it applies through: the
// ClusterRoleBindings, then the RoleBindings of ns, each binding once.
// It stops when fn returns false.
func (x *index) visit(u user.Info, ns string, fn func(b *binding, s *subject) bool) {
	name, groups := u.GetName(), u.GetGroups()
	if !x.cluster.visit(name, groups, fn) || ns == "" {
		return
	}
	if si := x.namespaces[ns]; si != nil {
		si.visit(name, groups, fn)
	}
}

// visit calls fn with the bindings of si that apply to the user name with
// groups; false when fn stopped it.
//
// A binding applies through its first subject that matches the user, as
// kube's appliesTo: it is visited from the list of that subject's key
// only, so a binding that names the user several times is visited once.
func (si *subjectIndex) visit(name string, groups []string, fn func(b *binding, s *subject) bool) bool {
	for _, b := range si.byUser[name] {
		if s := b.appliesTo(name, groups); s != nil && !s.group && !fn(b, s) {
			return false
		}
	}
	for i, g := range groups {
		if slices.Contains(groups[:i], g) {
			continue
		}
		for _, b := range si.byGroup[g] {
			if s := b.appliesTo(name, groups); s != nil && s.group && s.name == g && !fn(b, s) {
				return false
			}
		}
	}
	return true
}

// appliesTo returns the first subject of b that matches the user, or nil.
func (b *binding) appliesTo(name string, groups []string) *subject {
	for i := range b.subjects {
		s := &b.subjects[i]
		if s.group && slices.Contains(groups, s.name) || !s.group && s.name == name {
			return s
		}
	}
	return nil
}

// errorNaming selects how a missing role is reported: as kube's
// authorizer does (its informers' "role.rbac.authorization.k8s.io"), or
// as its escalation check does (its registry's
// "roles.rbac.authorization.k8s.io").
type errorNaming int

const (
	authorizerNaming errorNaming = iota
	registryNaming
)

// missingRole is kube's error for a binding whose role cannot be found.
func (b *binding) missingRole(naming errorNaming) error {
	var resource string
	switch b.roleRef.Kind {
	case "Role":
		resource = "role"
	case "ClusterRole":
		resource = "clusterrole"
	default:
		return fmt.Errorf("unsupported role reference kind: %q", b.roleRef.Kind)
	}
	if naming == registryNaming {
		resource += "s"
	}
	return apierrors.NewNotFound(schema.GroupResource{Group: rbacv1.GroupName, Resource: resource}, b.roleRef.Name)
}

// rulesFor returns every rule granted to u in namespace ns ("" for the
// cluster-wide ones only), and the bindings whose role is missing as an
// aggregate error (the rules found are still valid: rules only add).
func (x *index) rulesFor(u user.Info, ns string, naming errorNaming) ([]rbacv1.PolicyRule, error) {
	var rules []rbacv1.PolicyRule
	var errs []error
	x.visit(u, ns, func(b *binding, _ *subject) bool {
		if !b.found {
			errs = append(errs, b.missingRole(naming))
			return true
		}
		rules = append(rules, b.rules...)
		return true
	})
	return rules, utilerrors.NewAggregate(errs)
}
