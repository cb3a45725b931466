package cluster

import (
	"context"
	"fmt"
	"time"
)

// Ready returns nil when the node passes every readiness check of
// /readyz: raft runs, a leader is known, the node has caught up with the
// leader's commit index as of its start, and the system namespaces
// exist. Otherwise it names the first failing check.
func (n *Node) Ready() error {
	for _, c := range n.health.checks("readyz") {
		if err := c.fn(); err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
	}
	return nil
}

// readyPoll is how often WaitReady checks readiness.
const readyPoll = 50 * time.Millisecond

// WaitReady blocks until the node is ready (see Ready), ctx ends, or the
// node stops; it returns nil only in the first case.
func (n *Node) WaitReady(ctx context.Context) error {
	t := time.NewTicker(readyPoll)
	defer t.Stop()
	for {
		err := n.Ready()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("cluster: not ready: %w (%w)", err, ctx.Err())
		case <-n.stop:
			return fmt.Errorf("cluster: stopped before ready: %w", err)
		case <-t.C:
		}
	}
}
