package handlers_test

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/gorilla/mux"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/raftapi/raftapi/api/handlers"
	"github.com/raftapi/raftapi/api/registry"
	"github.com/raftapi/raftapi/api/registry/registrytest"
)

// listedConfigMaps are the configmaps of listRouter, by name, with their
// labels.
var listedConfigMaps = map[string]map[string]string{
	"a": {"app": "web", "tier": "front"}, "b": {"app": "db"}, "c": nil, "d": {"x.io/y": "z", "app": ""},
}

// listRouter serves the list of configmaps and of events over an
// in-memory registry holding a few labelled configmaps and an event.
func listRouter(tb testing.TB) http.Handler {
	tb.Helper()
	reg, _ := registrytest.NewRegistry(tb, registry.Options{})
	ctx := context.Background()
	if err := reg.EnsureNamespace(ctx, metav1.NamespaceDefault); err != nil {
		tb.Fatal(err)
	}
	router := mux.NewRouter()
	for _, gvr := range []schema.GroupVersionResource{{Version: "v1", Resource: "configmaps"}, {Version: "v1", Resource: "events"}} {
		res := reg.Resources().Get(gvr)
		sc := &handlers.Scope{Store: reg.Store(res), Resource: res, Codecs: reg.Codecs(), Now: time.Now, BookmarkInterval: time.Minute}
		router.HandleFunc("/api/v1/namespaces/{namespace}/"+gvr.Resource, handlers.List(sc)).Methods(http.MethodGet)
	}
	cms := reg.Store(reg.Resources().Get(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}))
	for name, lbls := range listedConfigMaps {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: lbls}}
		if _, err := cms.Create(ctx, metav1.NamespaceDefault, cm, registry.WriteOptions{}); err != nil {
			tb.Fatal(err)
		}
	}
	return router
}

// FuzzListSelectors: any labelSelector and fieldSelector a client sends
// to a list is parsed as the list handler parses it: a 400 Status for
// one that does not parse or names a field the resource does not index,
// never a panic or another error; a list that succeeds holds exactly the
// objects the selectors match.
func FuzzListSelectors(f *testing.F) {
	for _, seed := range [][2]string{
		{"app=web", ""}, {"app in (web,db),!tier", "metadata.name!=b"}, {"app notin (db)", "metadata.namespace=default"},
		{"x.io/y", ""}, {"app==", "spec.x=y"}, {"(", "a=b=c"}, {"tier!=front,app", "metadata.name=a,metadata.name!=a"},
		{"", `metadata.name=a\,b`}, {"a,", "involvedObject.kind=Pod"}, {"app>1", ""},
	} {
		f.Add(seed[0], seed[1], false)
	}
	f.Add("", "involvedObject.kind=Pod,source=x", true)
	router := listRouter(f)
	f.Fuzz(func(t *testing.T, labelSel, fieldSel string, events bool) {
		path := "/api/v1/namespaces/default/configmaps"
		if events {
			path = "/api/v1/namespaces/default/events"
		}
		q := url.Values{"labelSelector": {labelSel}, "fieldSelector": {fieldSel}}
		w := httptest.NewRecorder()
		router.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path+"?"+q.Encode(), nil))
		switch w.Code {
		case http.StatusBadRequest:
			var st metav1.Status
			if err := json.Unmarshal(w.Body.Bytes(), &st); err != nil || st.Reason != metav1.StatusReasonBadRequest {
				t.Fatalf("%q %q: 400 that is not kube's Status: %s", labelSel, fieldSel, w.Body)
			}
			return
		case http.StatusOK:
		default:
			t.Fatalf("%q %q: %d %s", labelSel, fieldSel, w.Code, w.Body)
		}
		var want map[string]map[string]string
		if !events {
			want = listedConfigMaps
		}
		checkSelected(t, w.Body.Bytes(), labelSel, fieldSel, want)
	})
}

// checkSelected fails unless the list holds exactly the objects of all
// (name → labels, in namespace default) the selectors match.
func checkSelected(t *testing.T, body []byte, labelSel, fieldSel string, all map[string]map[string]string) {
	t.Helper()
	var list struct {
		Items []metav1.PartialObjectMetadata `json:"items"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		t.Fatalf("list: %v: %s", err, body)
	}
	ls, err1 := labels.Parse(labelSel)
	fs, err2 := fields.ParseSelector(fieldSel)
	if err1 != nil || err2 != nil {
		t.Fatalf("%q %q listed, but do not parse: %v %v", labelSel, fieldSel, err1, err2)
	}
	want := map[string]bool{}
	for name, lbls := range all {
		if ls.Matches(labels.Set(lbls)) && fs.Matches(fields.Set{"metadata.name": name, "metadata.namespace": metav1.NamespaceDefault}) {
			want[name] = true
		}
	}
	got := map[string]bool{}
	for _, it := range list.Items {
		got[it.Name] = true
	}
	if !maps.Equal(got, want) {
		t.Fatalf("%q %q selected %v, want %v", labelSel, fieldSel, got, want)
	}
}
