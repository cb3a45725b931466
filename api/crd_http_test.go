package api_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/raftapi/raftapi/api"
	"github.com/raftapi/raftapi/raftstore"
	"github.com/raftapi/raftapi/raftstore/storetest"
)

// The CRD of these tests: namespaced widgets in crd.raftapi.io with a
// status and a scale subresource, a default, a pattern, a minimum, a CEL
// rule, a list-map, printer columns and a selectable field.
const (
	widgetGroup = "crd.raftapi.io"
	widgetCRD   = "widgets." + widgetGroup
	widgetsPath = "/apis/" + widgetGroup + "/v1/namespaces/default/widgets"
	crdsPath    = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
)

func widgetDefinition() map[string]any {
	return map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": widgetCRD},
		"spec": map[string]any{
			"group": widgetGroup, "scope": "Namespaced",
			"names": map[string]any{"plural": "widgets", "singular": "widget", "kind": "Widget", "shortNames": []string{"wd"}, "categories": []string{"all"}},
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"subresources": map[string]any{
					"status": map[string]any{},
					"scale":  map[string]any{"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"},
				},
				"additionalPrinterColumns": []any{
					map[string]any{"name": "Color", "type": "string", "jsonPath": ".spec.color"},
					map[string]any{"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas", "priority": 1},
				},
				"selectableFields": []any{map[string]any{"jsonPath": ".spec.color"}},
				"schema": map[string]any{"openAPIV3Schema": map[string]any{
					"type": "object", "description": "A Widget is a test object.",
					"properties": map[string]any{
						"spec": map[string]any{
							"type": "object", "description": "What the widget should be.",
							"x-kubernetes-validations": []any{map[string]any{"rule": "!has(self.replicas) || self.replicas <= 10", "message": "at most 10 replicas"}},
							"properties": map[string]any{
								"color":    map[string]any{"type": "string", "default": "blue", "pattern": "^[a-z]+$"},
								"replicas": map[string]any{"type": "integer", "minimum": 0},
								"ports": map[string]any{
									"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": []string{"name"},
									"items": map[string]any{"type": "object", "required": []string{"name"},
										"properties": map[string]any{"name": map[string]any{"type": "string"}, "port": map[string]any{"type": "integer"}}},
								},
							},
						},
						"status": map[string]any{"type": "object", "properties": map[string]any{"replicas": map[string]any{"type": "integer"}}},
					},
				}},
			}},
		},
	}
}

func widget(name string, spec map[string]any) map[string]any {
	return map[string]any{"apiVersion": widgetGroup + "/v1", "kind": "Widget", "metadata": map[string]any{"name": name}, "spec": spec}
}

// createCRD creates def on s and waits until every server serves its
// resource at path.
func createCRD(t *testing.T, s *testServer, def map[string]any, path string, servers ...*testServer) {
	t.Helper()
	s.do(t, http.MethodPost, crdsPath, def).wantCode(t, http.StatusCreated)
	for _, srv := range append(servers, s) {
		waitFor(t, "serving "+path, func() bool { return srv.do(t, http.MethodGet, path, nil).Code == http.StatusOK })
	}
}

// getCRD returns the stored CRD called name.
func getCRD(t *testing.T, s *testServer, name string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	crd := &apiextensionsv1.CustomResourceDefinition{}
	s.do(t, http.MethodGet, crdsPath+"/"+name, nil).wantCode(t, http.StatusOK).decode(t, crd)
	return crd
}

func condition(crd *apiextensionsv1.CustomResourceDefinition, typ apiextensionsv1.CustomResourceDefinitionConditionType) apiextensionsv1.CustomResourceDefinitionCondition {
	for _, c := range crd.Status.Conditions {
		if c.Type == typ {
			return c
		}
	}
	return apiextensionsv1.CustomResourceDefinitionCondition{}
}

