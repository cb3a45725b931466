package nodes

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/raftapi/raftapi/chaos/history"
)

// Status is the part of a node's /raftapi/v1/status the harness reads.
type Status struct {
	Name         string `json:"name"`
	State        string `json:"state"`
	Term         uint64 `json:"term"`
	LeaderID     string `json:"leaderID"`
	AppliedIndex uint64 `json:"appliedIndex"`
}

// members is the part of the members list the harness reads.
type members struct {
	Items []struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Status struct {
			Suffrage string `json:"suffrage"`
			Healthy  bool   `json:"healthy"`
		} `json:"status"`
	} `json:"items"`
}

func (c *Cluster) getJSON(ctx context.Context, n *Node, path string, timeout time.Duration, out any) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, n.API+path, nil)
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("nodes: GET %s%s: HTTP %d", n.API, path, resp.StatusCode)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// Status asks node name for its raft status.
func (c *Cluster) Status(ctx context.Context, name string) (Status, error) {
	var st Status
	n, err := c.Node(name)
	if err != nil {
		return st, err
	}
	return st, c.getJSON(ctx, n, "/raftapi/v1/status", 2*time.Second, &st)
}

// Leader returns the node that says it leads and that a majority of the
// nodes take for the leader.
func (c *Cluster) Leader(ctx context.Context) (string, error) {
	votes := map[string]int{}
	self := map[string]bool{}
	for _, n := range c.nodes {
		if !n.Running() || n.Paused() {
			continue
		}
		st, err := c.Status(ctx, n.Name)
		if err != nil {
			continue
		}
		votes[st.LeaderID]++
		self[n.Name] = st.State == "Leader"
	}
	for name, v := range votes {
		if name != "" && self[name] && v > len(c.nodes)/2 {
			return name, nil
		}
	}
	return "", errors.New("nodes: no leader a majority agrees on")
}

// WaitHealthy waits until every node runs, answers, and takes the same
// node for the leader, and the leader counts every node as a healthy
// voter.
func (c *Cluster) WaitHealthy(ctx context.Context) error {
	var last error
	for {
		if last = c.healthy(ctx); last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("nodes: cluster not healthy: %w", last)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func (c *Cluster) healthy(ctx context.Context) error {
	leader := ""
	for _, n := range c.nodes {
		if !n.Running() || n.Paused() {
			return fmt.Errorf("%s is down", n.Name)
		}
		st, err := c.Status(ctx, n.Name)
		switch {
		case err != nil:
			return err
		case st.LeaderID == "" || (leader != "" && st.LeaderID != leader):
			return fmt.Errorf("%s takes %q for the leader", n.Name, st.LeaderID)
		}
		leader = st.LeaderID
	}
	ln, err := c.Node(leader)
	if err != nil {
		return err
	}
	var m members
	if err := c.getJSON(ctx, ln, "/apis/raftapi.io/v1/members", 3*time.Second, &m); err != nil {
		return err
	}
	voters := 0
	for _, it := range m.Items {
		if it.Status.Suffrage == "Voter" && it.Status.Healthy {
			voters++
		}
	}
	if voters != len(c.nodes) {
		return fmt.Errorf("leader %s counts %d healthy voters of %d", leader, voters, len(c.nodes))
	}
	return nil
}

// Monitor samples every node's status every interval until ctx ends.
func (c *Cluster) Monitor(ctx context.Context, rec *history.Recorder, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		for _, n := range c.nodes {
			rec.Sample(c.sample(ctx, n, interval))
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (c *Cluster) sample(ctx context.Context, n *Node, timeout time.Duration) history.Sample {
	s := history.Sample{Node: n.Name, State: "down"}
	switch {
	case n.Paused():
		s.State = "paused"
	case !n.Running():
	default:
		var st Status
		if err := c.getJSON(ctx, n, "/raftapi/v1/status", timeout, &st); err != nil {
			s.State = "unreachable"
			return s
		}
		s.State, s.Term, s.Leader, s.Applied = st.State, st.Term, st.LeaderID, st.AppliedIndex
	}
	return s
}
