package api_test

import (
	"net/http"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestDryRunLeavesNoTrace sends every mutating verb with dryRun=All: each
// answers what would have been stored (and its errors), the stored object
// and its resourceVersion stay as they were, and a watch sees nothing
// until a real write follows.
func TestDryRunLeavesNoTrace(t *testing.T) {
	tc := newTestCluster(t, 3)
	s := tc.Follower
	ns := newNamespace(t, s)
	cm := createCM(t, s, ns, configMap("dry", map[string]string{"a": "1"}, map[string]string{"k": "v"}))
	w := watch(t, s, watchPath(ns, "resourceVersion", cm.ResourceVersion))
	dry := query("dryRun", "All", "fieldManager", "dry")

	var created corev1.ConfigMap
	s.do(t, http.MethodPost, cmPath(ns)+dry, configMap("new", nil, nil)).wantCode(t, http.StatusCreated).decode(t, &created)
	if created.UID == "" || created.CreationTimestamp.IsZero() {
		t.Errorf("dry-run create did not answer the object as it would be stored: %+v", created.ObjectMeta)
	}
	s.do(t, http.MethodPost, cmPath(ns)+dry, configMap("dry", nil, nil)).wantStatus(t, http.StatusConflict, metav1.StatusReasonAlreadyExists)
	s.do(t, http.MethodPost, cmPath(ns)+dry, configMap("Not_Valid", nil, nil)).wantStatus(t, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid)

	changed := cm.DeepCopy()
	changed.Data["k"] = "changed"
	var updated corev1.ConfigMap
	s.do(t, http.MethodPut, cmPath(ns, "dry")+dry, changed).wantCode(t, http.StatusOK).decode(t, &updated)
	if updated.Data["k"] != "changed" {
		t.Errorf("dry-run update answered %v", updated.Data)
	}
	stale := changed.DeepCopy()
	stale.ResourceVersion = "1"
	s.do(t, http.MethodPut, cmPath(ns, "dry")+dry, stale).wantStatus(t, http.StatusConflict, metav1.StatusReasonConflict)

	s.do(t, http.MethodPatch, cmPath(ns, "dry")+dry, `{"data":{"k":"patched"}}`, contentType("application/merge-patch+json")).wantCode(t, http.StatusOK)
	s.do(t, http.MethodPatch, cmPath(ns, "dry")+dry, applyCM("dry", "applied", "x"), contentType(applyPatch)).wantCode(t, http.StatusOK)
	s.do(t, http.MethodPatch, cmPath(ns, "applied-new")+dry, applyCM("applied-new", "a", "b"), contentType(applyPatch)).wantCode(t, http.StatusCreated)
	s.do(t, http.MethodDelete, cmPath(ns, "dry")+dry, nil).wantCode(t, http.StatusOK)
	s.do(t, http.MethodDelete, cmPath(ns, "dry"), metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}}).wantCode(t, http.StatusOK)
	s.do(t, http.MethodDelete, cmPath(ns)+dry, nil).wantCode(t, http.StatusOK)

	var now corev1.ConfigMap
	s.do(t, http.MethodGet, cmPath(ns, "dry"), nil).wantCode(t, http.StatusOK).decode(t, &now)
	if now.ResourceVersion != cm.ResourceVersion || now.Data["k"] != "v" {
		t.Errorf("after dry runs: resourceVersion %s data %v, want %s and the original data", now.ResourceVersion, now.Data, cm.ResourceVersion)
	}
	for _, name := range []string{"new", "applied-new"} {
		s.do(t, http.MethodGet, cmPath(ns, name), nil).wantCode(t, http.StatusNotFound)
	}

	// The first event the watch sees is the real write that follows.
	createCM(t, s, ns, configMap("real", nil, nil))
	w.wantEvents(t, "ADDED real")
}
