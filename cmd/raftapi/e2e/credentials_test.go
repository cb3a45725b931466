package e2e

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"path/filepath"
	"sync"
	"testing"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// How the tests reach the nodes they start. A node serves its API over
// HTTPS and writes <data-dir>/admin.kubeconfig at start: the cluster CA
// and an admin client certificate (system:admin in system:masters). The
// tests connect with that file, as an operator would: every client checks
// the node's serving certificate against the cluster CA and authenticates
// as the admin. The nodes of one cluster share a token, hence a CA, so the
// kubeconfig of any node reaches all of them; the clusters a test binary
// starts each have a token of their own.

// adminKubeconfig is the file a node writes in its data directory.
const adminKubeconfig = "admin.kubeconfig"

// newToken returns a new cluster secret for --token.
func newToken() string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return "e2e-" + hex.EncodeToString(b)
}

// dataDir is the node's --data-dir.
func (nd *node) dataDir() string { return filepath.Join(nd.dir, "data") }

// kubeconfig is the path of the admin kubeconfig the node writes at start.
func (nd *node) kubeconfig() string { return filepath.Join(nd.dataDir(), adminKubeconfig) }

// url is the node's API URL.
func (nd *node) url() string { return "https://" + nd.api }

// restConfig returns a client configuration for the node from its admin
// kubeconfig, with the server set to the node's API and no client-side
// rate limiting. It sets no overall timeout: watches are long requests,
// every call carries its own context deadline. It fails until the node
// has written the kubeconfig.
func (nd *node) restConfig() (*rest.Config, error) {
	cfg, err := clientcmd.BuildConfigFromFlags(nd.url(), nd.kubeconfig())
	if err != nil {
		return nil, fmt.Errorf("%s: admin kubeconfig: %w", nd.name, err)
	}
	cfg.QPS, cfg.Burst, cfg.UserAgent = 1000, 1000, "raftapi-e2e"
	return cfg, nil
}

// httpClient returns an HTTP client authenticated as the node's admin,
// without an overall timeout. The client of one incarnation of the node
// is kept until it is started again.
func (nd *node) httpClient() (*http.Client, error) {
	nd.credsMu.Lock()
	defer nd.credsMu.Unlock()
	if nd.hc != nil {
		return nd.hc, nil
	}
	cfg, err := nd.restConfig()
	if err != nil {
		return nil, err
	}
	tlsCfg, err := rest.TLSConfigFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: TLS config: %w", nd.name, err)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = tlsCfg
	nd.hc = &http.Client{Transport: tr}
	return nd.hc, nil
}

// forgetCredentials drops the client of the node's last incarnation.
func (nd *node) forgetCredentials() {
	nd.credsMu.Lock()
	defer nd.credsMu.Unlock()
	if nd.hc != nil {
		nd.hc.CloseIdleConnections()
		nd.hc = nil
	}
}

// spawn starts the node with args (after "serve") and registers it under
// its API address.
func (nd *node) spawn(t *testing.T, args []string) {
	t.Helper()
	nd.forgetCredentials()
	register(nd)
	nd.process = spawn(t, nd.dir, args)
}

// The nodes the test binary started, by API address, for the helpers that
// name a node by its address. freeAddr never hands out an address twice.
var (
	nodesMu     sync.Mutex
	nodesByAddr = map[string]*node{}
)

func register(nd *node) {
	nodesMu.Lock()
	defer nodesMu.Unlock()
	nodesByAddr[nd.api] = nd
}

// nodeAt returns the node whose API listens at addr.
func nodeAt(addr string) (*node, error) {
	nodesMu.Lock()
	defer nodesMu.Unlock()
	nd, ok := nodesByAddr[addr]
	if !ok {
		return nil, fmt.Errorf("no node of this test listens at %s", addr)
	}
	return nd, nil
}

// restConfigAt returns the client configuration of the node at addr.
func restConfigAt(addr string) (*rest.Config, error) {
	nd, err := nodeAt(addr)
	if err != nil {
		return nil, err
	}
	return nd.restConfig()
}

// nodeTransport sends each request with the client of the node its URL
// names, so that one http.Client reaches every node.
type nodeTransport struct{}

func (nodeTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	hc, err := clientAt(req.URL.Host)
	if err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	return hc.Transport.RoundTrip(req)
}

// clientAt returns the admin HTTP client of the node at addr.
func clientAt(addr string) (*http.Client, error) {
	nd, err := nodeAt(addr)
	if err != nil {
		return nil, err
	}
	return nd.httpClient()
}
