package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/raftapi/raftapi/api"
	"github.com/raftapi/raftapi/raftstore"
	"github.com/raftapi/raftapi/raftstore/storetest"
)

// waitTimeout is how long a node waits for a revision it has not applied
// before answering 504: short, so the "too large" cases end quickly, and
// long enough for a follower on a busy machine to catch up with a fresh
// write.
const waitTimeout = 1500 * time.Millisecond

// bookmarkInterval is the servers' watch bookmark period.
const bookmarkInterval = 100 * time.Millisecond

// eventually bounds every wait for a condition or a watch event: long,
// because the tests run with the race detector on busy machines.
const eventually = 20 * time.Second

// testServer is the HTTP API of one node of an in-process cluster.
type testServer struct {
	// URL is the base URL of the httptest server.
	URL string
	// Store is the node's store.
	Store *raftstore.Store
	// Index is the node's index in the cluster.
	Index int
	// inflight counts the requests being served.
	inflight *atomic.Int64
	// close stops serving: it stops the controllers, cuts the client
	// connections and returns once every handler in flight has returned.
	// The test's end calls it too.
	close func()
}

// testCluster is an in-process raft cluster with the API served over
// HTTP on its leader and, for more than one node, on a follower.
type testCluster struct {
	c *storetest.Cluster
	// Leader serves the leader's store.
	Leader *testServer
	// Follower serves a follower's store; it is Leader on one node.
	Follower *testServer
}

// newTestCluster starts a cluster of n nodes, serves the API on the
// leader and a follower and runs their controllers until the test ends.
// It returns once the controller has created the system namespaces, so
// that afterwards only the test writes.
func newTestCluster(t *testing.T, n int, opts ...storetest.Option) *testCluster {
	t.Helper()
	opts = append([]storetest.Option{func(c *raftstore.Config) { c.WaitTimeout = waitTimeout }}, opts...)
	c := storetest.NewCluster(t, n, opts...)
	tc := &testCluster{c: c}
	leader := c.WaitForLeader()
	tc.Leader = serve(t, c, leader)
	tc.Follower = tc.Leader
	for i, node := range c.Nodes {
		if i != leader && node.Store != nil {
			tc.Follower = serve(t, c, i)
			break
		}
	}
	for _, ns := range []string{"default", "kube-system", "kube-public", "kube-node-lease"} {
		waitFor(t, "system namespace "+ns, func() bool {
			return tc.Leader.do(t, http.MethodGet, "/api/v1/namespaces/"+ns, nil).Code == http.StatusOK
		})
	}
	return tc
}

// serve serves the API over node i's store until the test ends.
func serve(t *testing.T, c *storetest.Cluster, i int) *testServer {
	t.Helper()
	return serveWith(t, c, i, api.Options{})
}

// serveWith serves the API with opts (and the tests' bookmark interval)
// over node i's store until the test ends or the server is closed.
func serveWith(t *testing.T, c *storetest.Cluster, i int, opts api.Options) *testServer {
	t.Helper()
	store := c.Nodes[i].Store
	opts.BookmarkInterval = bookmarkInterval
	srv := api.NewServer(store, opts)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Run(ctx)
	}()
	inflight := &atomic.Int64{}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inflight.Add(1)
		defer inflight.Add(-1)
		srv.ServeHTTP(w, r)
	}))
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			hs.CloseClientConnections()
			hs.Close()
			<-done
		})
	}
	t.Cleanup(stop)
	return &testServer{URL: hs.URL, Store: store, Index: i, inflight: inflight, close: stop}
}

// isolate cuts the node of s off from the cluster until heal or the end of
// the test.
func (tc *testCluster) isolate(t *testing.T, s *testServer) (heal func()) {
	t.Helper()
	tc.c.Isolate(s.Index)
	var once atomic.Bool
	heal = func() {
		if once.CompareAndSwap(false, true) {
			tc.c.Heal(s.Index)
		}
	}
	t.Cleanup(heal)
	return heal
}

// response is a finished HTTP exchange.
type response struct {
	Code   int
	Header http.Header
	Body   []byte
	// what names the request in failure messages.
	what string
}

// header is one request header.
type header struct{ key, value string }

// contentType returns a Content-Type request header.
func contentType(v string) header { return header{"Content-Type", v} }

// accept returns an Accept request header.
func accept(v string) header { return header{"Accept", v} }

// do sends a request to s and reads the whole response. body is sent as
// it is when it is a []byte or string, JSON-encoded otherwise.
func (s *testServer) do(t testing.TB, method, path string, body any, hdrs ...header) *response {
	t.Helper()
	data, err := encodeBody(body)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	r, err := s.send(method, path, data, hdrs)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	return r
}

