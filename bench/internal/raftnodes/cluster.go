package raftnodes

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/raftapi/raftapi/bench/internal/kubeapi"
	"github.com/raftapi/raftapi/bench/internal/procs"
)

// Config describes the cluster to start.
type Config struct {
	// Binary is the raftapi executable.
	Binary string
	// Dir holds one directory per node (data and log); the caller removes it.
	Dir string
	// Nodes is the cluster's size.
	Nodes int
	// Procs owns the processes, and stops them at the end of the run.
	Procs *procs.Group
	// Flags are more serve flags for every node.
	Flags []string
}

// Cluster is a running static cluster.
type Cluster struct {
	cfg   Config
	token string
	// Nodes are the members, in start order.
	Nodes []*Node
	// Transport carries the clients' requests, with the admin
	// kubeconfig's CA and client certificate.
	Transport *http.Transport
}

// readyTimeout bounds the wait for a node's first /readyz 200.
const readyTimeout = 2 * time.Minute

// Start starts cfg.Nodes processes forming one cluster and returns once
// every node answers /readyz with 200.
func Start(ctx context.Context, cfg Config) (*Cluster, error) {
	c := &Cluster{cfg: cfg, token: newToken()}
	var initial []string
	for i := range cfg.Nodes {
		n, err := newNode(fmt.Sprintf("n%d", i+1), cfg.Dir)
		if err != nil {
			return nil, err
		}
		c.Nodes = append(c.Nodes, n)
		initial = append(initial, n.Name+"="+n.Peer)
	}
	for _, n := range c.Nodes {
		if err := c.spawn(n, "--initial-cluster", strings.Join(initial, ",")); err != nil {
			return nil, err
		}
	}
	if err := c.connect(ctx, c.Nodes[0]); err != nil {
		return nil, err
	}
	for _, n := range c.Nodes {
		if err := c.WaitReady(ctx, n, readyTimeout); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// newToken returns a random cluster token.
func newToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand does not fail on Linux
	return "bench-" + hex.EncodeToString(b)
}

// spawn starts node n's process with the cluster's flags and extra ones.
func (c *Cluster) spawn(n *Node, extra ...string) error {
	argv := []string{c.cfg.Binary, "serve", "--name", n.Name, "--data-dir", n.DataDir(),
		"--listen", n.API, "--peer-listen", n.Peer, "--token", c.token, "--log-level", "warn"}
	argv = append(append(argv, c.cfg.Flags...), extra...)
	p, err := c.cfg.Procs.Start(n.Name, n.logPath(), argv)
	if err != nil {
		return err
	}
	n.proc = p
	return nil
}

// connect waits for node n's admin kubeconfig and builds the cluster's
// transport and every node's client from it: every node's kubeconfig
// holds the same CA and admin credential.
func (c *Cluster) connect(ctx context.Context, n *Node) error {
	path := n.kubeconfig()
	err := procs.Poll(ctx, readyTimeout, func() error {
		if !n.proc.Running() {
			return procs.Stop{Err: n.exitedErr()}
		}
		tc, err := kubeapi.TLSFromKubeconfig(path)
		if err != nil {
			return err
		}
		c.Transport = kubeapi.NewTransport(tc)
		return nil
	})
	if err != nil {
		return fmt.Errorf("raftnodes: %s's admin kubeconfig: %w", n.Name, err)
	}
	for _, m := range c.Nodes {
		m.Client = kubeapi.New(m.URL(), c.Transport)
	}
	return nil
}

// Clients returns a client per node over transport rt (nil: the
// cluster's own), in node order.
func (c *Cluster) Clients(rt http.RoundTripper) []*kubeapi.Client {
	if rt == nil {
		rt = c.Transport
	}
	out := make([]*kubeapi.Client, len(c.Nodes))
	for i, n := range c.Nodes {
		out[i] = kubeapi.New(n.URL(), rt)
	}
	return out
}

// NewTransport returns a transport of its own with the cluster's
// credentials: its own connections.
func (c *Cluster) NewTransport() *http.Transport {
	return kubeapi.NewTransport(c.Transport.TLSClientConfig)
}
