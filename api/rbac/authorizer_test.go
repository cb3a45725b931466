package rbac

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/raftapi/raftapi/api/registry/registrytest"
)

// staticAuthorizer is an Authorizer whose index holds objs (Roles,
// ClusterRoles, RoleBindings, ClusterRoleBindings), without a store to
// follow.
func staticAuthorizer(t testing.TB, objs ...any) *Authorizer {
	t.Helper()
	a := New(registrytest.New(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	o := objects{
		roles: map[string]*rbacv1.Role{}, clusterRoles: map[string]*rbacv1.ClusterRole{},
		roleBindings: map[string]*rbacv1.RoleBinding{}, clusterRoleBindings: map[string]*rbacv1.ClusterRoleBinding{},
	}
	for i, obj := range objs {
		key := fmt.Sprint(i)
		switch v := obj.(type) {
		case *rbacv1.Role:
			o.roles[key] = v
		case *rbacv1.ClusterRole:
			o.clusterRoles[key] = v
		case *rbacv1.RoleBinding:
			o.roleBindings[key] = v
		case *rbacv1.ClusterRoleBinding:
			o.clusterRoleBindings[key] = v
		default:
			t.Fatalf("not an RBAC object: %T", obj)
		}
	}
	a.current.Store(buildIndex(o))
	return a
}

func clusterRole(name string, rules ...rbacv1.PolicyRule) *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: rules}
}

func role(ns, name string, rules ...rbacv1.PolicyRule) *rbacv1.Role {
	return &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Rules: rules}
}

func clusterBinding(name, roleName string, subjects ...rbacv1.Subject) *rbacv1.ClusterRoleBinding {
	return &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: roleName},
		Subjects:   subjects,
	}
}

func roleBinding(ns, name, kind, roleName string, subjects ...rbacv1.Subject) *rbacv1.RoleBinding {
	return &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: kind, Name: roleName},
		Subjects:   subjects,
	}
}

func userSubject(name string) rbacv1.Subject {
	return rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: name}
}

func groupSubject(name string) rbacv1.Subject {
	return rbacv1.Subject{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: name}
}

func saSubject(ns, name string) rbacv1.Subject {
	return rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: name}
}

func rule(verbs []string, groups []string, resources ...string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{Verbs: verbs, APIGroups: groups, Resources: resources}
}

var (
	readPods    = rule([]string{"get", "list", "watch"}, []string{""}, "pods")
	readSecrets = rule([]string{"get"}, []string{""}, "secrets")
	alice       = &user.DefaultInfo{Name: "alice", Groups: []string{"devs", "system:authenticated"}}
	bob         = &user.DefaultInfo{Name: "bob", Groups: []string{"system:authenticated"}}
	builder     = &user.DefaultInfo{Name: "system:serviceaccount:team:builder", Groups: []string{"system:serviceaccounts", "system:serviceaccounts:team", "system:authenticated"}}
)

// decide asks a whether u may verb resource (maybe "res/sub") in ns.
func decide(t *testing.T, a *Authorizer, u user.Info, verb, ns, resource string) (authorizer.Decision, string) {
	t.Helper()
	attrs := res(verb, "", resource, "")
	attrs.User, attrs.Namespace = u, ns
	d, reason, err := a.Authorize(context.Background(), attrs)
	if err != nil {
		t.Fatalf("Authorize: %v", err)
	}
	return d, reason
}

func TestAuthorizeSubjects(t *testing.T) {
	a := staticAuthorizer(t,
		clusterRole("pod-reader", readPods),
		role("team", "secret-reader", readSecrets),
		clusterBinding("alice-reads", "pod-reader", userSubject("alice")),
		clusterBinding("devs-read", "pod-reader", groupSubject("devs")),
		clusterBinding("sa-reads", "pod-reader", saSubject("team", "builder")),
		roleBinding("team", "local-sa", "Role", "secret-reader", saSubject("", "builder")),
	)
	tests := []struct {
		name       string
		u          user.Info
		verb, ns   string
		resource   string
		wantAllow  bool
		wantReason string
	}{
		{"user", &user.DefaultInfo{Name: "alice"}, "get", "x", "pods", true, `RBAC: allowed by ClusterRoleBinding "alice-reads" of ClusterRole "pod-reader" to User "alice"`},
		{"group", &user.DefaultInfo{Name: "carol", Groups: []string{"devs"}}, "list", "", "pods", true, `RBAC: allowed by ClusterRoleBinding "devs-read" of ClusterRole "pod-reader" to Group "devs"`},
		{"service account", builder, "watch", "", "pods", true, `RBAC: allowed by ClusterRoleBinding "sa-reads" of ClusterRole "pod-reader" to ServiceAccount "builder/team"`},
		{"service account of the binding's namespace", builder, "get", "team", "secrets", true, `RBAC: allowed by RoleBinding "local-sa/team" of Role "secret-reader" to ServiceAccount "builder/team"`},
		{"role outside its namespace", builder, "get", "other", "secrets", false, ""},
		{"role at cluster scope", builder, "get", "", "secrets", false, ""},
		{"verb not granted", alice, "delete", "x", "pods", false, ""},
		{"another user", bob, "get", "x", "pods", false, ""},
		{"a user named like a group", &user.DefaultInfo{Name: "devs"}, "get", "x", "pods", false, ""},
		{"a service account of another namespace", &user.DefaultInfo{Name: "system:serviceaccount:other:builder"}, "get", "team", "secrets", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, reason := decide(t, a, tt.u, tt.verb, tt.ns, tt.resource)
			if (d == authorizer.DecisionAllow) != tt.wantAllow || reason != tt.wantReason {
				t.Errorf("got %v %q, want allow=%v %q", d, reason, tt.wantAllow, tt.wantReason)
			}
			if d == authorizer.DecisionDeny {
				t.Error("RBAC never denies")
			}
		})
	}
}