// TestCustomResourcesOnEveryNode creates a CRD through the leader and
// uses its resource through a follower: established with kube's
// conditions, defaulted, pruned, validated, with its subresources.
func TestCustomResourcesOnEveryNode(t *testing.T) {
	tc := newTestCluster(t, 3)
	l, f := tc.Leader, tc.Follower
	createCRD(t, l, widgetDefinition(), widgetsPath, f)

	crd := getCRD(t, f, widgetCRD)
	if c := condition(crd, apiextensionsv1.Established); c.Status != apiextensionsv1.ConditionTrue || c.Reason != "InitialNamesAccepted" {
		t.Errorf("Established = %+v, want True InitialNamesAccepted", c)
	}
	if c := condition(crd, apiextensionsv1.NamesAccepted); c.Status != apiextensionsv1.ConditionTrue || c.Reason != "NoConflicts" {
		t.Errorf("NamesAccepted = %+v, want True NoConflicts", c)
	}
	if crd.Status.AcceptedNames.Plural != "widgets" || len(crd.Status.StoredVersions) != 1 || crd.Status.StoredVersions[0] != "v1" {
		t.Errorf("status = %+v, want accepted plural widgets and storedVersions [v1]", crd.Status)
	}

	t.Run("discovery", func(t *testing.T) {
		var list metav1.APIResourceList
		f.do(t, http.MethodGet, "/apis/"+widgetGroup+"/v1", nil).wantCode(t, http.StatusOK).decode(t, &list)
		byName := map[string]metav1.APIResource{}
		for _, r := range list.APIResources {
			byName[r.Name] = r
		}
		if w := byName["widgets"]; w.Kind != "Widget" || !w.Namespaced || len(w.ShortNames) != 1 || w.ShortNames[0] != "wd" || len(w.Categories) != 1 || w.Categories[0] != "all" {
			t.Errorf("widgets in discovery = %+v, want kind Widget, namespaced, short name wd, category all", w)
		}
		if sc := byName["widgets/scale"]; sc.Group != "autoscaling" || sc.Version != "v1" || sc.Kind != "Scale" {
			t.Errorf("widgets/scale in discovery = %+v, want autoscaling/v1 Scale", sc)
		}
	})

	t.Run("defaulted and pruned", func(t *testing.T) {
		r := f.do(t, http.MethodPost, widgetsPath+"?fieldValidation=Warn", widget("w1", map[string]any{"replicas": 2, "extra": true})).wantCode(t, http.StatusCreated)
		if w := r.Header.Get("Warning"); !strings.Contains(w, `unknown field \"spec.extra\"`) {
			t.Errorf("Warning header %q, want the unknown field spec.extra", w)
		}
		var got map[string]any
		r.decode(t, &got)
		spec := got["spec"].(map[string]any)
		if spec["color"] != "blue" || spec["extra"] != nil {
			t.Errorf("spec = %v, want color defaulted to blue and extra pruned", spec)
		}
		st := f.do(t, http.MethodPost, widgetsPath+"?fieldValidation=Strict", widget("w2", map[string]any{"extra": 1})).wantStatus(t, http.StatusBadRequest, metav1.StatusReasonBadRequest)
		if !strings.Contains(st.Message, `Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.extra"`) {
			t.Errorf("Strict message %q, want kube's naming the kind and the unknown field", st.Message)
		}
	})

	t.Run("schema and CEL validation", func(t *testing.T) {
		st := f.do(t, http.MethodPost, widgetsPath, widget("bad", map[string]any{"replicas": -1, "color": "Red"})).wantStatus(t, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid)
		wantCause(t, st, metav1.CauseTypeFieldValueInvalid, "spec.replicas")
		wantCause(t, st, metav1.CauseTypeFieldValueInvalid, "spec.color")
		st = f.do(t, http.MethodPost, widgetsPath, widget("bad", map[string]any{"replicas": 11})).wantStatus(t, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid)
		if !strings.Contains(st.Message, "at most 10 replicas") {
			t.Errorf("CEL message %q, want the rule's message", st.Message)
		}
		wantCause(t, st, metav1.CauseTypeFieldValueInvalid, "spec")
		f.do(t, http.MethodPatch, widgetsPath+"/w1", `{"spec":{"color":"red"}}`, contentType("application/strategic-merge-patch+json")).
			wantStatus(t, http.StatusUnsupportedMediaType, metav1.StatusReasonUnsupportedMediaType)
	})

	t.Run("status and scale subresources", func(t *testing.T) {
		var w map[string]any
		f.do(t, http.MethodPatch, widgetsPath+"/w1", `{"spec":{"color":"green"},"status":{"replicas":9}}`, contentType("application/merge-patch+json")).wantCode(t, http.StatusOK).decode(t, &w)
		if w["status"] != nil || w["metadata"].(map[string]any)["generation"] != float64(2) {
			t.Errorf("main resource patch = %v, want status ignored and generation 2", w)
		}
		f.do(t, http.MethodPatch, widgetsPath+"/w1/status", `{"spec":{"color":"pink"},"status":{"replicas":3}}`, contentType("application/merge-patch+json")).wantCode(t, http.StatusOK).decode(t, &w)
		if w["spec"].(map[string]any)["color"] != "green" || w["status"].(map[string]any)["replicas"] != float64(3) || w["metadata"].(map[string]any)["generation"] != float64(2) {
			t.Errorf("status patch = %v, want spec kept, status.replicas 3, generation 2", w)
		}
		var scale map[string]any
		f.do(t, http.MethodGet, widgetsPath+"/w1/scale", nil).wantCode(t, http.StatusOK).decode(t, &scale)
		if scale["kind"] != "Scale" || scale["apiVersion"] != "autoscaling/v1" || scale["spec"].(map[string]any)["replicas"] != float64(2) || scale["status"].(map[string]any)["replicas"] != float64(3) {
			t.Fatalf("scale = %v, want autoscaling/v1 Scale with spec 2, status 3", scale)
		}
		scale["spec"] = map[string]any{"replicas": 4}
		var scaled map[string]any
		f.do(t, http.MethodPut, widgetsPath+"/w1/scale", scale).wantCode(t, http.StatusOK).decode(t, &scaled)
		if scaled["spec"].(map[string]any)["replicas"] != float64(4) {
			t.Errorf("PUT scale = %v, want spec.replicas 4", scaled)
		}
		f.do(t, http.MethodPut, widgetsPath+"/w1/scale", scale).wantStatus(t, http.StatusConflict, metav1.StatusReasonConflict)
		f.do(t, http.MethodPatch, widgetsPath+"/w1/scale", `{"spec":{"replicas":20}}`, contentType("application/merge-patch+json")).
			wantStatus(t, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid)
		f.do(t, http.MethodGet, widgetsPath+"/w1", nil).decode(t, &w)
		if w["spec"].(map[string]any)["replicas"] != float64(4) {
			t.Errorf("widget after scale = %v, want spec.replicas 4", w["spec"])
		}
	})

	t.Run("table and selectors", func(t *testing.T) {
		var table metav1.Table
		f.do(t, http.MethodGet, widgetsPath+"?fieldSelector=spec.color%3Dgreen", nil, accept("application/json;as=Table;v=v1;g=meta.k8s.io")).wantCode(t, http.StatusOK).decode(t, &table)
		var names []string
		for _, c := range table.ColumnDefinitions {
			names = append(names, c.Name)
		}
		if strings.Join(names, ",") != "Name,Color,Replicas" || table.ColumnDefinitions[2].Priority != 1 {
			t.Errorf("columns %v, want Name,Color,Replicas(priority 1): no Age unless the CRD names one", names)
		}
		if len(table.Rows) != 1 || table.Rows[0].Cells[0] != "w1" || table.Rows[0].Cells[1] != "green" || table.Rows[0].Cells[2] != float64(4) {
			t.Errorf("rows %+v, want w1 green 4", table.Rows)
		}
		var list map[string]any
		f.do(t, http.MethodGet, widgetsPath+"?fieldSelector=spec.color%3Dblue", nil).wantCode(t, http.StatusOK).decode(t, &list)
		if items := list["items"].([]any); len(items) != 0 {
			t.Errorf("field selector spec.color=blue listed %d widgets, want 0", len(items))
		}
		f.do(t, http.MethodGet, widgetsPath+"?fieldSelector=spec.size%3D1", nil).wantStatus(t, http.StatusBadRequest, metav1.StatusReasonBadRequest)
	})

	t.Run("delete the definition", func(t *testing.T) {
		f.do(t, http.MethodDelete, crdsPath+"/"+widgetCRD, nil).wantCode(t, http.StatusOK)
		waitFor(t, "the CRD to go", func() bool { return l.do(t, http.MethodGet, crdsPath+"/"+widgetCRD, nil).Code == http.StatusNotFound })
		for _, s := range []*testServer{l, f} {
			waitFor(t, "the widgets path to go", func() bool { return s.do(t, http.MethodGet, widgetsPath, nil).Code == http.StatusNotFound })
			if body := string(s.do(t, http.MethodGet, "/apis", nil).Body); strings.Contains(body, widgetGroup) {
				t.Errorf("discovery still lists %s after the CRD is gone", widgetGroup)
			}
		}
		createCRD(t, l, widgetDefinition(), widgetsPath, f)
		var list map[string]any
		f.do(t, http.MethodGet, widgetsPath, nil).wantCode(t, http.StatusOK).decode(t, &list)
		if items := list["items"].([]any); len(items) != 0 {
			t.Errorf("a re-created CRD serves %d old instances, want 0", len(items))
		}
	})
}

