package handlers_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/mux"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/raftapi/raftapi/api/handlers"
	"github.com/raftapi/raftapi/api/registry"
	"github.com/raftapi/raftapi/api/registry/registrytest"
)

// waitFor bounds every wait of these tests; generous for -race on busy
// machines.
const waitFor = 20 * time.Second

// writeTimeout is the watches' write timeout in these tests.
const writeTimeout = 300 * time.Millisecond

// watchServer serves list and watch of configmaps over an in-memory
// registry and counts its open connections.
type watchServer struct {
	srv   *httptest.Server
	store *registry.Store
	conns atomic.Int64
}

func newWatchServer(t *testing.T, http2 bool) *watchServer {
	t.Helper()
	reg, _ := registrytest.NewRegistry(t, registry.Options{})
	ctx := context.Background()
	if err := reg.EnsureNamespace(ctx, metav1.NamespaceDefault); err != nil {
		t.Fatal(err)
	}
	res := reg.Resources().Get(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"})
	ws := &watchServer{store: reg.Store(res)}
	sc := &handlers.Scope{Store: ws.store, Resource: res, Codecs: reg.Codecs(), Now: time.Now,
		BookmarkInterval: time.Minute, WatchWriteTimeout: writeTimeout}
	router := mux.NewRouter()
	router.HandleFunc("/api/v1/namespaces/{namespace}/configmaps", handlers.List(sc)).Methods(http.MethodGet)
	ws.srv = httptest.NewUnstartedServer(router)
	ws.srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		switch s {
		case http.StateNew:
			ws.conns.Add(1)
		case http.StateClosed, http.StateHijacked:
			ws.conns.Add(-1)
		}
	}
	if http2 {
		ws.srv.EnableHTTP2 = true
		ws.srv.StartTLS()
	} else {
		ws.srv.Start()
	}
	t.Cleanup(ws.srv.Close)
	return ws
}

// create stores a configmap whose data holds size bytes.
func (ws *watchServer) create(t *testing.T, name string, size int) {
	t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"v": strings.Repeat("x", size)}}
	if _, err := ws.store.Create(context.Background(), metav1.NamespaceDefault, cm, registry.WriteOptions{}); err != nil {
		t.Fatalf("create %s: %v", name, err)
	}
}

// watchHandlers counts the goroutines serving a watch.
func watchHandlers() int {
	buf := make([]byte, 1<<22)
	buf = buf[:runtime.Stack(buf, true)]
	return strings.Count(string(buf), "api/handlers.(*Scope).watch(")
}

// poll calls cond until it holds or waitFor passes.
func poll(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitFor)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestStuckWatcherDropped: a client opens a watch and never reads while
// large objects are written. Once a write to it has been blocked for the
// write timeout, the handler returns and the server closes the
// connection: no goroutine or socket stays behind for the client's sake.
func TestStuckWatcherDropped(t *testing.T) {
	ws := newWatchServer(t, false)
	conn, err := net.Dial("tcp", ws.srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// A small receive buffer fills sooner (but not below the loopback
	// MSS, or the window would never reopen for the final drain).
	_ = conn.(*net.TCPConn).SetReadBuffer(256 << 10)
	if _, err := fmt.Fprintf(conn, "GET /api/v1/namespaces/default/configmaps?watch=true HTTP/1.1\r\nHost: test\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	poll(t, "the watch to start", func() bool { return watchHandlers() == 1 })
	// Write until the stuck stream has been dropped: what the socket
	// buffers hold is all the client will ever get.
	written := 0
	for ; watchHandlers() > 0; written++ {
		if written == 2000 {
			t.Fatalf("the watch handler still runs after %d objects of 64 KiB the client never read", written)
		}
		ws.create(t, fmt.Sprintf("cm-%d", written), 64<<10)
	}
	t.Logf("the stuck watcher was dropped after %d objects of 64 KiB", written)
	poll(t, "the server to close the connection", func() bool { return ws.conns.Load() == 0 })
	// The client sees the end of the stream once it drains its buffers.
	_ = conn.SetReadDeadline(time.Now().Add(waitFor))
	if n, err := io.Copy(io.Discard, conn); err != nil && !strings.Contains(err.Error(), "reset") {
		t.Fatalf("reading the cut stream: %v after %d bytes, want EOF or reset", err, n)
	}
}

// TestIdleWatchOutlivesWriteTimeout: the write timeout bounds writes
// only; a watch with nothing to send for many times that long, over
// HTTP/1.1 and HTTP/2 (where a stream deadline fires even between
// writes), still delivers the next event.
func TestIdleWatchOutlivesWriteTimeout(t *testing.T) {
	for _, h2 := range []bool{false, true} {
		t.Run(fmt.Sprintf("http2=%v", h2), func(t *testing.T) {
			ws := newWatchServer(t, h2)
			client := ws.srv.Client()
			resp, err := client.Get(ws.srv.URL + "/api/v1/namespaces/default/configmaps?watch=true")
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if h2 && resp.ProtoMajor != 2 {
				t.Fatalf("protocol %s, want HTTP/2", resp.Proto)
			}
			time.Sleep(4 * writeTimeout) // the idleness under test, not a synchronisation
			ws.create(t, "late", 10)
			line, err := bufio.NewReader(resp.Body).ReadString('\n')
			if err != nil || !strings.Contains(line, `"type":"ADDED"`) || !strings.Contains(line, `"name":"late"`) {
				t.Fatalf("first event %q, %v; want ADDED late", line, err)
			}
		})
	}
}
