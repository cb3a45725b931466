package rbac

import (
	"fmt"
	"sort"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"
)

// index is an immutable view of the RBAC objects at one moment, shaped for
// Authorize: the bindings by the subjects they name, each with the rules
// of its role resolved. It is rebuilt, never changed, so readers need no
// lock.
type index struct {
	// cluster holds the ClusterRoleBindings.
	cluster subjectIndex
	// namespaces holds the RoleBindings of each namespace.
	namespaces map[string]*subjectIndex
}

// subjectIndex finds the bindings that may apply to a user. A binding is
// listed once under each key one of its subjects matches: User and
// ServiceAccount subjects under the user name they match, Group subjects
// under the group. Each list is in binding name order.
type subjectIndex struct {
	byUser  map[string][]*binding
	byGroup map[string][]*binding
}

// binding is a RoleBinding or ClusterRoleBinding as the index keeps it.
type binding struct {
	// namespace is "" for a ClusterRoleBinding.
	namespace, name string
	roleRef         rbacv1.RoleRef
	// subjects are those that can apply to some user, in the binding's
	// order (a ServiceAccount subject of a ClusterRoleBinding without a
	// namespace, or of an unknown kind, never applies and is left out).
	subjects []subject
	// rules are the rules of the role, when found.
	rules []rbacv1.PolicyRule
	// found is false when the role does not exist (or roleRef.kind is
	// not a role kind).
	found bool
}

// subject is one subject of a binding.
type subject struct {
	// group is true for a Group subject; User and ServiceAccount
	// subjects match by user name.
	group bool
	// name is the group, or the user name the subject matches
	// ("system:serviceaccount:NS:NAME" for a ServiceAccount).
	name string
	// reason is kube's reason for a request this subject's binding
	// allows.
	reason string
}

// objects are the RBAC objects an index is built from, by storage key.
type objects struct {
	roles               map[string]*rbacv1.Role
	clusterRoles        map[string]*rbacv1.ClusterRole
	roleBindings        map[string]*rbacv1.RoleBinding
	clusterRoleBindings map[string]*rbacv1.ClusterRoleBinding
}

type nsName struct{ namespace, name string }

// buildIndex indexes objs. It keeps references to the rules of objs'
// roles, which must not change afterwards.
func buildIndex(objs objects) *index {
	roles := make(map[nsName][]rbacv1.PolicyRule, len(objs.roles))
	for _, r := range objs.roles {
		roles[nsName{r.Namespace, r.Name}] = r.Rules
	}
	clusterRoles := make(map[string][]rbacv1.PolicyRule, len(objs.clusterRoles))
	for _, r := range objs.clusterRoles {
		clusterRoles[r.Name] = r.Rules
	}
	lookup := func(ns string, ref rbacv1.RoleRef) ([]rbacv1.PolicyRule, bool) {
		switch ref.Kind {
		case "ClusterRole":
			rules, ok := clusterRoles[ref.Name]
			return rules, ok
		case "Role":
			rules, ok := roles[nsName{ns, ref.Name}]
			return rules, ok && ns != ""
		}
		return nil, false
	}
	x := &index{cluster: newSubjectIndex(), namespaces: map[string]*subjectIndex{}}
	for _, b := range sortedBindings(objs) {
		b.rules, b.found = lookup(b.namespace, b.roleRef)
		si := &x.cluster
		if b.namespace != "" {
			if si = x.namespaces[b.namespace]; si == nil {
				nsi := newSubjectIndex()
				si = &nsi
				x.namespaces[b.namespace] = si
			}
		}
		si.add(b)
	}
	return x
}

func newSubjectIndex() subjectIndex {
	return subjectIndex{byUser: map[string][]*binding{}, byGroup: map[string][]*binding{}}
}

// add lists b under each key its subjects match, once per key.
func (si *subjectIndex) add(b *binding) {
	for _, s := range b.subjects {
		m := si.byUser
		if s.group {
			m = si.byGroup
		}
		if l := m[s.name]; len(l) == 0 || l[len(l)-1] != b {
			m[s.name] = append(l, b)
		}
	}
}

// sortedBindings converts the bindings of objs, ClusterRoleBindings and
// RoleBindings each in name order.
func sortedBindings(objs objects) []*binding {
	out := make([]*binding, 0, len(objs.clusterRoleBindings)+len(objs.roleBindings))
	for _, b := range objs.clusterRoleBindings {
		out = append(out, newBinding("", b.Name, b.RoleRef, b.Subjects))
	}
	for _, b := range objs.roleBindings {
		out = append(out, newBinding(b.Namespace, b.Name, b.RoleRef, b.Subjects))
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].namespace != out[j].namespace {
			return out[i].namespace < out[j].namespace
		}
		return out[i].name < out[j].name
	})
	return out
}

// newBinding keeps the subjects that can apply, with their reasons.
func newBinding(ns, name string, ref rbacv1.RoleRef, subjects []rbacv1.Subject) *binding {
	b := &binding{namespace: ns, name: name, roleRef: ref}
	for i := range subjects {
		s := &subjects[i]
		var key string
		switch s.Kind {
		case rbacv1.UserKind, rbacv1.GroupKind:
			key = s.Name
		case rbacv1.ServiceAccountKind:
			saNamespace := s.Namespace
			if saNamespace == "" {
				saNamespace = ns
			}
			if saNamespace == "" {
				continue
			}
			key = serviceaccount.MakeUsername(saNamespace, s.Name)
		default:
			continue
		}
		b.subjects = append(b.subjects, subject{group: s.Kind == rbacv1.GroupKind, name: key, reason: "RBAC: allowed by " + b.describe(s)})
	}
	return b
}

// describe is kube's description of b applying through s:
// `ClusterRoleBinding "x" of ClusterRole "y" to User "z"`,
// `RoleBinding "x/ns" of Role "y" to ServiceAccount "sa/ns"`.
func (b *binding) describe(s *rbacv1.Subject) string {
	if b.namespace == "" {
		return fmt.Sprintf("ClusterRoleBinding %q of %s %q to %s", b.name, b.roleRef.Kind, b.roleRef.Name, describeSubject(s, ""))
	}
	return fmt.Sprintf("RoleBinding %q of %s %q to %s", b.name+"/"+b.namespace, b.roleRef.Kind, b.roleRef.Name, describeSubject(s, b.namespace))
}

// describeSubject is kube's: `User "alice"`, `Group "devs"`,
// `ServiceAccount "name/namespace"`.
func describeSubject(s *rbacv1.Subject, bindingNamespace string) string {
	if s.Kind != rbacv1.ServiceAccountKind {
		return fmt.Sprintf("%s %q", s.Kind, s.Name)
	}
	ns := s.Namespace
	if ns == "" {
		ns = bindingNamespace
	}
	return fmt.Sprintf("%s %q", s.Kind, s.Name+"/"+ns)
}