// TestCRDTerminatingHoldsCreates deletes a CRD whose instance a finalizer
// holds: the CRD stays Terminating, new instances are refused with 403,
// and once the finalizer goes both go.
func TestCRDTerminatingHoldsCreates(t *testing.T) {
	tc := newTestCluster(t, 1)
	s := tc.Leader
	createCRD(t, s, widgetDefinition(), widgetsPath)
	w := widget("held", map[string]any{})
	w["metadata"].(map[string]any)["finalizers"] = []string{"example.com/hold"}
	s.do(t, http.MethodPost, widgetsPath, w).wantCode(t, http.StatusCreated)
	s.do(t, http.MethodDelete, crdsPath+"/"+widgetCRD, nil).wantCode(t, http.StatusOK)

	waitFor(t, "deletion in progress", func() bool {
		c := condition(getCRD(t, s, widgetCRD), apiextensionsv1.Terminating)
		return c.Status == apiextensionsv1.ConditionTrue && c.Reason == "InstanceDeletionInProgress"
	})
	crd := getCRD(t, s, widgetCRD)
	if len(crd.Finalizers) != 1 || crd.Finalizers[0] != apiextensionsv1.CustomResourceCleanupFinalizer || crd.DeletionTimestamp == nil {
		t.Errorf("terminating CRD metadata = %+v, want the cleanup finalizer and a deletionTimestamp", crd.ObjectMeta)
	}
	waitFor(t, "creates refused", func() bool {
		return s.do(t, http.MethodPost, widgetsPath, widget("late", map[string]any{})).Code == http.StatusForbidden
	})
	st := s.do(t, http.MethodPost, widgetsPath, widget("late", map[string]any{})).wantStatus(t, http.StatusForbidden, metav1.StatusReasonForbidden)
	if !strings.Contains(st.Message, "create not allowed while custom resource definition is terminating") {
		t.Errorf("message %q, want kube's", st.Message)
	}
	s.do(t, http.MethodPatch, widgetsPath+"/held", `{"metadata":{"finalizers":null}}`, contentType("application/merge-patch+json")).wantCode(t, http.StatusOK)
	waitFor(t, "the CRD to go", func() bool { return s.do(t, http.MethodGet, crdsPath+"/"+widgetCRD, nil).Code == http.StatusNotFound })
}

