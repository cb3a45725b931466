package discovery_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/gorilla/mux"
	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	apidiscoveryv2beta1 "k8s.io/api/apidiscovery/v2beta1"
	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/version"

	"github.com/raftapi/raftapi/api/discovery"
	"github.com/raftapi/raftapi/api/resource"
)

const (
	acceptV2      = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
	acceptV2Beta1 = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"
	// acceptClientGo is what client-go v0.32 sends to /api and /apis.
	acceptClientGo = acceptV2 + "," + acceptV2Beta1 + ",application/json"
)

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
	resp, err := http.DefaultClient.Do(req)
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

// mustDecode fetches url and decodes its 200 JSON answer into v.
func mustDecode(t *testing.T, url, accept string, v any) *http.Response {
	t.Helper()
	resp, body := get(t, url, accept)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("GET %s: %v in %s", url, err, body)
	}
	return resp
}

func TestLegacyDocuments(t *testing.T) {
	srv, _ := newServer(t, testRegistry())
	host := srv.Listener.Addr().String()

	var versions metav1.APIVersions
	mustDecode(t, srv.URL+"/api", "", &versions)
	if versions.Kind != "APIVersions" || !slices.Equal(versions.Versions, []string{"v1"}) {
		t.Errorf("/api = %+v", versions)
	}
	if cidrs := versions.ServerAddressByClientCIDRs; len(cidrs) != 1 || cidrs[0].ClientCIDR != "0.0.0.0/0" || cidrs[0].ServerAddress != host {
		t.Errorf("/api serverAddressByClientCIDRs = %+v, want 0.0.0.0/0 -> %s", cidrs, host)
	}

	var core metav1.APIResourceList
	mustDecode(t, srv.URL+"/api/v1", "", &core)
	if core.GroupVersion != "v1" || len(core.APIResources) != 3 {
		t.Fatalf("/api/v1 = %+v", core)
	}
	ns := findResource(core.APIResources, "namespaces")
	if ns == nil || ns.Namespaced || ns.Kind != "Namespace" || ns.SingularName != "namespace" ||
		!slices.Equal(ns.ShortNames, []string{"ns"}) || slices.Contains(ns.Verbs, "deletecollection") || ns.StorageVersionHash == "" {
		t.Errorf("namespaces = %+v", ns)
	}
	if cm := findResource(core.APIResources, "configmaps"); cm == nil || !cm.Namespaced || len(cm.Verbs) != 8 {
		t.Errorf("configmaps = %+v", cm)
	}

	var groups metav1.APIGroupList
	mustDecode(t, srv.URL+"/apis", "", &groups)
	if groups.Kind != "APIGroupList" || len(groups.Groups) != 1 || groups.Groups[0].Name != "coordination.k8s.io" ||
		groups.Groups[0].PreferredVersion.GroupVersion != "coordination.k8s.io/v1" {
		t.Errorf("/apis = %+v", groups)
	}

	var group metav1.APIGroup
	mustDecode(t, srv.URL+"/apis/coordination.k8s.io", "", &group)
	if group.Kind != "APIGroup" || group.Name != "coordination.k8s.io" || len(group.Versions) != 1 {
		t.Errorf("/apis/coordination.k8s.io = %+v", group)
	}

	var leases metav1.APIResourceList
	mustDecode(t, srv.URL+"/apis/coordination.k8s.io/v1", "", &leases)
	if leases.GroupVersion != "coordination.k8s.io/v1" || len(leases.APIResources) != 1 ||
		!slices.Equal(leases.APIResources[0].Categories, []string{"all"}) {
		t.Errorf("/apis/coordination.k8s.io/v1 = %+v", leases)
	}
}

// findResource returns the resource named name in rs, or nil.
func findResource(rs []metav1.APIResource, name string) *metav1.APIResource {
	for i := range rs {
		if rs[i].Name == name {
			return &rs[i]
		}
	}
	return nil
}

func TestNotFound(t *testing.T) {
	srv, _ := newServer(t, testRegistry())
	for _, path := range []string{"/apis/example.com", "/apis/coordination.k8s.io/v9", "/api/v2", "/apis/example.com/v1", "/openapi/v2"} {
		t.Run(path, func(t *testing.T) {
			resp, body := get(t, srv.URL+path, "")
			if resp.StatusCode != http.StatusNotFound || resp.Header.Get("Content-Type") != "application/json" {
				t.Fatalf("GET %s: %d %s", path, resp.StatusCode, resp.Header.Get("Content-Type"))
			}
			var st metav1.Status
			if err := json.Unmarshal(body, &st); err != nil {
				t.Fatal(err)
			}
			if st.Kind != "Status" || st.APIVersion != "v1" || st.Status != metav1.StatusFailure ||
				st.Reason != metav1.StatusReasonNotFound || st.Code != http.StatusNotFound {
				t.Errorf("GET %s = %s", path, body)
			}
		})
	}
}

