package rbac

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/raftapi/raftapi/api/registry"
	"github.com/raftapi/raftapi/api/registry/registrytest"
)

// eventually bounds every wait for a condition: long, for the race
// detector on busy machines.
const eventually = 20 * time.Second

// newTestRegistry returns a registry of the built-in resources over an
// in-memory store that leads.
func newTestRegistry(t *testing.T) (*registry.Registry, *registrytest.Storage) {
	t.Helper()
	return registrytest.NewRegistry(t, registry.Options{})
}

// testLogger logs through t, so output shows only on failure.
func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Helper()
	w.t.Log(string(p))
	return len(p), nil
}

func store(t *testing.T, reg *registry.Registry, gvr schema.GroupVersionResource) *registry.Store {
	t.Helper()
	s, err := storeOf(reg, gvr)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// getRole reads the ClusterRole name; ok is false when it does not exist.
func getRole(t *testing.T, reg *registry.Registry, name string) (r *rbacv1.ClusterRole, ok bool) {
	t.Helper()
	obj, err := store(t, reg, clusterRolesGVR).Get(context.Background(), "", name, registry.GetOptions{})
	if err != nil {
		return nil, false
	}
	r = &rbacv1.ClusterRole{}
	if err := json.Unmarshal(obj.Data, r); err != nil {
		t.Fatal(err)
	}
	return r, true
}

func mustGetRole(t *testing.T, reg *registry.Registry, name string) *rbacv1.ClusterRole {
	t.Helper()
	r, ok := getRole(t, reg, name)
	if !ok {
		t.Fatalf("clusterrole %s does not exist", name)
	}
	return r
}

func mustGetBinding(t *testing.T, reg *registry.Registry, name string) *rbacv1.ClusterRoleBinding {
	t.Helper()
	obj, err := store(t, reg, clusterRoleBindingsGVR).Get(context.Background(), "", name, registry.GetOptions{})
	if err != nil {
		t.Fatalf("clusterrolebinding %s: %v", name, err)
	}
	b := &rbacv1.ClusterRoleBinding{}
	if err := json.Unmarshal(obj.Data, b); err != nil {
		t.Fatal(err)
	}
	return b
}

func mustUpdateRole(t *testing.T, reg *registry.Registry, r *rbacv1.ClusterRole) {
	t.Helper()
	r.TypeMeta = metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole"}
	if _, err := store(t, reg, clusterRolesGVR).Update(loopback(context.Background()), "", r.Name, r, registry.WriteOptions{}); err != nil {
		t.Fatalf("update clusterrole %s: %v", r.Name, err)
	}
}

func mustCreateRole(t *testing.T, reg *registry.Registry, r *rbacv1.ClusterRole) {
	t.Helper()
	r.TypeMeta = metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole"}
	if _, err := store(t, reg, clusterRolesGVR).Create(loopback(context.Background()), "", r, registry.WriteOptions{}); err != nil {
		t.Fatalf("create clusterrole %s: %v", r.Name, err)
	}
}

// waitFor polls cond until it holds, failing the test after eventually.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(eventually)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// runInBackground runs run until the test ends.
func runInBackground(t *testing.T, run func(context.Context)) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
}