// TestCRDNameConflict refuses the names of a second CRD of the group that
// asks for a kind already accepted: NamesAccepted False, not served.
func TestCRDNameConflict(t *testing.T) {
	tc := newTestCluster(t, 1)
	s := tc.Leader
	createCRD(t, s, widgetDefinition(), widgetsPath)
	other := widgetDefinition()
	other["metadata"] = map[string]any{"name": "gadgets." + widgetGroup}
	spec := other["spec"].(map[string]any)
	spec["names"] = map[string]any{"plural": "gadgets", "singular": "gadget", "kind": "Widget", "shortNames": []string{"wd"}}
	s.do(t, http.MethodPost, crdsPath, other).wantCode(t, http.StatusCreated)
	waitFor(t, "names refused", func() bool {
		c := condition(getCRD(t, s, "gadgets."+widgetGroup), apiextensionsv1.NamesAccepted)
		return c.Status == apiextensionsv1.ConditionFalse
	})
	crd := getCRD(t, s, "gadgets."+widgetGroup)
	if c := condition(crd, apiextensionsv1.Established); c.Status == apiextensionsv1.ConditionTrue {
		t.Errorf("a CRD whose names conflict is Established: %+v", c)
	}
	if c := condition(crd, apiextensionsv1.NamesAccepted); !strings.Contains(c.Message, "is already in use") {
		t.Errorf("NamesAccepted message %q, want \"... is already in use\"", c.Message)
	}
	s.do(t, http.MethodGet, "/apis/"+widgetGroup+"/v1/namespaces/default/gadgets", nil).wantCode(t, http.StatusNotFound)
}

