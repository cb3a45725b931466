package api_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/raftapi/raftapi/api"
	"github.com/raftapi/raftapi/api/resource"
	"github.com/raftapi/raftapi/raftstore/storetest"
)

// widgets is a resource without a Go type, described at run time the way
// a custom resource is.
var widgets = &resource.Resource{
	Group: "example.raftapi.io", Version: "v1", Kind: "Widget", ListKind: "WidgetList",
	Plural: "widgets", Singular: "widget", Namespaced: true,
}

// gizmos is a resource with a Go type (a ConfigMap's), described at run
// time: the codecs must learn its kind to speak Protobuf.
var gizmos = &resource.Resource{
	Group: "example.raftapi.io", Version: "v1", Kind: "Gizmo", ListKind: "GizmoList",
	Plural: "gizmos", Singular: "gizmo", Namespaced: true,
	New: func() runtime.Object { return &corev1.ConfigMap{} }, NewList: func() runtime.Object { return &corev1.ConfigMapList{} },
}

// TestRegisterWhileServing registers a resource on a running server: its
// paths, discovery and verbs work at once, through the same registry as
// the built-ins.
func TestRegisterWhileServing(t *testing.T) {
	c := storetest.NewCluster(t, 1)
	srv := api.NewServer(c.Nodes[c.WaitForLeader()].Store, api.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); srv.Run(ctx) }()
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { cancel(); hs.Close(); <-done })
	s := &testServer{URL: hs.URL}
	waitFor(t, "system namespaces and custom resource paths", func() bool { return srv.SystemNamespacesReady() == nil })
	const coll = "/apis/example.raftapi.io/v1/namespaces/default/widgets"
	s.do(t, http.MethodGet, coll, nil).wantStatus(t, http.StatusNotFound, "NotFound")

	srv.Register(widgets)
	w := map[string]any{"apiVersion": "example.raftapi.io/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w1"}, "spec": map[string]any{"size": 3}}
	s.do(t, http.MethodPost, coll, w).wantCode(t, http.StatusCreated)
	var got map[string]any
	s.do(t, http.MethodGet, coll+"/w1", nil).wantCode(t, http.StatusOK).decode(t, &got)
	if spec, _ := got["spec"].(map[string]any); spec["size"] != float64(3) {
		t.Fatalf("GET widget = %v, want spec.size 3", got)
	}
	if body := string(s.do(t, http.MethodGet, "/apis/example.raftapi.io/v1", nil).wantCode(t, http.StatusOK).Body); !strings.Contains(body, `"widgets"`) {
		t.Fatalf("discovery of example.raftapi.io/v1 does not list widgets: %s", body)
	}
	s.do(t, http.MethodDelete, coll+"/w1", nil).wantCode(t, http.StatusOK)
	s.do(t, http.MethodGet, coll+"/w1", nil).wantStatus(t, http.StatusNotFound, "NotFound")

	srv.Register(gizmos)
	const gizmoColl = "/apis/example.raftapi.io/v1/namespaces/default/gizmos"
	g := map[string]any{"apiVersion": "example.raftapi.io/v1", "kind": "Gizmo", "metadata": map[string]any{"name": "g1"}, "data": map[string]any{"k": "v"}}
	s.do(t, http.MethodPost, gizmoColl, g).wantCode(t, http.StatusCreated)
	r := s.do(t, http.MethodGet, gizmoColl+"/g1", nil, accept("application/vnd.kubernetes.protobuf")).wantCode(t, http.StatusOK)
	if ct := r.Header.Get("Content-Type"); ct != "application/vnd.kubernetes.protobuf" {
		t.Fatalf("GET gizmo as Protobuf answered %s: %s", ct, truncate(r.Body))
	}
}
