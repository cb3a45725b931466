package openapi_test

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"testing"

	openapiv3 "github.com/google/gnostic-models/openapiv3"
	"google.golang.org/protobuf/proto"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/client-go/discovery"
	clientopenapi "k8s.io/client-go/openapi"
	"k8s.io/client-go/openapi3"
	"k8s.io/client-go/rest"
	"k8s.io/kube-openapi/pkg/spec3"
	openapiproto "k8s.io/kube-openapi/pkg/util/proto"
)

// discoveryClient returns a client-go discovery client of srvURL.
func discoveryClient(t *testing.T, srvURL string) *discovery.DiscoveryClient {
	t.Helper()
	return discovery.NewDiscoveryClientForConfigOrDie(&rest.Config{Host: srvURL})
}

func TestClientGoOpenAPIV3(t *testing.T) {
	srv := newServer(t, testRegistry())
	client := discoveryClient(t, srv.URL).OpenAPIV3()

	paths, err := client.Paths()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for name, gv := range paths {
		names = append(names, name)
		if !strings.Contains(gv.ServerRelativeURL(), "?hash=") {
			t.Errorf("%s: URL %q has no hash", name, gv.ServerRelativeURL())
		}
	}
	sort.Strings(names)
	if want := []string{"api/v1", "apis/coordination.k8s.io/v1", "apis/stable.example.com/v1"}; !slices.Equal(names, want) {
		t.Fatalf("paths = %v, want %v", names, want)
	}

	body, err := paths["api/v1"].Schema("application/json")
	if err != nil {
		t.Fatal(err)
	}
	var doc spec3.OpenAPI
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"io.k8s.api.core.v1.ConfigMap", "io.k8s.api.core.v1.Namespace", "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
		"io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions", "io.k8s.apimachinery.pkg.apis.meta.v1.Status", "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent"} {
		if doc.Components.Schemas[name] == nil {
			t.Errorf("api/v1 has no schema %s", name)
		}
	}
	if doc.Paths.Paths["/api/v1/namespaces/{namespace}/configmaps/{name}"] == nil {
		t.Error("api/v1 has no configmap item path")
	}

	pb, err := paths["apis/coordination.k8s.io/v1"].Schema(clientopenapi.ContentTypeOpenAPIV3PB)
	if err != nil {
		t.Fatal(err)
	}
	var pbDoc openapiv3.Document
	if err := proto.Unmarshal(pb, &pbDoc); err != nil {
		t.Fatal(err)
	}
	models, err := openapiproto.NewOpenAPIV3Data(&pbDoc)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := models.LookupModel("io.k8s.api.coordination.v1.LeaseSpec").(*openapiproto.Kind); !ok {
		t.Errorf("protobuf v3 models: LeaseSpec is %T", models.LookupModel("io.k8s.api.coordination.v1.LeaseSpec"))
	}
}

func TestClientGoOpenAPI3Root(t *testing.T) {
	srv := newServer(t, testRegistry())
	root := openapi3.NewRoot(discoveryClient(t, srv.URL).OpenAPIV3())
	gvs, err := root.GroupVersions()
	if err != nil || len(gvs) != 3 {
		t.Fatalf("GroupVersions = %v, %v", gvs, err)
	}
	lease := schema.GroupVersion{Group: "coordination.k8s.io", Version: "v1"}
	doc, err := root.GVSpec(lease)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Components.Schemas["io.k8s.api.coordination.v1.Lease"] == nil {
		t.Error("no Lease schema")
	}
	if _, err := root.GVSpec(schema.GroupVersion{Group: "batch", Version: "v1"}); err == nil {
		t.Error("GVSpec(batch/v1) found a document")
	}
}

func TestClientGoOpenAPIV2(t *testing.T) {
	srv := newServer(t, testRegistry())
	doc, err := discoveryClient(t, srv.URL).OpenAPISchema()
	if err != nil {
		t.Fatal(err)
	}
	models, err := openapiproto.NewOpenAPIData(doc)
	if err != nil {
		t.Fatal(err)
	}
	cm, ok := models.LookupModel("io.k8s.api.core.v1.ConfigMap").(*openapiproto.Kind)
	if !ok {
		t.Fatalf("ConfigMap model is %T", models.LookupModel("io.k8s.api.core.v1.ConfigMap"))
	}
	if _, ok := cm.Fields["data"].(*openapiproto.Map); !ok {
		t.Errorf("ConfigMap.data is %T, want a map", cm.Fields["data"])
	}
	if ref, ok := cm.Fields["metadata"].(openapiproto.Reference); !ok || ref.Reference() != "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta" {
		t.Errorf("ConfigMap.metadata is %v", cm.Fields["metadata"])
	}
	if !strings.Contains(cm.GetDescription(), "configuration data") {
		t.Errorf("ConfigMap description = %q", cm.GetDescription())
	}

	parser, err := managedfields.NewGVKParser(models, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, gvk := range []schema.GroupVersionKind{
		corev1.SchemeGroupVersion.WithKind("ConfigMap"),
		coordinationv1.SchemeGroupVersion.WithKind("LeaseList"),
		{Group: "stable.example.com", Version: "v1", Kind: "CronTab"},
		coordinationv1.SchemeGroupVersion.WithKind("DeleteOptions"),
	} {
		if parser.Type(gvk) == nil {
			t.Errorf("v2 models have no type for %v", gvk)
		}
	}
}

func TestClientGoTypeConverter(t *testing.T) {
	srv := newServer(t, testRegistry())
	tc, err := clientopenapi.NewTypeConverter(discoveryClient(t, srv.URL).OpenAPIV3(), false)
	if err != nil {
		t.Fatal(err)
	}
	objects := []runtime.Object{
		&corev1.ConfigMap{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: metav1.ObjectMeta{Name: "cm", Finalizers: []string{"a"}, OwnerReferences: []metav1.OwnerReference{{UID: "u", Name: "o", Kind: "K", APIVersion: "v1"}}},
			Data:       map[string]string{"a": "b"},
		},
		&coordinationv1.Lease{
			TypeMeta:   metav1.TypeMeta{APIVersion: "coordination.k8s.io/v1", Kind: "Lease"},
			ObjectMeta: metav1.ObjectMeta{Name: "l", CreationTimestamp: metav1.Now()},
			Spec:       coordinationv1.LeaseSpec{RenewTime: &metav1.MicroTime{}},
		},
	}
	for _, obj := range objects {
		if _, err := tc.ObjectToTyped(obj); err != nil {
			t.Errorf("ObjectToTyped(%T): %v", obj, err)
		}
	}
}
