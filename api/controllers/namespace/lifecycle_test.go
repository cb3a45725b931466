package namespace

import (
	"context"
	"encoding/json"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/raftapi/raftapi/api/registry"
	"github.com/raftapi/raftapi/api/registry/registrytest"
	"github.com/raftapi/raftapi/api/resource"
)

// newTestController returns a namespace lifecycle over an in-memory store
// and the registry it uses.
func newTestController(t *testing.T) (*Controller, *registry.Registry) {
	t.Helper()
	reg, _ := registrytest.NewRegistry(t, registry.Options{})
	return New(reg), reg
}

func store(reg *registry.Registry, resource string) *registry.Store {
	return reg.Store(reg.Resources().Get(schema.GroupVersionResource{Version: "v1", Resource: resource}))
}

func TestReconcileCreatesSystemNamespaces(t *testing.T) {
	c, _ := newTestController(t)
	if err := c.Ready(); err == nil {
		t.Fatal("Ready on an empty store = nil, want the first missing system namespace")
	}
	c.reconcile(context.Background())
	if err := c.Ready(); err != nil {
		t.Fatalf("Ready after a reconcile = %v", err)
	}
}

// TestReconcileEmptiesAndRemovesATerminatingNamespace: the content of a
// namespace being deleted goes through the registry, then the namespace;
// an object held by a finalizer holds the namespace too.
func TestReconcileEmptiesAndRemovesATerminatingNamespace(t *testing.T) {
	c, reg := newTestController(t)
	ctx := context.Background()
	if err := reg.EnsureNamespace(ctx, "doomed"); err != nil {
		t.Fatal(err)
	}
	cms := store(reg, "configmaps")
	for _, cm := range []*corev1.ConfigMap{
		{ObjectMeta: metav1.ObjectMeta{Name: "free"}},
		{ObjectMeta: metav1.ObjectMeta{Name: "held", Finalizers: []string{"example.com/hold"}}},
	} {
		if _, err := cms.Create(ctx, "doomed", cm, registry.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := store(reg, "namespaces").Delete(ctx, "", "doomed", &metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	c.reconcile(ctx)
	if _, err := cms.Get(ctx, "doomed", "free", registry.GetOptions{}); err == nil {
		t.Error("configmap free survived the reconcile of its terminating namespace")
	}
	if _, err := store(reg, "namespaces").Get(ctx, "", "doomed", registry.GetOptions{}); err != nil {
		t.Fatalf("namespace with a held object: %v, want it kept", err)
	}
	held, err := cms.Get(ctx, "doomed", "held", registry.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var cm corev1.ConfigMap
	if err := json.Unmarshal(held.Data, &cm); err != nil {
		t.Fatal(err)
	}
	cm.Finalizers = nil
	if _, err := cms.Update(ctx, "doomed", "held", &cm, registry.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	c.reconcile(ctx)
	if _, err := store(reg, "namespaces").Get(ctx, "", "doomed", registry.GetOptions{}); err == nil {
		t.Fatal("namespace still there after a reconcile once empty")
	}
}

// TestReconcileDeletesEveryNamespacedResource: content of a resource that
// does not list the delete verb goes too, or it would outlive its
// namespace and reappear in a namespace of the same name.
func TestReconcileDeletesEveryNamespacedResource(t *testing.T) {
	c, reg := newTestController(t)
	ctx := context.Background()
	notes := &resource.Resource{Group: "example.com", Version: "v1", Kind: "Note", ListKind: "NoteList",
		Plural: "notes", Singular: "note", Namespaced: true, Verbs: metav1.Verbs{"create", "get", "list"}}
	reg.Register(notes)
	if err := reg.EnsureNamespace(ctx, "doomed"); err != nil {
		t.Fatal(err)
	}
	note := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.com/v1", "kind": "Note", "metadata": map[string]any{"name": "n"}}}
	if _, err := reg.Store(notes).Create(ctx, "doomed", note, registry.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := store(reg, "namespaces").Delete(ctx, "", "doomed", &metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	c.reconcile(ctx)
	if _, err := reg.Store(notes).Get(ctx, "doomed", "n", registry.GetOptions{}); err == nil {
		t.Fatal("a note outlived its terminating namespace")
	}
}
