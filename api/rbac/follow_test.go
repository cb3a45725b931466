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
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/raftapi/raftapi/api/rbac"
	"github.com/raftapi/raftapi/api/registry"
	"github.com/raftapi/raftapi/api/registry/registrytest"
)

func TestFollowsBindings(t *testing.T) {
	f := newFixture(t, nil)
	f.mustWrite(t, clusterRole("pod-reader", readPods))
	f.eventually(t, alice, "get", "pods", "team", authorizer.DecisionNoOpinion)

	f.mustWrite(t, roleBinding("team", "read", "ClusterRole", "pod-reader", userSubject("alice")))
	f.eventually(t, alice, "get", "pods", "team", authorizer.DecisionAllow)
	f.eventually(t, alice, "get", "pods", "", authorizer.DecisionNoOpinion)

	// Update: alice leaves the binding, bob joins.
	ctx := context.Background()
	rb := roleBinding("team", "read", "ClusterRole", "pod-reader", userSubject("bob"))
	if _, err := f.rbacStore(t, "rolebindings").Update(ctx, "team", "read", rb, registry.WriteOptions{}); err != nil {
		t.Fatalf("update: %v", err)
	}
	f.eventually(t, alice, "get", "pods", "team", authorizer.DecisionNoOpinion)
	f.eventually(t, bob, "get", "pods", "team", authorizer.DecisionAllow)

	// The role changes under the binding.
	cr := clusterRole("pod-reader", rule(verbs("delete"), core, "pods"))
	if _, err := f.rbacStore(t, "clusterroles").Update(ctx, "", "pod-reader", cr, registry.WriteOptions{}); err != nil {
		t.Fatalf("update role: %v", err)
	}
	f.eventually(t, bob, "get", "pods", "team", authorizer.DecisionNoOpinion)
	f.eventually(t, bob, "delete", "pods", "team", authorizer.DecisionAllow)

	// Delete.
	if _, err := f.rbacStore(t, "rolebindings").Delete(ctx, "team", "read", &metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete: %v", err)
	}
	f.eventually(t, bob, "delete", "pods", "team", authorizer.DecisionNoOpinion)
}

func TestFollowsClusterRoleBindingsAndRoles(t *testing.T) {
	f := newFixture(t, nil)
	f.mustWrite(t, clusterBinding("admins", "admin", userSubject("alice")))
	// A binding to a role that does not exist yet grants nothing and
	// says why.
	attrs := authorizer.AttributesRecord{User: alice, Verb: "get", Resource: "pods", ResourceRequest: true}
	stop := time.Now().Add(deadline)
	for {
		_, reason, _ := f.authz.Authorize(context.Background(), attrs)
		if reason == `RBAC: clusterrole.rbac.authorization.k8s.io "admin" not found` {
			break
		}
		if time.Now().After(stop) {
			t.Fatalf("reason %q", reason)
		}
		time.Sleep(time.Millisecond)
	}
	f.mustWrite(t, clusterRole("admin", rule(verbs("*"), []string{"*"}, "*")))
	f.eventually(t, alice, "get", "pods", "", authorizer.DecisionAllow)

	f.mustWrite(t, role("team", "cm", rule(verbs("create"), core, "configmaps")), roleBinding("team", "cm", "Role", "cm", userSubject("bob")))
	f.eventually(t, bob, "create", "configmaps", "team", authorizer.DecisionAllow)
	if _, err := f.rbacStore(t, "roles").Delete(context.Background(), "team", "cm", &metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete role: %v", err)
	}
	f.eventually(t, bob, "create", "configmaps", "team", authorizer.DecisionNoOpinion)
}

