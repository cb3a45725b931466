package rbac_test

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/raftapi/raftapi/api/builtin"
	"github.com/raftapi/raftapi/api/rbac"
	"github.com/raftapi/raftapi/api/registry"
	"github.com/raftapi/raftapi/api/registry/registrytest"
	"github.com/raftapi/raftapi/api/resource"
)

// deadline bounds every wait: nothing here sleeps, and a test that waits
// this long has failed.
const deadline = 10 * time.Second

// fixture is a registry of the built-in resources over an in-memory store
// with the namespace "team", and a running Authorizer following it whose
// Admission guards the RBAC resources.
type fixture struct {
	reg   *registry.Registry
	store registry.Storage
	authz *rbac.Authorizer
}

// newFixture starts the fixture; storage wraps the in-memory store when
// not nil.
func newFixture(t *testing.T, wrap func(registry.Storage) registry.Storage) *fixture {
	t.Helper()
	storage := registrytest.New()
	t.Cleanup(func() { _ = storage.Close() })
	var store registry.Storage = storage
	if wrap != nil {
		store = wrap(storage)
	}
	reg := newRegistry(store)
	if err := reg.EnsureNamespace(context.Background(), "team"); err != nil {
		t.Fatalf("EnsureNamespace: %v", err)
	}
	f := &fixture{reg: reg, store: store, authz: rbac.New(store, slog.New(slog.NewTextHandler(io.Discard, nil)))}
	rbac.Guard(reg.Resources().All(), f.authz.Admission(nil))
	f.run(t)
	select {
	case <-f.authz.Synced():
	case <-time.After(deadline):
		t.Fatal("the authorizer did not sync")
	}
	return f
}

// run runs the fixture's authorizer until the test ends.
func (f *fixture) run(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		f.authz.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
}

// newRegistry is a registry of the built-in resources over store.
func newRegistry(store registry.Storage) *registry.Registry {
	return registry.New(resource.NewRegistry(builtin.Resources()...), store, registry.Options{})
}

// rbacStore returns the verbs of an RBAC resource.
func (f *fixture) rbacStore(t *testing.T, plural string) *registry.Store {
	t.Helper()
	res := f.reg.Resources().Get(schema.GroupVersionResource{Group: rbacv1.GroupName, Version: "v1", Resource: plural})
	if res == nil {
		t.Fatalf("no resource %s", plural)
	}
	return f.reg.Store(res)
}

// pluralOf is the resource of an RBAC object.
func pluralOf(obj runtime.Object) string {
	switch obj.(type) {
	case *rbacv1.Role:
		return "roles"
	case *rbacv1.ClusterRole:
		return "clusterroles"
	case *rbacv1.RoleBinding:
		return "rolebindings"
	}
	return "clusterrolebindings"
}

// write creates obj as the user in ctx (none: an in-process caller).
func (f *fixture) write(ctx context.Context, t *testing.T, obj runtime.Object) error {
	t.Helper()
	ns := obj.(metav1.Object).GetNamespace()
	_, err := f.rbacStore(t, pluralOf(obj)).Create(ctx, ns, obj, registry.WriteOptions{})
	return err
}

// mustWrite creates obj with no user, as a controller does.
func (f *fixture) mustWrite(t *testing.T, objs ...runtime.Object) {
	t.Helper()
	for _, obj := range objs {
		if err := f.write(context.Background(), t, obj); err != nil {
			t.Fatalf("create %T: %v", obj, err)
		}
	}
}

// eventually waits until u's decision on verb resource in ns is want.
func (f *fixture) eventually(t *testing.T, u user.Info, verb, resource, ns string, want authorizer.Decision) {
	t.Helper()
	f.eventuallyAttrs(t, authorizer.AttributesRecord{User: u, Verb: verb, Resource: resource, Namespace: ns, ResourceRequest: true}, want)
}

// eventuallyAttrs waits until the decision on attrs is want.
func (f *fixture) eventuallyAttrs(t *testing.T, attrs authorizer.AttributesRecord, want authorizer.Decision) {
	t.Helper()
	stop := time.Now().Add(deadline)
	for {
		d, _, err := f.authz.Authorize(context.Background(), attrs)
		if err != nil {
			t.Fatalf("Authorize: %v", err)
		}
		if d == want {
			return
		}
		if time.Now().After(stop) {
			t.Fatalf("%+v: decision %v, want %v", attrs, d, want)
		}
		time.Sleep(time.Millisecond)
	}
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

func rule(verbs []string, groups []string, resources ...string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{Verbs: verbs, APIGroups: groups, Resources: resources}
}

func verbs(v ...string) []string { return v }

var (
	core        = []string{""}
	rbacGroup   = []string{rbacv1.GroupName}
	readPods    = rule(verbs("get", "list", "watch"), core, "pods")
	readSecrets = rule(verbs("get"), core, "secrets")
	alice       = &user.DefaultInfo{Name: "alice", Groups: []string{"devs", "system:authenticated"}}
	bob         = &user.DefaultInfo{Name: "bob", Groups: []string{"system:authenticated"}}
)