func TestAggregatedV2(t *testing.T) {
	srv, _ := newServer(t, testRegistry())

	var core apidiscoveryv2.APIGroupDiscoveryList
	resp := mustDecode(t, srv.URL+"/api", acceptClientGo, &core)
	if ct := resp.Header.Get("Content-Type"); ct != acceptV2 {
		t.Errorf("/api Content-Type = %q, want %q", ct, acceptV2)
	}
	if core.Kind != "APIGroupDiscoveryList" || core.APIVersion != "apidiscovery.k8s.io/v2" || len(core.Items) != 1 {
		t.Fatalf("/api = %+v", core)
	}
	v1 := core.Items[0]
	if v1.Name != "" || len(v1.Versions) != 1 || v1.Versions[0].Version != "v1" || v1.Versions[0].Freshness != apidiscoveryv2.DiscoveryFreshnessCurrent {
		t.Fatalf("core group = %+v", v1)
	}
	for _, r := range v1.Versions[0].Resources {
		wantScope := apidiscoveryv2.ScopeNamespace
		if r.Resource == "namespaces" {
			wantScope = apidiscoveryv2.ScopeCluster
		}
		if r.Scope != wantScope || r.ResponseKind == nil || r.ResponseKind.Version != "v1" || r.ResponseKind.Group != "" || r.SingularResource == "" || len(r.Verbs) == 0 {
			t.Errorf("core resource = %+v", r)
		}
	}

	var named apidiscoveryv2.APIGroupDiscoveryList
	resp = mustDecode(t, srv.URL+"/apis", acceptClientGo, &named)
	if ct := resp.Header.Get("Content-Type"); ct != acceptV2 {
		t.Errorf("/apis Content-Type = %q", ct)
	}
	if len(named.Items) != 1 || named.Items[0].Name != "coordination.k8s.io" {
		t.Fatalf("/apis = %+v", named)
	}
	lease := named.Items[0].Versions[0].Resources[0]
	if lease.Resource != "leases" || *lease.ResponseKind != (metav1.GroupVersionKind{Group: "coordination.k8s.io", Version: "v1", Kind: "Lease"}) ||
		!slices.Equal(lease.Categories, []string{"all"}) {
		t.Errorf("lease = %+v", lease)
	}
}

func TestAggregatedV2Beta1(t *testing.T) {
	srv, _ := newServer(t, testRegistry())
	var list apidiscoveryv2beta1.APIGroupDiscoveryList
	resp := mustDecode(t, srv.URL+"/apis", acceptV2Beta1+",application/json;q=0.9", &list)
	if ct := resp.Header.Get("Content-Type"); ct != acceptV2Beta1 {
		t.Errorf("Content-Type = %q, want %q", ct, acceptV2Beta1)
	}
	if list.APIVersion != "apidiscovery.k8s.io/v2beta1" || len(list.Items) != 1 || list.Items[0].Versions[0].Resources[0].Scope != apidiscoveryv2beta1.ScopeNamespace {
		t.Errorf("/apis = %+v", list)
	}
}

func TestAcceptQuality(t *testing.T) {
	srv, _ := newServer(t, testRegistry())
	tests := []struct {
		name, accept, want string
		code               int
	}{
		{"json preferred by q", acceptV2 + ";q=0.5,application/json", "application/json", http.StatusOK},
		{"aggregated preferred by q", "application/json;q=0.5," + acceptV2, acceptV2, http.StatusOK},
		{"wildcard", "*/*", "application/json", http.StatusOK},
		{"unknown aggregated version", "application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList,*/*;q=0.1", "application/json", http.StatusOK},
		{"protobuf only", "application/vnd.kubernetes.protobuf", "application/json", http.StatusNotAcceptable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := get(t, srv.URL+"/apis", tt.accept)
			if resp.StatusCode != tt.code || resp.Header.Get("Content-Type") != tt.want {
				t.Errorf("Accept %q: %d %q %s", tt.accept, resp.StatusCode, resp.Header.Get("Content-Type"), body)
			}
		})
	}
}

