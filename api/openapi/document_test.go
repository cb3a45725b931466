package openapi_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	openapiv2 "github.com/google/gnostic-models/openapiv2"
	openapiv3 "github.com/google/gnostic-models/openapiv3"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/raftapi/raftapi/api/openapi"
)

var (
	coreV1         = schema.GroupVersion{Version: "v1"}
	coordinationV1 = schema.GroupVersion{Group: "coordination.k8s.io", Version: "v1"}
	stableV1       = schema.GroupVersion{Group: "stable.example.com", Version: "v1"}
)

// mustV3 returns the OpenAPI 3.0 document of gv in the test registry.
func mustV3(t *testing.T, gv schema.GroupVersion) *spec3.OpenAPI {
	t.Helper()
	doc, ok := openapi.V3(testRegistry(), gv)
	if !ok {
		t.Fatalf("no document for %v", gv)
	}
	return doc
}

// operationOf returns the operation of method on path.
func operationOf(t *testing.T, doc *spec3.OpenAPI, path, method string) *spec3.Operation {
	t.Helper()
	p := doc.Paths.Paths[path]
	if p == nil {
		t.Fatalf("no path %s", path)
	}
	ops := map[string]*spec3.Operation{"get": p.Get, "put": p.Put, "post": p.Post, "patch": p.Patch, "delete": p.Delete}
	return ops[method]
}

// paramNames returns the names of ps.
func paramNames(ps []*spec3.Parameter) []string {
	var names []string
	for _, p := range ps {
		names = append(names, p.Name)
	}
	return names
}

func TestV3Operations(t *testing.T) {
	const (
		cms    = "/api/v1/namespaces/{namespace}/configmaps"
		cm     = cms + "/{name}"
		leases = "/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases"
		cts    = "/apis/stable.example.com/v1/namespaces/{namespace}/crontabs"
	)
	tests := []struct {
		gv                       schema.GroupVersion
		path, method, id, action string
		kind                     string
		params                   []string // parameters the operation must have
	}{
		{coreV1, cms, "get", "listCoreV1NamespacedConfigMap", "list", "ConfigMap", []string{"watch", "labelSelector", "fieldSelector", "limit", "continue", "resourceVersion", "resourceVersionMatch", "allowWatchBookmarks", "timeoutSeconds", "sendInitialEvents"}},
		{coreV1, cms, "post", "createCoreV1NamespacedConfigMap", "post", "ConfigMap", []string{"dryRun", "fieldManager", "fieldValidation"}},
		{coreV1, cms, "delete", "deleteCoreV1CollectionNamespacedConfigMap", "deletecollection", "ConfigMap", []string{"labelSelector", "gracePeriodSeconds", "propagationPolicy"}},
		{coreV1, cm, "get", "readCoreV1NamespacedConfigMap", "get", "ConfigMap", nil},
		{coreV1, cm, "put", "replaceCoreV1NamespacedConfigMap", "put", "ConfigMap", []string{"dryRun", "fieldManager", "fieldValidation"}},
		{coreV1, cm, "patch", "patchCoreV1NamespacedConfigMap", "patch", "ConfigMap", []string{"dryRun", "fieldManager", "fieldValidation", "force"}},
		{coreV1, cm, "delete", "deleteCoreV1NamespacedConfigMap", "delete", "ConfigMap", []string{"dryRun", "gracePeriodSeconds", "propagationPolicy"}},
		{coreV1, "/api/v1/configmaps", "get", "listCoreV1ConfigMapForAllNamespaces", "list", "ConfigMap", []string{"watch"}},
		{coreV1, "/api/v1/namespaces", "get", "listCoreV1Namespace", "list", "Namespace", []string{"watch"}},
		{coreV1, "/api/v1/namespaces/{name}", "patch", "patchCoreV1Namespace", "patch", "Namespace", []string{"fieldValidation"}},
		{coordinationV1, leases, "get", "listCoordinationV1NamespacedLease", "list", "Lease", nil},
		{coordinationV1, leases + "/{name}", "patch", "patchCoordinationV1NamespacedLease", "patch", "Lease", []string{"fieldValidation"}},
		{stableV1, cts + "/{name}", "patch", "patchStableExampleComV1NamespacedCronTab", "patch", "CronTab", []string{"fieldValidation"}},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			op := operationOf(t, mustV3(t, tt.gv), tt.path, tt.method)
			if op == nil {
				t.Fatalf("no %s %s", tt.method, tt.path)
			}
			if op.OperationId != tt.id || op.Extensions["x-kubernetes-action"] != tt.action {
				t.Errorf("operationId %q action %v", op.OperationId, op.Extensions["x-kubernetes-action"])
			}
			var gvk map[string]string
			if err := op.Extensions.GetObject("x-kubernetes-group-version-kind", &gvk); err != nil ||
				gvk["group"] != tt.gv.Group || gvk["version"] != tt.gv.Version || gvk["kind"] != tt.kind {
				t.Errorf("x-kubernetes-group-version-kind = %v, %v", gvk, err)
			}
			names := paramNames(op.Parameters)
			for _, p := range tt.params {
				if !slices.Contains(names, p) {
					t.Errorf("parameters %v lack %s", names, p)
				}
			}
		})
	}
}

