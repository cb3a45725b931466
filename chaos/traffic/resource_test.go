package traffic

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/raftapi/raftapi/chaos/history"
)

const crPath = "/apis/chaos.raftapi.io/v1/namespaces/ns/chaosobjects"

// TestCustomResourceClient runs the register and list calls on the
// custom resource against a fake API and checks what they send and how
// they read the answers, a 404 for the path apart from one for an object.
func TestCustomResourceClient(t *testing.T) {
	type request struct{ method, path, ctype, body string }
	var got []request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = append(got, request{r.Method, r.URL.Path, r.Header.Get("Content-Type"), string(b)})
		switch {
		case r.URL.Path == crPath+"/gone":
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"kind":"Status","code":404,"reason":"NotFound","details":{"name":"gone","group":"chaos.raftapi.io","kind":"chaosobjects"}}`)
		case strings.HasPrefix(r.URL.Path, "/unserved/"):
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"kind":"Status","code":404,"reason":"NotFound","message":"o1 \"\" not found","details":{"kind":"o1"}}`)
		case r.Method == http.MethodGet && r.URL.Path == crPath+"/o1":
			fmt.Fprint(w, `{"apiVersion":"chaos.raftapi.io/v1","kind":"ChaosObject","metadata":{"name":"o1","resourceVersion":"7"},"spec":{"value":"x"}}`)
		case r.Method == http.MethodGet && r.URL.Path == crPath:
			fmt.Fprint(w, `{"metadata":{"resourceVersion":"9"},"items":[{"metadata":{"name":"o1","resourceVersion":"7"},"spec":{"value":"x"}}]}`)
		case r.Method == http.MethodPost, r.Method == http.MethodPatch:
			w.WriteHeader(http.StatusCreated)
			fmt.Fprint(w, `{"metadata":{"name":"o1","resourceVersion":"10"},"spec":{"value":"z"}}`)
		}
	}))
	defer srv.Close()
	c := NewClient(ClientConfig{Nodes: map[string]string{"n1": srv.URL, "n2": srv.URL + "/unserved"}, Namespace: "ns", Timeout: 5 * time.Second})
	ctx := context.Background()
	cr := func(node string, kind history.Kind, key string) history.Op {
		return history.Op{Node: node, Resource: ChaosObjects.Name, Kind: kind, Key: key}
	}

	if g := c.Get(ctx, cr("n1", history.Get, "o1")); g.Outcome != history.OK || !g.Found || g.Value != "x" || g.ResultRV != 7 {
		t.Errorf("get: %+v", g)
	}
	if g := c.Get(ctx, cr("n1", history.Get, "gone")); g.Outcome != history.OK || g.Found || g.Unserved {
		t.Errorf("get of a missing object: %+v", g)
	}
	if g := c.Get(ctx, cr("n2", history.Get, "o1")); g.Outcome != history.Unknown || !g.Unserved || g.Found {
		t.Errorf("get from a node not serving the resource: %+v, want unknown and unserved", g)
	}
	op := cr("n1", history.Create, "o1")
	op.Value = "z"
	if w := c.Create(ctx, op); w.Outcome != history.OK || w.ResultRV != 10 {
		t.Errorf("create: %+v", w)
	}
	op = cr("n1", history.Patch, "o1")
	op.Value, op.PrecondRV = "z", 7
	if w := c.Patch(ctx, op); w.Outcome != history.OK || w.ResultRV != 10 {
		t.Errorf("patch: %+v", w)
	}
	op = cr("n1", history.Update, "gone")
	op.Value, op.PrecondRV = "z", 7
	if w := c.Update(ctx, op); w.Outcome != history.Failed || w.Code != 404 || w.Unserved {
		t.Errorf("update of a missing object: %+v", w)
	}
	op.Node = "n2"
	if w := c.Update(ctx, op); w.Outcome != history.Failed || w.Code != 404 || !w.Unserved {
		t.Errorf("update through a node not serving the resource: %+v, want failed and unserved", w)
	}
	l := c.List(ctx, history.Op{Node: "n1", Resource: ChaosObjects.Name, Kind: history.List, Mode: history.MostRecent})
	if l.Outcome != history.OK || l.ResultRV != 9 || len(l.Items) != 1 || l.Items[0] != (history.Item{Key: "o1", Value: "x", RV: 7}) {
		t.Errorf("list: %+v", l)
	}
	l = c.List(ctx, history.Op{Node: "n2", Resource: ChaosObjects.Name, Kind: history.List, Mode: history.MostRecent})
	if l.Outcome != history.Failed || !l.Unserved {
		t.Errorf("list through a node not serving the resource: %+v", l)
	}

	bodies := map[string]string{}
	for _, r := range got {
		if r.method == http.MethodPost || r.method == http.MethodPatch {
			if r.path != map[string]string{http.MethodPost: crPath, http.MethodPatch: crPath + "/o1"}[r.method] {
				t.Errorf("%s to %s", r.method, r.path)
			}
			bodies[r.method] = r.ctype + " " + r.body
		}
	}
	want := map[string]string{
		http.MethodPost:  `application/json {"apiVersion":"chaos.raftapi.io/v1","kind":"ChaosObject","metadata":{"name":"o1","namespace":"ns"},"spec":{"value":"z"}}`,
		http.MethodPatch: `application/merge-patch+json {"metadata":{"resourceVersion":"7"},"spec":{"value":"z"}}`,
	}
	if !reflect.DeepEqual(bodies, want) {
		t.Errorf("bodies:\n got %v\nwant %v", bodies, want)
	}
}

