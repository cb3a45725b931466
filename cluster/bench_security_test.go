package cluster

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/raftapi/raftapi/api/audit"
)

// BenchmarkSecurityCost measures what authentication, RBAC and audit
// cost the API: ConfigMap creates through a whole single node over HTTPS
// from 1 and 64 clients, "open" as system:masters with AlwaysAllow and no
// audit, "secured" as a --token-auth-file user whose RoleBinding to edit
// RBAC evaluates on every request, with every request audited at the
// Metadata level to a file. Creates and gets (of one ConfigMap, whose
// handling costs least, so the security layers' share shows most).
// Compare ns/op of the two.
func BenchmarkSecurityCost(b *testing.B) {
	for _, secured := range []bool{false, true} {
		name := "open"
		if secured {
			name = "secured"
		}
		b.Run(name, func(b *testing.B) {
			dir := b.TempDir()
			cfg := Config{Name: "n1", DataDir: filepath.Join(dir, "data"), Listen: "127.0.0.1:0", PeerListen: "127.0.0.1:0",
				AuthorizationModes: []string{ModeAlwaysAllow}}
			if secured {
				cfg.AuthorizationModes = []string{ModeRBAC}
				cfg.TokenAuthFile = writeBenchFile(b, dir, "tokens.csv", "bench-token,bench,bench-uid,\"bench\"\n")
				cfg.Audit = audit.Options{LogPath: filepath.Join(dir, "audit.log"), LogFormat: "json", LogMode: "blocking",
					PolicyFile: writeBenchFile(b, dir, "policy.yaml", "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n")}
			}
			n, err := Start(cfg)
			if err != nil {
				b.Fatal(err)
			}
			defer n.Stop(context.Background())
			admin := adminClient(b, n)
			waitReady(b, admin, baseURL(n))
			client := admin
			if secured {
				grantBenchUser(b, admin, baseURL(n))
				client = tokenClient(b, n, "bench-token")
			}
			for _, clients := range []int{1, 64} {
				b.Run(fmt.Sprintf("create/clients=%d", clients), func(b *testing.B) {
					benchCreates(b, client, baseURL(n), name, clients)
				})
			}
			target := createReadTarget(b, admin, baseURL(n), name+"-read")
			for _, clients := range []int{1, 64} {
				b.Run(fmt.Sprintf("get/clients=%d", clients), func(b *testing.B) {
					benchGets(b, client, target, clients)
				})
			}
		})
	}
}

func writeBenchFile(b *testing.B, dir, name, content string) string {
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		b.Fatal(err)
	}
	return p
}

// grantBenchUser binds the group bench to the edit ClusterRole in the
// default namespace, and waits until the policy lets it create.
func grantBenchUser(b *testing.B, admin *http.Client, base string) {
	binding := `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"bench"},
		"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"edit"},
		"subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"Group","name":"bench"}]}`
	resp, err := admin.Post(base+"/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings", "application/json", strings.NewReader(binding))
	if err != nil {
		b.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		b.Fatalf("create the bench RoleBinding: %s", resp.Status)
	}
}

// tokenClient is a client of n authenticating with a bearer token,
// pooling enough connections for 64 clients.
func tokenClient(b *testing.B, n *Node, token string) *http.Client {
	cfg, err := clientcmd.BuildConfigFromFlags("", n.Kubeconfig())
	if err != nil {
		b.Fatal(err)
	}
	anon := rest.AnonymousClientConfig(cfg)
	anon.BearerToken = token
	anon.QPS, anon.Burst = -1, 0
	c, err := rest.HTTPClientFor(anon)
	if err != nil {
		b.Fatal(err)
	}
	deadline := time.Now().Add(testTimeout)
	for {
		resp, err := c.Get(baseURL(n) + "/api/v1/namespaces/default/configmaps?limit=1")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return c
			}
		}
		if time.Now().After(deadline) {
			b.Fatalf("the bench user is never authorized: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// createReadTarget creates a ConfigMap named name and returns its URL.
func createReadTarget(b *testing.B, admin *http.Client, base, name string) string {
	body := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `"},"data":{"v":"` + strings.Repeat("x", 1024) + `"}}`
	resp, err := admin.Post(base+"/api/v1/namespaces/default/configmaps", "application/json", strings.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		b.Fatalf("create %s: %s", name, resp.Status)
	}
	return base + "/api/v1/namespaces/default/configmaps/" + name
}

// benchGets reads the object at url from clients goroutines at once.
func benchGets(b *testing.B, c *http.Client, url string, clients int) {
	b.SetParallelism((clients + 1) / 2) // GOMAXPROCS is 2 on the bench machines
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			resp, err := c.Get(url)
			if err != nil {
				b.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				b.Errorf("get: HTTP %d", resp.StatusCode)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "gets/s")
}