func TestV3PathsAndVerbs(t *testing.T) {
	doc := mustV3(t, coreV1)
	item := doc.Paths.Paths["/api/v1/namespaces/{namespace}/configmaps/{name}"]
	if got := paramNames(item.Parameters); !slices.Equal(got, []string{"name", "namespace", "pretty"}) {
		t.Errorf("item path parameters = %v", got)
	}
	ns := doc.Paths.Paths["/api/v1/namespaces"]
	if ns.Delete != nil {
		t.Error("namespaces serve no deletecollection, yet the collection has DELETE")
	}
	if got := paramNames(ns.Parameters); !slices.Equal(got, []string{"pretty"}) {
		t.Errorf("cluster-scoped collection parameters = %v", got)
	}
	if _, ok := doc.Paths.Paths["/api/v1/namespaces/{namespace}/namespaces"]; ok {
		t.Error("cluster-scoped resource has a namespaced path")
	}
}

func TestPatchMediaTypes(t *testing.T) {
	typed := operationOf(t, mustV3(t, coreV1), "/api/v1/namespaces/{namespace}/configmaps/{name}", "patch")
	untyped := operationOf(t, mustV3(t, stableV1), "/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}", "patch")
	for _, tt := range []struct {
		op   *spec3.Operation
		want []string
	}{
		{typed, []string{"application/apply-patch+yaml", "application/json-patch+json", "application/merge-patch+json", "application/strategic-merge-patch+json"}},
		{untyped, []string{"application/apply-patch+yaml", "application/json-patch+json", "application/merge-patch+json"}},
	} {
		var got []string
		for mt, content := range tt.op.RequestBody.Content {
			got = append(got, mt)
			if ref := content.Schema.Ref.String(); ref != "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Patch" {
				t.Errorf("%s %s body refers to %q", tt.op.OperationId, mt, ref)
			}
		}
		sort.Strings(got)
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s consumes %v, want %v", tt.op.OperationId, got, tt.want)
		}
	}
	list := operationOf(t, mustV3(t, coreV1), "/api/v1/namespaces/{namespace}/configmaps", "get")
	if _, ok := list.Responses.StatusCodeResponses[200].Content["application/json;stream=watch"]; !ok {
		t.Error("list answers no watch stream")
	}
}

