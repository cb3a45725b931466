package api_test

import (
	"net/http"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestStatusSubresource checks the status rules on namespaces: writes to
// the resource keep the stored status, writes to /status change only
// status, both record their managedFields, and discovery lists the
// subresources.
func TestStatusSubresource(t *testing.T) {
	tc := newTestCluster(t, 3)
	s := tc.Follower
	// Created with a label of its own: objects whose managedFields are
	// empty are not tracked by later updates, as in kube-apiserver.
	name := "status-subresource"
	path := "/api/v1/namespaces/" + name
	ns := corev1.Namespace{TypeMeta: metav1.TypeMeta{Kind: "Namespace", APIVersion: "v1"}, ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"owner": "test"}}}
	s.do(t, http.MethodPost, "/api/v1/namespaces"+query("fieldManager", "creator"), ns).wantCode(t, http.StatusCreated)
	cond := `{"type":"Example","status":"True","reason":"Test","message":"set through status"}`

	var viaMain corev1.Namespace
	s.do(t, http.MethodPatch, path, `{"metadata":{"labels":{"a":"b"}},"status":{"conditions":[`+cond+`]}}`, contentType("application/merge-patch+json")).wantCode(t, http.StatusOK).decode(t, &viaMain)
	if viaMain.Labels["a"] != "b" || len(viaMain.Status.Conditions) != 0 {
		t.Errorf("patch of the resource: labels %v conditions %v; want the label and no condition", viaMain.Labels, viaMain.Status.Conditions)
	}

	var viaStatus corev1.Namespace
	s.do(t, http.MethodPatch, path+"/status"+query("fieldManager", "status-writer"), `{"metadata":{"labels":{"a":"changed"}},"status":{"conditions":[`+cond+`]}}`, contentType("application/merge-patch+json")).wantCode(t, http.StatusOK).decode(t, &viaStatus)
	if viaStatus.Labels["a"] != "b" || len(viaStatus.Status.Conditions) != 1 || viaStatus.Status.Phase != corev1.NamespaceActive {
		t.Errorf("patch of /status: labels %v status %+v; want labels kept and the condition set", viaStatus.Labels, viaStatus.Status)
	}
	if viaStatus.Generation != viaMain.Generation {
		t.Errorf("a status change moved generation %d → %d", viaMain.Generation, viaStatus.Generation)
	}
	e := managerEntry(&viaStatus, "status-writer")
	if e == nil || e.Subresource != "status" {
		t.Errorf("managedFields entry of the status write: %+v", e)
	}

	var got corev1.Namespace
	s.do(t, http.MethodGet, path+"/status", nil).wantCode(t, http.StatusOK).decode(t, &got)
	if len(got.Status.Conditions) != 1 || got.ResourceVersion != viaStatus.ResourceVersion {
		t.Errorf("GET /status = %+v", got.Status)
	}

	// PUT on the resource with another status keeps the stored one.
	got.Status.Conditions = nil
	got.Labels["c"] = "d"
	var put corev1.Namespace
	s.do(t, http.MethodPut, path, &got).wantCode(t, http.StatusOK).decode(t, &put)
	if len(put.Status.Conditions) != 1 || put.Labels["c"] != "d" {
		t.Errorf("PUT of the resource: status %+v labels %v", put.Status, put.Labels)
	}

	st := s.do(t, http.MethodPatch, path+"/status", `{"status":{"phase":"Terminating"}}`, contentType("application/merge-patch+json")).wantStatus(t, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid)
	wantCause(t, st, metav1.CauseTypeFieldValueInvalid, "status.Phase")
	s.do(t, http.MethodDelete, path+"/status", nil).wantCode(t, http.StatusMethodNotAllowed)

	var list metav1.APIResourceList
	s.do(t, http.MethodGet, "/api/v1", nil).wantCode(t, http.StatusOK).decode(t, &list)
	want := map[string]bool{"namespaces/status": false, "namespaces/finalize": false}
	for _, r := range list.APIResources {
		if _, ok := want[r.Name]; ok {
			want[r.Name] = r.Kind == "Namespace"
		}
	}
	for n, ok := range want {
		if !ok {
			t.Errorf("discovery has no %s of kind Namespace", n)
		}
	}
}

// TestGenerationOnlyOnSpecChange checks metadata.generation as
// kube-apiserver keeps it: a custom resource gets 1 on create and one more
// on a spec change, not on a metadata or status change; a ConfigMap has
// none and gets none from a data change.
func TestGenerationOnlyOnSpecChange(t *testing.T) {
	tc := newTestCluster(t, 1)
	s := tc.Leader
	ns := newNamespace(t, s)
	cm := createCM(t, s, ns, configMap("g", nil, map[string]string{"a": "1"}))
	cm.Data["a"] = "2"
	if cm = updateCM(t, s, cm); cm.Generation != 0 {
		t.Errorf("ConfigMap generation %d after a data change, want none", cm.Generation)
	}

	createCRD(t, s, widgetDefinition(), widgetsPath)
	generation := func(obj map[string]any) any { return obj["metadata"].(map[string]any)["generation"] }
	var got map[string]any
	s.do(t, http.MethodPost, widgetsPath, widget("g", map[string]any{"replicas": 1})).wantCode(t, http.StatusCreated).decode(t, &got)
	if generation(got) != float64(1) {
		t.Fatalf("new custom resource generation %v, want 1", generation(got))
	}
	merge := contentType("application/merge-patch+json")
	for _, step := range []struct {
		what, path, patch string
		want              float64
	}{
		{"a label change", "/g", `{"metadata":{"labels":{"only":"metadata"}}}`, 1},
		{"a status change", "/g/status", `{"status":{"replicas":3}}`, 1},
		{"a spec change", "/g", `{"spec":{"replicas":2}}`, 2},
	} {
		s.do(t, http.MethodPatch, widgetsPath+step.path, step.patch, merge).wantCode(t, http.StatusOK).decode(t, &got)
		if generation(got) != step.want {
			t.Errorf("after %s generation %v, want %v", step.what, generation(got), step.want)
		}
	}
}