// TestConfigMapBodies: configmaps keep the value in data.v.
func TestConfigMapBodies(t *testing.T) {
	b, _ := json.Marshal(newObject(ConfigMaps, "ns", "r1", "v1", 3))
	if string(b) != `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"r1","namespace":"ns","resourceVersion":"3"},"data":{"v":"v1"}}` {
		t.Errorf("configmap: %s", b)
	}
	b, _ = json.Marshal(patchObject(ConfigMaps, "v2", 3))
	if string(b) != `{"metadata":{"resourceVersion":"3"},"data":{"v":"v2"}}` {
		t.Errorf("configmap patch: %s", b)
	}
}

// TestDefinition creates the definition and waits for the resource as a
// run does.
func TestDefinition(t *testing.T) {
	d := ChaosObjects.Definition()
	spec := d["spec"].(map[string]any)
	names := spec["names"].(map[string]any)
	version := spec["versions"].([]any)[0].(map[string]any)
	if d["metadata"].(map[string]any)["name"] != "chaosobjects.chaos.raftapi.io" || spec["group"] != "chaos.raftapi.io" ||
		spec["scope"] != "Namespaced" || names["plural"] != "chaosobjects" || names["kind"] != "ChaosObject" ||
		version["name"] != "v1" || version["served"] != true || version["storage"] != true {
		t.Errorf("definition: %v", d)
	}
	established := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodPost && r.URL.Path == definitionsPath:
			var got map[string]any
			if err := json.NewDecoder(r.Body).Decode(&got); err != nil || got["kind"] != "CustomResourceDefinition" {
				t.Errorf("posted %v (%v)", got, err)
			}
			established = true
			w.WriteHeader(http.StatusCreated)
			fmt.Fprint(w, `{}`)
		case r.Method == http.MethodGet && r.URL.Path == crPath && established:
			fmt.Fprint(w, `{"metadata":{"resourceVersion":"3"},"items":[]}`)
		default:
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"kind":"Status","code":404,"reason":"NotFound","details":{"kind":"chaosobjects"}}`)
		}
	}))
	defer srv.Close()
	c := NewClient(ClientConfig{Nodes: map[string]string{"n1": srv.URL}, Namespace: "ns", Timeout: 5 * time.Second})
	ctx := context.Background()
	if err := c.Serves(ctx, "n1", ChaosObjects); err == nil {
		t.Error("served before the definition was created")
	}
	if err := c.CreateDefinition(ctx, "n1", ChaosObjects); err != nil {
		t.Fatal(err)
	}
	if err := c.Serves(ctx, "n1", ChaosObjects); err != nil {
		t.Error(err)
	}
}

func TestParseResources(t *testing.T) {
	rs, err := ParseResources("configmaps, chaosobjects,configmaps")
	if err != nil || len(rs) != 2 || rs[0].Name != "configmaps" || rs[1].Name != "chaosobjects" {
		t.Errorf("ParseResources = %v, %v", rs, err)
	}
	if _, err := ParseResources("secrets"); err == nil {
		t.Error("unknown resource accepted")
	}
}

// TestWatcherKinds: a few watchers cover every resource, six every mode
// of each of two resources.
func TestWatcherKinds(t *testing.T) {
	both := []Resource{ConfigMaps, ChaosObjects}
	seen := map[string]bool{}
	for i := range 6 {
		res, mode := watcherKind(i, both)
		seen[res.Name+" "+mode] = true
	}
	if len(seen) != 6 {
		t.Errorf("six watchers over two resources: %v", seen)
	}
	if a, _ := watcherKind(0, both); a.Name != "configmaps" {
		t.Errorf("first watcher on %s", a.Name)
	}
	if b, _ := watcherKind(1, both); b.Name != "chaosobjects" {
		t.Errorf("second watcher on %s", b.Name)
	}
	for i, want := range []string{history.WatchPlain, history.WatchBookmarks, history.WatchInitialEvents, history.WatchPlain} {
		if res, mode := watcherKind(i, []Resource{ConfigMaps}); res.Name != "configmaps" || mode != want {
			t.Errorf("watcher %d of one resource: %s %s, want %s", i, res.Name, mode, want)
		}
	}
}

func TestChooseAndLearn(t *testing.T) {
	present := known{valid: true, exists: true, value: "v", rv: 4}
	kinds := map[history.Kind]bool{}
	for p := 0.0; p < 1; p += 0.01 {
		kinds[choose(present, p)] = true
	}
	for _, k := range []history.Kind{history.Get, history.Update, history.Patch, history.Delete} {
		if !kinds[k] {
			t.Errorf("never chooses %s on a present key", k)
		}
	}
	if k := choose(known{valid: true}, 0.5); k != history.Create {
		t.Errorf("chooses %s on an absent key", k)
	}
	unserved := history.Op{Kind: history.Patch, Outcome: history.Failed, Code: 404, Unserved: true}
	if got := learn(present, unserved); got != present {
		t.Errorf("a 404 for the path changed what the client knew: %+v", got)
	}
	if got := learn(present, history.Op{Kind: history.Patch, Outcome: history.Failed, Code: 404}); got != (known{valid: true}) {
		t.Errorf("a patch refused as not found: %+v", got)
	}
	if got := learn(present, history.Op{Kind: history.Patch, Outcome: history.OK, Value: "w", ResultRV: 9}); got != (known{valid: true, exists: true, value: "w", rv: 9}) {
		t.Errorf("a patch: %+v", got)
	}
}

// The workload's keys are its own; the server's objects (kube-root-ca.crt)
// and names that merely share the prefix are not.
func TestResourceOwns(t *testing.T) {
	for _, c := range []struct {
		res  Resource
		name string
		want bool
	}{
		{ConfigMaps, "r3-1", true},
		{ConfigMaps, "r0-12", true},
		{ConfigMaps, "kube-root-ca.crt", false},
		{ConfigMaps, "root", false},
		{ConfigMaps, "r", false},
		{ChaosObjects, "o1-2", true},
		{ChaosObjects, "r1-2", false},
	} {
		if got := c.res.Owns(c.name); got != c.want {
			t.Errorf("%s.Owns(%q) = %v, want %v", c.res.Name, c.name, got, c.want)
		}
	}
}

// TestVersions: chaosobjects are served in v1 (stored, spec.value) and v2
// (spec.payload); a request through v2 goes to v2's path with the value
// in payload, and the policy renames one field into the other.
func TestVersions(t *testing.T) {
	v2 := ChaosObjects.In("v2")
	if v2.path() != "/apis/chaos.raftapi.io/v2" || v2.ValueField != "payload" || ChaosObjects.In("").Version != "v1" {
		t.Errorf("In(v2) = %+v", v2)
	}
	b, _ := json.Marshal(newObject(v2, "ns", "o1", "x", 0))
	if string(b) != `{"apiVersion":"chaos.raftapi.io/v2","kind":"ChaosObject","metadata":{"name":"o1","namespace":"ns"},"spec":{"payload":"x"}}` {
		t.Errorf("v2 object: %s", b)
	}
	var o object
	_ = json.Unmarshal([]byte(`{"spec":{"value":"x"}}`), &o)
	if o.value(ChaosObjects) != "x" || o.value(v2) != "" {
		t.Errorf("a v1 object reads %q through v1 and %q through v2, want x and nothing", o.value(ChaosObjects), o.value(v2))
	}
	versions := ChaosObjects.Definition()["spec"].(map[string]any)["versions"].([]any)
	if len(versions) != 2 {
		t.Fatalf("versions: %v", versions)
	}
	second := versions[1].(map[string]any)
	required := second["schema"].(map[string]any)["openAPIV3Schema"].(map[string]any)["properties"].(map[string]any)["spec"].(map[string]any)["required"]
	if second["name"] != "v2" || second["served"] != true || second["storage"] != false || !reflect.DeepEqual(required, []string{"payload"}) {
		t.Errorf("v2 in the definition: %v", second)
	}
	p, _ := json.Marshal(ChaosObjects.Policy())
	want := `{"apiVersion":"raftapi.io/v1","kind":"ConversionPolicy","metadata":{"name":"chaosobjects.chaos.raftapi.io"},` +
		`"spec":{"steps":[{"from":"v1","renames":[{"from":"spec.value","to":"spec.payload"}],"to":"v2"}]}}`
	if string(p) != want {
		t.Errorf("policy:\n got %s\nwant %s", p, want)
	}
	if ConfigMaps.Policy() != nil || ConfigMaps.pickVersion(0.9) != "" {
		t.Error("configmaps have one version")
	}
	if a, b := ChaosObjects.pickVersion(0.49), ChaosObjects.pickVersion(0.5); a != "v1" || b != "v2" {
		t.Errorf("pickVersion: %s %s, want v1 below one half and v2 above", a, b)
	}
}

// TestConverts: the probe written with the policy reads back through
// every version of a fake that converts; a node serving v2 without the
// rename (the value still in spec.value) does not convert.
func TestConverts(t *testing.T) {
	srv := httptest.NewServer(newFakeAPI())
	defer srv.Close()
	c := NewClient(ClientConfig{Nodes: map[string]string{"n1": srv.URL + "/n1"}, Namespace: "ns", Timeout: 5 * time.Second})
	ctx := context.Background()
	if err := c.Converts(ctx, "n1", ChaosObjects); err == nil {
		t.Error("converts before the probe exists")
	}
	if err := c.CreatePolicy(ctx, "n1", ChaosObjects); err != nil {
		t.Fatal(err)
	}
	if err := c.Converts(ctx, "n1", ChaosObjects); err != nil {
		t.Error(err)
	}
	none := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"apiVersion":"chaos.raftapi.io/%s","metadata":{"name":"probe","resourceVersion":"3"},"spec":{"value":"probe"}}`,
			strings.Split(r.URL.Path, "/")[3])
	}))
	defer none.Close()
	c = NewClient(ClientConfig{Nodes: map[string]string{"n1": none.URL}, Namespace: "ns", Timeout: 5 * time.Second})
	if err := c.Converts(ctx, "n1", ChaosObjects); err == nil || !strings.Contains(err.Error(), "spec.payload") {
		t.Errorf("a node converting with None: %v, want an error naming spec.payload", err)
	}
}