func TestKindSchemas(t *testing.T) {
	doc := mustV3(t, stableV1)
	schemas := doc.Components.Schemas
	crontab := schemas["com.example.stable.v1.CronTab"]
	if crontab == nil {
		t.Fatal("no CronTab schema")
	}
	if crontab.Extensions["x-kubernetes-preserve-unknown-fields"] != true {
		t.Error("CronTab does not preserve unknown fields")
	}
	for _, f := range []string{"apiVersion", "kind", "metadata"} {
		if _, ok := crontab.Properties[f]; !ok {
			t.Errorf("CronTab has no %s", f)
		}
	}
	checkGVKs(t, schemas, "com.example.stable.v1.CronTab", "stable.example.com/v1, Kind=CronTab")
	checkGVKs(t, schemas, "com.example.stable.v1.CronTabList", "stable.example.com/v1, Kind=CronTabList")
	checkGVKs(t, schemas, "io.k8s.apimachinery.pkg.apis.meta.v1.Status", "/v1, Kind=Status")
	checkGVKs(t, schemas, "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
		"/v1, Kind=DeleteOptions", "coordination.k8s.io/v1, Kind=DeleteOptions", "stable.example.com/v1, Kind=DeleteOptions")

	core := mustV3(t, coreV1).Components.Schemas
	checkGVKs(t, core, "io.k8s.api.core.v1.ConfigMap", "/v1, Kind=ConfigMap")
	checkGVKs(t, core, "io.k8s.api.core.v1.ConfigMapList", "/v1, Kind=ConfigMapList")
	if _, ok := core["io.k8s.api.coordination.v1.Lease"]; ok {
		t.Error("api/v1 document holds the Lease schema")
	}
}

// checkGVKs fails unless the schema called name lists exactly want as its
// x-kubernetes-group-version-kind.
func checkGVKs(t *testing.T, schemas map[string]*spec.Schema, name string, want ...string) {
	t.Helper()
	s := schemas[name]
	if s == nil {
		t.Errorf("no schema %s", name)
		return
	}
	var gvks []map[string]string
	if err := s.Extensions.GetObject("x-kubernetes-group-version-kind", &gvks); err != nil {
		t.Errorf("%s: %v", name, err)
	}
	var got []string
	for _, gvk := range gvks {
		got = append(got, schema.GroupVersionKind{Group: gvk["group"], Version: gvk["version"], Kind: gvk["kind"]}.String())
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s kinds = %v, want %v", name, got, want)
	}
}

func TestDocumentsParse(t *testing.T) {
	for _, gv := range []schema.GroupVersion{coreV1, coordinationV1, stableV1} {
		b, err := json.Marshal(mustV3(t, gv))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := openapiv3.ParseDocument(b); err != nil {
			t.Errorf("%v: gnostic: %v", gv, err)
		}
		var back spec3.OpenAPI
		if err := json.Unmarshal(b, &back); err != nil {
			t.Errorf("%v: kube-openapi: %v", gv, err)
		}
		checkRefs(t, gv.String(), b, "#/components/schemas/")
	}
	b, err := json.Marshal(openapi.V2(testRegistry()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := openapiv2.ParseDocument(b); err != nil {
		t.Errorf("v2: gnostic: %v", err)
	}
	var back spec.Swagger
	if err := json.Unmarshal(b, &back); err != nil {
		t.Errorf("v2: kube-openapi: %v", err)
	}
	checkRefs(t, "v2", b, "#/definitions/")
}

// checkRefs fails unless every $ref in the JSON document doc names one of
// its definitions under prefix.
func checkRefs(t *testing.T, name string, doc []byte, prefix string) {
	t.Helper()
	var tree map[string]any
	if err := json.Unmarshal(doc, &tree); err != nil {
		t.Fatal(err)
	}
	defs := tree["definitions"]
	if prefix != "#/definitions/" {
		defs = tree["components"].(map[string]any)["schemas"]
	}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, child := range v {
				if ref, ok := child.(string); ok && k == "$ref" {
					target, found := strings.CutPrefix(ref, prefix)
					if _, ok := defs.(map[string]any)[target]; !found || !ok {
						t.Errorf("%s: %s: dangling $ref %q", name, path, ref)
					}
				}
				walk(path+"/"+k, child)
			}
		case []any:
			for i, child := range v {
				walk(fmt.Sprintf("%s/%d", path, i), child)
			}
		}
	}
	walk("", tree)
}

func TestUnknownGroupVersion(t *testing.T) {
	if _, ok := openapi.V3(testRegistry(), schema.GroupVersion{Group: "batch", Version: "v1"}); ok {
		t.Error("V3(batch/v1) returned a document")
	}
}