// TestListsWhatExistsBeforeRun: what is stored before Run is enforced as
// soon as the authorizer has synced.
func TestListsWhatExistsBeforeRun(t *testing.T) {
	storage := registrytest.New()
	t.Cleanup(func() { _ = storage.Close() })
	ctx := context.Background()
	f := &fixture{store: storage}
	f.reg = newRegistry(storage)
	if err := f.reg.EnsureNamespace(ctx, "team"); err != nil {
		t.Fatal(err)
	}
	f.mustWrite(t, clusterRole("pod-reader", readPods), clusterBinding("read", "pod-reader", userSubject("alice")))

	a := rbac.New(storage, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if a.HasSynced() {
		t.Fatal("synced before Run")
	}
	runCtx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		a.Run(runCtx)
	}()
	defer func() {
		cancel()
		wg.Wait()
	}()
	select {
	case <-a.Synced():
	case <-time.After(deadline):
		t.Fatal("not synced")
	}
	if !a.HasSynced() {
		t.Error("HasSynced false after Synced")
	}
	attrs := authorizer.AttributesRecord{User: alice, Verb: "list", Resource: "pods", ResourceRequest: true}
	if d, reason, _ := a.Authorize(ctx, attrs); d != authorizer.DecisionAllow || reason != `RBAC: allowed by ClusterRoleBinding "read" of ClusterRole "pod-reader" to User "alice"` {
		t.Errorf("after sync: %v %q", d, reason)
	}
}

// TestRelistsAfterTheWatchEnds: changes made while the watch is down are
// picked up by the new list.
func TestRelistsAfterTheWatchEnds(t *testing.T) {
	var cut *cuttable
	f := newFixture(t, func(s registry.Storage) registry.Storage {
		cut = &cuttable{Storage: s}
		return cut
	})
	f.mustWrite(t, clusterRole("pod-reader", readPods))
	for range 3 {
		cut.cutAll()
		f.mustWrite(t, clusterBinding("read-"+time.Now().Format("150405.000000000"), "pod-reader", userSubject("alice")))
		f.eventually(t, alice, "get", "pods", "", authorizer.DecisionAllow)
		if _, err := f.rbacStore(t, "clusterrolebindings").DeleteCollection(context.Background(), "", registry.ListOptions{}, &metav1.DeleteOptions{}); err != nil {
			t.Fatalf("deletecollection: %v", err)
		}
		f.eventually(t, alice, "get", "pods", "", authorizer.DecisionNoOpinion)
	}
}

// cuttable is a Storage whose watches the test can end.
type cuttable struct {
	registry.Storage
	mu       sync.Mutex
	watchers []registry.Watcher
}

func (c *cuttable) Watch(ctx context.Context, key string, opts registry.WatchOptions) (registry.Watcher, error) {
	w, err := c.Storage.Watch(ctx, key, opts)
	if err == nil {
		c.mu.Lock()
		c.watchers = append(c.watchers, w)
		c.mu.Unlock()
	}
	return w, err
}

// cutAll stops every watch opened so far.
func (c *cuttable) cutAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, w := range c.watchers {
		w.Stop()
	}
	c.watchers = nil
}

// TestFirstWritesOfAnEmptyStore: roles written to a store that held
// nothing, between the authorizer's list (at revision 0) and its watch,
// are enforced.
func TestFirstWritesOfAnEmptyStore(t *testing.T) {
	inner := registrytest.New()
	t.Cleanup(func() { _ = inner.Close() })
	writer := &fixture{store: inner, reg: newRegistry(inner)}
	bindings := writer.reg.Resources().Get(schema.GroupVersionResource{Group: rbacv1.GroupName, Version: "v1", Resource: "clusterrolebindings"})
	storage := registrytest.AfterFirstList(inner, bindings.Prefix(""), func() {
		writer.mustWrite(t, clusterRole("pod-reader", readPods), clusterBinding("read", "pod-reader", userSubject("alice")))
	})
	f := &fixture{store: storage, reg: newRegistry(storage), authz: rbac.New(storage, slog.New(slog.NewTextHandler(io.Discard, nil)))}
	f.run(t)
	f.eventually(t, alice, "list", "pods", "", authorizer.DecisionAllow)
}
