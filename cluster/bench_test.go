package cluster

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkCreateOverTLS measures what TLS costs the API: ConfigMap
// creates through a whole single node, over HTTPS with a client
// certificate and over plain HTTP, from 1 and 64 clients. Compare ns/op
// (and creates/s) of the tls and plain variants.
func BenchmarkCreateOverTLS(b *testing.B) {
	for _, secure := range []bool{true, false} {
		name := "plain"
		if secure {
			name = "tls"
		}
		b.Run(name, func(b *testing.B) {
			cfg := Config{Name: "n1", DataDir: b.TempDir(), Listen: "127.0.0.1:0", PeerListen: "127.0.0.1:0", InsecureHTTP: !secure}
			n, err := Start(cfg)
			if err != nil {
				b.Fatal(err)
			}
			defer n.Stop(context.Background())
			client, base := benchClient(b, n)
			waitReady(b, client, base)
			for _, clients := range []int{1, 64} {
				b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
					benchCreates(b, client, base, name, clients)
				})
			}
		})
	}
}

// benchClient is an admin client of n, pooling enough connections for
// the 64 clients.
func benchClient(b *testing.B, n *Node) (*http.Client, string) {
	if !n.TLS() {
		return &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 128}}, "http://" + n.APIAddr()
	}
	return adminClient(b, n), baseURL(n)
}

func waitReady(b *testing.B, c *http.Client, base string) {
	deadline := time.Now().Add(testTimeout)
	for time.Now().Before(deadline) {
		resp, err := c.Get(base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	b.Fatal("node never ready")
}

var benchSeq atomic.Int64

func benchCreates(b *testing.B, c *http.Client, base, prefix string, clients int) {
	value := strings.Repeat("x", 1024)
	b.SetParallelism((clients + 1) / 2) // GOMAXPROCS is 2 on the bench machines
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			name := fmt.Sprintf("%s-%d", prefix, benchSeq.Add(1))
			body := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `"},"data":{"v":"` + value + `"}}`
			resp, err := c.Post(base+"/api/v1/namespaces/default/configmaps", "application/json", strings.NewReader(body))
			if err != nil {
				b.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusCreated {
				b.Errorf("create: HTTP %d", resp.StatusCode)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "creates/s")
}
