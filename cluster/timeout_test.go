package cluster

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// kubeTimeoutBody is kube-apiserver's 504 body, byte for byte.
const kubeTimeoutBody = `{"metadata":{},"status":"Failure","message":"Timeout: request did not complete within the allotted timeout","reason":"Timeout","details":{},"code":504}` + "\n"

// timeoutServer serves h under withRequestTimeout(max) and withRecover,
// as a node does, and counts its open connections and running handlers.
type timeoutServer struct {
	*httptest.Server
	conns, handlers atomic.Int64
}

func newTimeoutServer(t *testing.T, max time.Duration, h http.HandlerFunc) *timeoutServer {
	t.Helper()
	ts := &timeoutServer{}
	counted := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ts.handlers.Add(1)
		defer ts.handlers.Add(-1)
		h(w, r)
	})
	ts.Server = httptest.NewUnstartedServer(withRequestTimeout(max, withRecover(slog.New(slog.DiscardHandler), counted)))
	ts.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		switch s {
		case http.StateNew:
			ts.conns.Add(1)
		case http.StateClosed, http.StateHijacked:
			ts.conns.Add(-1)
		}
	}
	ts.Start()
	t.Cleanup(ts.Close)
	return ts
}

// waitIdle waits until no handler runs and no connection is open.
func (ts *timeoutServer) waitIdle(t *testing.T) {
	t.Helper()
	pollUntil(t, "handlers and connections to end", func() (bool, string) {
		h, c := ts.handlers.Load(), ts.conns.Load()
		return h == 0 && c == 0, fmt.Sprintf("%d handlers, %d connections", h, c)
	})
}

// untilDone blocks until the request's context ends, as a store read
// does, then answers as a handler would.
func untilDone(w http.ResponseWriter, r *http.Request) {
	<-r.Context().Done()
	http.Error(w, "too late: "+r.Context().Err().Error(), http.StatusInternalServerError)
}

func get(t *testing.T, url string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// TestRequestTimeout: a request still running at its deadline gets
// kube-apiserver's 504 Timeout, its handler's context ends (so the
// handler returns), and what the handler writes afterwards is dropped;
// ?timeout= shortens the deadline, a malformed one is kube's 400.
func TestRequestTimeout(t *testing.T) {
	ts := newTimeoutServer(t, 300*time.Millisecond, untilDone)
	for _, tc := range []struct {
		name, query string
		atLeast     time.Duration
	}{
		{"the server's timeout", "", 300 * time.Millisecond},
		{"a shorter ?timeout=", "?timeout=50ms", 50 * time.Millisecond},
		{"a longer ?timeout= is capped", "?timeout=1h", 300 * time.Millisecond},
		{"a zero ?timeout= is the server's", "?timeout=0s", 300 * time.Millisecond},
	} {
		start := time.Now()
		resp, body := get(t, ts.URL+"/api/v1/namespaces/default/configmaps"+tc.query)
		took := time.Since(start)
		if resp.StatusCode != http.StatusGatewayTimeout || body != kubeTimeoutBody {
			t.Errorf("%s: %d %q, want kube's 504", tc.name, resp.StatusCode, body)
		}
		if took < tc.atLeast || took > tc.atLeast+5*time.Second {
			t.Errorf("%s: answered after %v, want about %v", tc.name, took, tc.atLeast)
		}
	}
	resp, body := get(t, ts.URL+"/api/v1/namespaces?timeout=soon")
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, `"message":"invalid timeout specified in the request URL - time: invalid duration \"soon\""`) {
		t.Errorf("malformed ?timeout=: %d %s, want kube's 400", resp.StatusCode, body)
	}
	ts.CloseClientConnections()
	ts.waitIdle(t)
}

// TestRequestTimeoutSpares: watches and the snapshot stream have no
// deadline; a handler that finishes in time keeps its own answer and
// headers.
func TestRequestTimeoutSpares(t *testing.T) {
	ts := newTimeoutServer(t, 100*time.Millisecond, func(w http.ResponseWriter, r *http.Request) {
		if _, ok := r.Context().Deadline(); ok {
			w.Header().Set("X-Deadline", "yes")
		}
		w.WriteHeader(http.StatusTeapot)
	})
	for path, deadline := range map[string]bool{
		"/api/v1/namespaces/default/configmaps":                       true,
		"/api/v1/namespaces/default/configmaps?watch=true":            false,
		"/api/v1/namespaces/default/configmaps?watch=1":               false,
		"/api/v1/watch/namespaces/default/configmaps":                 false,
		"/api/v1/namespaces/watch/configmaps":                         true,
		"/api/v1/namespaces/default/configmaps/a?watch=true":          true,
		"/api/v1/watch/namespaces/default/configmaps/a":               false,
		"/apis/coordination.k8s.io/v1/namespaces/a/leases?watch=true": false,
		SnapshotPath: false,
	} {
		resp, _ := get(t, ts.URL+path)
		if got := resp.Header.Get("X-Deadline") == "yes"; resp.StatusCode != http.StatusTeapot || got != deadline {
			t.Errorf("GET %s: %d, deadline %v; want 418, deadline %v", path, resp.StatusCode, got, deadline)
		}
	}
}

