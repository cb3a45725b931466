package rbac

import (
	"context"
	"errors"
	"fmt"
	"slices"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/component-helpers/auth/rbac/validation"

	"github.com/raftapi/raftapi/api/request"
	"github.com/raftapi/raftapi/api/resource"
)

// fullAuthority is what setting or changing an aggregationRule requires:
// every verb on everything.
var fullAuthority = []rbacv1.PolicyRule{
	{Verbs: []string{rbacv1.VerbAll}, APIGroups: []string{rbacv1.APIGroupAll}, Resources: []string{rbacv1.ResourceAll}},
	{Verbs: []string{rbacv1.VerbAll}, NonResourceURLs: []string{rbacv1.NonResourceAll}},
}

// escalation is the escalation check of writes of the RBAC kinds.
type escalation struct {
	rbac *Authorizer
	// authz decides whether a user may escalate or bind.
	authz authorizer.UnconditionalAuthorizer
}

// Admission returns the escalation check of the RBAC kinds, kube's
// policy-based storage, as a resource.AdmitFunc for their resources (see
// Guard). authz is asked whether the user may "escalate" a role or "bind"
// one — kube asks the server's whole authorizer chain —; nil means a
// alone. The user's own permissions are a's.
//
// The check refuses a write with a 403 Forbidden whose message is kube's
// (`roles.rbac.authorization.k8s.io "r" is forbidden: user "alice"
// (groups=["system:authenticated"]) is attempting to grant RBAC
// permissions not currently held:` and the missing rules), and a binding
// to a role that does not exist, when the user may not bind it, with a
// 404 NotFound for the role.
func (a *Authorizer) Admission(authz authorizer.UnconditionalAuthorizer) resource.AdmitFunc {
	if authz == nil {
		authz = a
	}
	e := &escalation{rbac: a, authz: authz}
	return e.admit
}

// admit implements resource.AdmitFunc for the four kinds.
func (e *escalation) admit(ctx context.Context, obj, old runtime.Object) error {
	u, ok := request.UserFrom(ctx)
	if !ok || slices.Contains(u.GetGroups(), user.SystemPrivilegedGroup) {
		return nil
	}
	if old != nil && onlyGCFieldsChange(obj, old) {
		return nil
	}
	switch o := obj.(type) {
	case *rbacv1.Role:
		return e.admitRole(ctx, u, o, old)
	case *rbacv1.ClusterRole:
		return e.admitClusterRole(ctx, u, o, old)
	case *rbacv1.RoleBinding:
		return e.admitBinding(ctx, u, "rolebindings", o.Namespace, o.Name, o.RoleRef)
	case *rbacv1.ClusterRoleBinding:
		return e.admitBinding(ctx, u, "clusterrolebindings", "", o.Name, o.RoleRef)
	}
	return apierrors.NewInternalError(fmt.Errorf("rbac: no escalation check for %T", obj))
}

// admitRole lets u write a role if u may escalate it or already holds
// every rule it grants.
func (e *escalation) admitRole(ctx context.Context, u user.Info, r *rbacv1.Role, old runtime.Object) error {
	if e.may(ctx, u, "escalate", "roles", r.Namespace, requestName(r.Name, old)) {
		return nil
	}
	if err := e.confirmNoEscalation(u, r.Namespace, r.Rules); err != nil {
		return apierrors.NewForbidden(groupResource("roles"), r.Name, err)
	}
	return nil
}

// admitClusterRole is admitRole for cluster roles, which need full
// authority to set, change or drop an aggregationRule (it can gather
// anything): kube's special case.
func (e *escalation) admitClusterRole(ctx context.Context, u user.Info, r *rbacv1.ClusterRole, old runtime.Object) error {
	if e.may(ctx, u, "escalate", "clusterroles", "", requestName(r.Name, old)) {
		return nil
	}
	if err := e.confirmNoEscalation(u, "", r.Rules); err != nil {
		return apierrors.NewForbidden(groupResource("clusterroles"), r.Name, err)
	}
	prev, _ := old.(*rbacv1.ClusterRole)
	if !aggregates(r) && !aggregates(prev) {
		return nil
	}
	if e.confirmNoEscalation(u, "", fullAuthority) != nil {
		return apierrors.NewForbidden(groupResource("clusterroles"), r.Name, errors.New("must have cluster-admin privileges to use the aggregationRule"))
	}
	return nil
}

// admitBinding lets u write a binding to ref in namespace ns ("" for a
// ClusterRoleBinding) if u may bind the role or already holds every rule
// of it.
func (e *escalation) admitBinding(ctx context.Context, u user.Info, resource, ns, name string, ref rbacv1.RoleRef) error {
	if e.mayBind(ctx, u, ref, ns) {
		return nil
	}
	rules, err := e.rbac.roleRefRules(ctx, ref, ns)
	if err != nil {
		return err
	}
	if err := e.confirmNoEscalation(u, ns, rules); err != nil {
		return apierrors.NewForbidden(groupResource(resource), name, err)
	}
	return nil
}

// mayBind asks whether u may "bind" the role ref refers to, in ns.
func (e *escalation) mayBind(ctx context.Context, u user.Info, ref rbacv1.RoleRef, ns string) bool {
	switch ref.Kind {
	case "Role":
		return e.may(ctx, u, "bind", "roles", ns, ref.Name)
	case "ClusterRole":
		return e.may(ctx, u, "bind", "clusterroles", ns, ref.Name)
	}
	return false
}

// may asks the authorizer whether u may verb the RBAC resource named name
// in ns, as kube's escalation checks ask it.
func (e *escalation) may(ctx context.Context, u user.Info, verb, resource, ns, name string) bool {
	d, _, err := e.authz.Authorize(ctx, authorizer.AttributesRecord{
		User: u, Verb: verb, APIGroup: rbacv1.GroupName, APIVersion: "*",
		Resource: resource, Namespace: ns, Name: name, ResourceRequest: true,
	})
	if err != nil {
		e.rbac.log.Warn("rbac: authorizing an escalation check", "user", u.GetName(), "verb", verb, "resource", resource, "namespace", ns, "name", name, "err", err)
	}
	return d == authorizer.DecisionAllow
}

// confirmNoEscalation is kube's ConfirmNoEscalation: nil when the rules u
// holds in ns cover rules, else the error listing what u lacks (and the
// missing roles of u's bindings, which may be why).
func (e *escalation) confirmNoEscalation(u user.Info, ns string, rules []rbacv1.PolicyRule) error {
	owned, resolveErr := e.rbac.current.Load().rulesFor(u, ns, registryNaming)
	covered, missing := validation.Covers(owned, rules)
	if covered {
		return nil
	}
	msg := fmt.Sprintf("user %q (groups=%q) is attempting to grant RBAC permissions not currently held:\n%s", u.GetName(), u.GetGroups(), describeRules(missing))
	if resolveErr != nil {
		msg += fmt.Sprintf("; resolution errors: %v", []error{resolveErr})
	}
	return errors.New(msg)
}

// requestName is the name kube's check sees for a write of name: the
// request's, which a create (old nil) does not have.
func requestName(name string, old runtime.Object) string {
	if old == nil {
		return ""
	}
	return name
}

// aggregates reports whether r has an aggregationRule with selectors.
func aggregates(r *rbacv1.ClusterRole) bool {
	return r != nil && r.AggregationRule != nil && len(r.AggregationRule.ClusterRoleSelectors) > 0
}

func groupResource(resource string) schema.GroupResource {
	return schema.GroupResource{Group: rbacv1.GroupName, Resource: resource}
}
