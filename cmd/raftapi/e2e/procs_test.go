package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// node is one raftapi process.
type node struct {
	name, dir, api, peer string
	process

	credsMu sync.Mutex
	hc      *http.Client // see httpClient
}

// procCluster is a static cluster of raftapi processes on loopback.
type procCluster struct {
	t     *testing.T
	nodes []*node
	// token is the cluster's --token, given to every node at every start;
	// "" for a single node, which makes its own.
	token string
	// flags are more serve flags for every node at every start.
	flags []string
}

// freeAddr returns a loopback address with a port free right now.
// freeAddr never hands out the same port twice in one test binary: the
// kernel may offer a port again once the probing listener has closed,
// before the process meant to bind it has started.
func freeAddr(t *testing.T) string {
	t.Helper()
	usedMu.Lock()
	defer usedMu.Unlock()
	for {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		if !used[addr] {
			used[addr] = true
			return addr
		}
	}
}

var (
	usedMu sync.Mutex
	used   = map[string]bool{}
)

// startCluster starts n processes forming one cluster, with flags added
// to every node's serve flags, and waits for a leader every node agrees
// on and for every node to be ready (the RBAC bootstrap policy among its
// checks). The nodes of a cluster of several share a new token.
func startCluster(t *testing.T, n int, flags ...string) *procCluster {
	t.Helper()
	c := &procCluster{t: t, flags: flags}
	if n > 1 {
		c.token = newToken()
	}
	var initial []string
	for i := range n {
		nd := &node{name: fmt.Sprintf("n%d", i+1), dir: t.TempDir(), api: freeAddr(t), peer: freeAddr(t)}
		c.nodes = append(c.nodes, nd)
		initial = append(initial, nd.name+"="+nd.peer)
	}
	for i, nd := range c.nodes {
		if n == 1 {
			initial = nil
		}
		c.startNode(i, strings.Join(initial, ","))
		_ = nd
	}
	t.Cleanup(c.stopAll)
	c.waitLeader(-1)
	c.waitReady()
	return c
}

// waitReady waits until every node answers /readyz with 200, as a
// client deployment waits for kube-apiserver (whose readiness includes
// the system namespaces and the RBAC bootstrap policy) before using it.
func (c *procCluster) waitReady() {
	c.t.Helper()
	for _, nd := range c.nodes {
		pollUntil(c.t, 60*time.Second, nd.name+" /readyz", func() error { return readyz(nd.api) })
	}
}

func (c *procCluster) startNode(i int, initial string) { c.startNodeArgs(i, initial) }

// startNodeArgs starts node i with the cluster's token and flags and
// extra serve flags.
func (c *procCluster) startNodeArgs(i int, initial string, extra ...string) {
	c.t.Helper()
	nd := c.nodes[i]
	args := []string{"serve", "--name", nd.name, "--data-dir", nd.dataDir(),
		"--listen", nd.api, "--peer-listen", nd.peer, "--log-level", "warn"}
	if c.token != "" {
		args = append(args, "--token", c.token)
	}
	args = append(append(args, c.flags...), extra...)
	if initial != "" {
		args = append(args, "--initial-cluster", initial)
	}
	nd.spawn(c.t, args)
}

// restart starts a killed node again on its data directory.
func (c *procCluster) restart(i int) { c.startNode(i, "") }

// kill sends SIGKILL to node i and waits for it to exit.
func (c *procCluster) kill(i int) {
	c.nodes[i].kill()
}

func (c *procCluster) signal(i int, sig syscall.Signal) {
	c.nodes[i].process.signal(sig)
}

func (c *procCluster) stopAll() {
	for _, nd := range c.nodes {
		if nd.cmd == nil {
			continue
		}
		if nd.running() {
			nd.signal(syscall.SIGCONT)
			nd.signal(syscall.SIGTERM)
			if !nd.waitExit(10 * time.Second) {
				nd.kill()
			}
		}
		logTail(c.t, nd.name, nd.dir)
	}
}

// status is the part of /raftapi/v1/status the tests read.
type status struct {
	Name          string `json:"name"`
	State         string `json:"state"`
	LeaderID      string `json:"leaderID"`
	AppliedIndex  uint64 `json:"appliedIndex"`
	LeaderChanges uint64 `json:"leaderChanges"`
}

func (c *procCluster) status(i int) (status, error) {
	var st status
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	hc, err := c.nodes[i].httpClient()
	if err != nil {
		return st, err
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, c.nodes[i].url()+"/raftapi/v1/status", nil)
	resp, err := hc.Do(req)
	if err != nil {
		return st, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return st, fmt.Errorf("GET /raftapi/v1/status: %s", resp.Status)
	}
	return st, json.NewDecoder(resp.Body).Decode(&st)
}

// waitLeader waits until every running node except skip agrees on a
// leader that is itself running, and returns its index.
func (c *procCluster) waitLeader(skip int) int {
	c.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if i, ok := c.agreedLeader(skip); ok {
			return i
		}
		time.Sleep(50 * time.Millisecond)
	}
	c.t.Fatalf("no agreed leader within 60s")
	return -1
}

func (c *procCluster) agreedLeader(skip int) (int, bool) {
	leader := ""
	for i := range c.nodes {
		if i == skip {
			continue
		}
		st, err := c.status(i)
		if err != nil || st.LeaderID == "" || (leader != "" && st.LeaderID != leader) {
			return -1, false
		}
		leader = st.LeaderID
	}
	for i, nd := range c.nodes {
		if nd.name == leader && i != skip {
			return i, true
		}
	}
	return -1, false
}
