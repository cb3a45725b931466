package cluster

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
)

// loadToken is the bearer token of the load test's user, whom
// AlwaysAllow lets do anything, but who is not system:masters: the
// in-flight limits apply to it.
const loadToken = "t-load"

// loadRequestTimeout is the load test node's --request-timeout.
const loadRequestTimeout = 5 * time.Second

// overloadNode starts a node with small in-flight limits and short
// timeouts, and returns it with the TLS configuration of a client that
// trusts its CA but presents no certificate.
func overloadNode(t *testing.T) (*Node, *tls.Config) {
	t.Helper()
	n, err := Start(Config{
		Name: "n1", DataDir: t.TempDir(), Listen: "127.0.0.1:0", PeerListen: "127.0.0.1:0",
		TokenAuthFile:       writeTokenFile(t, loadToken+",load,uid-load,loaders\n"),
		AuthorizationModes:  []string{ModeAlwaysAllow},
		MaxRequestsInflight: 4, MaxMutatingRequestsInflight: 2,
		RequestTimeout: loadRequestTimeout, WatchWriteTimeout: time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stopNode(t, n) })
	pollUntil(t, "node ready", func() (bool, string) {
		code, body := httpDo(t, n, http.MethodGet, "/readyz?verbose", "")
		return code == http.StatusOK, body
	})
	cfg, err := clientcmd.BuildConfigFromFlags("", n.Kubeconfig())
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(cfg.TLSClientConfig.CAData) {
		t.Fatal("the kubeconfig holds no CA")
	}
	return n, &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", NextProtos: []string{"http/1.1"}}
}

// outcomes counts the answers of the load's clients by kind.
type outcomes struct {
	mu    sync.Mutex
	kinds map[string]int
}

func (o *outcomes) add(kind string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.kinds[kind]++
}

// memSampler records the process's peak Go heap and resident size.
type memSampler struct {
	peakHeap, peakRSS atomic.Uint64
}

func (m *memSampler) sample() (heap, rss uint64) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	heap, rss = ms.HeapAlloc, residentBytes()
	for _, p := range []struct {
		peak *atomic.Uint64
		v    uint64
	}{{&m.peakHeap, heap}, {&m.peakRSS, rss}} {
		for cur := p.peak.Load(); p.v > cur && !p.peak.CompareAndSwap(cur, p.v); cur = p.peak.Load() {
		}
	}
	return heap, rss
}

// residentBytes is the process's resident set size (0 where /proc has
// none).
func residentBytes() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			var kb uint64
			_, _ = fmt.Sscanf(strings.TrimSpace(v), "%d kB", &kb)
			return kb << 10
		}
	}
	return 0
}

