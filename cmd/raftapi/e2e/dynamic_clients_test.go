package e2e

import (
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
)

// TestDynamicClient drives configmaps and leases as unstructured objects
// with client-go's dynamic client (JSON), on every node kind.
func TestDynamicClient(t *testing.T) {
	kinds := []struct {
		gvr         schema.GroupVersionResource
		kind        string
		spec        map[string]any // the object's content besides metadata
		field       []string       // a field the update and the patch change
		upd, patchd string         // its value after the update, after the patch
	}{
		{schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, "ConfigMap",
			map[string]any{"data": map[string]any{"k": "v0"}}, []string{"data", "k"}, "v1", "v2"},
		{schema.GroupVersionResource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}, "Lease",
			map[string]any{"spec": map[string]any{"holderIdentity": "h0", "leaseDurationSeconds": int64(15)}}, []string{"spec", "holderIdentity"}, "h1", "h2"},
	}
	for _, tg := range startClientTargets(t) {
		t.Run(tg.name, func(t *testing.T) {
			cfg := restConfigFor(t, tg.addr())
			ns := "dyn-" + tg.name
			mustNamespace(t, mustClientset(t, cfg), ns)
			dc, err := dynamic.NewForConfig(cfg)
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range kinds {
				t.Run(k.gvr.Resource, func(t *testing.T) {
					d := &dynamicScenario{rc: dc.Resource(k.gvr).Namespace(ns), apiVersion: k.gvr.GroupVersion().String(),
						kind: k.kind, spec: k.spec, field: k.field}
					d.run(t, k.upd, k.patchd)
				})
			}
		})
	}
}

// dynamicScenario exercises one resource through the dynamic client.
type dynamicScenario struct {
	rc               dynamic.ResourceInterface
	apiVersion, kind string
	spec             map[string]any
	field            []string
}

func (d *dynamicScenario) object(name string) *unstructured.Unstructured {
	obj := map[string]any{"apiVersion": d.apiVersion, "kind": d.kind, "metadata": map[string]any{"name": name}}
	for k, v := range d.spec {
		obj[k] = v
	}
	return &unstructured.Unstructured{Object: obj}
}

func (d *dynamicScenario) value(t *testing.T, u *unstructured.Unstructured) string {
	t.Helper()
	v, _, err := unstructured.NestedString(u.Object, d.field...)
	if err != nil {
		t.Fatalf("%v of %s: %v", d.field, u.GetName(), err)
	}
	return v
}

func (d *dynamicScenario) run(t *testing.T, upd, patched string) {
	// The scenario's object only: a namespace holds others it did not
	// write, such as kube-root-ca.crt.
	only := metav1.ListOptions{FieldSelector: "metadata.name=dyn"}
	list, err := d.rc.List(callCtx(t), only)
	if err != nil {
		t.Fatalf("list: %v", err)
	}
	if list.GetKind() != d.kind+"List" || list.GetAPIVersion() != d.apiVersion {
		t.Errorf("list kind = %s %s, want %sList %s", list.GetAPIVersion(), list.GetKind(), d.kind, d.apiVersion)
	}
	w, err := d.rc.Watch(callCtx(t), metav1.ListOptions{FieldSelector: only.FieldSelector, ResourceVersion: list.GetResourceVersion()})
	if err != nil {
		t.Fatalf("watch: %v", err)
	}
	defer w.Stop()

	created, err := d.rc.Create(callCtx(t), d.object("dyn"), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if ts := created.GetCreationTimestamp(); created.GetUID() == "" || created.GetResourceVersion() == "" || ts.IsZero() {
		t.Errorf("created object lacks uid, resourceVersion or creationTimestamp: %v", created.Object["metadata"])
	}
	got, err := d.rc.Get(callCtx(t), "dyn", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get: %v", err)
	}
	if err := unstructured.SetNestedField(got.Object, upd, d.field...); err != nil {
		t.Fatal(err)
	}
	updated, err := d.rc.Update(callCtx(t), got, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	if v := d.value(t, updated); v != upd {
		t.Errorf("after update %v = %q, want %q", d.field, v, upd)
	}
	patch := `{"` + d.field[0] + `":{"` + d.field[1] + `":"` + patched + `"}}`
	p, err := d.rc.Patch(callCtx(t), "dyn", types.MergePatchType, []byte(patch), metav1.PatchOptions{})
	if err != nil {
		t.Fatalf("merge patch: %v", err)
	}
	if v := d.value(t, p); v != patched {
		t.Errorf("after patch %v = %q, want %q", d.field, v, patched)
	}
	list, err = d.rc.List(callCtx(t), only)
	if err != nil || len(list.Items) != 1 || d.value(t, &list.Items[0]) != patched {
		t.Errorf("list after patch = %v, %v; want the patched object", list, err)
	}
	if err := d.rc.Delete(callCtx(t), "dyn", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if _, err := d.rc.Get(callCtx(t), "dyn", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get after delete: err = %v, want NotFound", err)
	}
	expectEvents(t, w, "dyn", watch.Added, watch.Modified, watch.Modified, watch.Deleted)
}
