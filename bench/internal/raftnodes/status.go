package raftnodes

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"time"
)

// Status is the part of a node's /raftapi/v1/status the benchmarks read.
type Status struct {
	Name         string `json:"name"`
	State        string `json:"state"`
	LeaderID     string `json:"leaderID"`
	CommitIndex  uint64 `json:"commitIndex"`
	AppliedIndex uint64 `json:"appliedIndex"`
	StateBytes   int64  `json:"stateBytes"`
	LogBytes     int64  `json:"logBytes"`
}

// Status reads node n's raft status.
func (c *Cluster) Status(ctx context.Context, n *Node) (Status, error) {
	var st Status
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	code, body, err := n.Client.Raw(ctx, http.MethodGet, "/raftapi/v1/status", nil)
	if err != nil {
		return st, err
	}
	if code != http.StatusOK {
		return st, fmt.Errorf("raftnodes: %s status: %d %s", n.Name, code, truncate(body, 300))
	}
	if err := json.Unmarshal(body, &st); err != nil {
		return st, fmt.Errorf("raftnodes: %s status: %w", n.Name, err)
	}
	return st, nil
}

// Leader returns the node every running node names as leader.
func (c *Cluster) Leader(ctx context.Context) (*Node, error) {
	var leader string
	for _, n := range c.Nodes {
		if n.proc == nil || !n.proc.Running() {
			continue
		}
		st, err := c.Status(ctx, n)
		if err != nil {
			return nil, err
		}
		if st.LeaderID == "" || (leader != "" && st.LeaderID != leader) {
			return nil, fmt.Errorf("raftnodes: no agreed leader (%s says %q, others %q)", n.Name, st.LeaderID, leader)
		}
		leader = st.LeaderID
	}
	for _, n := range c.Nodes {
		if n.Name == leader {
			return n, nil
		}
	}
	return nil, fmt.Errorf("raftnodes: leader %q is not a member", leader)
}

// Follower returns a running node that is not the leader.
func (c *Cluster) Follower(ctx context.Context) (*Node, error) {
	l, err := c.Leader(ctx)
	if err != nil {
		return nil, err
	}
	for _, n := range c.Nodes {
		if n != l && n.proc != nil && n.proc.Running() {
			return n, nil
		}
	}
	return nil, fmt.Errorf("raftnodes: no running follower")
}

// LeaderIndex returns the index in Nodes of the agreed leader.
func (c *Cluster) LeaderIndex(ctx context.Context) (int, error) {
	l, err := c.Leader(ctx)
	if err != nil {
		return -1, err
	}
	return slices.Index(c.Nodes, l), nil
}

// truncate returns at most the first n bytes of b, for error messages.
func truncate(b []byte, n int) string {
	if len(b) > n {
		b = b[:n]
	}
	return string(b)
}
