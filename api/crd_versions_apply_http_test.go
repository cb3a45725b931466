package api_test

import (
	"net/http"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestApplyAcrossVersions: server-side apply through two versions of one
// custom resource keeps each manager's fields, recorded in its own
// version, and a conflict between managers of different versions is a
// conflict, as kube-apiserver converts managedFields between versions.
func TestApplyAcrossVersions(t *testing.T) {
	tc := newTestCluster(t, 1)
	s := tc.Leader
	def := widgetDefinition()
	spec := def["spec"].(map[string]any)
	v1 := spec["versions"].([]any)[0].(map[string]any)
	beta := map[string]any{"name": "v1beta1", "served": true, "storage": false}
	for _, k := range []string{"schema", "subresources", "additionalPrinterColumns", "selectableFields"} {
		beta[k] = v1[k]
	}
	spec["versions"] = []any{beta, v1}
	createCRD(t, s, def, widgetsPath)
	betaPath := "/apis/" + widgetGroup + "/v1beta1/namespaces/default/widgets"
	apply := func(path, version, manager, body string, kv ...string) *response {
		cfg := "apiVersion: " + widgetGroup + "/" + version + "\nkind: Widget\nmetadata:\n  name: shared\nspec:\n" + body
		return s.do(t, http.MethodPatch, path+"/shared"+query(append([]string{"fieldManager", manager}, kv...)...), cfg, contentType(applyPatch))
	}
	apply(betaPath, "v1beta1", "alice", "  color: red\n").wantCode(t, http.StatusCreated)
	apply(widgetsPath, "v1", "bob", "  replicas: 2\n").wantCode(t, http.StatusOK)

	var w struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
	}
	s.do(t, http.MethodGet, widgetsPath+"/shared", nil).wantCode(t, http.StatusOK).decode(t, &w)
	alice, bob := managerEntry(&w.Metadata, "alice"), managerEntry(&w.Metadata, "bob")
	if alice == nil || alice.APIVersion != widgetGroup+"/v1beta1" || !strings.Contains(alice.FieldsV1.GetRawString(), `"f:color"`) {
		t.Fatalf("alice's entry after bob's apply through v1 = %+v, want her v1beta1 fields kept", alice)
	}
	if bob == nil || bob.APIVersion != widgetGroup+"/v1" {
		t.Fatalf("bob's entry = %+v, want v1", bob)
	}

	r := apply(widgetsPath, "v1", "bob", "  replicas: 2\n  color: green\n")
	r.wantCode(t, http.StatusConflict)
	if !strings.Contains(string(r.Body), `conflict with \"alice\"`) {
		t.Errorf("conflict = %s, want it to name alice", string(r.Body))
	}
	apply(widgetsPath, "v1", "bob", "  replicas: 2\n  color: green\n", "force", "true").wantCode(t, http.StatusOK)
}
