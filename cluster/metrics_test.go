package cluster

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// testTimeout bounds every wait in these tests; generous for busy CI.
const testTimeout = 30 * time.Second

// startSingleNode starts a one-node cluster on free ports and waits until
// it is ready.
func startSingleNode(t *testing.T) *Node {
	t.Helper()
	return startSingleNodeWith(t, func(*Config) {})
}

// startSingleNodeWith is startSingleNode with the config changed by set.
func startSingleNodeWith(t *testing.T, set func(*Config)) *Node {
	t.Helper()
	cfg := Config{Name: "n1", DataDir: t.TempDir(), Listen: "127.0.0.1:0", PeerListen: "127.0.0.1:0"}
	set(&cfg)
	n, err := Start(cfg)
	if err != nil {
		t.Fatalf("start node: %v", err)
	}
	t.Cleanup(func() { stopNode(t, n) })
	pollUntil(t, "node ready", func() (bool, string) {
		code, body := httpDo(t, n, http.MethodGet, "/readyz?verbose", "")
		return code == http.StatusOK, body
	})
	return n
}

func stopNode(t *testing.T, n *Node) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := n.Stop(ctx); err != nil {
		t.Logf("stop %s: %v", n.APIAddr(), err)
	}
}

// pollUntil calls cond every 20ms until it holds or testTimeout passes;
// cond's string describes the last state for the failure message.
func pollUntil(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(testTimeout)
	for {
		ok, last := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s; last: %s", what, last)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// httpDo sends one request to n and returns the status code and body.
func httpDo(t *testing.T, n *Node, method, path, body string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, baseURL(n)+path, strings.NewReader(body))
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := adminClient(t, n).Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", method, path, err)
	}
	return resp.StatusCode, string(b)
}

// scrape is one /metrics exposition.
type scrape string

func scrapeMetrics(t *testing.T, n *Node) scrape {
	t.Helper()
	code, body := httpDo(t, n, http.MethodGet, "/metrics", "")
	if code != http.StatusOK {
		t.Fatalf("GET /metrics: %d %s", code, body)
	}
	return scrape(body)
}

// value sums the samples of metric name whose labels include every
// name="value" pair of labels; ok is false when none matches.
func (s scrape) value(name string, labels ...string) (sum float64, ok bool) {
	for _, line := range strings.Split(string(s), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		series, val, found := strings.Cut(line, " ")
		if !found {
			continue
		}
		metric, lbls, _ := strings.Cut(series, "{")
		if metric != name || !hasLabels(lbls, labels) {
			continue
		}
		v, err := strconv.ParseFloat(val, 64)
		if err != nil {
			continue
		}
		sum, ok = sum+v, true
	}
	return sum, ok
}

func hasLabels(lbls string, want []string) bool {
	for i := 0; i+1 < len(want); i += 2 {
		if !strings.Contains(lbls, fmt.Sprintf("%s=%q", want[i], want[i+1])) {
			return false
		}
	}
	return true
}

func (s scrape) mustValue(t *testing.T, name string, labels ...string) float64 {
	t.Helper()
	v, ok := s.value(name, labels...)
	if !ok {
		t.Fatalf("no sample %s%v in /metrics", name, labels)
	}
	return v
}