func TestETag(t *testing.T) {
	srv, _ := newServer(t, testRegistry())
	for _, accept := range []string{acceptClientGo, "application/json"} {
		resp, _ := get(t, srv.URL+"/apis", accept)
		etag := resp.Header.Get("Etag")
		if etag == "" {
			t.Fatalf("Accept %q: no Etag", accept)
		}
		resp, body := get(t, srv.URL+"/apis", accept, "If-None-Match", etag)
		if resp.StatusCode != http.StatusNotModified || len(body) != 0 {
			t.Errorf("Accept %q, If-None-Match %s: %d %s", accept, etag, resp.StatusCode, body)
		}
	}
	legacy, _ := get(t, srv.URL+"/apis", "application/json")
	aggregated, _ := get(t, srv.URL+"/apis", acceptV2)
	if legacy.Header.Get("Etag") == aggregated.Header.Get("Etag") {
		t.Error("legacy and aggregated documents share an Etag")
	}
}

func TestVersion(t *testing.T) {
	srv, _ := newServer(t, testRegistry())
	var info version.Info
	mustDecode(t, srv.URL+"/version", "", &info)
	if info.Major != "1" || info.Minor != "37" || info.GitVersion != "v1.37.2-raftapi" || info.GoVersion == "" || info.Platform == "" {
		t.Errorf("/version = %+v", info)
	}
}

func TestResourceAddedWhileServing(t *testing.T) {
	reg := testRegistry()
	srv, _ := newServer(t, reg)
	resp, _ := get(t, srv.URL+"/apis/batch/v1", "")
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("batch/v1 before registration: %d", resp.StatusCode)
	}
	reg.Add(&resource.Resource{
		Group: "batch", Version: "v1", Kind: "Job", ListKind: "JobList", Plural: "jobs", Singular: "job", Namespaced: true,
		New: func() runtime.Object { return &batchv1.Job{} }, NewList: func() runtime.Object { return &batchv1.JobList{} },
	})
	var list metav1.APIResourceList
	mustDecode(t, srv.URL+"/apis/batch/v1", "", &list)
	if len(list.APIResources) != 1 || list.APIResources[0].Name != "jobs" {
		t.Errorf("batch/v1 = %+v", list)
	}
	var groups apidiscoveryv2.APIGroupDiscoveryList
	mustDecode(t, srv.URL+"/apis", acceptV2, &groups)
	if len(groups.Items) != 2 || groups.Items[0].Name != "batch" {
		t.Errorf("/apis = %+v", groups)
	}
}

func TestVersionPriority(t *testing.T) {
	reg := resource.NewRegistry()
	for _, v := range []string{"v1alpha1", "v1beta1", "v1", "v2beta1"} {
		reg.Add(&resource.Resource{Group: "example.com", Version: v, Kind: "Widget", Plural: "widgets", Singular: "widget"})
	}
	srv, _ := newServer(t, reg)
	var group metav1.APIGroup
	mustDecode(t, srv.URL+"/apis/example.com", "", &group)
	var got []string
	for _, v := range group.Versions {
		got = append(got, v.Version)
	}
	if want := []string{"v1", "v2beta1", "v1beta1", "v1alpha1"}; !slices.Equal(got, want) || group.PreferredVersion.Version != "v1" {
		t.Errorf("versions = %v (preferred %s), want %v", got, group.PreferredVersion.Version, want)
	}
}

func TestRoutesBesideResourceRoutes(t *testing.T) {
	r := mux.NewRouter()
	discovery.NewHandler(testRegistry()).Routes(r)
	var served []string
	resourceHandler := func(w http.ResponseWriter, req *http.Request) { served = append(served, req.URL.Path) }
	r.HandleFunc("/api/v1/namespaces", resourceHandler)
	r.HandleFunc("/api/v1/namespaces/{namespace}/configmaps", resourceHandler)
	r.HandleFunc("/apis/coordination.k8s.io/v1/leases", resourceHandler)
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)

	paths := []string{"/api/v1/namespaces", "/api/v1/namespaces/default/configmaps", "/apis/coordination.k8s.io/v1/leases"}
	for _, p := range paths {
		if resp, body := get(t, srv.URL+p, ""); resp.StatusCode != http.StatusOK || len(body) != 0 {
			t.Errorf("GET %s: %d %s", p, resp.StatusCode, body)
		}
	}
	if !slices.Equal(served, paths) {
		t.Errorf("resource handler served %v, want %v", served, paths)
	}
	var list metav1.APIResourceList
	mustDecode(t, srv.URL+"/api/v1", "", &list)
	if list.GroupVersion != "v1" || len(list.APIResources) != 3 {
		t.Errorf("/api/v1 = %+v", list)
	}
}