// TestOverload drives a node far past --max-requests-inflight with many
// concurrent clients of one user while slow-body clients and stuck
// watchers hold connections: the clients get only successes and kube's
// 429 (TooManyRequests, Retry-After), the slow clients are cut within the
// request timeout, the stuck watchers are dropped, memory stays bounded,
// and once the load ends no handler or connection is left.
func TestOverload(t *testing.T) {
	if testing.Short() {
		t.Skip("a load test")
	}
	n, tlsConfig := overloadNode(t)
	baseConns := serverConns()
	var mem memSampler
	heap0, rss0 := mem.sample()
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	stopSampling := make(chan struct{})
	wg.Go(func() {
		for {
			select {
			case <-stopSampling:
				return
			case <-time.After(50 * time.Millisecond):
				mem.sample()
			}
		}
	})
	stuck := openStuckWatches(t, n, tlsConfig, 8)
	type slowResult struct {
		status string
		took   time.Duration
	}
	slow := make(chan slowResult, 20)
	for range cap(slow) {
		wg.Go(func() {
			status, took := trickleTLS(t, n.APIAddr(), tlsConfig)
			slow <- slowResult{status, took}
		})
	}
	res := &outcomes{kinds: map[string]int{}}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: tlsConfig, MaxIdleConnsPerHost: 64}}
	defer client.CloseIdleConnections()
	var seq atomic.Int64
	start := time.Now()
	for i := range 64 {
		wg.Go(func() { loadClient(ctx, client, baseURL(n), i, &seq, res) })
	}
	<-ctx.Done()
	close(stopSampling)
	wg.Wait()
	close(slow)
	slowKinds := map[string]int{}
	var slowest time.Duration
	for r := range slow {
		code, _, _ := strings.Cut(strings.TrimPrefix(r.status, "HTTP/1.1 "), " ")
		slowKinds[code]++
		slowest = max(slowest, r.took)
		if code != "504" && code != "429" && code != "" {
			t.Errorf("a slow-body client got %q, want 504, 429 or a closed connection", r.status)
		}
	}
	if slowest > loadRequestTimeout+3*time.Second {
		t.Errorf("a slow-body client's connection was closed after %v, want within the request timeout (%v)", slowest, loadRequestTimeout)
	}
	// The load's events may not have filled every stuck watcher's
	// buffers yet: write on (as the admin, whom no limit holds back)
	// until each has been dropped.
	extra := feedUntilDropped(t, n)
	dropped := time.Since(start)
	for _, c := range stuck {
		c.Close()
	}
	t.Logf("%d requests in %v: %v", seq.Load(), time.Since(start).Round(time.Millisecond), res.kinds)
	t.Logf("stuck watchers dropped %v after the load began (%d writes after it); slow-body clients answered %v, the last closed after %v",
		dropped.Round(time.Millisecond), extra, slowKinds, slowest.Round(time.Millisecond))
	heap1, rss1 := mem.sample()
	t.Logf("Go heap %d MiB before, peak %d MiB, %d MiB after; RSS %d MiB before, peak %d MiB, %d MiB after",
		heap0>>20, mem.peakHeap.Load()>>20, heap1>>20, rss0>>20, mem.peakRSS.Load()>>20, rss1>>20)
	for kind, count := range res.kinds {
		if kind != "200" && kind != "201" && kind != "429" {
			t.Errorf("%d answers %s: only successes and 429 may come back", count, kind)
		}
	}
	if res.kinds["429"] == 0 || res.kinds["201"] == 0 {
		t.Errorf("the load was not over the limits and under them at once: %v", res.kinds)
	}
	if peak := mem.peakHeap.Load(); peak > 1<<30 {
		t.Errorf("peak Go heap %d MiB, want under 1 GiB", peak>>20)
	}
	client.CloseIdleConnections()
	pollUntil(t, "handlers and connections to end", func() (bool, string) {
		h, c := handlerGoroutines(), serverConns()
		return h == 0 && c <= baseConns, fmt.Sprintf("%d handlers, %d server connections (baseline %d)", h, c, baseConns)
	})
}

