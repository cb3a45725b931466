package traffic

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/raftapi/raftapi/chaos/check"
	"github.com/raftapi/raftapi/chaos/history"
)

// fakeAPI is an in-memory API server of configmaps and chaosobjects in one
// namespace, linearizable by construction (one lock, one resourceVersion
// counter for both). It serves chaosobjects in each of their versions,
// the value in the field of the version asked (a conversion). Node URLs
// are its URL plus /NODE; a node in unserved answers 404 for the
// chaosobjects path, as a node that has not applied the definition does.
type fakeAPI struct {
	mu       sync.Mutex
	rv       int64
	objs     map[string]map[string]history.Item // resource, name
	unserved map[string]bool                    // node
}

func newFakeAPI() *fakeAPI {
	return &fakeAPI{objs: map[string]map[string]history.Item{ConfigMaps.Name: {}, ChaosObjects.Name: {}}, unserved: map[string]bool{}}
}

func (f *fakeAPI) setUnserved(node string, on bool) {
	f.mu.Lock()
	f.unserved[node] = on
	f.mu.Unlock()
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// /NODE/api/v1/namespaces/ns/configmaps[/NAME] or
	// /NODE/apis/chaos.raftapi.io/v1/namespaces/ns/chaosobjects[/NAME]
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	node, parts := parts[0], parts[1:]
	if parts[0] == "apis" {
		parts = parts[1:]
	}
	if len(parts) < 5 { // a definition or a policy
		writeJSON(w, http.StatusCreated, map[string]any{})
		return
	}
	res, name := resourceOf(parts[4], parts[1]), ""
	if len(parts) > 5 {
		name = parts[5]
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if res.Custom && f.unserved[node] {
		writeStatus(w, http.StatusNotFound, "")
		return
	}
	objs := f.objs[res.Name]
	cur, exists := objs[name]
	var body object
	if r.Body != nil {
		_ = json.NewDecoder(r.Body).Decode(&body)
	}
	switch {
	case r.Method == http.MethodGet && name == "":
		l := map[string]any{"metadata": map[string]string{"resourceVersion": strconv.FormatInt(f.rv, 10)}}
		var items []object
		for n, it := range objs {
			items = append(items, newObject(res, "ns", n, it.Value, it.RV))
		}
		l["items"] = items
		writeJSON(w, http.StatusOK, l)
	case !exists && r.Method != http.MethodPost:
		writeStatus(w, http.StatusNotFound, name)
	case r.Method == http.MethodGet:
		writeJSON(w, http.StatusOK, newObject(res, "ns", name, cur.Value, cur.RV))
	case r.Method == http.MethodDelete:
		delete(objs, name)
		f.rv++
		writeJSON(w, http.StatusOK, map[string]any{"kind": "Status", "status": "Success"})
	case r.Method == http.MethodPost && objs[body.Metadata.Name].RV != 0:
		writeStatus(w, http.StatusConflict, body.Metadata.Name)
	case r.Method != http.MethodPost && body.rv() != 0 && body.rv() != cur.RV:
		writeStatus(w, http.StatusConflict, name)
	default: // create, update, patch
		if name == "" {
			name = body.Metadata.Name
		}
		f.rv++
		objs[name] = history.Item{Key: name, Value: body.value(res), RV: f.rv}
		writeJSON(w, http.StatusOK, newObject(res, "ns", name, body.value(res), f.rv))
	}
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// writeStatus writes a 404 or 409 Status; a 404 without name is one for
// the path.
func writeStatus(w http.ResponseWriter, code int, name string) {
	writeJSON(w, code, map[string]any{"kind": "Status", "code": code, "details": map[string]string{"name": name}})
}

// TestTrafficOnBothResources runs register clients on configmaps and
// chaosobjects against the fake, with one node not serving the custom
// resource for a while (recorded as a restart), until every kind of
// operation has succeeded on both resources; the history must pass every
// checker.
func TestTrafficOnBothResources(t *testing.T) {
	f := newFakeAPI()
	srv := httptest.NewServer(f)
	defer srv.Close()
	nodes := map[string]string{"n1": srv.URL + "/n1", "n2": srv.URL + "/n2"}
	rec := history.NewRecorder("ns", []string{"n1", "n2"})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	restart := history.Fault{Name: "kill-random", Targets: []string{"n2"}, Start: rec.Now(), Restarts: true}
	f.setUnserved("n2", true)
	tr := Start(ctx, Config{Client: NewClient(ClientConfig{Nodes: nodes, Namespace: "ns", Timeout: 5 * time.Second}), Recorder: rec, Nodes: []string{"n1", "n2"},
		Resources: []Resource{ConfigMaps, ChaosObjects}, RegisterClients: 4, Keys: 2, KeyLifetime: 300 * time.Millisecond, Seed: 1})
	// Serve again once the node not serving has answered at least once.
	for ctx.Err() == nil && rec.History().Unserved()[ChaosObjects.Name] == 0 {
		time.Sleep(10 * time.Millisecond)
	}
	f.setUnserved("n2", false)
	restart.End = rec.Now()
	rec.Fault(restart)

	var counts map[history.Kind]map[history.Outcome]int
	var unserved atomic.Int64
	for ctx.Err() == nil {
		h := rec.History()
		counts = h.Counts()
		unserved.Store(int64(h.Unserved()[ChaosObjects.Name]))
		if coversEveryKind(counts) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	tr.StopClients()
	tr.Final(ctx)
	if !coversEveryKind(counts) {
		t.Fatalf("not every kind of operation succeeded on both resources: %v", counts)
	}
	if unserved.Load() == 0 {
		t.Error("no operation was answered by the node not serving chaosobjects")
	}
	h := rec.History()
	for _, r := range check.All(h, check.Options{LinearizabilityTimeout: 20 * time.Second}) {
		if !r.Passed {
			t.Errorf("%s: %d anomalies: %+v", r.Checker, r.Count, r.Anomalies)
		}
	}
	for _, k := range h.Ops {
		if k.Resource == "" {
			t.Fatalf("operation without a resource: %+v", k)
		}
	}
	if through := okThrough(h, ChaosObjects.Name); through["v1"] == 0 || through["v2"] == 0 || len(through) != 2 {
		t.Errorf("chaosobjects operations that succeeded, by version: %v, want some through v1 and v2 each", through)
	}
}

// okThrough counts the successful operations on res by the version they
// went through.
func okThrough(h *history.History, res string) map[string]int {
	out := map[string]int{}
	for _, o := range h.Ops {
		if o.Resource == res && o.Outcome == history.OK {
			out[o.Version]++
		}
	}
	return out
}

// coversEveryKind reports whether get, create, update, patch and delete
// each succeeded on both resources.
func coversEveryKind(counts map[history.Kind]map[history.Outcome]int) bool {
	for _, res := range []string{ConfigMaps.Name, ChaosObjects.Name} {
		for _, k := range []history.Kind{history.Get, history.Create, history.Update, history.Patch, history.Delete} {
			if counts[history.Kind(fmt.Sprintf("%s/%s", res, k))][history.OK] == 0 {
				return false
			}
		}
	}
	return true
}