// send performs one request, JSON unless hdrs say otherwise when there
// is a body, and reads the whole response. It is safe to call from any
// goroutine.
func (s *testServer) send(method, path string, body []byte, hdrs []header) (*response, error) {
	ctx, cancel := context.WithTimeout(context.Background(), eventually)
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, s.URL+path, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for _, h := range hdrs {
		req.Header.Set(h.key, h.value)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("reading body: %w", err)
	}
	return &response{Code: resp.StatusCode, Header: resp.Header, Body: data, what: method + " " + path}, nil
}

// pending is a request sent in the background by start.
type pending struct {
	what string
	done chan struct{}
	r    *response
	err  error
}

// start sends a GET of path to s in the background.
func (s *testServer) start(path string) *pending {
	p := &pending{what: "GET " + path, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		p.r, p.err = s.send(http.MethodGet, path, nil, nil)
	}()
	return p
}

// wait returns the response of a background request.
func (p *pending) wait(t testing.TB) *response {
	t.Helper()
	<-p.done
	if p.err != nil {
		t.Fatalf("%s: %v", p.what, p.err)
	}
	return p.r
}

// getAll sends GETs of paths to s concurrently and returns the responses
// in order: requests that each wait out a timeout then take one timeout
// in all.
func (s *testServer) getAll(t testing.TB, paths ...string) []*response {
	t.Helper()
	ps := make([]*pending, len(paths))
	for i, path := range paths {
		ps[i] = s.start(path)
	}
	out := make([]*response, len(ps))
	for i, p := range ps {
		out[i] = p.wait(t)
	}
	return out
}

// encodeBody returns the bytes of a request body: a []byte or string as
// it is, anything else as JSON; nil for no body.
func encodeBody(body any) ([]byte, error) {
	switch b := body.(type) {
	case nil:
		return nil, nil
	case []byte:
		return b, nil
	case string:
		return []byte(b), nil
	}
	data, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("encode request body: %w", err)
	}
	return data, nil
}

// wantCode fails the test unless the response has the given status code.
func (r *response) wantCode(t testing.TB, code int) *response {
	t.Helper()
	if r.Code != code {
		t.Fatalf("%s: status %d, want %d; body: %s", r.what, r.Code, code, truncate(r.Body))
	}
	return r
}

// decode decodes the JSON body into v.
func (r *response) decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("%s: body is not JSON (%v): %s", r.what, err, truncate(r.Body))
	}
}

// tryDecode decodes the JSON body into v, reporting whether it could.
func (r *response) tryDecode(v any) bool { return json.Unmarshal(r.Body, v) == nil }

// truncate shortens a body for a failure message.
func truncate(b []byte) string {
	if len(b) > 2000 {
		return string(b[:2000]) + "..."
	}
	return string(b)
}

// wantStatus checks that the response is a failure Status with the given
// HTTP code and reason, and returns it.
func (r *response) wantStatus(t testing.TB, code int, reason metav1.StatusReason) metav1.Status {
	t.Helper()
	r.wantCode(t, code)
	var st metav1.Status
	r.decode(t, &st)
	if st.Kind != "Status" || st.APIVersion != "v1" {
		t.Errorf("%s: kind %q apiVersion %q, want Status v1", r.what, st.Kind, st.APIVersion)
	}
	if st.Status != metav1.StatusFailure {
		t.Errorf("%s: status %q, want Failure", r.what, st.Status)
	}
	if st.Code != int32(code) {
		t.Errorf("%s: Status.code %d, want %d", r.what, st.Code, code)
	}
	if st.Reason != reason {
		t.Errorf("%s: reason %q, want %q; message %q", r.what, st.Reason, reason, st.Message)
	}
	return st
}

// wantCause fails the test unless st has a cause on field (when field is
// not empty) of the given type (when typ is not empty).
func wantCause(t testing.TB, st metav1.Status, typ metav1.CauseType, field string) {
	t.Helper()
	if st.Details != nil {
		for _, c := range st.Details.Causes {
			if (typ == "" || c.Type == typ) && (field == "" || c.Field == field) {
				return
			}
		}
	}
	t.Errorf("Status %q has no cause of type %q on field %q; details: %+v", st.Message, typ, field, st.Details)
}

// wantRetryAfter fails the test unless the response carries a positive
// Retry-After header.
func (r *response) wantRetryAfter(t testing.TB) {
	t.Helper()
	n, err := strconv.Atoi(r.Header.Get("Retry-After"))
	if err != nil || n <= 0 {
		t.Errorf("%s: Retry-After %q, want a positive number of seconds", r.what, r.Header.Get("Retry-After"))
	}
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(eventually)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
