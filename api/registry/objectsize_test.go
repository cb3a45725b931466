package registry_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/raftapi/raftapi/api/builtin"
	"github.com/raftapi/raftapi/api/registry"
	"github.com/raftapi/raftapi/api/registry/registrytest"
	"github.com/raftapi/raftapi/api/resource"
)

// sizedLease returns a lease whose holderIdentity has n bytes.
func sizedLease(name string, n int) *coordinationv1.Lease {
	id := strings.Repeat("h", n)
	return &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: coordinationv1.LeaseSpec{HolderIdentity: &id}}
}

// wantTooLarge fails the test unless err is kube-apiserver's answer to a
// write etcd refuses as too large.
func wantTooLarge(t *testing.T, what string, err error) {
	t.Helper()
	se := wantStatus(t, err, http.StatusInternalServerError, metav1.StatusReasonUnknown)
	if se.ErrStatus.Message != "etcdserver: request is too large" || !registry.IsObjectTooLarge(err) {
		t.Fatalf("%s: %q, want etcd's message", what, se.ErrStatus.Message)
	}
}

// TestObjectSizeLimit: an object whose stored form exceeds 1.5 MiB is
// refused as kube-apiserver refuses what etcd will not store, on create
// and on update; a dry run, which stores nothing, is not; smaller
// objects are stored.
func TestObjectSizeLimit(t *testing.T) {
	f := newFixture(t)
	leases := f.store(t, leasesGVR)
	ctx := testContext(t)
	big := registry.MaxStoredObjectBytes + 1
	_, err := leases.Create(ctx, metav1.NamespaceDefault, sizedLease("big", big), registry.WriteOptions{})
	wantTooLarge(t, "create", err)
	if _, err := leases.Create(ctx, metav1.NamespaceDefault, sizedLease("big", big), registry.WriteOptions{DryRun: true}); err != nil {
		t.Fatalf("dry-run create: %v", err)
	}
	if _, err := leases.Create(ctx, metav1.NamespaceDefault, sizedLease("l", registry.MaxStoredObjectBytes-1024), registry.WriteOptions{}); err != nil {
		t.Fatalf("create just under the limit: %v", err)
	}
	_, err = leases.Update(ctx, metav1.NamespaceDefault, "l", sizedLease("l", big), registry.WriteOptions{})
	wantTooLarge(t, "update", err)
	got, err := leases.Get(ctx, metav1.NamespaceDefault, "l", registry.GetOptions{})
	if err != nil || len(*decode[coordinationv1.Lease](t, got.Data).Spec.HolderIdentity) == 0 {
		t.Fatalf("the lease after the refused update: %v", err)
	}
}

// TestObjectSizeLimitConfigMap: a ConfigMap over 1 MiB keeps its own
// 422 validation, which comes first.
func TestObjectSizeLimitConfigMap(t *testing.T) {
	f := newFixture(t)
	cm := configMap("big", "k", strings.Repeat("v", registry.MaxStoredObjectBytes))
	_, err := f.configMaps(t).Create(testContext(t), metav1.NamespaceDefault, cm, registry.WriteOptions{})
	wantStatus(t, err, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid)
}

// TestObjectSizeLimitDropsManagedFields: an object that fits only
// without its managedFields is stored without them, as kube-apiserver
// retries such a write.
func TestObjectSizeLimitDropsManagedFields(t *testing.T) {
	f := newFixture(t)
	leases := f.store(t, leasesGVR)
	ctx := testContext(t)
	// Measure the lease's stored form without the holder and managedFields.
	probe, err := leases.Create(ctx, metav1.NamespaceDefault, sizedLease("fit", 0), registry.WriteOptions{DryRun: true, Manager: "m"})
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(probe.Data, &m); err != nil {
		t.Fatal(err)
	}
	mf, _ := json.Marshal(m["metadata"].(map[string]any)["managedFields"])
	// The holder's own managedFields entry is larger still than the
	// probe's: 64 bytes under the limit without them is over with them.
	n := registry.MaxStoredObjectBytes - (len(probe.Data) - len(mf)) - 64
	if len(mf) <= 64 {
		t.Fatalf("managedFields %s too small for the test", mf)
	}
	res, err := leases.Create(ctx, metav1.NamespaceDefault, sizedLease("fit", n), registry.WriteOptions{Manager: "m"})
	if err != nil {
		t.Fatalf("create a lease that fits without its managedFields: %v", err)
	}
	if l := decode[coordinationv1.Lease](t, res.Data); len(l.ManagedFields) != 0 || len(*l.Spec.HolderIdentity) != n {
		t.Fatalf("stored lease: %d managedFields, holder of %d bytes; want none and %d", len(l.ManagedFields), len(*l.Spec.HolderIdentity), n)
	}
	small, err := leases.Create(ctx, metav1.NamespaceDefault, sizedLease("small", 10), registry.WriteOptions{Manager: "m"})
	if err != nil || len(decode[coordinationv1.Lease](t, small.Data).ManagedFields) == 0 {
		t.Fatalf("a small lease keeps its managedFields: %v", err)
	}
}

// TestObjectSizeLimitCustomResource: the limit holds for resources
// without a Go type (custom resources) too.
func TestObjectSizeLimitCustomResource(t *testing.T) {
	widgets := &resource.Resource{Group: "example.com", Version: "v1", Kind: "Widget", ListKind: "WidgetList",
		Plural: "widgets", Singular: "widget", Namespaced: true}
	reg := registry.New(resource.NewRegistry(append(builtin.Resources(), widgets)...), registrytest.New(), registry.Options{})
	ctx := testContext(t)
	if err := reg.EnsureNamespace(ctx, metav1.NamespaceDefault); err != nil {
		t.Fatal(err)
	}
	widget := func(n int) runtime.Object {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "example.com/v1", "kind": "Widget",
			"metadata": map[string]any{"name": "w"},
			"spec":     map[string]any{"blob": strings.Repeat("b", n)},
		}}
	}
	_, err := reg.Store(widgets).Create(ctx, metav1.NamespaceDefault, widget(registry.MaxStoredObjectBytes), registry.WriteOptions{})
	wantTooLarge(t, "create a custom resource", err)
	if _, err := reg.Store(widgets).Create(ctx, metav1.NamespaceDefault, widget(1<<20), registry.WriteOptions{}); err != nil {
		t.Fatalf("create a 1 MiB custom resource: %v", err)
	}
}