func configMap(name, data string) string {
	return fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q},"data":{"k":%q}}`, name, data)
}

// listRV lists configmaps in ns and returns the list's resourceVersion.
func listRV(t *testing.T, n *Node, ns string) uint64 {
	t.Helper()
	code, body := httpDo(t, n, http.MethodGet, "/api/v1/namespaces/"+ns+"/configmaps", "")
	if code != http.StatusOK {
		t.Fatalf("list: %d %s", code, body)
	}
	var l struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal([]byte(body), &l); err != nil {
		t.Fatalf("decode list: %v", err)
	}
	rv, err := strconv.ParseUint(l.Metadata.ResourceVersion, 10, 64)
	if err != nil {
		t.Fatalf("list resourceVersion %q: %v", l.Metadata.ResourceVersion, err)
	}
	return rv
}

// openWatch starts a watch of configmaps in ns after rv and returns a
// reader of its lines and a function ending it.
func openWatch(t *testing.T, n *Node, ns string, rv uint64) (*bufio.Reader, func()) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	url := fmt.Sprintf("%s/api/v1/namespaces/%s/configmaps?watch=true&resourceVersion=%d", baseURL(n), ns, rv)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	resp, err := adminClient(t, n).Do(req)
	if err != nil {
		cancel()
		t.Fatalf("watch: %v", err)
	}
	if resp.StatusCode != http.StatusOK {
		cancel()
		t.Fatalf("watch: %s", resp.Status)
	}
	return bufio.NewReader(resp.Body), func() { cancel(); resp.Body.Close() }
}

func TestMetricsRequests(t *testing.T) {
	n := startSingleNode(t)
	const ns = "default"
	cm := "/api/v1/namespaces/" + ns + "/configmaps"
	before := scrapeMetrics(t, n)

	rv := listRV(t, n, ns)
	events, stopWatch := openWatch(t, n, ns, rv)
	defer stopWatch()
	if code, body := httpDo(t, n, http.MethodPost, cm, configMap("a", "1")); code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, body)
	}
	line, err := events.ReadString('\n')
	if err != nil || !strings.Contains(line, `"ADDED"`) {
		t.Fatalf("watch event: %q, %v", line, err)
	}
	stopWatch()
	if code, body := httpDo(t, n, http.MethodGet, cm+"/a", ""); code != http.StatusOK {
		t.Fatalf("get: %d %s", code, body)
	}
	if code, body := httpDo(t, n, http.MethodGet, cm+"/missing", ""); code != http.StatusNotFound {
		t.Fatalf("get missing: %d %s", code, body)
	}
	if code, body := httpDo(t, n, http.MethodDelete, cm+"/a", ""); code != http.StatusOK {
		t.Fatalf("delete: %d %s", code, body)
	}
	listRV(t, n, ns)

	cases := []struct {
		verb, code, scope string
	}{
		{"POST", "201", "resource"},
		{"LIST", "200", "namespace"},
		{"GET", "200", "resource"},
		{"GET", "404", "resource"},
		{"DELETE", "200", "resource"},
		{"WATCH", "200", "namespace"},
	}
	// A WATCH is recorded when its stream ends, which the server notices
	// shortly after the client hung up.
	var after scrape
	pollUntil(t, "watch recorded", func() (bool, string) {
		after = scrapeMetrics(t, n)
		_, ok := after.value("apiserver_request_total", "verb", "WATCH", "resource", "configmaps")
		return ok, "no WATCH sample"
	})
	for _, c := range cases {
		labels := []string{"verb", c.verb, "group", "", "version", "v1", "resource", "configmaps", "subresource", "",
			"scope", c.scope, "component", "apiserver", "code", c.code}
		b, _ := before.value("apiserver_request_total", labels...)
		if a := after.mustValue(t, "apiserver_request_total", labels...); a < b+1 {
			t.Errorf("apiserver_request_total%v went from %v to %v", labels, b, a)
		}
		hl := labels[:len(labels)-2]
		if cnt := after.mustValue(t, "apiserver_request_duration_seconds_count", hl...); cnt < 1 {
			t.Errorf("apiserver_request_duration_seconds_count%v = %v", hl, cnt)
		}
	}
	if v := after.mustValue(t, "apiserver_request_duration_seconds_bucket", "verb", "POST", "resource", "configmaps", "le", "+Inf"); v < 1 {
		t.Errorf("POST latency histogram has %v samples", v)
	}
	for _, op := range []string{"create", "delete"} {
		if v := after.mustValue(t, "raftapi_apply_duration_seconds_count", "operation", op); v < 1 {
			t.Errorf("raftapi_apply_duration_seconds_count{operation=%q} = %v", op, v)
		}
	}
	b, _ := before.value("raftapi_watch_events_sent_total")
	if a := after.mustValue(t, "raftapi_watch_events_sent_total"); a < b+1 {
		t.Errorf("raftapi_watch_events_sent_total went from %v to %v", b, a)
	}
	for _, name := range []string{"go_goroutines", "process_start_time_seconds"} {
		after.mustValue(t, name)
	}
}

func TestMetricsRaftGauges(t *testing.T) {
	n := startSingleNode(t)
	if code, body := httpDo(t, n, http.MethodPost, "/api/v1/namespaces/default/configmaps", configMap("g", "1")); code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, body)
	}
	// The node's controllers write on their own (default ServiceAccounts,
	// kube-root-ca.crt): compare with a scrape between two lists at the
	// same revision.
	var s scrape
	var rv uint64
	pollUntil(t, "a scrape between two lists at one revision", func() (bool, string) {
		rv = listRV(t, n, "default")
		s = scrapeMetrics(t, n)
		again := listRV(t, n, "default")
		return again == rv, fmt.Sprintf("revision %d then %d", rv, again)
	})

	if v := s.mustValue(t, "raftapi_raft_state", "state", "Leader"); v != 1 {
		t.Errorf("raftapi_raft_state{state=Leader} = %v, want 1", v)
	}
	if v := s.mustValue(t, "raftapi_raft_state"); v != 1 {
		t.Errorf("raftapi_raft_state sums to %v, want exactly one state", v)
	}
	applied := s.mustValue(t, "raftapi_raft_applied_index")
	if applied != float64(rv) {
		t.Errorf("raftapi_raft_applied_index = %v, want the list resourceVersion %d", applied, rv)
	}
	if v := s.mustValue(t, "raftapi_raft_commit_index"); v < applied {
		t.Errorf("raftapi_raft_commit_index = %v < applied %v", v, applied)
	}
	if v := s.mustValue(t, "raftapi_raft_term"); v < 1 {
		t.Errorf("raftapi_raft_term = %v", v)
	}
	if v := s.mustValue(t, "raftapi_raft_leader_changes_total"); v < 1 {
		t.Errorf("raftapi_raft_leader_changes_total = %v, want >= 1 (the election)", v)
	}
	compacted := s.mustValue(t, "raftapi_compacted_revision")
	if v := s.mustValue(t, "raftapi_history_window_revisions"); v != applied-compacted {
		t.Errorf("raftapi_history_window_revisions = %v, want %v - %v", v, applied, compacted)
	}
	if v := s.mustValue(t, "raftapi_storage_db_size_bytes"); v <= 0 {
		t.Errorf("raftapi_storage_db_size_bytes = %v", v)
	}
	if v := s.mustValue(t, "raftapi_raft_peers"); v != 0 {
		t.Errorf("raftapi_raft_peers = %v on a single node", v)
	}
	s.mustValue(t, "raftapi_raft_last_log_index")

	// The node's own watches (custom resource serving, CRD controllers)
	// count too: the client's watch adds one to them.
	base := scrapeMetrics(t, n).mustValue(t, "raftapi_watchers")
	_, stopWatch := openWatch(t, n, "default", rv)
	defer stopWatch()
	pollUntil(t, "watcher gauge", func() (bool, string) {
		v, _ := scrapeMetrics(t, n).value("raftapi_watchers")
		return v == base+1, fmt.Sprintf("raftapi_watchers = %v, base %v", v, base)
	})
	stopWatch()
	pollUntil(t, "watcher gauge back to its base", func() (bool, string) {
		v, _ := scrapeMetrics(t, n).value("raftapi_watchers")
		return v == base, fmt.Sprintf("raftapi_watchers = %v, base %v", v, base)
	})
}

// TestInstrumentKeepsStreaming checks that a handler behind instrument can
// still flush: each line must reach the client while the handler waits.
func TestInstrumentKeepsStreaming(t *testing.T) {
	m := newRequestMetrics()
	read := make(chan struct{})
	h := m.instrument(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := w.(http.Flusher); !ok {
			t.Error("instrumented writer is not an http.Flusher")
		}
		w.WriteHeader(http.StatusOK)
		for i := 0; i < 3; i++ {
			fmt.Fprintf(w, "line %d\n", i)
			if err := http.NewResponseController(w).Flush(); err != nil {
				t.Errorf("flush: %v", err)
			}
			select {
			case <-read:
			case <-r.Context().Done():
				return
			}
		}
	}))
	srv := httptest.NewServer(h)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/api/v1/namespaces/x/configmaps?watch=1", nil)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	for i := 0; i < 3; i++ {
		line, err := br.ReadString('\n')
		if err != nil || line != fmt.Sprintf("line %d\n", i) {
			t.Fatalf("line %d: %q, %v", i, line, err)
		}
		read <- struct{}{}
	}
	if _, err := io.ReadAll(br); err != nil {
		t.Fatal(err)
	}
	// The stream ended when the handler returned, before the client saw
	// EOF: the request is recorded by now.
	rec := httptest.NewRecorder()
	m.handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	watch := []string{"verb", "WATCH", "version", "v1", "resource", "configmaps", "scope", "namespace", "code", "200"}
	if v, _ := scrape(rec.Body.String()).value("apiserver_request_total", watch...); v != 1 {
		t.Errorf("apiserver_request_total%v = %v, want 1", watch, v)
	}
}

// ri is a requestInfo's metrics labels.
func ri(verb, group, version, resource, subresource, scope string) requestInfo {
	return requestInfo{verb: verb, group: group, version: version, resource: resource, subresource: subresource, scope: scope}
}

func TestParseRequestInfo(t *testing.T) {
	cases := []struct {
		name, method, url, contentType string
		want                           requestInfo
	}{
		{"create", "POST", "/api/v1/namespaces/ns/configmaps", "", ri("POST", "", "v1", "configmaps", "", "resource")},
		{"list namespaced", "GET", "/api/v1/namespaces/ns/configmaps", "", ri("LIST", "", "v1", "configmaps", "", "namespace")},
		{"list all namespaces", "GET", "/api/v1/configmaps", "", ri("LIST", "", "v1", "configmaps", "", "cluster")},
		{"get", "GET", "/api/v1/namespaces/ns/configmaps/a", "", ri("GET", "", "v1", "configmaps", "", "resource")},
		{"watch param", "GET", "/api/v1/namespaces/ns/configmaps?watch=true", "", ri("WATCH", "", "v1", "configmaps", "", "namespace")},
		{"watch false", "GET", "/api/v1/namespaces/ns/configmaps?watch=false", "", ri("LIST", "", "v1", "configmaps", "", "namespace")},
		{"watch path", "GET", "/api/v1/watch/namespaces/ns/configmaps/a", "", ri("WATCH", "", "v1", "configmaps", "", "resource")},
		{"named get with watch param", "GET", "/api/v1/namespaces/ns/configmaps/a?watch=true", "", ri("WATCH", "", "v1", "configmaps", "", "resource")},
		{"update", "PUT", "/api/v1/namespaces/ns/configmaps/a", "", ri("PUT", "", "v1", "configmaps", "", "resource")},
		{"patch", "PATCH", "/api/v1/namespaces/ns/configmaps/a", "application/merge-patch+json", ri("PATCH", "", "v1", "configmaps", "", "resource")},
		{"apply", "PATCH", "/api/v1/namespaces/ns/configmaps/a", "application/apply-patch+yaml", ri("APPLY", "", "v1", "configmaps", "", "resource")},
		{"delete", "DELETE", "/api/v1/namespaces/ns/configmaps/a", "", ri("DELETE", "", "v1", "configmaps", "", "resource")},
		{"deletecollection", "DELETE", "/api/v1/namespaces/ns/configmaps", "", ri("DELETECOLLECTION", "", "v1", "configmaps", "", "namespace")},
		{"namespace object", "GET", "/api/v1/namespaces/ns", "", ri("GET", "", "v1", "namespaces", "", "resource")},
		{"namespace status", "PUT", "/api/v1/namespaces/ns/status", "", ri("PUT", "", "v1", "namespaces", "status", "resource")},
		{"namespaces", "GET", "/api/v1/namespaces", "", ri("LIST", "", "v1", "namespaces", "", "cluster")},
		{"group", "GET", "/apis/coordination.k8s.io/v1/namespaces/ns/leases/l", "", ri("GET", "coordination.k8s.io", "v1", "leases", "", "resource")},
		{"subresource", "PUT", "/apis/example.com/v1/namespaces/ns/widgets/w/status", "", ri("PUT", "example.com", "v1", "widgets", "status", "resource")},
		{"connect", "POST", "/api/v1/namespaces/ns/pods/p/exec", "", ri("CONNECT", "", "v1", "pods", "exec", "resource")},
		{"discovery", "GET", "/apis/apps/v1", "", requestInfo{verb: "GET"}},
		{"core discovery", "GET", "/api/v1", "", requestInfo{verb: "GET"}},
		{"health", "GET", "/readyz", "", requestInfo{verb: "GET"}},
		{"root", "GET", "/", "", requestInfo{verb: "GET"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest(c.method, c.url, nil)
			if c.contentType != "" {
				r.Header.Set("Content-Type", c.contentType)
			}
			got := parseRequestInfo(r)
			got.namespace, got.name, got.watchPath = "", "", false // not metrics labels; see TestForbiddenMessages
			if got != c.want {
				t.Errorf("parseRequestInfo(%s %s) = %+v, want %+v", c.method, c.url, got, c.want)
			}
		})
	}
}

func TestResourceLabelsBounded(t *testing.T) {
	l := &resourceLabels{seen: map[resourceKey]bool{}}
	for i := 0; i < maxResourceLabels; i++ {
		in := requestInfo{verb: "LIST", version: "v1", resource: fmt.Sprintf("r%d", i), scope: "cluster"}
		if got := l.bound(in); got != in {
			t.Fatalf("label %d bounded early: %+v", i, got)
		}
	}
	if got := l.bound(requestInfo{verb: "LIST", version: "v1", resource: "one-too-many", scope: "cluster"}); got.resource != "other" {
		t.Errorf("past the bound: %+v, want resource other", got)
	}
	known := requestInfo{verb: "GET", version: "v1", resource: "r0", scope: "resource"}
	if got := l.bound(known); got != known {
		t.Errorf("known combination relabelled: %+v", got)
	}
}
