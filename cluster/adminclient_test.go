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

// startStatic starts a static cluster of the named nodes on free ports,
// stopped when the test ends.
func startStatic(t *testing.T, names ...string) map[string]*Node {
	t.Helper()
	peers := map[string]string{}
	for _, name := range names {
		peers[name] = freeAddr(t)
	}
	nodes := map[string]*Node{}
	for _, name := range names {
		n, err := Start(Config{Name: name, DataDir: t.TempDir(), Listen: "127.0.0.1:0", PeerListen: peers[name], InitialCluster: peers, Token: testToken})
		if err != nil {
			t.Fatalf("start %s: %v", name, err)
		}
		t.Cleanup(func() { stopNode(t, n) })
		nodes[name] = n
	}
	return nodes
}
