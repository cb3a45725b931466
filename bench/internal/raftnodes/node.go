package raftnodes

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/raftapi/raftapi/bench/internal/kubeapi"
	"github.com/raftapi/raftapi/bench/internal/procs"
)

// Node is one raftapi process of the cluster.
type Node struct {
	Name string
	API  string // host:port of the HTTPS API
	Peer string // host:port of the peer listener
	dir  string // holds data/ and log
	proc *procs.Process
	// Client talks to this node's API over the cluster's shared transport.
	Client *kubeapi.Client
}

// URL is the node's API base URL.
func (n *Node) URL() string { return "https://" + n.API }

// DataDir is the node's --data-dir.
func (n *Node) DataDir() string { return filepath.Join(n.dir, "data") }

func (n *Node) logPath() string { return filepath.Join(n.dir, "log") }

func (n *Node) kubeconfig() string { return filepath.Join(n.DataDir(), "admin.kubeconfig") }

// Process is the node's current process, nil before its first start.
func (n *Node) Process() *procs.Process { return n.proc }

// LogTail returns the last bytes of the node's log, for error messages.
func (n *Node) LogTail(max int) string { return procs.Tail(n.logPath(), max) }

// exitedErr describes a node whose process ended.
func (n *Node) exitedErr() error {
	return fmt.Errorf("raftnodes: %s exited (%v); its log ends:\n%s", n.Name, n.proc.ExitErr(), n.LogTail(2000))
}

// newNode names node name and picks its addresses under dir.
func newNode(name, dir string) (*Node, error) {
	api, err := procs.FreeAddr()
	if err != nil {
		return nil, err
	}
	peer, err := procs.FreeAddr()
	if err != nil {
		return nil, err
	}
	n := &Node{Name: name, API: api, Peer: peer, dir: filepath.Join(dir, name)}
	if err := os.MkdirAll(n.dir, 0o700); err != nil {
		return nil, fmt.Errorf("raftnodes: %w", err)
	}
	return n, nil
}
