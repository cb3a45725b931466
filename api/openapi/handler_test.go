package openapi_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	openapiv2 "github.com/google/gnostic-models/openapiv2"
	openapiv3 "github.com/google/gnostic-models/openapiv3"
	"google.golang.org/protobuf/proto"
	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kube-openapi/pkg/handler3"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/raftapi/raftapi/api/openapi"
	"github.com/raftapi/raftapi/api/resource"
)

// noRedirects is a client that reports redirects instead of following them.
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// get fetches url with the given Accept header and extra headers.
func get(t *testing.T, url, accept string, header ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := noRedirects.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

// index fetches the /openapi/v3 index.
func index(t *testing.T, srvURL string) handler3.OpenAPIV3Discovery {
	t.Helper()
	resp, body := get(t, srvURL+"/openapi/v3", "application/json")
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("/openapi/v3: %d %s", resp.StatusCode, body)
	}
	var idx handler3.OpenAPIV3Discovery
	if err := json.Unmarshal(body, &idx); err != nil {
		t.Fatal(err)
	}
	return idx
}

func TestV3Caching(t *testing.T) {
	srv := newServer(t, testRegistry())
	u := index(t, srv.URL).Paths["api/v1"].ServerRelativeURL
	path, hash, ok := strings.Cut(u, "?hash=")
	if !ok || path != "/openapi/v3/api/v1" || len(hash) != 128 {
		t.Fatalf("api/v1 URL = %q", u)
	}

	resp, body := get(t, srv.URL+u, "application/json")
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("GET %s: %d %s", u, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if cc := resp.Header.Get("Cache-Control"); cc != "public, immutable" {
		t.Errorf("Cache-Control = %q", cc)
	}
	if etag := resp.Header.Get("Etag"); etag != strconv.Quote(hash) {
		t.Errorf("Etag = %s, want the hash %q", etag, hash)
	}
	var doc spec3.OpenAPI
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}

	if resp, _ := get(t, srv.URL+u, "", "If-None-Match", strconv.Quote(hash)); resp.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match: %d, want 304", resp.StatusCode)
	}
	if resp, _ := get(t, srv.URL+path, ""); resp.StatusCode != http.StatusOK || resp.Header.Get("Cache-Control") != "" {
		t.Errorf("without hash: %d, Cache-Control %q", resp.StatusCode, resp.Header.Get("Cache-Control"))
	}
	resp, _ = get(t, srv.URL+path+"?hash=0123", "")
	if resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != u {
		t.Errorf("stale hash: %d to %q, want 301 to %q", resp.StatusCode, resp.Header.Get("Location"), u)
	}
}