// TestCRDSchemaChange changes a served schema: objects stored before a
// default existed read with it, the new rules apply to new writes, and a
// version no longer served is gone.
func TestCRDSchemaChange(t *testing.T) {
	tc := newTestCluster(t, 1)
	s := tc.Leader
	createCRD(t, s, widgetDefinition(), widgetsPath)
	s.do(t, http.MethodPost, widgetsPath, widget("old", map[string]any{"replicas": 1})).wantCode(t, http.StatusCreated)

	crd := getCRD(t, s, widgetCRD)
	props := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
	props.Properties["shape"] = apiextensionsv1.JSONSchemaProps{Type: "string", Default: &apiextensionsv1.JSON{Raw: []byte(`"round"`)}}
	props.Properties["replicas"] = apiextensionsv1.JSONSchemaProps{Type: "integer", Maximum: ptrFloat(5)}
	crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = props
	s.do(t, http.MethodPut, crdsPath+"/"+widgetCRD, crd).wantCode(t, http.StatusOK)

	waitFor(t, "the default on read", func() bool {
		var w map[string]any
		s.do(t, http.MethodGet, widgetsPath+"/old", nil).decode(t, &w)
		return w["spec"].(map[string]any)["shape"] == "round"
	})
	st := s.do(t, http.MethodPost, widgetsPath, widget("new", map[string]any{"replicas": 6})).wantStatus(t, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid)
	wantCause(t, st, metav1.CauseTypeFieldValueInvalid, "spec.replicas")

	crd = getCRD(t, s, widgetCRD)
	crd.Spec.Versions[0].Served = false
	s.do(t, http.MethodPut, crdsPath+"/"+widgetCRD, crd).wantCode(t, http.StatusOK)
	waitFor(t, "v1 no longer served", func() bool { return s.do(t, http.MethodGet, widgetsPath, nil).Code == http.StatusNotFound })
}

// TestCRDValidation refuses a CRD kube-apiserver refuses, with its
// messages and fields.
func TestCRDValidation(t *testing.T) {
	tc := newTestCluster(t, 1)
	s := tc.Leader
	bad := widgetDefinition()
	bad["metadata"] = map[string]any{"name": "widgets.other.io"}
	st := s.do(t, http.MethodPost, crdsPath, bad).wantStatus(t, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid)
	wantCause(t, st, metav1.CauseTypeFieldValueInvalid, "metadata.name")
	if !strings.Contains(st.Message, `must be spec.names.plural+"."+spec.group`) {
		t.Errorf("message %q, want kube's name rule", st.Message)
	}
	bad = widgetDefinition()
	v := bad["spec"].(map[string]any)["versions"].([]any)[0].(map[string]any)
	v["schema"] = map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "properties": map[string]any{"spec": map[string]any{"description": "no type"}}}}
	st = s.do(t, http.MethodPost, crdsPath, bad).wantStatus(t, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid)
	wantCause(t, st, metav1.CauseTypeFieldValueRequired, "spec.validation.openAPIV3Schema.properties[spec].type")
}

