package nodes

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/raftapi/raftapi/chaos/netns"
)

// Config says what to run and where.
type Config struct {
	// Binary is the raftapi binary.
	Binary string
	// Dir holds one directory per node: its data and its log.
	Dir string
	// Network is the created network, one host per node.
	Network *netns.Network
	// HistoryRetention is passed as --history-retention when set.
	HistoryRetention string
	// LogLevel is the nodes' --log-level; empty means warn. A chaos run
	// asks for info (chaos.Defaults): it takes that to tell afterwards who
	// led, voted and changed membership.
	LogLevel string
	// Token is the cluster's join token, passed to every node as --token:
	// every node, a wiped one too, derives the cluster's CAs from it.
	Token string
	// TokenAuthFile, when set, is passed as --token-auth-file: the
	// workload's bearer tokens.
	TokenAuthFile string
	// TLS is how the harness reaches the nodes' APIs over https: it
	// trusts the cluster CA the token derives and presents a client
	// certificate in system:masters (the admin endpoints need it).
	TLS *tls.Config
}

// Cluster is the running cluster under test. Its methods may be called
// concurrently; the fault schedule changes one thing at a time.
type Cluster struct {
	cfg   Config
	nodes []*Node
	http  *http.Client
}

// New plans the cluster; Start runs it.
func New(cfg Config) *Cluster {
	tr := &http.Transport{MaxIdleConnsPerHost: 4, TLSClientConfig: cfg.TLS, TLSHandshakeTimeout: 2 * time.Second}
	c := &Cluster{cfg: cfg, http: &http.Client{Transport: tr}}
	for _, h := range cfg.Network.Hosts {
		c.nodes = append(c.nodes, &Node{Name: h.Name, Host: h, API: "https://" + net.JoinHostPort(h.IP, apiPort),
			dir: filepath.Join(cfg.Dir, h.Name)})
	}
	return c
}

// Nodes returns the nodes in name order.
func (c *Cluster) Nodes() []*Node { return c.nodes }

// Names returns the node names.
func (c *Cluster) Names() []string {
	out := make([]string, len(c.nodes))
	for i, n := range c.nodes {
		out[i] = n.Name
	}
	return out
}

// Node returns the node called name.
func (c *Cluster) Node(name string) (*Node, error) {
	for _, n := range c.nodes {
		if n.Name == name {
			return n, nil
		}
	}
	return nil, fmt.Errorf("nodes: no node %s", name)
}

// Start starts each node's peer proxy and process and waits until the
// cluster is healthy.
func (c *Cluster) Start(ctx context.Context) error {
	for _, n := range c.nodes {
		if err := os.MkdirAll(n.dir, 0o755); err != nil {
			return fmt.Errorf("nodes: %w", err)
		}
		ln, err := netns.ListenIn(n.Host.NS, net.JoinHostPort(n.Host.IP, proxyPort))
		if err != nil {
			return err
		}
		n.proxy = netns.NewProxy(ln, net.JoinHostPort(n.Host.IP, peerPort))
	}
	for _, n := range c.nodes {
		if err := c.Restart(n.Name); err != nil {
			return err
		}
	}
	return c.WaitHealthy(ctx)
}

// Stop kills every process (resuming paused ones first) and closes the
// proxies.
func (c *Cluster) Stop() {
	for _, n := range c.nodes {
		n.mu.Lock()
		if n.proc != nil && n.proc.running() {
			n.proc.kill()
		}
		n.mu.Unlock()
		if n.proxy != nil {
			n.proxy.Close()
		}
	}
}

// SetLatency sets the latency of every node's peer proxy.
func (c *Cluster) SetLatency(latency, jitter time.Duration) {
	for _, n := range c.nodes {
		if n.proxy != nil {
			n.proxy.SetLatency(latency, jitter)
		}
	}
}

// Network returns the network the nodes live on.
func (c *Cluster) Network() *netns.Network { return c.cfg.Network }

// Block makes node to drop every packet from the nodes in from.
func (c *Cluster) Block(to string, from ...string) error { return c.cfg.Network.Block(to, from...) }

// Lose makes node to drop packets from every other node with probability p.
func (c *Cluster) Lose(to string, p float64) error { return c.cfg.Network.Lose(to, p) }

// Heal removes every Block and Lose rule.
func (c *Cluster) Heal() error { return c.cfg.Network.Heal() }
