package rbac

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-helpers/auth/rbac/validation"

	"github.com/raftapi/raftapi/api/builtin"
	"github.com/raftapi/raftapi/api/registry"
	"github.com/raftapi/raftapi/api/registry/registrytest"
	"github.com/raftapi/raftapi/api/resource"
)

func TestReconcileCreatesThePolicy(t *testing.T) {
	reg, _ := newTestRegistry(t)
	c := New(reg, testLogger(t))
	if err := c.Ready(); !errors.Is(err, ErrNotFinished) {
		t.Fatalf("Ready before reconciling = %v, want ErrNotFinished", err)
	}
	if err := c.Reconcile(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, want := range ClusterRoles() {
		got := mustGetRole(t, reg, want.Name)
		if got.Labels[BootstrappingLabel] != BootstrappingValue || got.Annotations[rbacv1.AutoUpdateAnnotationKey] != "true" {
			t.Errorf("clusterrole %s: labels %v, annotations %v", want.Name, got.Labels, got.Annotations)
		}
		if covers, missing := validation.Covers(got.Rules, want.Rules); !covers {
			t.Errorf("clusterrole %s lacks %v", want.Name, missing)
		}
	}
	for _, want := range ClusterRoleBindings() {
		if got := mustGetBinding(t, reg, want.Name); !slices.Equal(got.Subjects, want.Subjects) || got.RoleRef != want.RoleRef {
			t.Errorf("clusterrolebinding %s: %+v %+v", want.Name, got.RoleRef, got.Subjects)
		}
	}
	if err := c.Ready(); err != nil {
		t.Fatalf("Ready after reconciling = %v", err)
	}
	if err := New(reg, testLogger(t)).Ready(); err != nil {
		t.Fatalf("Ready of another node holding the policy = %v", err)
	}
}

// TestReconcileKeepsUserAdditions: a missing default rule comes back, a
// rule and a label a user added stay.
func TestReconcileKeepsUserAdditions(t *testing.T) {
	reg, _ := newTestRegistry(t)
	c := New(reg, testLogger(t))
	ctx := context.Background()
	if err := c.Reconcile(ctx); err != nil {
		t.Fatal(err)
	}
	r := mustGetRole(t, reg, "system:basic-user")
	extra := rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"configmaps"}}
	r.Rules = []rbacv1.PolicyRule{extra}
	r.Labels["team"] = "platform"
	mustUpdateRole(t, reg, r)

	if err := c.Reconcile(ctx); err != nil {
		t.Fatal(err)
	}
	got := mustGetRole(t, reg, "system:basic-user")
	if !slices.ContainsFunc(got.Rules, func(r rbacv1.PolicyRule) bool { return slices.Equal(r.Resources, extra.Resources) }) {
		t.Errorf("the rule a user added is gone: %v", got.Rules)
	}
	if !allows(got.Rules, "create", "authorization.k8s.io", "selfsubjectaccessreviews") {
		t.Errorf("the default rule was not restored: %v", got.Rules)
	}
	if got.Labels["team"] != "platform" {
		t.Errorf("the label a user added is gone: %v", got.Labels)
	}
}

// TestReconcileLeavesAutoupdateFalseAlone: a role annotated
// autoupdate=false keeps the rules its owner gave it.
func TestReconcileLeavesAutoupdateFalseAlone(t *testing.T) {
	reg, _ := newTestRegistry(t)
	c := New(reg, testLogger(t))
	ctx := context.Background()
	if err := c.Reconcile(ctx); err != nil {
		t.Fatal(err)
	}
	r := mustGetRole(t, reg, "system:discovery")
	r.Annotations[rbacv1.AutoUpdateAnnotationKey] = "false"
	r.Rules = []rbacv1.PolicyRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"/version"}}}
	mustUpdateRole(t, reg, r)
	before := mustGetRole(t, reg, "system:discovery").ResourceVersion

	if err := c.Reconcile(ctx); err != nil {
		t.Fatal(err)
	}
	got := mustGetRole(t, reg, "system:discovery")
	if got.ResourceVersion != before || len(got.Rules) != 1 || allows(got.Rules, "get", "", "/apis") {
		t.Errorf("a role annotated autoupdate=false was changed: rv %s→%s, rules %v", before, got.ResourceVersion, got.Rules)
	}
}

// TestReconcileBindings: a removed default subject comes back next to
// the one a user added; a binding recreated by a user with another role
// is recreated with the default role.
func TestReconcileBindings(t *testing.T) {
	reg, _ := newTestRegistry(t)
	c := New(reg, testLogger(t))
	ctx := loopback(context.Background())
	if err := c.Reconcile(ctx); err != nil {
		t.Fatal(err)
	}
	bindings := store(t, reg, clusterRoleBindingsGVR)
	b := mustGetBinding(t, reg, "system:basic-user")
	alice := rbacv1.Subject{Kind: "User", APIGroup: rbacv1.GroupName, Name: "alice"}
	b.Subjects = []rbacv1.Subject{alice}
	b.TypeMeta = metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRoleBinding"}
	if _, err := bindings.Update(ctx, "", b.Name, b, registry.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := bindings.Delete(ctx, "", "system:discovery", &metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	moved := &rbacv1.ClusterRoleBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRoleBinding"},
		ObjectMeta: metav1.ObjectMeta{Name: "system:discovery"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"},
		Subjects:   []rbacv1.Subject{alice},
	}
	if _, err := bindings.Create(ctx, "", moved, registry.WriteOptions{}); err != nil {
		t.Fatal(err)
	}

	if err := c.Reconcile(ctx); err != nil {
		t.Fatal(err)
	}
	got := mustGetBinding(t, reg, "system:basic-user")
	if !slices.Contains(got.Subjects, alice) || !slices.Contains(got.Subjects, groupSubjects("system:authenticated")[0]) {
		t.Errorf("system:basic-user subjects %+v, want alice and system:authenticated", got.Subjects)
	}
	if got := mustGetBinding(t, reg, "system:discovery"); got.RoleRef.Name != "system:discovery" {
		t.Errorf("system:discovery binds %+v after reconciling, want its own role", got.RoleRef)
	}
}

// TestRunActsOnlyOnTheLeader: a follower writes nothing; once it leads it
// installs the policy.
func TestRunActsOnlyOnTheLeader(t *testing.T) {
	storage := &leadership{Storage: registrytest.New()}
	t.Cleanup(func() { _ = storage.Close() })
	reg := registry.New(resource.NewRegistry(builtin.Resources()...), storage, registry.Options{})
	c := New(reg, testLogger(t))
	runInBackground(t, c.Run)
	waitFor(t, "three looks at the leadership", func() bool { return storage.looks.Load() >= 3 })
	if rev := storage.Revision(); rev != 0 {
		t.Fatalf("a follower wrote: revision %d", rev)
	}
	storage.leader.Store(true)
	waitFor(t, "the policy installed by the new leader", func() bool { return c.Ready() == nil })
	mustGetBinding(t, reg, "cluster-admin")
}

// leadership is a store whose leadership the test sets, counting how
// often it is asked.
type leadership struct {
	*registrytest.Storage
	leader atomic.Bool
	looks  atomic.Int64
}

func (l *leadership) IsLeader() bool {
	l.looks.Add(1)
	return l.leader.Load()
}
