package cluster

import (
	"context"
	"io"
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
