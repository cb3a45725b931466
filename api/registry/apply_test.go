package registry_test

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/raftapi/raftapi/api/registry"
)

// applyConfig is an apply configuration of configmap name with data k=v.
func applyConfig(name, k, v string) string {
	return fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\ndata:\n  %s: %s\n", name, k, v)
}

// apply applies body to default/name as manager.
func apply(t *testing.T, s *registry.Store, name, body, manager string, force bool) (registry.Result, error) {
	t.Helper()
	opts := registry.WriteOptions{FieldManager: manager, Manager: manager, Force: force}
	return s.Patch(testContext(t), metav1.NamespaceDefault, name, types.ApplyPatchType, []byte(body), opts)
}

func mustApply(t *testing.T, s *registry.Store, name, body, manager string, force bool) (registry.Result, *corev1.ConfigMap) {
	t.Helper()
	r, err := apply(t, s, name, body, manager, force)
	if err != nil {
		t.Fatalf("apply as %s: %v", manager, err)
	}
	return r, decode[corev1.ConfigMap](t, r.Data)
}

func TestApplyCreates(t *testing.T) {
	f := newFixture(t)
	s := f.configMaps(t)
	r, created := mustApply(t, s, "a", applyConfig("a", "k", "v"), "alice", false)
	if !r.Created {
		t.Error("apply of a missing object: Created false, want true")
	}
	if created.Data["k"] != "v" || created.UID == "" || created.Generation != 0 || created.Namespace != metav1.NamespaceDefault {
		t.Errorf("created %+v", created)
	}
	wantManaged(t, created, "alice", metav1.ManagedFieldsOperationApply, `"f:k"`)
	if stored := getConfigMap(t, s, "a"); stored == nil || stored.ResourceVersion != created.ResourceVersion {
		t.Fatalf("stored %+v, want the created object", stored)
	}

	before := f.storage.Revision()
	r, again := mustApply(t, s, "a", applyConfig("a", "k", "v"), "alice", false)
	if r.Created || again.ResourceVersion != created.ResourceVersion || f.storage.Revision() != before {
		t.Errorf("re-apply: Created %v, resourceVersion %s → %s; want an unchanged object", r.Created, created.ResourceVersion, again.ResourceVersion)
	}
}

func TestApplyConflictAndForce(t *testing.T) {
	s := newFixture(t).configMaps(t)
	mustApply(t, s, "a", applyConfig("a", "k", "alice"), "alice", false)

	_, err := apply(t, s, "a", applyConfig("a", "k", "bob"), "bob", false)
	se := wantStatus(t, err, 409, metav1.StatusReasonConflict)
	wantCause(t, se, metav1.CauseTypeFieldManagerConflict, ".data.k")
	if got := getConfigMap(t, s, "a"); got.Data["k"] != "alice" {
		t.Fatalf("a conflicting apply changed data to %v", got.Data)
	}

	// Applying the value alice set is no conflict: bob co-owns it.
	mustApply(t, s, "a", applyConfig("a", "k", "alice"), "bob", false)

	_, forced := mustApply(t, s, "a", applyConfig("a", "k", "bob"), "bob", true)
	if forced.Data["k"] != "bob" {
		t.Errorf("forced apply: data %v, want k=bob", forced.Data)
	}
	wantManaged(t, forced, "bob", metav1.ManagedFieldsOperationApply, `"f:k"`)
	if e := managedEntry(forced, "alice", metav1.ManagedFieldsOperationApply); e != nil {
		t.Errorf("alice still manages %s after bob forced", e.FieldsV1.GetRawString())
	}
}

func TestApplyOptions(t *testing.T) {
	tests := []struct {
		name  string
		pt    types.PatchType
		opts  registry.WriteOptions
		field string
		cause metav1.CauseType
	}{
		{"apply without fieldManager", types.ApplyPatchType, registry.WriteOptions{Manager: "ua"},
			"fieldManager", metav1.CauseTypeFieldValueRequired},
		{"force on a merge patch", types.MergePatchType, registry.WriteOptions{FieldManager: "m", Manager: "m", Force: true},
			"force", metav1.CauseTypeForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			before := f.storage.Revision()
			_, err := f.configMaps(t).Patch(testContext(t), metav1.NamespaceDefault, "a", tt.pt, []byte(`{"data":{"k":"v"}}`), tt.opts)
			se := wantStatus(t, err, 422, metav1.StatusReasonInvalid)
			wantCause(t, se, tt.cause, tt.field)
			if d := se.ErrStatus.Details; d.Kind != "PatchOptions" {
				t.Errorf("details kind %q, want PatchOptions", d.Kind)
			}
			if f.storage.Revision() != before {
				t.Error("a refused apply wrote")
			}
		})
	}
}