// TestCustomResourceOpenAPI publishes a CR's schema in both documents.
func TestCustomResourceOpenAPI(t *testing.T) {
	tc := newTestCluster(t, 1)
	s := tc.Leader
	createCRD(t, s, widgetDefinition(), widgetsPath)
	const name = "io.raftapi.crd.v1.Widget"
	var v3 struct {
		Components struct {
			Schemas map[string]json.RawMessage `json:"schemas"`
		} `json:"components"`
	}
	waitFor(t, "the v3 document", func() bool {
		r := s.do(t, http.MethodGet, "/openapi/v3/apis/"+widgetGroup+"/v1", nil)
		return r.Code == http.StatusOK && r.tryDecode(&v3) && v3.Components.Schemas[name] != nil
	})
	doc := string(v3.Components.Schemas[name])
	for _, want := range []string{"What the widget should be.", `"x-kubernetes-list-type":"map"`, `"x-kubernetes-group-version-kind"`, `"metadata"`} {
		if !strings.Contains(doc, want) {
			t.Errorf("v3 schema of %s lacks %s: %s", name, want, doc)
		}
	}
	var v2 struct {
		Definitions map[string]json.RawMessage `json:"definitions"`
	}
	s.do(t, http.MethodGet, "/openapi/v2", nil).wantCode(t, http.StatusOK).decode(t, &v2)
	if d := string(v2.Definitions[name]); !strings.Contains(d, "What the widget should be.") || strings.Contains(d, "pattern") || strings.Contains(d, "minimum") {
		t.Errorf("v2 definition of %s = %s, want the descriptions without value validations", name, d)
	}

	// The CRD type is described as kube describes it.
	if body := string(s.do(t, http.MethodGet, "/openapi/v3/apis/apiextensions.k8s.io/v1", nil).wantCode(t, http.StatusOK).Body); !strings.Contains(body, "CustomResourceDefinitionSpec describes how a user wants their resource to appear") {
		t.Error("the apiextensions.k8s.io/v1 document lacks the descriptions of the CRD type")
	}

	// A kind that keeps unknown fields is a bare object in Swagger 2.0.
	loose := widgetDefinition()
	loose["metadata"] = map[string]any{"name": "gadgets." + widgetGroup}
	spec := loose["spec"].(map[string]any)
	spec["names"] = map[string]any{"plural": "gadgets", "singular": "gadget", "kind": "Gadget"}
	spec["versions"] = []any{map[string]any{"name": "v1", "served": true, "storage": true, "schema": map[string]any{
		"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}}
	createCRD(t, s, loose, "/apis/"+widgetGroup+"/v1/namespaces/default/gadgets")
	waitFor(t, "the gadget in the v2 document", func() bool {
		s.do(t, http.MethodGet, "/openapi/v2", nil).wantCode(t, http.StatusOK).decode(t, &v2)
		return v2.Definitions["io.raftapi.crd.v1.Gadget"] != nil
	})
	if d := string(v2.Definitions["io.raftapi.crd.v1.Gadget"]); strings.Contains(d, "properties") || !strings.Contains(d, `"type":"object"`) {
		t.Errorf("v2 definition of a kind keeping unknown fields = %s, want a bare object", d)
	}
}

// TestCustomResourceGarbageCollection deletes owners across custom and
// built-in resources: a ConfigMap owned by a widget and a widget owned
// by a ConfigMap go with their owners.
func TestCustomResourceGarbageCollection(t *testing.T) {
	tc := newTestCluster(t, 1)
	s := tc.Leader
	createCRD(t, s, widgetDefinition(), widgetsPath)
	var owner map[string]any
	s.do(t, http.MethodPost, widgetsPath, widget("owner", map[string]any{})).wantCode(t, http.StatusCreated).decode(t, &owner)
	uid := owner["metadata"].(map[string]any)["uid"]
	cm := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "owned",
		"ownerReferences": []any{map[string]any{"apiVersion": widgetGroup + "/v1", "kind": "Widget", "name": "owner", "uid": uid}}}}
	var cmOut map[string]any
	s.do(t, http.MethodPost, "/api/v1/namespaces/default/configmaps", cm).wantCode(t, http.StatusCreated).decode(t, &cmOut)
	w := widget("owned", map[string]any{})
	w["metadata"].(map[string]any)["ownerReferences"] = []any{map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": "owned", "uid": cmOut["metadata"].(map[string]any)["uid"]}}
	s.do(t, http.MethodPost, widgetsPath, w).wantCode(t, http.StatusCreated)

	s.do(t, http.MethodDelete, widgetsPath+"/owner", nil).wantCode(t, http.StatusOK)
	waitFor(t, "the owned ConfigMap to go", func() bool {
		return s.do(t, http.MethodGet, "/api/v1/namespaces/default/configmaps/owned", nil).Code == http.StatusNotFound
	})
	waitFor(t, "the owned widget to go", func() bool {
		return s.do(t, http.MethodGet, widgetsPath+"/owned", nil).Code == http.StatusNotFound
	})
}

func ptrFloat(f float64) *float64 { return &f }

// TestCustomResourceVersions serves two versions of one CRD over the same
// objects: written in either, read in both, each with its own apiVersion,
// stored in the storage version.
func TestCustomResourceVersions(t *testing.T) {
	tc := newTestCluster(t, 1)
	s := tc.Leader
	def := widgetDefinition()
	spec := def["spec"].(map[string]any)
	v1 := spec["versions"].([]any)[0].(map[string]any)
	beta := map[string]any{"name": "v1beta1", "served": true, "storage": false, "deprecated": true}
	for _, k := range []string{"schema", "subresources", "additionalPrinterColumns", "selectableFields"} {
		beta[k] = v1[k]
	}
	spec["versions"] = []any{beta, v1}
	createCRD(t, s, def, widgetsPath)
	betaPath := "/apis/" + widgetGroup + "/v1beta1/namespaces/default/widgets"
	w := widget("both", map[string]any{"replicas": 1})
	w["apiVersion"] = widgetGroup + "/v1beta1"
	s.do(t, http.MethodPost, betaPath, w).wantCode(t, http.StatusCreated)

	for path, want := range map[string]string{widgetsPath + "/both": widgetGroup + "/v1", betaPath + "/both": widgetGroup + "/v1beta1"} {
		var got map[string]any
		s.do(t, http.MethodGet, path, nil).wantCode(t, http.StatusOK).decode(t, &got)
		if got["apiVersion"] != want {
			t.Errorf("GET %s: apiVersion %v, want %s", path, got["apiVersion"], want)
		}
	}
	if w := s.do(t, http.MethodGet, betaPath+"/both", nil).Header.Get("Warning"); w != `299 - "crd.raftapi.io/v1beta1 Widget is deprecated; use crd.raftapi.io/v1 Widget"` {
		t.Errorf("Warning of the deprecated version = %q, want kube's default deprecation warning", w)
	}
	if w := s.do(t, http.MethodGet, widgetsPath+"/both/status", nil).Header.Get("Warning"); w != "" {
		t.Errorf("Warning of v1 = %q, want none", w)
	}
	obj, err := s.Store.Get(t.Context(), "/registry/"+widgetGroup+"/widgets/default/both", raftstore.ReadOptions{Consistency: raftstore.Any})
	if err != nil || !strings.Contains(string(obj.Data), `"apiVersion":"`+widgetGroup+`/v1"`) {
		t.Errorf("stored object %s (err %v), want it in the storage version v1", obj.Data, err)
	}
	var group metav1.APIGroup
	s.do(t, http.MethodGet, "/apis/"+widgetGroup, nil).wantCode(t, http.StatusOK).decode(t, &group)
	if group.PreferredVersion.Version != "v1" || len(group.Versions) != 2 {
		t.Errorf("group %+v, want v1 preferred of two versions", group)
	}
}

// TestCustomResourceWithoutStatusSubresource counts status as spec:
// writes through the resource change it and bump the generation.
func TestCustomResourceWithoutStatusSubresource(t *testing.T) {
	tc := newTestCluster(t, 1)
	s := tc.Leader
	def := widgetDefinition()
	v1 := def["spec"].(map[string]any)["versions"].([]any)[0].(map[string]any)
	delete(v1, "subresources")
	createCRD(t, s, def, widgetsPath)
	w := widget("plain", map[string]any{})
	w["status"] = map[string]any{"replicas": 1}
	var got map[string]any
	s.do(t, http.MethodPost, widgetsPath, w).wantCode(t, http.StatusCreated).decode(t, &got)
	if got["status"] == nil {
		t.Errorf("create dropped status of a CR without a status subresource: %v", got)
	}
	s.do(t, http.MethodPatch, widgetsPath+"/plain", `{"status":{"replicas":2}}`, contentType("application/merge-patch+json")).wantCode(t, http.StatusOK).decode(t, &got)
	if got["status"].(map[string]any)["replicas"] != float64(2) || got["metadata"].(map[string]any)["generation"] != float64(2) {
		t.Errorf("status patch = %v, want status.replicas 2 and generation 2", got)
	}
	s.do(t, http.MethodGet, widgetsPath+"/plain/status", nil).wantStatus(t, http.StatusNotFound, metav1.StatusReasonNotFound)
}

// TestPathsIncompleteBeforeCRDsServed answers 503, not 404, for a path
// the server does not serve while it has not yet served the CRDs it had
// at start, as kube-apiserver does before its CRD informer has synced;
// built-in paths serve meanwhile.
func TestPathsIncompleteBeforeCRDsServed(t *testing.T) {
	c := storetest.NewCluster(t, 1)
	srv := api.NewServer(c.Nodes[c.WaitForLeader()].Store, api.Options{}) // not Run: no CRD served yet
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	s := &testServer{URL: hs.URL}
	st := s.do(t, http.MethodGet, widgetsPath, nil).wantStatus(t, http.StatusServiceUnavailable, metav1.StatusReasonServiceUnavailable)
	if !strings.Contains(st.Message, "before all known HTTP paths have been installed") {
		t.Errorf("message %q, want kube's", st.Message)
	}
	s.do(t, http.MethodGet, widgetsPath, nil).wantRetryAfter(t)
	s.do(t, http.MethodGet, "/api/v1/namespaces/default/configmaps", nil).wantCode(t, http.StatusOK)
}

// TestCRDWarnings sends kube-apiserver's warnings with writes it accepts:
// an unknown format in a CRD's schema, a finalizer without a domain on a
// custom resource.
func TestCRDWarnings(t *testing.T) {
	tc := newTestCluster(t, 1)
	s := tc.Leader
	def := widgetDefinition()
	v1 := def["spec"].(map[string]any)["versions"].([]any)[0].(map[string]any)
	spec := v1["schema"].(map[string]any)["openAPIV3Schema"].(map[string]any)["properties"].(map[string]any)["spec"].(map[string]any)
	spec["properties"].(map[string]any)["when"] = map[string]any{"type": "string", "format": "no-such-format"}
	r := s.do(t, http.MethodPost, crdsPath, def).wantCode(t, http.StatusCreated)
	if w := r.Header.Get("Warning"); w != `299 - "unrecognized format \"no-such-format\""` {
		t.Errorf("CRD create Warning = %q, want kube's unrecognized format warning", w)
	}
	waitFor(t, "widgets served", func() bool { return s.do(t, http.MethodGet, widgetsPath, nil).Code == http.StatusOK })
	w := widget("fin", map[string]any{})
	w["metadata"].(map[string]any)["finalizers"] = []string{"nodomain", "example.com/ok"}
	r = s.do(t, http.MethodPost, widgetsPath, w).wantCode(t, http.StatusCreated)
	if got := r.Header.Values("Warning"); len(got) != 1 || !strings.Contains(got[0], `metadata.finalizers: \"nodomain\": prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers`) {
		t.Errorf("CR create Warnings = %q, want one about the finalizer without a domain", got)
	}
	s.do(t, http.MethodPatch, widgetsPath+"/fin", `{"metadata":{"finalizers":null}}`, contentType("application/merge-patch+json")).wantCode(t, http.StatusOK)
}