// loadClient sends requests until ctx ends, alternating creates of 128
// KiB configmaps (whose events soon fill a stuck watcher's buffers) with
// lists of namespaces, and records each answer's kind: its status code,
// "429 without Retry-After" or "429 not kube's" for a bad 429, or the
// transport error.
func loadClient(ctx context.Context, c *http.Client, base string, i int, seq *atomic.Int64, res *outcomes) {
	data := strings.Repeat("x", 128<<10)
	for ctx.Err() == nil {
		k := seq.Add(1)
		method, path, body := http.MethodGet, "/api/v1/namespaces", ""
		if k%2 == 0 {
			method, path = http.MethodPost, "/api/v1/namespaces/default/configmaps"
			body = fmt.Sprintf(`{"metadata":{"name":"load-%d-%d"},"data":{"v":%q}}`, i, k, data)
		}
		req, _ := http.NewRequestWithContext(context.Background(), method, base+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+loadToken)
		req.Header.Set("Content-Type", "application/json")
		resp, err := c.Do(req)
		if err != nil {
			res.add("error: " + err.Error())
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		res.add(answerKind(resp, b))
	}
}

func answerKind(resp *http.Response, body []byte) string {
	if resp.StatusCode != http.StatusTooManyRequests {
		return fmt.Sprint(resp.StatusCode)
	}
	var st metav1.Status
	if json.Unmarshal(body, &st) != nil || st.Reason != metav1.StatusReasonTooManyRequests {
		return "429 not kube's"
	}
	if resp.Header.Get("Retry-After") == "" {
		return "429 without Retry-After"
	}
	return "429"
}

// feedUntilDropped creates 256 KiB configmaps until no watch handler is
// left, and returns how many it created.
func feedUntilDropped(t *testing.T, n *Node) int {
	t.Helper()
	data := strings.Repeat("y", 256<<10)
	deadline := time.Now().Add(testTimeout)
	for i := 0; ; i++ {
		if watchHandlerGoroutines() == 0 {
			return i
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d stuck watchers still served after %d more writes", watchHandlerGoroutines(), i)
		}
		body := fmt.Sprintf(`{"metadata":{"name":"feed-%d"},"data":{"v":%q}}`, i, data)
		if code, msg := httpDo(t, n, http.MethodPost, "/api/v1/namespaces/default/configmaps", body); code != http.StatusCreated {
			t.Fatalf("feed %d: %d %s", i, code, msg)
		}
	}
}

// openStuckWatches opens count watches of configmaps that never read.
func openStuckWatches(t *testing.T, n *Node, cfg *tls.Config, count int) []net.Conn {
	t.Helper()
	var conns []net.Conn
	for range count {
		raw, err := net.Dial("tcp", n.APIAddr())
		if err != nil {
			t.Fatal(err)
		}
		_ = raw.(*net.TCPConn).SetReadBuffer(256 << 10)
		conn := tls.Client(raw, cfg)
		if _, err := fmt.Fprintf(conn, "GET /api/v1/namespaces/default/configmaps?watch=true HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n\r\n", n.APIAddr(), loadToken); err != nil {
			t.Fatal(err)
		}
		conns = append(conns, conn)
	}
	pollUntil(t, "the stuck watches to start", func() (bool, string) {
		w := watchHandlerGoroutines()
		return w == count, fmt.Sprintf("%d watch handlers", w)
	})
	return conns
}

// trickleTLS sends a create whose body comes a byte every 100ms, over
// TLS as a token user, until the server closes the connection. It
// returns the status line it got ("" for none) and how long the server
// took to close.
func trickleTLS(t *testing.T, addr string, cfg *tls.Config) (string, time.Duration) {
	start := time.Now()
	conn, err := tls.Dial("tcp", addr, cfg)
	if err != nil {
		t.Error(err)
		return "", 0
	}
	defer conn.Close()
	if _, err := fmt.Fprintf(conn, "POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n"+
		"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{", addr, loadToken); err != nil {
		t.Error(err)
		return "", 0
	}
	status := make(chan string, 1)
	go func() {
		br := bufio.NewReader(conn)
		line, _ := br.ReadString('\n')
		_, _ = io.Copy(io.Discard, br)
		status <- line
	}()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(testTimeout)
	for {
		select {
		case line := <-status:
			return line, time.Since(start)
		case <-tick.C:
			_, _ = conn.Write([]byte(" "))
		case <-deadline:
			t.Error("a slow client's connection was never closed")
			return "", 0
		}
	}
}

// goroutinesWith counts the goroutines whose stack holds frame.
func goroutinesWith(frame string) int {
	buf := make([]byte, 16<<20)
	buf = buf[:runtime.Stack(buf, true)]
	return strings.Count(string(buf), frame)
}

func watchHandlerGoroutines() int { return goroutinesWith("api/handlers.(*Scope).watch(") }

// handlerGoroutines counts the goroutines serving an API request.
func handlerGoroutines() int { return goroutinesWith("cluster.serveWithin.func") }

// serverConns counts the connections the HTTP server serves.
func serverConns() int { return goroutinesWith("net/http.(*conn).serve(") }