func TestAuthorizeRoleBindingToClusterRole(t *testing.T) {
	a := staticAuthorizer(t,
		clusterRole("edit", rule([]string{"*"}, []string{""}, "configmaps")),
		roleBinding("team", "edit", "ClusterRole", "edit", userSubject("alice")),
	)
	if d, reason := decide(t, a, alice, "delete", "team", "configmaps"); d != authorizer.DecisionAllow || reason != `RBAC: allowed by RoleBinding "edit/team" of ClusterRole "edit" to User "alice"` {
		t.Errorf("in the namespace: %v %q", d, reason)
	}
	for _, ns := range []string{"other", ""} {
		if d, _ := decide(t, a, alice, "delete", ns, "configmaps"); d != authorizer.DecisionNoOpinion {
			t.Errorf("namespace %q: %v, want the cluster role granted only in the binding's namespace", ns, d)
		}
	}
}

func TestAuthorizeFirstMatchingSubjectIsReported(t *testing.T) {
	a := staticAuthorizer(t,
		clusterRole("pod-reader", readPods),
		clusterBinding("b", "pod-reader", userSubject("zed"), groupSubject("devs"), userSubject("alice")),
	)
	if _, reason := decide(t, a, alice, "get", "", "pods"); reason != `RBAC: allowed by ClusterRoleBinding "b" of ClusterRole "pod-reader" to Group "devs"` {
		t.Errorf("reason %q", reason)
	}
}

func TestAuthorizeMissingRoles(t *testing.T) {
	a := staticAuthorizer(t,
		clusterBinding("dangling", "ghost", userSubject("alice")),
		roleBinding("team", "dangling", "Role", "phantom", groupSubject("devs")),
		roleBinding("team", "not-mine", "Role", "other", userSubject("bob")),
	)
	d, reason := decide(t, a, alice, "get", "team", "pods")
	want := `RBAC: [clusterrole.rbac.authorization.k8s.io "ghost" not found, role.rbac.authorization.k8s.io "phantom" not found]`
	if d != authorizer.DecisionNoOpinion || reason != want {
		t.Errorf("got %v %q, want %q", d, reason, want)
	}
	if _, reason := decide(t, a, alice, "get", "", "pods"); reason != `RBAC: clusterrole.rbac.authorization.k8s.io "ghost" not found` {
		t.Errorf("cluster scope: %q", reason)
	}

	// A binding that allows wins over the missing ones.
	a = staticAuthorizer(t,
		clusterBinding("dangling", "ghost", userSubject("alice")),
		clusterRole("pod-reader", readPods),
		clusterBinding("works", "pod-reader", userSubject("alice")),
	)
	if d, _ := decide(t, a, alice, "get", "", "pods"); d != authorizer.DecisionAllow {
		t.Errorf("with a working binding: %v", d)
	}
}

func TestAuthorizeSubjectsThatNeverApply(t *testing.T) {
	a := staticAuthorizer(t,
		clusterRole("pod-reader", readPods),
		// A ClusterRoleBinding's ServiceAccount needs a namespace.
		clusterBinding("no-ns", "pod-reader", saSubject("", "builder")),
		clusterBinding("robot", "pod-reader", rbacv1.Subject{Kind: "Robot", Name: "alice"}),
	)
	for _, u := range []user.Info{builder, alice} {
		if d, _ := decide(t, a, u, "get", "team", "pods"); d != authorizer.DecisionNoOpinion {
			t.Errorf("%s: %v", u.GetName(), d)
		}
	}
	attrs := res("get", "", "pods", "")
	if d, _, _ := a.Authorize(context.Background(), attrs); d != authorizer.DecisionNoOpinion {
		t.Errorf("no user: %v", d)
	}
}