// TestRequestTimeoutCutsStartedResponse: a handler that has begun its
// response and is still running at the deadline has the response cut
// short; it is not passed off as complete.
func TestRequestTimeoutCutsStartedResponse(t *testing.T) {
	ts := newTimeoutServer(t, 200*time.Millisecond, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"items":[`))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		_, _ = w.Write([]byte(`]}`))
	})
	resp, err := http.Get(ts.URL + "/api/v1/configmaps")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err == nil || string(body) != `{"items":[` {
		t.Fatalf("body %q, %v; want the first write, then an error", body, err)
	}
	ts.waitIdle(t)
}

// TestSlowBodyCut: fifty clients trickle their request bodies in, a byte
// now and then: each is answered 504 and its connection closed once the
// request timeout passes, and no handler or connection stays behind.
// Before the read deadline, such a connection held a goroutine until the
// client left.
func TestSlowBodyCut(t *testing.T) {
	const clients = 50
	ts := newTimeoutServer(t, 500*time.Millisecond, func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.ReadAll(r.Body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusCreated)
	})
	start := time.Now()
	var wg sync.WaitGroup
	answers := make(chan string, clients)
	for range clients {
		wg.Go(func() {
			answers <- trickle(t, ts.Listener.Addr().String(), "POST /api/v1/namespaces/default/configmaps")
		})
	}
	wg.Wait()
	close(answers)
	for a := range answers {
		if !strings.HasPrefix(a, "HTTP/1.1 504 ") {
			t.Errorf("a slow client got %q, want 504", a)
		}
	}
	t.Logf("%d slow clients cut after %v", clients, time.Since(start))
	ts.waitIdle(t)
}

// TestSlowBodyOnWatchCut: a watch's body is read (and dropped) within
// the request timeout too, and the watch itself then runs past it.
func TestSlowBodyOnWatchCut(t *testing.T) {
	ts := newTimeoutServer(t, 300*time.Millisecond, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-time.After(time.Second):
			_, _ = w.Write([]byte("still watching\n"))
		}
	})
	if a := trickle(t, ts.Listener.Addr().String(), "GET /api/v1/configmaps?watch=true"); !strings.HasPrefix(a, "HTTP/1.1 400 ") {
		t.Errorf("a watch with a slow body got %q, want 400", a)
	}
	resp, body := get(t, ts.URL+"/api/v1/configmaps?watch=true")
	if resp.StatusCode != http.StatusOK || body != "still watching\n" {
		t.Errorf("a watch past the request timeout: %d %q", resp.StatusCode, body)
	}
	ts.CloseClientConnections()
	ts.waitIdle(t)
}

// trickle sends request line, headers announcing a 1000-byte body, then
// a byte every 100ms, until the server answers or closes; it returns the
// status line ("" for a connection closed without one).
func trickle(t *testing.T, addr, requestLine string) string {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Error(err)
		return ""
	}
	defer conn.Close()
	if _, err := fmt.Fprintf(conn, "%s HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{", requestLine); err != nil {
		t.Error(err)
		return ""
	}
	status := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(conn).ReadString('\n')
		status <- line
	}()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(testTimeout)
	for {
		select {
		case line := <-status:
			return line
		case <-tick.C:
			_, _ = conn.Write([]byte(" "))
		case <-deadline:
			t.Error("a slow client was never answered")
			return ""
		}
	}
}

// TestRequestTimeoutPanic: a handler's panic is still the serving
// chain's (withRecover answers 500), and http.ErrAbortHandler still
// aborts the response.
func TestRequestTimeoutPanic(t *testing.T) {
	ts := newTimeoutServer(t, time.Minute, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Has("abort") {
			panic(http.ErrAbortHandler)
		}
		panic("boom")
	})
	resp, body := get(t, ts.URL+"/api/v1/namespaces")
	if resp.StatusCode != http.StatusInternalServerError || !strings.Contains(body, "boom") {
		t.Errorf("panic: %d %s, want 500", resp.StatusCode, body)
	}
	if _, err := http.Get(ts.URL + "/api/v1/namespaces?abort"); err == nil || errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("abort: %v, want the connection cut", err)
	}
}

// TestNodeRequestTimeout: through a node's serving chain, a read that
// waits for a revision the node has not reached is answered kube's 504
// when its ?timeout= passes, and its handler, whose context has ended,
// returns then rather than when the store's own wait (3s) gives up.
func TestNodeRequestTimeout(t *testing.T) {
	n := startSingleNode(t)
	start := time.Now()
	code, body := httpDo(t, n, http.MethodGet, "/api/v1/namespaces/default/configmaps/x?resourceVersion=999999999&timeout=200ms", "")
	if code != http.StatusGatewayTimeout || body != kubeTimeoutBody {
		t.Fatalf("%d %q, want kube's 504", code, body)
	}
	pollUntil(t, "the handler to return", func() (bool, string) {
		h := handlerGoroutines()
		return h == 0, fmt.Sprintf("%d handlers", h)
	})
	if took := time.Since(start); took > 2500*time.Millisecond {
		t.Errorf("the handler returned after %v: the store did not honour its context", took)
	}
}
