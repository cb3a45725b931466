package rbac_test

import (
	"context"
	"net/http"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/raftapi/raftapi/api/registry"
	"github.com/raftapi/raftapi/api/request"
)

// as is a request context of u.
func as(u user.Info) context.Context { return request.WithUser(context.Background(), u) }

// wantForbidden fails unless err is a 403 with message msg.
func wantForbidden(t *testing.T, err error, msg string) {
	t.Helper()
	if !apierrors.IsForbidden(err) {
		t.Fatalf("err = %v, want 403 Forbidden", err)
	}
	if got := err.Error(); got != msg {
		t.Fatalf("message:\n got %q\nwant %q", got, msg)
	}
}

// escalationFixture: alice reads pods cluster-wide and may do anything
// with configmaps in "team"; bob has nothing.
func escalationFixture(t *testing.T) *fixture {
	t.Helper()
	f := newFixture(t, nil)
	f.mustWrite(t,
		clusterRole("pod-reader", readPods),
		clusterRole("secret-reader", readSecrets),
		clusterBinding("alice-reads", "pod-reader", userSubject("alice")),
		role("team", "cm-admin", rule(verbs("*"), core, "configmaps")),
		roleBinding("team", "alice-cm", "Role", "cm-admin", userSubject("alice")),
	)
	// The kinds are followed independently: wait for each binding.
	f.eventually(t, alice, "create", "configmaps", "team", authorizer.DecisionAllow)
	f.eventually(t, alice, "watch", "pods", "", authorizer.DecisionAllow)
	return f
}

func TestRoleWithinOwnRulesIsAllowed(t *testing.T) {
	f := escalationFixture(t)
	r := role("team", "mine", rule(verbs("get"), core, "pods"), rule(verbs("update", "delete"), core, "configmaps"))
	if err := f.write(as(alice), t, r); err != nil {
		t.Fatalf("a role within alice's rules: %v", err)
	}
	// Cluster-wide, alice holds only the pod rules.
	if err := f.write(as(alice), t, clusterRole("mine", readPods)); err != nil {
		t.Fatalf("a cluster role within alice's cluster rules: %v", err)
	}
}

func TestRoleBeyondOwnRulesIsForbidden(t *testing.T) {
	f := escalationFixture(t)
	r := role("team", "more", readPods, rule(verbs("get", "list"), core, "secrets"), rule(verbs("create"), []string{"apps"}, "deployments"))
	err := f.write(as(alice), t, r)
	wantForbidden(t, err, `roles.rbac.authorization.k8s.io "more" is forbidden: user "alice" (groups=["devs" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:
{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}
{APIGroups:["apps"], Resources:["deployments"], Verbs:["create"]}`)

	// Outside the namespace alice's configmap rules do not count.
	err = f.write(as(alice), t, clusterRole("cm", rule(verbs("get"), core, "configmaps")))
	wantForbidden(t, err, `clusterroles.rbac.authorization.k8s.io "cm" is forbidden: user "alice" (groups=["devs" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:
{APIGroups:[""], Resources:["configmaps"], Verbs:["get"]}`)

	// Non-resource URLs and resource names are listed as they are.
	err = f.write(as(bob), t, clusterRole("urls",
		rbacv1.PolicyRule{Verbs: verbs("get"), NonResourceURLs: []string{"/metrics"}},
		rbacv1.PolicyRule{Verbs: verbs("get"), APIGroups: core, Resources: []string{"secrets"}, ResourceNames: []string{"s1"}}))
	wantForbidden(t, err, `clusterroles.rbac.authorization.k8s.io "urls" is forbidden: user "bob" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:
{APIGroups:[""], Resources:["secrets"], ResourceNames:["s1"], Verbs:["get"]}
{NonResourceURLs:["/metrics"], Verbs:["get"]}`)
}

func TestEscalationIsCheckedOnEveryWrite(t *testing.T) {
	f := escalationFixture(t)
	ctx := as(alice)
	roles := f.rbacStore(t, "roles")
	if err := f.write(ctx, t, role("team", "r", rule(verbs("get"), core, "configmaps"))); err != nil {
		t.Fatal(err)
	}
	grab := role("team", "r", readSecrets)
	_, err := roles.Create(ctx, "team", role("team", "dry", readSecrets), registry.WriteOptions{DryRun: true})
	if !apierrors.IsForbidden(err) {
		t.Errorf("dry-run create: %v", err)
	}
	if _, err := roles.Update(ctx, "team", "r", grab, registry.WriteOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("update: %v", err)
	}
	if _, err := roles.Update(ctx, "team", "r", grab, registry.WriteOptions{DryRun: true}); !apierrors.IsForbidden(err) {
		t.Errorf("dry-run update: %v", err)
	}
	patch := []byte(`{"rules":[{"verbs":["get"],"apiGroups":[""],"resources":["secrets"]}]}`)
	if _, err := roles.Patch(ctx, "team", "r", types.MergePatchType, patch, registry.WriteOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("merge patch: %v", err)
	}
	apply := []byte(`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"applied","namespace":"team"},"rules":[{"verbs":["get"],"apiGroups":[""],"resources":["secrets"]}]}`)
	if _, err := roles.Patch(ctx, "team", "applied", types.ApplyPatchType, apply, registry.WriteOptions{FieldManager: "m", Manager: "m"}); !apierrors.IsForbidden(err) {
		t.Errorf("apply: %v", err)
	}
	// Nothing was stored.
	if _, err := roles.Get(context.Background(), "team", "applied", registry.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the refused apply stored its role: %v", err)
	}
}

