package cluster

import (
	"net/http"
	"sync"
	"testing"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// adminClients caches each node's admin HTTP client.
var adminClients sync.Map // *Node -> *http.Client

// adminClient returns an HTTP client authenticated with the admin
// kubeconfig n wrote, verifying n's serving certificate.
func adminClient(t testing.TB, n *Node) *http.Client {
	t.Helper()
	if c, ok := adminClients.Load(n); ok {
		return c.(*http.Client)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", n.Kubeconfig())
	if err != nil {
		t.Fatalf("admin kubeconfig: %v", err)
	}
	c, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	adminClients.Store(n, c)
	return c
}

// baseURL is n's API URL.
func baseURL(n *Node) string { return "https://" + n.APIAddr() }

// testToken is the join token of the tests' multi-node clusters.
const testToken = "cluster-test-token"
