package cluster

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// TestStopEndsWatches: a stopping node ends its open watches, as their
// timeout would, so their clients resume on another node and the HTTP
// server's graceful shutdown does not wait out its deadline for them.
func TestStopEndsWatches(t *testing.T) {
	n, err := Start(Config{Name: "n1", DataDir: t.TempDir(), Listen: "127.0.0.1:0", PeerListen: "127.0.0.1:0"})
	if err != nil {
		t.Fatalf("start node: %v", err)
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			stopNode(t, n)
		}
	})
	pollUntil(t, "node ready", func() (bool, string) {
		code, body := httpDo(t, n, http.MethodGet, "/readyz?verbose", "")
		return code == http.StatusOK, body
	})
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, baseURL(n)+"/api/v1/configmaps?watch=1", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := adminClient(t, n).Do(req)
	if err != nil {
		t.Fatalf("watch: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("watch: HTTP %d", resp.StatusCode)
	}
	ended := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, resp.Body)
		ended <- err
	}()

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	stopped = true
	if err := n.Stop(ctx); err != nil {
		t.Errorf("stop: %v", err)
	}
	if ctx.Err() != nil {
		t.Fatalf("stop waited out its deadline for an open watch")
	}
	if err := <-ended; err != nil {
		t.Errorf("the watch ended with %v, want a clean end of the stream", err)
	}
}

// TestShutdownCancelsStuckRequests: a request still waiting when half of
// the stop's time is up has its context canceled, so it answers (here
// 503) and the stop ends before its deadline; on a node that has left
// the cluster at once, before half of the time.
func TestShutdownCancelsStuckRequests(t *testing.T) {
	for _, leaving := range []bool{false, true} {
		t.Run(fmt.Sprintf("leaving=%t", leaving), func(t *testing.T) {
			n := &Node{}
			n.leaving.Store(leaving)
			addr, entered := serveStuck(t, n)
			answered := make(chan int, 1)
			go func() {
				resp, err := http.Get("http://" + addr + "/")
				if err != nil {
					answered <- -1
					return
				}
				resp.Body.Close()
				answered <- resp.StatusCode
			}()
			<-entered

			budget := 6 * time.Second
			if leaving {
				budget = 40 * time.Second
			}
			ctx, cancel := context.WithTimeout(context.Background(), budget)
			defer cancel()
			start := time.Now()
			if err := n.shutdownHTTP(ctx); err != nil {
				t.Errorf("shutdown: %v", err)
			}
			if ctx.Err() != nil {
				t.Fatal("shutdown waited out its whole deadline for a stuck request")
			}
			if took := time.Since(start); leaving && took >= budget/2 {
				t.Errorf("a node that left gave a stuck request %v of grace", took)
			}
			if code := <-answered; code != http.StatusServiceUnavailable {
				t.Errorf("the stuck request got %d, want its handler's 503", code)
			}
		})
	}
}

// serveStuck serves n.http on a loopback port with a handler that waits
// for its request's context to end (a read waiting for an index that
// never comes), then answers 503; entered gets a value per request.
func serveStuck(t *testing.T, n *Node) (addr string, entered <-chan struct{}) {
	t.Helper()
	n.requests, n.cancelRequests = context.WithCancel(context.Background())
	in := make(chan struct{}, 1)
	n.http = &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			in <- struct{}{}
			<-r.Context().Done()
			w.WriteHeader(http.StatusServiceUnavailable)
		}),
		BaseContext: func(net.Listener) context.Context { return n.requests },
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go n.http.Serve(ln)
	return ln.Addr().String(), in
}