func TestUnprivilegedCallersAreNotChecked(t *testing.T) {
	f := escalationFixture(t)
	master := &user.DefaultInfo{Name: "root", Groups: []string{user.SystemPrivilegedGroup}}
	if err := f.write(as(master), t, clusterRole("everything", rule(verbs("*"), []string{"*"}, "*"))); err != nil {
		t.Errorf("system:masters: %v", err)
	}
	if err := f.write(context.Background(), t, clusterRole("everything-2", rule(verbs("*"), []string{"*"}, "*"))); err != nil {
		t.Errorf("no user: %v", err)
	}
}

func TestEscalateVerb(t *testing.T) {
	f := escalationFixture(t)
	f.mustWrite(t,
		role("team", "escalator", rule(verbs("escalate"), rbacGroup, "roles")),
		roleBinding("team", "bob-escalates", "Role", "escalator", userSubject("bob")),
		clusterRole("escalate-named", rbacv1.PolicyRule{Verbs: verbs("escalate"), APIGroups: rbacGroup, Resources: []string{"clusterroles"}, ResourceNames: []string{"named"}}),
		clusterBinding("bob-escalates-named", "escalate-named", userSubject("bob")),
		clusterRole("named", readPods),
	)
	f.eventuallyAttrs(t, authorizer.AttributesRecord{User: bob, Verb: "escalate", APIGroup: rbacv1.GroupName, Resource: "clusterroles", Name: "named", ResourceRequest: true}, authorizer.DecisionAllow)
	f.eventuallyAttrs(t, authorizer.AttributesRecord{User: bob, Verb: "escalate", APIGroup: rbacv1.GroupName, Resource: "roles", Namespace: "team", ResourceRequest: true}, authorizer.DecisionAllow)
	if err := f.write(as(bob), t, role("team", "anything", rule(verbs("*"), []string{"*"}, "*"))); err != nil {
		t.Errorf("bob may escalate roles in team: %v", err)
	}
	if err := f.reg.EnsureNamespace(context.Background(), "other"); err != nil {
		t.Fatal(err)
	}
	if err := f.write(as(bob), t, role("other", "anything", readSecrets)); !apierrors.IsForbidden(err) {
		t.Errorf("outside team: %v", err)
	}
	// escalate on one cluster role by name: its updates, not creates
	// (a create has no name in the request).
	named := clusterRole("named", rule(verbs("*"), []string{"*"}, "*"))
	if _, err := f.rbacStore(t, "clusterroles").Update(as(bob), "", "named", named, registry.WriteOptions{}); err != nil {
		t.Errorf("update of the named cluster role: %v", err)
	}
	if err := f.write(as(bob), t, clusterRole("other", readSecrets)); !apierrors.IsForbidden(err) {
		t.Errorf("create of another cluster role: %v", err)
	}
}

func TestBindingWithinOwnRulesIsAllowed(t *testing.T) {
	f := escalationFixture(t)
	if err := f.write(as(alice), t, roleBinding("team", "share", "ClusterRole", "pod-reader", userSubject("bob"))); err != nil {
		t.Errorf("binding a role alice holds: %v", err)
	}
	if err := f.write(as(alice), t, roleBinding("team", "share-cm", "Role", "cm-admin", userSubject("bob"))); err != nil {
		t.Errorf("binding alice's namespace role: %v", err)
	}
	if err := f.write(as(alice), t, clusterBinding("share", "pod-reader", userSubject("bob"))); err != nil {
		t.Errorf("cluster binding of a role alice holds cluster-wide: %v", err)
	}
}

func TestBindingBeyondOwnRulesIsForbidden(t *testing.T) {
	f := escalationFixture(t)
	err := f.write(as(bob), t, roleBinding("team", "grab", "ClusterRole", "pod-reader", userSubject("bob")))
	wantForbidden(t, err, `rolebindings.rbac.authorization.k8s.io "grab" is forbidden: user "bob" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:
{APIGroups:[""], Resources:["pods"], Verbs:["get" "list" "watch"]}`)
	err = f.write(as(alice), t, clusterBinding("grab", "secret-reader", userSubject("alice")))
	wantForbidden(t, err, `clusterrolebindings.rbac.authorization.k8s.io "grab" is forbidden: user "alice" (groups=["devs" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:
{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}`)
	// alice's namespace role does not cover a cluster-wide binding of it.
	f.mustWrite(t, clusterRole("cm-admin", rule(verbs("*"), core, "configmaps")))
	err = f.write(as(alice), t, clusterBinding("cm", "cm-admin", userSubject("bob")))
	if !apierrors.IsForbidden(err) {
		t.Errorf("cluster binding of a role alice holds in one namespace: %v", err)
	}
	// A binding to a role that does not exist: kube's 404 for the role.
	err = f.write(as(bob), t, roleBinding("team", "ghost", "Role", "ghost", userSubject("bob")))
	if !apierrors.IsNotFound(err) || err.Error() != `roles.rbac.authorization.k8s.io "ghost" not found` {
		t.Errorf("binding a missing role: %v", err)
	}
}

