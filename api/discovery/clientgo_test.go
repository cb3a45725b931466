package discovery_test

import (
	"slices"
	"sort"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
)

// resourceNames returns "group/version/resource" for every resource a
// client discovered.
func resourceNames(t *testing.T, dc discovery.DiscoveryInterface) []string {
	t.Helper()
	_, lists, err := dc.ServerGroupsAndResources()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range l.APIResources {
			names = append(names, gv.WithResource(r.Name).String())
		}
	}
	sort.Strings(names)
	return names
}

var wantResources = []string{
	"/v1, Resource=configmaps",
	"/v1, Resource=namespaces",
	"/v1, Resource=secrets",
	"coordination.k8s.io/v1, Resource=leases",
}

func TestClientGoAggregated(t *testing.T) {
	srv, rec := newServer(t, testRegistry())
	dc := discovery.NewDiscoveryClientForConfigOrDie(&rest.Config{Host: srv.URL})

	if got := resourceNames(t, dc); !slices.Equal(got, wantResources) {
		t.Errorf("resources = %v, want %v", got, wantResources)
	}
	var paths []string
	for _, r := range rec.requests() {
		paths = append(paths, r.path)
		if r.contentType != acceptV2 {
			t.Errorf("GET %s (Accept %q) answered %q, want aggregated v2", r.path, r.accept, r.contentType)
		}
	}
	if sort.Strings(paths); !slices.Equal(paths, []string{"/api", "/apis"}) {
		t.Errorf("client-go fetched %v, want only the aggregated documents /api and /apis", paths)
	}

	preferred, err := dc.ServerPreferredResources()
	if err != nil || len(preferred) != 2 {
		t.Errorf("ServerPreferredResources = %v, %v", preferred, err)
	}
	info, err := dc.ServerVersion()
	if err != nil || info.GitVersion != "v1.37.2-raftapi" {
		t.Errorf("ServerVersion = %+v, %v", info, err)
	}
}

func TestClientGoLegacy(t *testing.T) {
	srv, rec := newServer(t, testRegistry())
	dc := discovery.NewDiscoveryClientForConfigOrDie(&rest.Config{Host: srv.URL}).WithLegacy()

	if got := resourceNames(t, dc); !slices.Equal(got, wantResources) {
		t.Errorf("resources = %v, want %v", got, wantResources)
	}
	var paths []string
	for _, r := range rec.requests() {
		paths = append(paths, r.path)
	}
	sort.Strings(paths)
	if want := []string{"/api", "/api/v1", "/apis", "/apis/coordination.k8s.io/v1"}; !slices.Equal(paths, want) {
		t.Errorf("legacy client fetched %v, want %v", paths, want)
	}
}
