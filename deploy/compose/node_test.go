package compose

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// requestTimeout bounds every request of the test, so a request to a
// killed or cut-off node fails instead of stalling its caller. A probe
// (is the node serving?) gets less: a node without a leader holds a Most
// Recent read until one appears, and the probe's timeout is the
// resolution of the recovery times the test measures.
const (
	requestTimeout = 5 * time.Second
	probeTimeout   = time.Second
)

// membersGVR is raftapi's read-only view of the raft members.
var membersGVR = schema.GroupVersionResource{Group: "raftapi.io", Version: "v1", Resource: "members"}

// node is one node's API, reached through its published host port with
// the admin credentials of a copied kubeconfig.
type node struct {
	name string
	url  string
	// client keeps connections alive; probe dials a new connection for
	// every request, so a probe never rides a connection that a fault
	// left half-open.
	client, probe *kubernetes.Clientset
	members       dynamic.ResourceInterface
}

// newNodes returns the nodes of p, authenticated by kubeconfig (any
// node's kubeconfig works against every node).
func newNodes(t *testing.T, p *project, kubeconfig string) []*node {
	t.Helper()
	base, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	var nodes []*node
	for i, name := range services {
		cfg := rest.CopyConfig(base)
		cfg.Host = fmt.Sprintf("https://127.0.0.1:%d", p.ports[i])
		cfg.QPS, cfg.Burst = 1000, 1000
		n := &node{name: name, url: cfg.Host, client: clientset(t, cfg, true), probe: clientset(t, cfg, false)}
		dyn, err := dynamic.NewForConfigAndClient(cfg, httpClient(t, cfg, false))
		if err != nil {
			t.Fatal(err)
		}
		n.members = dyn.Resource(membersGVR)
		nodes = append(nodes, n)
	}
	return nodes
}

// clientset is a typed client for cfg over HTTP/1.1.
func clientset(t *testing.T, cfg *rest.Config, keepAlive bool) *kubernetes.Clientset {
	t.Helper()
	cs, err := kubernetes.NewForConfigAndClient(cfg, httpClient(t, cfg, keepAlive))
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// httpClient speaks HTTP/1.1 with cfg's TLS settings: a request that
// times out takes its connection with it (one HTTP/2 connection would
// carry every request and outlive a partition).
func httpClient(t *testing.T, cfg *rest.Config, keepAlive bool) *http.Client {
	t.Helper()
	tlsCfg, err := rest.TLSConfigFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Timeout: requestTimeout, Transport: &http.Transport{
		TLSClientConfig:   tlsCfg,
		TLSNextProto:      map[string]func(string, *tls.Conn) http.RoundTripper{},
		DialContext:       (&net.Dialer{Timeout: 2 * time.Second}).DialContext,
		DisableKeepAlives: !keepAlive,
	}}
}

// serving returns nil if the node is ready and answers a Most Recent
// read (a quorum read through the leader).
func (n *node) serving(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	if _, err := n.probe.CoreV1().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx); err != nil {
		return fmt.Errorf("%s: /readyz: %w", n.name, err)
	}
	if _, err := n.probe.CoreV1().Namespaces().Get(ctx, metav1.NamespaceDefault, metav1.GetOptions{}); err != nil {
		return fmt.Errorf("%s: Most Recent get: %w", n.name, err)
	}
	return nil
}

// leader returns the name of the leader this node knows.
func (n *node) leader(ctx context.Context) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	raw, err := n.probe.CoreV1().RESTClient().Get().AbsPath("/raftapi/v1/status").DoRaw(ctx)
	if err != nil {
		return "", fmt.Errorf("%s: status: %w", n.name, err)
	}
	var st struct {
		LeaderID string `json:"leaderID"`
	}
	if err := json.Unmarshal(raw, &st); err != nil || st.LeaderID == "" {
		return "", fmt.Errorf("%s: status names no leader: %s", n.name, raw)
	}
	return st.LeaderID, nil
}

// fullMembership returns nil if the node reports every service as a
// healthy voter.
func (n *node) fullMembership(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	list, err := n.members.List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("%s: members: %w", n.name, err)
	}
	var got []string
	voters := 0
	for _, m := range list.Items {
		suffrage, _, _ := unstructured.NestedString(m.Object, "status", "suffrage")
		healthy, _, _ := unstructured.NestedBool(m.Object, "status", "healthy")
		got = append(got, fmt.Sprintf("%s:%s/healthy=%t", m.GetName(), suffrage, healthy))
		if suffrage == "Voter" && healthy {
			voters++
		}
	}
	if voters != len(services) || len(list.Items) != len(services) {
		return fmt.Errorf("%s: members %s, want %d healthy voters", n.name, strings.Join(got, " "), len(services))
	}
	return nil
}

// eventually polls fn until it returns nil or timeout passes, and returns
// how long that took; on timeout the error is fn's last.
func eventually(ctx context.Context, timeout time.Duration, fn func(context.Context) error) (time.Duration, error) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		err := fn(ctx)
		if err == nil {
			return time.Since(start), nil
		}
		select {
		case <-ctx.Done():
			return time.Since(start), fmt.Errorf("not within %v: %w", timeout, err)
		case <-tick.C:
		}
	}
}

// allServing returns nil if every node serves.
func allServing(nodes []*node) func(context.Context) error {
	return func(ctx context.Context) error {
		for _, n := range nodes {
			if err := n.serving(ctx); err != nil {
				return err
			}
		}
		return nil
	}
}