func TestBindVerb(t *testing.T) {
	f := escalationFixture(t)
	f.mustWrite(t,
		clusterRole("binder", rbacv1.PolicyRule{Verbs: verbs("bind"), APIGroups: rbacGroup, Resources: []string{"clusterroles"}, ResourceNames: []string{"secret-reader"}}),
		roleBinding("team", "bob-binds", "ClusterRole", "binder", userSubject("bob")),
	)
	f.eventuallyAttrs(t, authorizer.AttributesRecord{User: bob, Verb: "bind", APIGroup: rbacv1.GroupName, Resource: "clusterroles", Name: "secret-reader", Namespace: "team", ResourceRequest: true}, authorizer.DecisionAllow)
	if err := f.write(as(bob), t, roleBinding("team", "s", "ClusterRole", "secret-reader", userSubject("bob"))); err != nil {
		t.Errorf("bob may bind secret-reader in team: %v", err)
	}
	if err := f.write(as(bob), t, roleBinding("team", "p", "ClusterRole", "pod-reader", userSubject("bob"))); !apierrors.IsForbidden(err) {
		t.Errorf("another cluster role: %v", err)
	}
	if err := f.write(as(bob), t, clusterBinding("s", "secret-reader", userSubject("bob"))); !apierrors.IsForbidden(err) {
		t.Errorf("bind in team does not allow a cluster-wide binding: %v", err)
	}
}

func TestAggregationRuleNeedsFullAuthority(t *testing.T) {
	f := escalationFixture(t)
	agg := &rbacv1.ClusterRole{
		ObjectMeta:      metav1.ObjectMeta{Name: "agg"},
		AggregationRule: &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{"a": "b"}}}},
	}
	err := f.write(as(alice), t, agg.DeepCopy())
	wantForbidden(t, err, `clusterroles.rbac.authorization.k8s.io "agg" is forbidden: must have cluster-admin privileges to use the aggregationRule`)

	f.mustWrite(t, clusterRole("cluster-admin", rule(verbs("*"), []string{"*"}, "*"), rbacv1.PolicyRule{Verbs: verbs("*"), NonResourceURLs: []string{"*"}}),
		clusterBinding("carol-admin", "cluster-admin", userSubject("carol")))
	carol := &user.DefaultInfo{Name: "carol"}
	f.eventually(t, carol, "get", "anything", "", authorizer.DecisionAllow)
	if err := f.write(as(carol), t, agg.DeepCopy()); err != nil {
		t.Fatalf("cluster admin: %v", err)
	}
	// Dropping the rule needs full authority too.
	plain := clusterRole("agg", readPods)
	if _, err := f.rbacStore(t, "clusterroles").Update(as(alice), "", "agg", plain, registry.WriteOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("alice drops the aggregation rule: %v", err)
	}
}

func TestGarbageCollectorFieldsAreNotChecked(t *testing.T) {
	f := escalationFixture(t)
	f.mustWrite(t, role("team", "big", readSecrets))
	roles := f.rbacStore(t, "roles")
	patch := []byte(`{"metadata":{"finalizers":["example.com/hold"],"ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"owner","uid":"u1"}]}}`)
	if _, err := roles.Patch(as(alice), "team", "big", types.MergePatchType, patch, registry.WriteOptions{}); err != nil {
		t.Errorf("changing only finalizers and owner references: %v", err)
	}
	label := []byte(`{"metadata":{"labels":{"a":"b"}}}`)
	if _, err := roles.Patch(as(alice), "team", "big", types.MergePatchType, label, registry.WriteOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("changing a label of a role alice could not create: %v", err)
	}
}

func TestForbiddenStatus(t *testing.T) {
	f := escalationFixture(t)
	err := f.write(as(bob), t, clusterRole("x", readSecrets))
	var se apierrors.APIStatus
	if !errorAs(err, &se) || se.Status().Code != http.StatusForbidden || se.Status().Details.Kind != "clusterroles" || se.Status().Details.Group != rbacv1.GroupName || se.Status().Details.Name != "x" {
		t.Errorf("status %+v", err)
	}
}

func errorAs(err error, target *apierrors.APIStatus) bool {
	s, ok := err.(apierrors.APIStatus)
	if ok {
		*target = s
	}
	return ok
}