func TestAuthorizeNonResourceURLs(t *testing.T) {
	a := staticAuthorizer(t,
		clusterRole("health", rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz", "/healthz/*"}}),
		clusterBinding("health", "health", groupSubject("system:authenticated")),
	)
	for path, want := range map[string]authorizer.Decision{"/healthz": authorizer.DecisionAllow, "/healthz/raft": authorizer.DecisionAllow, "/metrics": authorizer.DecisionNoOpinion} {
		attrs := url("get", path)
		attrs.User = bob
		if d, _, _ := a.Authorize(context.Background(), attrs); d != want {
			t.Errorf("%s: %v, want %v", path, d, want)
		}
	}
}

func TestRulesFor(t *testing.T) {
	a := staticAuthorizer(t,
		clusterRole("pod-reader", readPods),
		clusterRole("health", rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz"}}),
		role("team", "secret-reader", readSecrets),
		// Two subjects of one binding apply: its rules count once.
		clusterBinding("both", "pod-reader", userSubject("alice"), groupSubject("devs")),
		clusterBinding("health", "health", groupSubject("devs")),
		roleBinding("team", "secrets", "Role", "secret-reader", userSubject("alice")),
		roleBinding("team", "dangling", "Role", "ghost", userSubject("alice")),
	)
	resources, nonResources, incomplete, err := a.RulesFor(context.Background(), alice, "team")
	if incomplete {
		t.Error("incomplete")
	}
	if err == nil || err.Error() != `role.rbac.authorization.k8s.io "ghost" not found` {
		t.Errorf("err = %v", err)
	}
	var got []string
	for _, r := range resources {
		got = append(got, fmt.Sprint(r.GetVerbs(), r.GetAPIGroups(), r.GetResources(), r.GetResourceNames()))
	}
	want := []string{"[get list watch] [] [pods] []", "[get] [] [secrets] []"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("resource rules %q, want %q", got, want)
	}
	if len(nonResources) != 1 || !reflect.DeepEqual(nonResources[0].GetNonResourceURLs(), []string{"/healthz"}) {
		t.Errorf("non-resource rules %v", nonResources)
	}
	if resources, _, _, err := a.RulesFor(context.Background(), alice, ""); len(resources) != 1 || err != nil {
		t.Errorf("cluster scope: %d rules, %v", len(resources), err)
	}
}

func TestConditionsAware(t *testing.T) {
	a := staticAuthorizer(t, clusterRole("pod-reader", readPods), clusterBinding("b", "pod-reader", userSubject("alice")))
	attrs := res("get", "", "pods", "")
	attrs.User = alice
	if d := a.ConditionsAwareAuthorize(context.Background(), attrs); !d.IsAllow() {
		t.Errorf("ConditionsAwareAuthorize = %v", d)
	}
	if d, _, err := a.EvaluateConditions(context.Background(), authorizer.ConditionsAwareDecision{}, nil); d != authorizer.DecisionDeny || err != authorizer.ErrorConditionEvaluationNotSupported {
		t.Errorf("EvaluateConditions = %v, %v", d, err)
	}
}

// TestAuthorizeAllocations: the hot path allocates nothing, allowed or
// not.
func TestAuthorizeAllocations(t *testing.T) {
	a := benchAuthorizer(t)
	for _, verb := range []string{"get", "delete"} {
		attrs := res(verb, "", "pods", "p")
		attrs.User, attrs.Namespace = alice, "ns-7"
		var boxed authorizer.Attributes = attrs
		allocs := testing.AllocsPerRun(100, func() {
			_, _, _ = a.Authorize(context.Background(), boxed)
		})
		if allocs != 0 {
			t.Errorf("%s: %.1f allocations per Authorize", verb, allocs)
		}
	}
}

// benchAuthorizer has 1000 namespaces with a role and two bindings each,
// and 200 cluster bindings for other users; alice may get pods.
func benchAuthorizer(t testing.TB) *Authorizer {
	objs := []any{clusterRole("pod-reader", readPods)}
	for i := range 1000 {
		ns := fmt.Sprintf("ns-%d", i)
		objs = append(objs, role(ns, "r", readSecrets),
			roleBinding(ns, "b1", "Role", "r", userSubject(fmt.Sprintf("user-%d", i))),
			roleBinding(ns, "b2", "ClusterRole", "pod-reader", groupSubject("devs")))
	}
	for i := range 200 {
		objs = append(objs, clusterBinding(fmt.Sprintf("c-%d", i), "pod-reader", userSubject(fmt.Sprintf("user-%d", i))))
	}
	return staticAuthorizer(t, objs...)
}

func BenchmarkAuthorize(b *testing.B) {
	a := benchAuthorizer(b)
	attrs := res("get", "", "pods", "p")
	attrs.User, attrs.Namespace = alice, "ns-7"
	var boxed authorizer.Attributes = attrs
	b.ReportAllocs()
	for b.Loop() {
		if d, _, _ := a.Authorize(context.Background(), boxed); d != authorizer.DecisionAllow {
			b.Fatal("not allowed")
		}
	}
}
