package api_test

import (
	"net/http"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const applyPatch = "application/apply-patch+yaml"

// applyCM is an apply configuration of configmap name with data k1, k2.
func applyCM(name, k1, k2 string) string {
	return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n  labels:\n    app: demo\ndata:\n  k1: " + k1 + "\n  k2: " + k2 + "\n"
}

// managerEntry returns the managedFields entry of manager, or nil.
func managerEntry(m metav1.Object, manager string) *metav1.ManagedFieldsEntry {
	for _, e := range m.GetManagedFields() {
		if e.Manager == manager {
			return &e
		}
	}
	return nil
}

// wantManager fails the test unless m has a managedFields entry of
// manager with the given operation whose fields include each of paths
// (fieldsV1 JSON fragments).
func wantManager(t testing.TB, m metav1.Object, manager string, op metav1.ManagedFieldsOperationType, paths ...string) {
	t.Helper()
	e := managerEntry(m, manager)
	if e == nil {
		t.Fatalf("no managedFields entry for %q in %+v", manager, m.GetManagedFields())
	}
	if e.Operation != op || e.APIVersion != "v1" || e.FieldsType != "FieldsV1" || e.FieldsV1 == nil {
		t.Errorf("entry of %q = %+v, want operation %s on v1 FieldsV1", manager, e, op)
	}
	for _, p := range paths {
		if !strings.Contains(e.FieldsV1.GetRawString(), p) {
			t.Errorf("fields of %q = %s, want %s among them", manager, e.FieldsV1.GetRawString(), p)
		}
	}
}

// TestServerSideApply covers apply patches: create-on-apply, no-op
// re-apply, conflicts with another manager's fields and force, the
// PatchOptions rules, and managedFields kept by every kind of write.
func TestServerSideApply(t *testing.T) {
	tc := newTestCluster(t, 3)
	s := tc.Follower
	ns := newNamespace(t, s)
	apply := func(name, body string, kv ...string) *response {
		return s.do(t, http.MethodPatch, cmPath(ns, name)+query(kv...), body, contentType(applyPatch))
	}

	t.Run("CreatesThenNoOp", func(t *testing.T) {
		var created, again corev1.ConfigMap
		apply("a", applyCM("a", "v1", "v2"), "fieldManager", "alice").wantCode(t, http.StatusCreated).decode(t, &created)
		if created.Data["k1"] != "v1" || created.Labels["app"] != "demo" || created.UID == "" {
			t.Fatalf("created %+v", created)
		}
		wantManager(t, &created, "alice", metav1.ManagedFieldsOperationApply, `"f:k1"`, `"f:app"`)
		apply("a", applyCM("a", "v1", "v2"), "fieldManager", "alice").wantCode(t, http.StatusOK).decode(t, &again)
		if again.ResourceVersion != created.ResourceVersion {
			t.Errorf("re-applying the same configuration moved resourceVersion %s → %s", created.ResourceVersion, again.ResourceVersion)
		}
	})

	t.Run("ConflictThenForce", func(t *testing.T) {
		apply("b", applyCM("b", "v1", "v2"), "fieldManager", "alice").wantCode(t, http.StatusCreated)
		s.do(t, http.MethodPatch, cmPath(ns, "b")+query("fieldManager", "bob"), `{"data":{"k1":"bob"}}`, contentType("application/merge-patch+json")).wantCode(t, http.StatusOK)
		st := apply("b", applyCM("b", "alice", "v2"), "fieldManager", "alice").wantStatus(t, http.StatusConflict, metav1.StatusReasonConflict)
		wantCause(t, st, metav1.CauseTypeFieldManagerConflict, ".data.k1")

		// Co-owning: applying bob's value is no conflict.
		apply("b", applyCM("b", "bob", "v2"), "fieldManager", "alice").wantCode(t, http.StatusOK)

		var forced corev1.ConfigMap
		apply("b", applyCM("b", "alice", "v2"), "fieldManager", "alice", "force", "true").wantCode(t, http.StatusOK).decode(t, &forced)
		if forced.Data["k1"] != "alice" {
			t.Errorf("forced apply: data %v", forced.Data)
		}
		if e := managerEntry(&forced, "bob"); e != nil && strings.Contains(e.FieldsV1.GetRawString(), `"f:k1"`) {
			t.Errorf("bob still owns k1 after a forced apply: %s", e.FieldsV1.GetRawString())
		}
	})

	t.Run("RemovesFieldsTheManagerDropped", func(t *testing.T) {
		apply("c", applyCM("c", "v1", "v2"), "fieldManager", "alice").wantCode(t, http.StatusCreated)
		var cm corev1.ConfigMap
		body := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  k1: v1\n"
		apply("c", body, "fieldManager", "alice").wantCode(t, http.StatusOK).decode(t, &cm)
		if _, ok := cm.Data["k2"]; ok || cm.Labels["app"] != "" {
			t.Errorf("fields alice no longer applies stayed: data %v labels %v", cm.Data, cm.Labels)
		}
	})

	t.Run("PatchOptions", func(t *testing.T) {
		st := apply("d", applyCM("d", "v1", "v2")).wantStatus(t, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid)
		wantCause(t, st, metav1.CauseTypeFieldValueRequired, "fieldManager")
		createCM(t, s, ns, configMap("d", nil, nil))
		st = s.do(t, http.MethodPatch, cmPath(ns, "d")+query("force", "true"), `{"data":{"a":"b"}}`, contentType("application/merge-patch+json")).wantStatus(t, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid)
		wantCause(t, st, metav1.CauseTypeForbidden, "force")
	})

	t.Run("BadConfigurations", func(t *testing.T) {
		apply("e", "a: [b", "fieldManager", "alice").wantStatus(t, http.StatusBadRequest, metav1.StatusReasonBadRequest)
		apply("e", applyCM("other", "v1", "v2"), "fieldManager", "alice").wantStatus(t, http.StatusBadRequest, metav1.StatusReasonBadRequest)
		wrongKind := "apiVersion: v1\nkind: Secret\nmetadata:\n  name: e\n"
		apply("e", wrongKind, "fieldManager", "alice").wantStatus(t, http.StatusBadRequest, metav1.StatusReasonBadRequest)
		withManaged := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: e\n  managedFields:\n  - manager: x\n"
		apply("e", withManaged, "fieldManager", "alice").wantStatus(t, http.StatusBadRequest, metav1.StatusReasonBadRequest)
		s.do(t, http.MethodGet, cmPath(ns, "e"), nil).wantCode(t, http.StatusNotFound)
	})

	t.Run("StaleResourceVersionIsConflict", func(t *testing.T) {
		apply("f", applyCM("f", "v1", "v2"), "fieldManager", "alice").wantCode(t, http.StatusCreated)
		body := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: f\n  resourceVersion: \"1\"\ndata:\n  k1: x\n"
		apply("f", body, "fieldManager", "alice").wantStatus(t, http.StatusConflict, metav1.StatusReasonConflict)
	})
}

// TestManagedFieldsOnEveryWrite checks that create, update and patch
// record an Update entry for the fieldManager, or for the User-Agent's
// product when there is none.
func TestManagedFieldsOnEveryWrite(t *testing.T) {
	tc := newTestCluster(t, 1)
	s := tc.Leader
	ns := newNamespace(t, s)

	var cm corev1.ConfigMap
	s.do(t, http.MethodPost, cmPath(ns)+query("fieldManager", "creator"), configMap("m", nil, map[string]string{"a": "1"})).wantCode(t, http.StatusCreated).decode(t, &cm)
	wantManager(t, &cm, "creator", metav1.ManagedFieldsOperationUpdate, `"f:a"`)

	cm.Data["b"] = "2"
	var updated corev1.ConfigMap
	s.do(t, http.MethodPut, cmPath(ns, "m"), &cm, header{"User-Agent", "my-controller/v1.2 (linux)"}).wantCode(t, http.StatusOK).decode(t, &updated)
	wantManager(t, &updated, "my-controller", metav1.ManagedFieldsOperationUpdate, `"f:b"`)
	if e := managerEntry(&updated, "creator"); e == nil || strings.Contains(e.FieldsV1.GetRawString(), `"f:b"`) {
		t.Errorf("creator's entry after another manager's update: %+v", e)
	}

	var patched corev1.ConfigMap
	s.do(t, http.MethodPatch, cmPath(ns, "m")+query("fieldManager", "patcher"), `{"metadata":{"labels":{"l":"v"}}}`, contentType("application/strategic-merge-patch+json")).wantCode(t, http.StatusOK).decode(t, &patched)
	wantManager(t, &patched, "patcher", metav1.ManagedFieldsOperationUpdate, `"f:l"`)
}
