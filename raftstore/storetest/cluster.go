package storetest

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/raftapi/raftapi/raftstore"
)

// Cluster is an in-process cluster of raftstore nodes.
type Cluster struct {
	t     testing.TB
	net   *faultNet
	Nodes []*Node
	cfg   func(*raftstore.Config)
}

// Node is one member of a Cluster. Store is nil while the node is stopped.
type Node struct {
	Name  string
	Dir   string
	Addr  string
	Store *raftstore.Store
}

// Option adjusts every node's configuration.
type Option func(*raftstore.Config)

// NewCluster starts n nodes (a single-node cluster for n == 1) and waits
// until every node knows the leader. The cluster stops at test cleanup.
func NewCluster(t testing.TB, n int, opts ...Option) *Cluster {
	t.Helper()
	c := &Cluster{t: t, net: newFaultNet()}
	c.cfg = func(cfg *raftstore.Config) {
		for _, o := range opts {
			o(cfg)
		}
	}
	initial := map[string]string{}
	lns := make([]net.Listener, n)
	for i := range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatalf("storetest: listen: %v", err)
		}
		name := fmt.Sprintf("n%d", i+1)
		lns[i] = ln
		initial[name] = ln.Addr().String()
		c.net.register(name, ln.Addr().String())
		c.Nodes = append(c.Nodes, &Node{Name: name, Dir: t.TempDir(), Addr: ln.Addr().String()})
	}
	for i, node := range c.Nodes {
		if n == 1 {
			initial = nil
		}
		c.start(node, lns[i], initial)
	}
	t.Cleanup(c.Close)
	c.WaitForLeader()
	return c
}

func (c *Cluster) start(node *Node, ln net.Listener, initial map[string]string) {
	c.t.Helper()
	cfg := raftstore.Config{
		Name:           node.Name,
		DataDir:        node.Dir,
		PeerListener:   c.net.listener(node.Name, ln),
		PeerDialer:     c.net.dialer(node.Name),
		InitialCluster: initial,
		// A member started again never forms a cluster of its own.
		DeferBootstrap: initial == nil && len(c.Nodes) > 1,
		Logger:         testLogger(c.t, node.Name),
	}
	c.cfg(&cfg)
	s, err := raftstore.Open(cfg)
	if err != nil {
		c.t.Fatalf("storetest: open %s: %v", node.Name, err)
	}
	node.Store = s
}

// Close stops every running node.
func (c *Cluster) Close() {
	for _, n := range c.Nodes {
		if n.Store != nil {
			n.Store.Close()
			n.Store = nil
		}
	}
}

// Stop stops node i, keeping its data directory.
func (c *Cluster) Stop(i int) {
	c.t.Helper()
	n := c.Nodes[i]
	if n.Store == nil {
		return
	}
	n.Store.Close()
	n.Store = nil
}

// Restart starts a stopped node i again on its data directory and address.
func (c *Cluster) Restart(i int) {
	c.t.Helper()
	n := c.Nodes[i]
	var ln net.Listener
	var err error
	deadline := time.Now().Add(10 * time.Second)
	for {
		ln, err = net.Listen("tcp", n.Addr)
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		c.t.Fatalf("storetest: relisten %s: %v", n.Addr, err)
	}
	c.start(n, ln, nil)
}

// Wipe stops node i, empties its data directory and starts it again on
// its address: a member that lost its disk and comes back under its name.
func (c *Cluster) Wipe(i int) {
	c.t.Helper()
	c.Stop(i)
	dir := c.Nodes[i].Dir
	if err := os.RemoveAll(dir); err != nil {
		c.t.Fatalf("storetest: wipe %s: %v", dir, err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		c.t.Fatalf("storetest: wipe %s: %v", dir, err)
	}
	c.Restart(i)
}

// Isolate cuts node i off from every other node.
func (c *Cluster) Isolate(i int) { c.net.setIsolated(c.Nodes[i].Name, true) }

// Heal reconnects node i.
func (c *Cluster) Heal(i int) { c.net.setIsolated(c.Nodes[i].Name, false) }

// Stores returns the running stores.
func (c *Cluster) Stores() []*raftstore.Store {
	var out []*raftstore.Store
	for _, n := range c.Nodes {
		if n.Store != nil {
			out = append(out, n.Store)
		}
	}
	return out
}

// WaitForLeader waits until every running, connected node agrees on one
// leader, and returns its index in Nodes.
func (c *Cluster) WaitForLeader() int {
	c.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if i, ok := c.agreedLeader(); ok {
			return i
		}
		time.Sleep(20 * time.Millisecond)
	}
	c.t.Fatalf("storetest: no agreed leader within 30s")
	return -1
}

func (c *Cluster) agreedLeader() (int, bool) {
	leader := ""
	for _, n := range c.Nodes {
		if n.Store == nil || c.net.blocked(n.Name) {
			continue
		}
		st := n.Store.Status()
		if st.LeaderID == "" || (leader != "" && st.LeaderID != leader) {
			return -1, false
		}
		leader = st.LeaderID
	}
	for i, n := range c.Nodes {
		if n.Name == leader && n.Store != nil && n.Store.IsLeader() {
			return i, true
		}
	}
	return -1, false
}

// Leader returns the leader's store, waiting for one.
func (c *Cluster) Leader() *raftstore.Store { return c.Nodes[c.WaitForLeader()].Store }

// Follower returns a running follower's store, or the leader on a
// single-node cluster.
func (c *Cluster) Follower() *raftstore.Store {
	l := c.WaitForLeader()
	for i, n := range c.Nodes {
		if i != l && n.Store != nil {
			return n.Store
		}
	}
	return c.Nodes[l].Store
}

// Context returns a context bounded for one test step.
func Context(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// testLogger logs through t, so node logs appear only for failed tests.
func testLogger(t testing.TB, name string) *slog.Logger {
	done := &atomic.Bool{}
	t.Cleanup(func() { done.Store(true) })
	return slog.New(slog.NewTextHandler(tWriter{t, done}, &slog.HandlerOptions{Level: slog.LevelWarn})).With("node", name)
}

// tWriter stops logging once the test has finished: raft goroutines may
// still be winding down, and testing panics on a late Log.
type tWriter struct {
	t    testing.TB
	done *atomic.Bool
}

func (w tWriter) Write(p []byte) (int, error) {
	if !w.done.Load() {
		w.t.Log(string(p))
	}
	return len(p), nil
}