func TestV3Protobuf(t *testing.T) {
	srv := newServer(t, testRegistry())
	u := index(t, srv.URL).Paths["apis/coordination.k8s.io/v1"].ServerRelativeURL
	resp, body := get(t, srv.URL+u, "application/com.github.proto-openapi.spec.v3@v1.0+protobuf")
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/com.github.proto-openapi.spec.v3.v1.0+protobuf" {
		t.Fatalf("GET %s: %d %s", u, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var doc openapiv3.Document
	if err := proto.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.GetComponents().GetSchemas() == nil {
		t.Error("protobuf document has no schemas")
	}
}

func TestV2(t *testing.T) {
	srv := newServer(t, testRegistry())
	resp, body := get(t, srv.URL+"/openapi/v2", "application/json")
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("/openapi/v2: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var doc spec.Swagger
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Swagger != "2.0" || doc.Definitions["io.k8s.api.coordination.v1.Lease"].Description == "" ||
		doc.Paths.Paths["/api/v1/namespaces/{namespace}/configmaps/{name}"].Patch == nil {
		t.Error("v2 document lacks the Lease definition or the configmap PATCH")
	}
	etag := resp.Header.Get("Etag")
	if resp, _ := get(t, srv.URL+"/openapi/v2", "application/json", "If-None-Match", etag); resp.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match: %d, want 304", resp.StatusCode)
	}

	resp, body = get(t, srv.URL+"/openapi/v2", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf")
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/com.github.proto-openapi.spec.v2.v1.0+protobuf" {
		t.Fatalf("/openapi/v2 protobuf: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var pb openapiv2.Document
	if err := proto.Unmarshal(body, &pb); err != nil || pb.GetSwagger() != "2.0" {
		t.Errorf("protobuf v2 = %q, %v", pb.GetSwagger(), err)
	}
}

func TestErrors(t *testing.T) {
	srv := newServer(t, testRegistry())
	tests := []struct {
		path, accept string
		code         int
		reason       metav1.StatusReason
	}{
		{"/openapi/v3/apis/batch/v1", "", http.StatusNotFound, metav1.StatusReasonNotFound},
		{"/openapi/v3/api/v2", "", http.StatusNotFound, metav1.StatusReasonNotFound},
		{"/openapi/v2", "text/html", http.StatusNotAcceptable, metav1.StatusReasonNotAcceptable},
		{"/openapi/v3/api/v1", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf", http.StatusNotAcceptable, metav1.StatusReasonNotAcceptable},
	}
	for _, tt := range tests {
		resp, body := get(t, srv.URL+tt.path, tt.accept)
		var st metav1.Status
		if err := json.Unmarshal(body, &st); err != nil || resp.StatusCode != tt.code || st.Kind != "Status" || st.Reason != tt.reason {
			t.Errorf("GET %s (Accept %q): %d %s", tt.path, tt.accept, resp.StatusCode, body)
		}
	}
}

func TestHandlerAlone(t *testing.T) {
	srv := httptest.NewServer(openapi.NewHandler(testRegistry()))
	t.Cleanup(srv.Close)
	if resp, _ := get(t, srv.URL+"/openapi/v2", ""); resp.StatusCode != http.StatusOK {
		t.Errorf("/openapi/v2: %d", resp.StatusCode)
	}
	if resp, _ := get(t, srv.URL+"/api/v1/namespaces", ""); resp.StatusCode != http.StatusNotFound {
		t.Errorf("/api/v1/namespaces: %d, want 404", resp.StatusCode)
	}
}

func TestRegistryChange(t *testing.T) {
	reg := testRegistry()
	srv := newServer(t, reg)
	before := index(t, srv.URL)
	if _, ok := before.Paths["apis/batch/v1"]; ok {
		t.Fatal("batch/v1 listed before registration")
	}
	reg.Add(&resource.Resource{
		Group: "batch", Version: "v1", Kind: "Job", ListKind: "JobList", Plural: "jobs", Singular: "job", Namespaced: true,
		New: func() runtime.Object { return &batchv1.Job{} }, NewList: func() runtime.Object { return &batchv1.JobList{} },
	})
	after := index(t, srv.URL)
	batch, ok := after.Paths["apis/batch/v1"]
	if !ok {
		t.Fatal("batch/v1 not listed after registration")
	}
	resp, body := get(t, srv.URL+batch.ServerRelativeURL, "")
	var doc spec3.OpenAPI
	if err := json.Unmarshal(body, &doc); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("batch/v1: %d %v", resp.StatusCode, err)
	}
	for _, name := range []string{"io.k8s.api.batch.v1.Job", "io.k8s.api.batch.v1.JobSpec", "io.k8s.api.core.v1.PodTemplateSpec",
		"io.k8s.apimachinery.pkg.api.resource.Quantity", "io.k8s.apimachinery.pkg.util.intstr.IntOrString"} {
		if doc.Components.Schemas[name] == nil {
			t.Errorf("batch/v1 has no schema %s", name)
		}
	}
	old := before.Paths["api/v1"].ServerRelativeURL
	if resp, _ := get(t, srv.URL+old, ""); resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != after.Paths["api/v1"].ServerRelativeURL {
		t.Errorf("old api/v1 URL: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
}

func TestConcurrentRequests(t *testing.T) {
	reg := testRegistry()
	srv := httptest.NewServer(openapi.NewHandler(reg))
	t.Cleanup(srv.Close)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, path := range []string{"/openapi/v3", "/openapi/v3/api/v1", "/openapi/v2"} {
				resp, err := http.Get(srv.URL + path)
				if err != nil {
					t.Error(err)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					t.Errorf("GET %s: %d", path, resp.StatusCode)
				}
			}
		}()
	}
	reg.Add(&resource.Resource{
		Group: "batch", Version: "v1", Kind: "Job", ListKind: "JobList", Plural: "jobs", Singular: "job", Namespaced: true,
		New: func() runtime.Object { return &batchv1.Job{} }, NewList: func() runtime.Object { return &batchv1.JobList{} },
	})
	wg.Wait()
}
