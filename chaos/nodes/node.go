package nodes

import (
	"cmp"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"sync"

	"github.com/raftapi/raftapi/chaos/netns"
)

// The ports every node uses inside its own namespace.
const (
	apiPort    = "8080"
	peerPort   = "7000" // raftapi's own peer listener
	proxyPort  = "7001" // the latency proxy in front of it: the advertised peer address
	gossipPort = "7946"
)

// Node is one member of the cluster under test.
type Node struct {
	Name string
	Host netns.Host
	// API is the base URL of its HTTPS API, reachable from the harness.
	API string

	dir   string // holds data/ and the log
	proxy *netns.Proxy

	mu     sync.Mutex
	proc   *process
	paused bool
}

func (n *Node) dataDir() string { return filepath.Join(n.dir, "data") }
func (n *Node) logPath() string { return filepath.Join(n.dir, "raftapi.log") }

// args is the command line starting the node inside its namespace. The
// token on it makes every start, on a wiped data directory too, derive
// the same CAs.
func (n *Node) args(cfg Config, all []*Node) []string {
	var join []string
	for _, o := range all {
		if o != n {
			join = append(join, net.JoinHostPort(o.Host.IP, gossipPort))
		}
	}
	ip := n.Host.IP
	argv := []string{"ip", "netns", "exec", n.Host.NS, cfg.Binary, "serve",
		"--name", n.Name, "--data-dir", n.dataDir(), "--token", cfg.Token,
		"--listen", net.JoinHostPort(ip, apiPort),
		"--peer-listen", net.JoinHostPort(ip, peerPort), "--peer-advertise", net.JoinHostPort(ip, proxyPort),
		"--gossip-listen", net.JoinHostPort(ip, gossipPort), "--join", strings.Join(join, ","),
		"--bootstrap-expect", fmt.Sprint(len(all)), "--dead-node-timeout", "24h", "--log-level", cmp.Or(cfg.LogLevel, "warn")}
	if cfg.TokenAuthFile != "" {
		argv = append(argv, "--token-auth-file", cfg.TokenAuthFile)
	}
	if cfg.HistoryRetention != "" {
		argv = append(argv, "--history-retention", cfg.HistoryRetention)
	}
	return argv
}

// Running reports whether the node's process is alive (paused or not).
func (n *Node) Running() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.proc != nil && n.proc.running()
}

// Paused reports whether the node is stopped by SIGSTOP.
func (n *Node) Paused() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.paused && n.proc != nil && n.proc.running()
}
